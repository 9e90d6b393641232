package helpdesk

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/intentsrv/intentsrv/operations"
)

// ArticleRef names one knowledge-base article.
type ArticleRef struct {
	ArticleID int `json:"article_id" jsonschema:"minimum=1" jsonschema_description:"Article id, from helpdesk.kb.list or helpdesk.kb.search."`
}

// ArticleSummary is the short form of an article used in lists.
type ArticleSummary struct {
	ID      int    `json:"id"`
	Title   string `json:"title"`
	Section string `json:"section"`
	Status  string `json:"status"`
	Snippet string `json:"snippet"`
	Views   int    `json:"views"`
}

// SearchArticlesInput is a free-text knowledge-base search.
type SearchArticlesInput struct {
	Query         string `json:"query" jsonschema:"minLength=2" jsonschema_description:"Words to look for in titles, bodies and tags."`
	IncludeDrafts bool   `json:"include_drafts,omitempty" jsonschema_description:"Also search unpublished drafts."`
	Page
}

// ListArticlesInput filters and pages articles.
type ListArticlesInput struct {
	Section string `json:"section,omitempty" jsonschema_description:"Only articles in this section, e.g. Billing."`
	Status  string `json:"status,omitempty" jsonschema:"enum=draft,enum=published" jsonschema_description:"Only drafts or only published articles."`
	Page
}

// CreateArticleInput drafts an article.
type CreateArticleInput struct {
	Title   string   `json:"title" jsonschema:"minLength=3,maxLength=200" jsonschema_description:"Article title."`
	Body    string   `json:"body" jsonschema:"minLength=1" jsonschema_description:"Article text."`
	Section string   `json:"section" jsonschema:"minLength=1" jsonschema_description:"Help-center section, e.g. Billing or Getting started."`
	Tags    []string `json:"tags,omitempty" jsonschema_description:"Tags that help search."`
}

// UpdateArticleInput edits an article; omitted fields keep their value.
type UpdateArticleInput struct {
	ArticleRef
	Title   *string  `json:"title,omitempty" jsonschema:"minLength=3,maxLength=200" jsonschema_description:"New title."`
	Body    *string  `json:"body,omitempty" jsonschema:"minLength=1" jsonschema_description:"New text."`
	Section *string  `json:"section,omitempty" jsonschema:"minLength=1" jsonschema_description:"New section."`
	Tags    []string `json:"tags,omitempty" jsonschema_description:"Replacement tags."`
}

// WebhookRef names one webhook.
type WebhookRef struct {
	WebhookID int `json:"webhook_id" jsonschema:"minimum=1" jsonschema_description:"Webhook id, from helpdesk.webhooks.list."`
}

// CreateWebhookInput registers an endpoint.
type CreateWebhookInput struct {
	Name   string   `json:"name" jsonschema:"minLength=1,maxLength=80" jsonschema_description:"Label for the endpoint."`
	URL    string   `json:"url" jsonschema:"format=uri" jsonschema_description:"HTTPS URL that receives POSTed events."`
	Events []string `json:"events" jsonschema:"minItems=1,uniqueItems=true,enum=ticket.created,enum=ticket.updated,enum=ticket.solved,enum=ticket.deleted,enum=comment.added" jsonschema_description:"Events to send."`
}

// UpdateWebhookInput changes a webhook; omitted fields keep their value.
type UpdateWebhookInput struct {
	WebhookRef
	URL    *string  `json:"url,omitempty" jsonschema:"format=uri" jsonschema_description:"New HTTPS URL."`
	Events []string `json:"events,omitempty" jsonschema:"uniqueItems=true,enum=ticket.created,enum=ticket.updated,enum=ticket.solved,enum=ticket.deleted,enum=comment.added" jsonschema_description:"Replacement event list."`
	Active *bool    `json:"active,omitempty" jsonschema_description:"False pauses deliveries; true resumes them."`
}

// WebhookWithSecret is a webhook with its full signing secret, returned
// only when the secret is created or rotated.
type WebhookWithSecret struct {
	Webhook Webhook `json:"webhook"`
	Secret  string  `json:"secret"`
}

