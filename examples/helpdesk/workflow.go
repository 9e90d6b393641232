package helpdesk

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// TagCount is a tag with the number of tickets carrying it.
type TagCount struct {
	Name        string `json:"name"`
	Tickets     int    `json:"tickets"`
	OpenTickets int    `json:"open_tickets"`
}

// ListTagsInput pages through tags.
type ListTagsInput struct {
	Prefix string `json:"prefix,omitempty" jsonschema_description:"Only tags starting with this text."`
	Page
}

// TicketTagsInput names a ticket and tags to add to or remove from it.
type TicketTagsInput struct {
	TicketRef
	Tags []string `json:"tags" jsonschema:"minItems=1,maxItems=20" jsonschema_description:"Tags, e.g. [\"vip\", \"billing\"]; case and spaces are normalised to lowercase_with_underscores."`
}

// RenameTagInput renames a tag across the desk.
type RenameTagInput struct {
	From string `json:"from" jsonschema:"minLength=1" jsonschema_description:"Current tag name."`
	To   string `json:"to" jsonschema:"minLength=1" jsonschema_description:"New tag name; tickets already carrying it keep one copy."`
}

// DeleteTagInput removes a tag from every ticket.
type DeleteTagInput struct {
	Tag string `json:"tag" jsonschema:"minLength=1" jsonschema_description:"Tag to remove from every ticket."`
}

// TagChange reports a desk-wide tag change.
type TagChange struct {
	Tag            string `json:"tag"`
	RenamedTo      string `json:"renamed_to,omitempty"`
	TicketsChanged int    `json:"tickets_changed"`
}

// PolicyRef names one SLA policy.
type PolicyRef struct {
	PolicyID int `json:"policy_id" jsonschema:"minimum=1" jsonschema_description:"SLA policy id, from helpdesk.sla.list_policies."`
}

// UpdatePolicyInput changes one priority's targets in a policy.
type UpdatePolicyInput struct {
	PolicyRef
	Priority             string `json:"priority" jsonschema:"enum=low,enum=normal,enum=high,enum=urgent" jsonschema_description:"Priority whose targets change."`
	FirstResponseMinutes int    `json:"first_response_minutes,omitempty" jsonschema:"minimum=1,maximum=43200" jsonschema_description:"New first-response target in minutes."`
	ResolutionMinutes    int    `json:"resolution_minutes,omitempty" jsonschema:"minimum=1,maximum=129600" jsonschema_description:"New resolution target in minutes."`
}

// ListBreachesInput selects tickets by SLA state.
type ListBreachesInput struct {
	State  string `json:"state,omitempty" jsonschema:"enum=breached,enum=at_risk,default=breached" jsonschema_description:"breached: a target is already missed; at_risk: a target is due within a quarter of its time."`
	TeamID int    `json:"team_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only tickets routed to this team."`
	Page
}

// MacroRef names one macro.
type MacroRef struct {
	MacroID int `json:"macro_id" jsonschema:"minimum=1" jsonschema_description:"Macro id, from helpdesk.macros.list."`
}

// CreateMacroInput adds a macro.
type CreateMacroInput struct {
	Title       string       `json:"title" jsonschema:"minLength=1,maxLength=120" jsonschema_description:"Name agents pick the macro by."`
	Description string       `json:"description,omitempty" jsonschema:"maxLength=500" jsonschema_description:"When to use it."`
	Actions     MacroActions `json:"actions" jsonschema_description:"What applying the macro does; set at least one field."`
}

// ApplyMacroInput applies a macro to a ticket.
type ApplyMacroInput struct {
	MacroRef
	TicketRef
}

// ViewRef names one saved view.
type ViewRef struct {
	ViewID int `json:"view_id" jsonschema:"minimum=1" jsonschema_description:"Saved view id, from helpdesk.views.list."`
}

// RunViewInput runs a saved view.
type RunViewInput struct {
	ViewRef
	Sort string `json:"sort,omitempty" jsonschema:"enum=newest,enum=oldest,enum=recently_updated,enum=priority,default=priority" jsonschema_description:"Order of results."`
	Page
}