func (s *Service) registerKB(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.kb.search",
		Summary:     "Search help-center articles for an answer to send a customer.",
		Description: "Finds published knowledge-base articles mentioning the query words, best matches first, with a snippet of each.",
		Tags:        []string{"kb", "knowledge_base", "help_center", "articles", "docs"},
		Examples: []operations.Example{
			{Intent: "do we have an article on setting up SSO", Params: map[string]any{"query": "single sign-on"}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.searchArticles)

	add(r, operations.Operation{
		ID:          "helpdesk.kb.get",
		Summary:     "Read one help-center article in full.",
		Description: "Returns an article's title, body, section, status and tags.",
		Tags:        []string{"kb", "knowledge_base", "articles"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.getArticle)

	add(r, operations.Operation{
		ID:          "helpdesk.kb.list",
		Summary:     "List knowledge-base articles by section or status.",
		Description: "Pages through articles, most viewed first; filter by section or by draft or published status.",
		Tags:        []string{"kb", "knowledge_base", "articles"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.listArticles)

	add(r, operations.Operation{
		ID:          "helpdesk.kb.create",
		Summary:     "Draft a new help-center article.",
		Description: "Creates an unpublished draft; publish it with helpdesk.kb.publish.",
		Tags:        []string{"kb", "knowledge_base", "articles"},
		Kind:        operations.KindWrite,
	}, s.createArticle)

	add(r, operations.Operation{
		ID:          "helpdesk.kb.update",
		Summary:     "Edit a help-center article's title, text, section or tags.",
		Description: "Updates only the fields given; a published article stays published.",
		Tags:        []string{"kb", "knowledge_base", "articles"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.updateArticle)

	add(r, operations.Operation{
		ID:          "helpdesk.kb.publish",
		Summary:     "Publish a draft article to the help center.",
		Description: "Makes a draft visible to customers. It is not an error to publish a published article.",
		Tags:        []string{"kb", "knowledge_base", "articles"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.publishArticle)

	add(r, operations.Operation{
		ID:          "helpdesk.kb.delete",
		Summary:     "Delete a help-center article.",
		Description: "Removes the article permanently; links to it stop working.",
		Tags:        []string{"kb", "knowledge_base", "articles"},
		Kind:        operations.KindDestructive,
	}, s.deleteArticle)
}

func (s *Service) registerWebhooks(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.webhooks.list",
		Summary:     "List webhooks with their URLs, events and last delivery.",
		Description: "Shows every endpoint that receives ticket events and whether its last delivery succeeded.",
		Tags:        []string{"webhooks", "integrations"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.listWebhooks)

	add(r, operations.Operation{
		ID:          "helpdesk.webhooks.get",
		Summary:     "Get one webhook's configuration and last delivery.",
		Description: "Reads a webhook by id; the secret shows only its last four characters.",
		Tags:        []string{"webhooks", "integrations"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.getWebhook)

	add(r, operations.Operation{
		ID:          "helpdesk.webhooks.create",
		Summary:     "Register a webhook URL to receive ticket events.",
		Description: "Creates an active webhook and returns its signing secret, which is shown only this once.",
		Tags:        []string{"webhooks", "integrations"},
		Examples: []operations.Example{
			{Intent: "send new tickets to our chat bridge", Params: map[string]any{"name": "Chat bridge", "url": "https://bridge.example.com/helpdesk", "events": []string{"ticket.created"}}},
		},
		Kind: operations.KindWrite,
	}, s.createWebhook)

	add(r, operations.Operation{
		ID:          "helpdesk.webhooks.update",
		Summary:     "Change a webhook's URL or events, or pause and resume it.",
		Description: "Updates only the fields given; active=false stops deliveries without deleting the webhook.",
		Tags:        []string{"webhooks", "integrations"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.updateWebhook)

	add(r, operations.Operation{
		ID:          "helpdesk.webhooks.delete",
		Summary:     "Delete a webhook.",
		Description: "Stops all deliveries to the endpoint and removes it.",
		Tags:        []string{"webhooks", "integrations"},
		Kind:        operations.KindDestructive,
	}, s.deleteWebhook)

	add(r, operations.Operation{
		ID:          "helpdesk.webhooks.rotate_secret",
		Summary:     "Rotate a webhook's signing secret.",
		Description: "Issues a new secret and invalidates the old one at once; the receiver rejects deliveries until it is given the new secret.",
		Tags:        []string{"webhooks", "integrations", "security"},
		Kind:        operations.KindDestructive,
	}, s.rotateWebhookSecret)

	add(r, operations.Operation{
		ID:          "helpdesk.webhooks.test",
		Summary:     "Send a test ping event to a webhook and report the result.",
		Description: "Delivers a signed ping to check that the endpoint is reachable and accepts the secret. Paused webhooks are refused.",
		Tags:        []string{"webhooks", "integrations"},
		Kind:        operations.KindWrite,
	}, s.testWebhook)
}

func articleNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("article %d", id),
		"find articles with helpdesk.kb.search or helpdesk.kb.list")
}

func articleSummary(a *Article) ArticleSummary {
	snippet := a.Body
	if len(snippet) > 120 {
		cut := strings.LastIndexByte(snippet[:120], ' ')
		snippet = snippet[:max(cut, 0)] + "…"
	}
	return ArticleSummary{ID: a.ID, Title: a.Title, Section: a.Section, Status: a.Status, Snippet: snippet, Views: a.Views}
}

func articleCopy(a *Article) Article {
	v := *a
	v.Tags = slices.Clone(a.Tags)
	return v
}

func (s *Service) searchArticles(_ context.Context, in SearchArticlesInput) (List[ArticleSummary], error) {
	terms := strings.Fields(strings.ToLower(in.Query))
	s.mu.RLock()
	defer s.mu.RUnlock()
	type hit struct {
		a     *Article
		score int
	}
	var hits []hit
	for _, id := range sortedKeys(s.articles) {
		a := s.articles[id]
		if a.Status != "published" && !in.IncludeDrafts {
			continue
		}
		title := strings.ToLower(a.Title + " " + strings.Join(a.Tags, " "))
		body := strings.ToLower(a.Body)
		score := 0
		for _, t := range terms {
			if strings.Contains(title, t) {
				score += 3 // a word in the title or tags counts more than one in the body
			}
			if strings.Contains(body, t) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{a, score})
		}
	}
	slices.SortStableFunc(hits, func(x, y hit) int { return y.score - x.score })
	out := make([]ArticleSummary, len(hits))
	for i, h := range hits {
		out[i] = articleSummary(h.a)
	}
	return paginate(out, in.Page)
}

func (s *Service) getArticle(_ context.Context, in ArticleRef) (Article, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a, ok := s.articles[in.ArticleID]
	if !ok {
		return Article{}, articleNotFound(in.ArticleID)
	}
	return articleCopy(a), nil
}

func (s *Service) listArticles(_ context.Context, in ListArticlesInput) (List[ArticleSummary], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var as []*Article
	for _, id := range sortedKeys(s.articles) {
		a := s.articles[id]
		if (in.Section == "" || strings.EqualFold(a.Section, in.Section)) && (in.Status == "" || a.Status == in.Status) {
			as = append(as, a)
		}
	}
	slices.SortStableFunc(as, func(x, y *Article) int { return y.Views - x.Views })
	out := make([]ArticleSummary, len(as))
	for i, a := range as {
		out[i] = articleSummary(a)
	}
	return paginate(out, in.Page)
}

func (s *Service) createArticle(_ context.Context, in CreateArticleInput) (Article, error) {
	tags, err := normalizeTags(in.Tags)
	if err != nil {
		return Article{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	a := &Article{ID: s.newID("article"), Title: strings.TrimSpace(in.Title), Body: in.Body,
		Section: strings.TrimSpace(in.Section), Status: "draft", AuthorID: apiUserID, Tags: tags, UpdatedAt: s.now}
	s.articles[a.ID] = a
	s.record(apiUserID, "kb.article_saved", "article", a.ID, a.Title)
	return articleCopy(a), nil
}

func (s *Service) updateArticle(_ context.Context, in UpdateArticleInput) (Article, error) {
	if in.Title == nil && in.Body == nil && in.Section == nil && in.Tags == nil {
		return Article{}, invalidParams("nothing to update", "pass at least one of title, body, section or tags")
	}
	tags, err := normalizeTags(in.Tags)
	if err != nil {
		return Article{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.articles[in.ArticleID]
	if !ok {
		return Article{}, articleNotFound(in.ArticleID)
	}
	s.tick()
	if in.Title != nil {
		a.Title = strings.TrimSpace(*in.Title)
	}
	if in.Body != nil {
		a.Body = *in.Body
	}
	if in.Section != nil {
		a.Section = strings.TrimSpace(*in.Section)
	}
	if in.Tags != nil {
		a.Tags = tags
	}
	a.UpdatedAt = s.now
	s.record(apiUserID, "kb.article_saved", "article", a.ID, a.Title)
	return articleCopy(a), nil
}

func (s *Service) publishArticle(_ context.Context, in ArticleRef) (Article, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.articles[in.ArticleID]
	if !ok {
		return Article{}, articleNotFound(in.ArticleID)
	}
	if a.Status != "published" {
		s.tick()
		a.Status = "published"
		a.UpdatedAt = s.now
		s.record(apiUserID, "kb.article_published", "article", a.ID, a.Title)
	}
	return articleCopy(a), nil
}

func (s *Service) deleteArticle(_ context.Context, in ArticleRef) (DeleteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.articles[in.ArticleID]
	if !ok {
		return DeleteResult{}, articleNotFound(in.ArticleID)
	}
	s.tick()
	delete(s.articles, a.ID)
	s.record(apiUserID, "kb.article_deleted", "article", a.ID, a.Title)
	return DeleteResult{ID: a.ID, Deleted: true}, nil
}

func webhookNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("webhook %d", id), "list webhooks with helpdesk.webhooks.list")
}

// webhookView returns the public form of w, without its secret.
func webhookView(w *webhook) Webhook {
	v := w.Webhook
	v.Events = slices.Clone(w.Events)
	if w.LastDelivery != nil {
		d := *w.LastDelivery
		v.LastDelivery = &d
	}
	return v
}

// checkWebhookURL accepts absolute https URLs with a host.
func checkWebhookURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return invalidParams(fmt.Sprintf("%q is not an absolute https URL", raw),
			"pass a URL such as https://hooks.example.com/helpdesk; plain http is refused")
	}
	return nil
}

func (s *Service) listWebhooks(_ context.Context, in Page) (List[Webhook], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return pageAll(s.webhooks, webhookView, in)
}

func (s *Service) getWebhook(_ context.Context, in WebhookRef) (Webhook, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	w, ok := s.webhooks[in.WebhookID]
	if !ok {
		return Webhook{}, webhookNotFound(in.WebhookID)
	}
	return webhookView(w), nil
}

func (s *Service) createWebhook(_ context.Context, in CreateWebhookInput) (WebhookWithSecret, error) {
	if err := checkWebhookURL(in.URL); err != nil {
		return WebhookWithSecret{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	id := s.newID("webhook")
	secret := s.newSecret(id)
	w := &webhook{Webhook: Webhook{ID: id, Name: strings.TrimSpace(in.Name), URL: in.URL, Events: slices.Clone(in.Events),
		Active: true, SecretLast4: secret[len(secret)-4:], CreatedAt: s.now}, secret: secret}
	s.webhooks[id] = w
	s.record(apiUserID, "webhook.created", "webhook", id, in.URL)
	return WebhookWithSecret{Webhook: webhookView(w), Secret: secret}, nil
}

func (s *Service) updateWebhook(_ context.Context, in UpdateWebhookInput) (Webhook, error) {
	if in.URL != nil {
		if err := checkWebhookURL(*in.URL); err != nil {
			return Webhook{}, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.webhooks[in.WebhookID]
	if !ok {
		return Webhook{}, webhookNotFound(in.WebhookID)
	}
	s.tick()
	if in.URL != nil {
		w.URL = *in.URL
	}
	if len(in.Events) > 0 {
		w.Events = slices.Clone(in.Events)
	}
	if in.Active != nil {
		w.Active = *in.Active
	}
	s.record(apiUserID, "webhook.updated", "webhook", w.ID, w.URL)
	return webhookView(w), nil
}

func (s *Service) deleteWebhook(_ context.Context, in WebhookRef) (DeleteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.webhooks[in.WebhookID]
	if !ok {
		return DeleteResult{}, webhookNotFound(in.WebhookID)
	}
	s.tick()
	delete(s.webhooks, w.ID)
	s.record(apiUserID, "webhook.deleted", "webhook", w.ID, w.URL)
	return DeleteResult{ID: w.ID, Deleted: true}, nil
}

func (s *Service) rotateWebhookSecret(_ context.Context, in WebhookRef) (WebhookWithSecret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.webhooks[in.WebhookID]
	if !ok {
		return WebhookWithSecret{}, webhookNotFound(in.WebhookID)
	}
	s.tick()
	w.secret = s.newSecret(w.ID)
	w.SecretLast4 = w.secret[len(w.secret)-4:]
	s.record(apiUserID, "webhook.secret_rotated", "webhook", w.ID, "")
	return WebhookWithSecret{Webhook: webhookView(w), Secret: w.secret}, nil
}

// testWebhook records a simulated ping delivery: this demonstration service
// never opens network connections.
func (s *Service) testWebhook(_ context.Context, in WebhookRef) (Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.webhooks[in.WebhookID]
	if !ok {
		return Delivery{}, webhookNotFound(in.WebhookID)
	}
	if !w.Active {
		return Delivery{}, operations.Conflict(fmt.Sprintf("webhook %d (%s) is paused", w.ID, w.Name),
			"resume it with helpdesk.webhooks.update active=true, then test again")
	}
	s.tick()
	d := Delivery{Event: "ping", At: s.now, StatusCode: 200, Success: true}
	w.LastDelivery = &d
	s.record(apiUserID, "webhook.tested", "webhook", w.ID, "200")
	return d, nil
}