// CreateViewInput saves a ticket filter.
type CreateViewInput struct {
	Name   string     `json:"name" jsonschema:"minLength=1,maxLength=80" jsonschema_description:"View name."`
	Filter ViewFilter `json:"filter" jsonschema_description:"Which tickets the view shows."`
	Shared bool       `json:"shared,omitempty" jsonschema_description:"Visible to every agent when true."`
}

func (s *Service) registerTags(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.tags.list",
		Summary:     "List tags in use, most used first, with ticket counts.",
		Description: "Shows every tag on any ticket with how many tickets, and how many unsolved tickets, carry it.",
		Tags:        []string{"tags", "labels"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.listTags)

	add(r, operations.Operation{
		ID:          "helpdesk.tags.add",
		Summary:     "Add tags to a ticket.",
		Description: "Adds each tag the ticket does not already carry. Tags are normalised to lowercase with underscores.",
		Tags:        []string{"tags", "labels", "tickets"},
		Examples: []operations.Example{
			{Intent: "tag ticket 42 as vip", Params: map[string]any{"ticket_id": 42, "tags": []string{"vip"}}},
		},
		Kind: operations.KindWrite, Idempotent: true,
	}, s.addTags)

	add(r, operations.Operation{
		ID:          "helpdesk.tags.remove",
		Summary:     "Remove tags from a ticket.",
		Description: "Takes the given tags off one ticket; tags it does not carry are ignored.",
		Tags:        []string{"tags", "labels", "tickets"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.removeTags)

	add(r, operations.Operation{
		ID:          "helpdesk.tags.rename",
		Summary:     "Rename a tag on every ticket that carries it.",
		Description: "Replaces one tag with another across the whole help desk, for example to fix a misspelt tag.",
		Tags:        []string{"tags", "labels"},
		Kind:        operations.KindWrite,
	}, s.renameTag)

	add(r, operations.Operation{
		ID:          "helpdesk.tags.delete",
		Summary:     "Remove a tag from every ticket in the help desk.",
		Description: "Deletes the tag everywhere it is used. To take a tag off one ticket use helpdesk.tags.remove.",
		Tags:        []string{"tags", "labels"},
		Kind:        operations.KindDestructive,
	}, s.deleteTag)
}

func (s *Service) registerSLA(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.sla.list_policies",
		Summary:     "List SLA policies with their first-response and resolution targets per priority.",
		Description: "Shows every service-level policy. Organizations on business and enterprise plans use Premium; others use Standard.",
		Tags:        []string{"sla"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.listPolicies)

	add(r, operations.Operation{
		ID:          "helpdesk.sla.get_policy",
		Summary:     "Get one SLA policy's targets.",
		Description: "Reads a service-level policy: first-response and resolution targets in minutes for each priority.",
		Tags:        []string{"sla"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.getPolicy)

	add(r, operations.Operation{
		ID:          "helpdesk.sla.update_policy",
		Summary:     "Change the first-response or resolution target of one priority in an SLA policy.",
		Description: "Sets new targets, in minutes, for one priority. Tickets are evaluated against the new targets from now on.",
		Tags:        []string{"sla"},
		Examples: []operations.Example{
			{Intent: "urgent tickets on Premium must get a reply within 15 minutes", Params: map[string]any{"policy_id": 2, "priority": "urgent", "first_response_minutes": 15}},
		},
		Kind: operations.KindWrite, Idempotent: true,
	}, s.updatePolicy)

	add(r, operations.Operation{
		ID:          "helpdesk.sla.list_breaches",
		Summary:     "List unsolved tickets that have breached, or are about to breach, their SLA.",
		Description: "Evaluates every unsolved ticket against its organization's policy. state=breached (default) lists missed targets; state=at_risk lists targets due soon.",
		Tags:        []string{"sla", "tickets"},
		Examples: []operations.Example{
			{Intent: "which tickets are overdue", Params: map[string]any{"state": "breached"}},
			{Intent: "tickets about to miss their SLA", Params: map[string]any{"state": "at_risk"}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.listBreaches)

	add(r, operations.Operation{
		ID:          "helpdesk.sla.get_status",
		Summary:     "Show a ticket's SLA clocks: when first response and resolution are due, and whether they were met.",
		Description: "Evaluates one ticket against its policy now.",
		Tags:        []string{"sla", "tickets"},
		Examples: []operations.Example{
			{Intent: "is ticket 42 going to breach", Params: map[string]any{"ticket_id": 42}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.getSLAStatus)
}

func (s *Service) registerMacros(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.macros.list",
		Summary:     "List macros (canned responses), most used first.",
		Description: "Shows every macro with what it does to a ticket when applied.",
		Tags:        []string{"macros", "canned_responses", "templates"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.listMacros)

	add(r, operations.Operation{
		ID:          "helpdesk.macros.get",
		Summary:     "Get one macro with its reply text and ticket changes.",
		Description: "Reads a single macro by id.",
		Tags:        []string{"macros", "canned_responses"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.getMacro)

	add(r, operations.Operation{
		ID:          "helpdesk.macros.create",
		Summary:     "Create a macro: a canned reply plus ticket changes.",
		Description: "Saves a reusable response. Its actions can set status, priority and team, add tags and post a public reply.",
		Tags:        []string{"macros", "canned_responses"},
		Kind:        operations.KindWrite,
	}, s.createMacro)

	add(r, operations.Operation{
		ID:          "helpdesk.macros.apply",
		Summary:     "Apply a macro to a ticket: post its reply and make its changes.",
		Description: "Runs the macro's actions on the ticket in one step and returns the updated ticket.",
		Tags:        []string{"macros", "canned_responses", "tickets"},
		Examples: []operations.Example{
			{Intent: "send the password reset macro on ticket 32", Params: map[string]any{"macro_id": 2, "ticket_id": 32}},
		},
		Kind: operations.KindWrite,
	}, s.applyMacro)

	add(r, operations.Operation{
		ID:          "helpdesk.macros.delete",
		Summary:     "Delete a macro.",
		Description: "Removes the macro for every agent; tickets it was applied to are unchanged.",
		Tags:        []string{"macros", "canned_responses"},
		Kind:        operations.KindDestructive,
	}, s.deleteMacro)
}

func (s *Service) registerViews(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.views.list",
		Summary:     "List saved views (ticket filters).",
		Description: "Shows every saved view with its filter, owner and whether it is shared.",
		Tags:        []string{"views", "queues", "filters"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.listViews)

	add(r, operations.Operation{
		ID:          "helpdesk.views.get",
		Summary:     "Get one saved view's definition.",
		Description: "Reads a view's name and filter; use helpdesk.views.run to see its tickets.",
		Tags:        []string{"views", "filters"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.getView)

	add(r, operations.Operation{
		ID:          "helpdesk.views.run",
		Summary:     "List the tickets a saved view currently matches.",
		Description: "Runs the view's filter, most urgent first by default. View 1 is the unassigned queue, 2 urgent and high, 3 billing, 4 escalations, 5 waiting on customer.",
		Tags:        []string{"views", "queues", "tickets"},
		Examples: []operations.Example{
			{Intent: "what's in the billing queue", Params: map[string]any{"view_id": 3}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.runView)

	add(r, operations.Operation{
		ID:          "helpdesk.views.create",
		Summary:     "Save a ticket filter as a view.",
		Description: "Creates a view from statuses, priorities, assignee, team, tag and unassigned filters.",
		Tags:        []string{"views", "filters"},
		Kind:        operations.KindWrite,
	}, s.createView)

	add(r, operations.Operation{
		ID:          "helpdesk.views.delete",
		Summary:     "Delete a saved view.",
		Description: "Removes the view; the tickets it showed are unchanged.",
		Tags:        []string{"views", "filters"},
		Kind:        operations.KindDestructive,
	}, s.deleteView)
}

// normalizeTags lowercases tags, turns spaces and hyphens into underscores
// and drops duplicates, keeping first-seen order.
func normalizeTags(tags []string) ([]string, error) {
	out := []string{}
	for _, t := range tags {
		n := strings.ToLower(strings.TrimSpace(t))
		n = strings.NewReplacer(" ", "_", "-", "_").Replace(n)
		if n == "" || strings.ContainsFunc(n, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r > 127)
		}) {
			return nil, invalidParams(fmt.Sprintf("tag %q may hold only letters, digits, spaces, hyphens and underscores", t),
				"use plain words such as \"vip\" or \"needs_engineering\"")
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

func normalizeTag(tag string) (string, error) {
	ts, err := normalizeTags([]string{tag})
	if err != nil {
		return "", err
	}
	return ts[0], nil
}

func (s *Service) listTags(_ context.Context, in ListTagsInput) (List[TagCount], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	counts := map[string]*TagCount{}
	for _, t := range s.tickets {
		for _, tag := range t.Tags {
			if !strings.HasPrefix(tag, strings.ToLower(in.Prefix)) {
				continue
			}
			c := counts[tag]
			if c == nil {
				c = &TagCount{Name: tag}
				counts[tag] = c
			}
			c.Tickets++
			if t.Status != StatusSolved && t.Status != StatusClosed {
				c.OpenTickets++
			}
		}
	}
	tags := make([]TagCount, 0, len(counts))
	for _, c := range counts {
		tags = append(tags, *c)
	}
	slices.SortFunc(tags, func(a, b TagCount) int {
		return cmp.Or(b.Tickets-a.Tickets, strings.Compare(a.Name, b.Name))
	})
	return paginate(tags, in.Page)
}

func (s *Service) addTags(_ context.Context, in TicketTagsInput) (Ticket, error) {
	tags, err := normalizeTags(in.Tags)
	if err != nil {
		return Ticket{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Ticket{}, ticketNotFound(in.TicketID)
	}
	var added []string
	for _, tag := range tags {
		if !slices.Contains(t.Tags, tag) {
			added = append(added, tag)
		}
	}
	if len(added) > 0 {
		s.tick()
		t.Tags = append(t.Tags, added...)
		t.UpdatedAt = s.now
		s.record(apiUserID, "ticket.tagged", "ticket", t.ID, "+"+strings.Join(added, " +"))
	}
	return s.ticketView(t), nil
}

func (s *Service) removeTags(_ context.Context, in TicketTagsInput) (Ticket, error) {
	tags, err := normalizeTags(in.Tags)
	if err != nil {
		return Ticket{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Ticket{}, ticketNotFound(in.TicketID)
	}
	kept := slices.DeleteFunc(slices.Clone(t.Tags), func(tag string) bool { return slices.Contains(tags, tag) })
	if len(kept) != len(t.Tags) {
		s.tick()
		t.Tags = kept
		t.UpdatedAt = s.now
		s.record(apiUserID, "ticket.untagged", "ticket", t.ID, "-"+strings.Join(tags, " -"))
	}
	return s.ticketView(t), nil
}

func (s *Service) renameTag(_ context.Context, in RenameTagInput) (TagChange, error) {
	from, err := normalizeTag(in.From)
	if err != nil {
		return TagChange{}, err
	}
	to, err := normalizeTag(in.To)
	if err != nil {
		return TagChange{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res := TagChange{Tag: from, RenamedTo: to}
	for _, id := range sortedKeys(s.tickets) {
		t := s.tickets[id]
		if i := slices.Index(t.Tags, from); i >= 0 {
			if res.TicketsChanged == 0 {
				s.tick()
			}
			if slices.Contains(t.Tags, to) {
				t.Tags = slices.Delete(t.Tags, i, i+1)
			} else {
				t.Tags[i] = to
			}
			t.UpdatedAt = s.now
			res.TicketsChanged++
		}
	}
	if res.TicketsChanged == 0 {
		return TagChange{}, operations.NotFound(fmt.Sprintf("tag %q", from), "list tags in use with helpdesk.tags.list")
	}
	s.record(apiUserID, "tag.renamed", "tag", 0, from+" -> "+to)
	return res, nil
}

func (s *Service) deleteTag(_ context.Context, in DeleteTagInput) (TagChange, error) {
	tag, err := normalizeTag(in.Tag)
	if err != nil {
		return TagChange{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res := TagChange{Tag: tag}
	for _, t := range s.tickets {
		if i := slices.Index(t.Tags, tag); i >= 0 {
			if res.TicketsChanged == 0 {
				s.tick()
			}
			t.Tags = slices.Delete(t.Tags, i, i+1)
			t.UpdatedAt = s.now
			res.TicketsChanged++
		}
	}
	if res.TicketsChanged == 0 {
		return TagChange{}, operations.NotFound(fmt.Sprintf("tag %q", tag), "list tags in use with helpdesk.tags.list")
	}
	s.record(apiUserID, "tag.deleted", "tag", 0, tag)
	return res, nil
}

func policyNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("SLA policy %d", id), "list policies with helpdesk.sla.list_policies")
}

func policyView(p *SLAPolicy) SLAPolicy {
	v := *p
	v.Targets = slices.Clone(p.Targets)
	return v
}

func (s *Service) listPolicies(_ context.Context, in Page) (List[SLAPolicy], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return pageAll(s.policies, policyView, in)
}

func (s *Service) getPolicy(_ context.Context, in PolicyRef) (SLAPolicy, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.policies[in.PolicyID]
	if !ok {
		return SLAPolicy{}, policyNotFound(in.PolicyID)
	}
	return policyView(p), nil
}

func (s *Service) updatePolicy(_ context.Context, in UpdatePolicyInput) (SLAPolicy, error) {
	if in.FirstResponseMinutes == 0 && in.ResolutionMinutes == 0 {
		return SLAPolicy{}, invalidParams("no target given", "pass first_response_minutes, resolution_minutes or both")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.policies[in.PolicyID]
	if !ok {
		return SLAPolicy{}, policyNotFound(in.PolicyID)
	}
	i := slices.IndexFunc(p.Targets, func(t SLATarget) bool { return t.Priority == in.Priority })
	next := p.Targets[i]
	if in.FirstResponseMinutes != 0 {
		next.FirstResponseMinutes = in.FirstResponseMinutes
	}
	if in.ResolutionMinutes != 0 {
		next.ResolutionMinutes = in.ResolutionMinutes
	}
	if next.FirstResponseMinutes > next.ResolutionMinutes {
		return SLAPolicy{}, invalidParams(
			fmt.Sprintf("first response (%d min) would be due after resolution (%d min)", next.FirstResponseMinutes, next.ResolutionMinutes),
			"choose a first-response target no longer than the resolution target")
	}
	s.tick()
	p.Targets[i] = next
	s.record(apiUserID, "sla.policy_updated", "sla_policy", p.ID,
		fmt.Sprintf("%s: first response %d min, resolution %d min", in.Priority, next.FirstResponseMinutes, next.ResolutionMinutes))
	return policyView(p), nil
}

// SLA clock and ticket states.
const (
	slaMet      = "met"
	slaRunning  = "running"
	slaAtRisk   = "at_risk"
	slaBreached = "breached"
)

// clock evaluates one target: due at start+target, stopped at done (nil
// while running), evaluated at now.
func clock(start time.Time, target int, done *time.Time, now time.Time) SLAClock {
	due := start.Add(time.Duration(target) * time.Minute)
	c := SLAClock{DueAt: due}
	switch {
	case done != nil && !done.After(due):
		c.State = slaMet
	case done != nil:
		c.State = slaBreached
	default:
		left := due.Sub(now)
		c.MinutesRemaining = int(left.Minutes())
		switch {
		case left < 0:
			c.State = slaBreached
		case left <= time.Duration(target)*time.Minute/4:
			c.State = slaAtRisk
		default:
			c.State = slaRunning
		}
	}
	return c
}

// slaStatus evaluates t against its organization's policy at the service's
// current time. The caller holds the lock.
func (s *Service) slaStatus(t *Ticket) SLAStatus {
	policyID := 1
	if o, ok := s.orgs[t.OrgID]; ok {
		policyID = o.SLAPolicyID
	}
	p := s.policies[policyID]
	var target SLATarget
	for _, tg := range p.Targets {
		if tg.Priority == t.Priority {
			target = tg
		}
	}
	st := SLAStatus{TicketID: t.ID, Subject: t.Subject, Priority: t.Priority, PolicyID: p.ID, PolicyName: p.Name,
		EvaluatedAt: s.now, AssigneeName: s.userName(t.AssigneeID)}
	responded := t.FirstResponseAt
	if responded == nil && t.SolvedAt != nil {
		responded = t.SolvedAt // solved without a reply: the clock stops at the solve
	}
	st.FirstResponse = clock(t.CreatedAt, target.FirstResponseMinutes, responded, s.now)
	st.Resolution = clock(t.CreatedAt, target.ResolutionMinutes, t.SolvedAt, s.now)
	states := []string{st.FirstResponse.State, st.Resolution.State}
	switch {
	case slices.Contains(states, slaBreached):
		st.State = slaBreached
	case slices.Contains(states, slaAtRisk):
		st.State = slaAtRisk
	case states[0] == slaMet && states[1] == slaMet:
		st.State = slaMet
	default:
		st.State = slaRunning
	}
	return st
}

func (s *Service) listBreaches(_ context.Context, in ListBreachesInput) (List[SLAStatus], error) {
	want := cmpOr(in.State, slaBreached)
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []SLAStatus
	for _, id := range sortedKeys(s.tickets) {
		t := s.tickets[id]
		if t.SolvedAt != nil || t.MergedInto != 0 || (in.TeamID != 0 && t.TeamID != in.TeamID) {
			continue
		}
		if st := s.slaStatus(t); st.State == want {
			out = append(out, st)
		}
	}
	// Most overdue (or closest to breaching) first.
	slices.SortStableFunc(out, func(a, b SLAStatus) int {
		return cmp.Compare(min(a.FirstResponse.dueOrMax(), a.Resolution.dueOrMax()), min(b.FirstResponse.dueOrMax(), b.Resolution.dueOrMax()))
	})
	return paginate(out, in.Page)
}

// dueOrMax returns the due time in Unix seconds for a clock that is still
// counting (or breached), and the largest value for one that was met.
func (c SLAClock) dueOrMax() int64 {
	if c.State == slaMet {
		return 1<<63 - 1
	}
	return c.DueAt.Unix()
}

func (s *Service) getSLAStatus(_ context.Context, in TicketRef) (SLAStatus, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return SLAStatus{}, ticketNotFound(in.TicketID)
	}
	return s.slaStatus(t), nil
}

func macroNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("macro %d", id), "list macros with helpdesk.macros.list")
}

func macroView(m *Macro) Macro {
	v := *m
	v.Actions.AddTags = slices.Clone(m.Actions.AddTags)
	return v
}

func (s *Service) listMacros(_ context.Context, in Page) (List[Macro], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var ms []Macro
	for _, id := range sortedKeys(s.macros) {
		ms = append(ms, macroView(s.macros[id]))
	}
	slices.SortStableFunc(ms, func(a, b Macro) int { return b.UsageCount - a.UsageCount })
	return paginate(ms, in)
}

func (s *Service) getMacro(_ context.Context, in MacroRef) (Macro, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m, ok := s.macros[in.MacroID]
	if !ok {
		return Macro{}, macroNotFound(in.MacroID)
	}
	return macroView(m), nil
}

func (s *Service) createMacro(_ context.Context, in CreateMacroInput) (Macro, error) {
	a := in.Actions
	if a.Status == "" && a.Priority == "" && a.TeamID == 0 && len(a.AddTags) == 0 && a.Reply == "" {
		return Macro{}, invalidParams("the macro does nothing", "set at least one of actions.status, priority, team_id, add_tags or reply")
	}
	tags, err := normalizeTags(a.AddTags)
	if err != nil {
		return Macro{}, err
	}
	a.AddTags = tags
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.TeamID != 0 {
		if _, ok := s.teams[a.TeamID]; !ok {
			return Macro{}, teamNotFound(a.TeamID)
		}
	}
	s.tick()
	m := &Macro{ID: s.newID("macro"), Title: strings.TrimSpace(in.Title), Description: in.Description, Actions: a}
	s.macros[m.ID] = m
	s.record(apiUserID, "macro.created", "macro", m.ID, m.Title)
	return macroView(m), nil
}

func (s *Service) applyMacro(_ context.Context, in ApplyMacroInput) (Ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.macros[in.MacroID]
	if !ok {
		return Ticket{}, macroNotFound(in.MacroID)
	}
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Ticket{}, ticketNotFound(in.TicketID)
	}
	if t.MergedInto != 0 {
		return Ticket{}, operations.Conflict(fmt.Sprintf("ticket %d was merged into ticket %d", t.ID, t.MergedInto),
			fmt.Sprintf("apply the macro to ticket %d instead", t.MergedInto))
	}
	if m.Actions.TeamID != 0 {
		if _, ok := s.teams[m.Actions.TeamID]; !ok {
			return Ticket{}, operations.Conflict(fmt.Sprintf("macro %d routes to team %d, which no longer exists", m.ID, m.Actions.TeamID),
				"fix or delete the macro; list teams with helpdesk.teams.list")
		}
	}
	s.tick()
	a := m.Actions
	if a.Reply != "" {
		first := strings.Fields(s.userName(t.RequesterID) + " there")[0]
		s.addComment(t, apiUserID, strings.ReplaceAll(a.Reply, "{{requester}}", first), true)
	}
	if a.Priority != "" {
		t.Priority = a.Priority
	}
	if a.TeamID != 0 {
		t.TeamID = a.TeamID
	}
	for _, tag := range a.AddTags {
		if !slices.Contains(t.Tags, tag) {
			t.Tags = append(t.Tags, tag)
		}
	}
	if a.Status != "" {
		s.setStatus(t, a.Status)
	} else if a.Reply != "" && t.Status == StatusNew {
		t.Status = StatusOpen
	}
	t.UpdatedAt = s.now
	m.UsageCount++
	s.record(apiUserID, "macro.applied", "ticket", t.ID, m.Title)
	return s.ticketView(t), nil
}

func (s *Service) deleteMacro(_ context.Context, in MacroRef) (DeleteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.macros[in.MacroID]
	if !ok {
		return DeleteResult{}, macroNotFound(in.MacroID)
	}
	s.tick()
	delete(s.macros, m.ID)
	s.record(apiUserID, "macro.deleted", "macro", m.ID, m.Title)
	return DeleteResult{ID: m.ID, Deleted: true}, nil
}

func viewNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("view %d", id), "list saved views with helpdesk.views.list")
}

func viewCopy(v *View) View {
	c := *v
	c.Filter.Statuses = slices.Clone(v.Filter.Statuses)
	c.Filter.Priorities = slices.Clone(v.Filter.Priorities)
	return c
}

func (s *Service) listViews(_ context.Context, in Page) (List[View], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return pageAll(s.views, viewCopy, in)
}

func (s *Service) getView(_ context.Context, in ViewRef) (View, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.views[in.ViewID]
	if !ok {
		return View{}, viewNotFound(in.ViewID)
	}
	return viewCopy(v), nil
}

func (s *Service) runView(_ context.Context, in RunViewInput) (List[TicketSummary], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.views[in.ViewID]
	if !ok {
		return List[TicketSummary]{}, viewNotFound(in.ViewID)
	}
	var hits []*Ticket
	for _, t := range s.tickets {
		if v.Filter.matches(t) {
			hits = append(hits, t)
		}
	}
	return s.pageTickets(hits, cmpOr(in.Sort, "priority"), in.Page)
}

func (s *Service) createView(_ context.Context, in CreateViewInput) (View, error) {
	f := in.Filter
	if f.Unassigned && f.AssigneeID != 0 {
		return View{}, invalidParams("a view cannot be both unassigned and assigned to someone",
			"drop either filter.unassigned or filter.assignee_id")
	}
	if f.Tag != "" {
		tag, err := normalizeTag(f.Tag)
		if err != nil {
			return View{}, err
		}
		f.Tag = tag
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.AssigneeID != 0 {
		if _, ok := s.users[f.AssigneeID]; !ok {
			return View{}, userNotFound(f.AssigneeID)
		}
	}
	if f.TeamID != 0 {
		if _, ok := s.teams[f.TeamID]; !ok {
			return View{}, teamNotFound(f.TeamID)
		}
	}
	s.tick()
	v := &View{ID: s.newID("view"), Name: strings.TrimSpace(in.Name), Filter: f, Shared: in.Shared, OwnerID: apiUserID, CreatedAt: s.now}
	s.views[v.ID] = v
	s.record(apiUserID, "view.created", "view", v.ID, v.Name)
	return viewCopy(v), nil
}

func (s *Service) deleteView(_ context.Context, in ViewRef) (DeleteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.views[in.ViewID]
	if !ok {
		return DeleteResult{}, viewNotFound(in.ViewID)
	}
	s.tick()
	delete(s.views, v.ID)
	s.record(apiUserID, "view.deleted", "view", v.ID, v.Name)
	return DeleteResult{ID: v.ID, Deleted: true}, nil
}
