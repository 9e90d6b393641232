package helpdesk

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// TicketRef names one ticket; it is embedded in the input of operations
// that act on a single ticket.
type TicketRef struct {
	TicketID int `json:"ticket_id" jsonschema:"minimum=1" jsonschema_description:"Ticket number, e.g. 42."`
}

// TicketSummary is the short form of a ticket used in lists.
type TicketSummary struct {
	ID           int       `json:"id"`
	Subject      string    `json:"subject"`
	Status       string    `json:"status"`
	Priority     string    `json:"priority"`
	AssigneeName string    `json:"assignee_name,omitempty"`
	TeamName     string    `json:"team_name,omitempty"`
	OrgName      string    `json:"org_name,omitempty"`
	Tags         []string  `json:"tags"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// ListTicketsInput filters and pages tickets.
type ListTicketsInput struct {
	Status      string `json:"status,omitempty" jsonschema:"enum=new,enum=open,enum=pending,enum=on_hold,enum=solved,enum=closed" jsonschema_description:"Only tickets in this status."`
	Priority    string `json:"priority,omitempty" jsonschema:"enum=low,enum=normal,enum=high,enum=urgent" jsonschema_description:"Only tickets with this priority."`
	AssigneeID  int    `json:"assignee_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only tickets assigned to this agent (user id)."`
	Unassigned  bool   `json:"unassigned,omitempty" jsonschema_description:"Only tickets nobody is assigned to."`
	TeamID      int    `json:"team_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only tickets routed to this team."`
	RequesterID int    `json:"requester_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only tickets filed by this user."`
	OrgID       int    `json:"org_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only tickets from this customer organization."`
	Tag         string `json:"tag,omitempty" jsonschema_description:"Only tickets carrying this tag."`
	Sort        string `json:"sort,omitempty" jsonschema:"enum=newest,enum=oldest,enum=recently_updated,enum=priority,default=newest" jsonschema_description:"Order of results."`
	Page
}

// SearchTicketsInput is a free-text ticket search.
type SearchTicketsInput struct {
	Query  string `json:"query" jsonschema:"minLength=2" jsonschema_description:"Words to look for in subjects, descriptions, comments, requester and organization names."`
	Status string `json:"status,omitempty" jsonschema:"enum=new,enum=open,enum=pending,enum=on_hold,enum=solved,enum=closed" jsonschema_description:"Only tickets in this status."`
	Page
}

// CreateTicketInput opens a ticket.
type CreateTicketInput struct {
	Subject     string   `json:"subject" jsonschema:"minLength=3,maxLength=200" jsonschema_description:"One-line summary of the request."`
	Description string   `json:"description" jsonschema:"minLength=1" jsonschema_description:"The request in the requester's words."`
	Priority    string   `json:"priority,omitempty" jsonschema:"enum=low,enum=normal,enum=high,enum=urgent,default=normal" jsonschema_description:"How urgent the request is."`
	Type        string   `json:"type,omitempty" jsonschema:"enum=question,enum=incident,enum=problem,enum=task,default=question" jsonschema_description:"Kind of request."`
	Channel     string   `json:"channel,omitempty" jsonschema:"enum=email,enum=web,enum=chat,enum=phone,enum=api,default=api" jsonschema_description:"Where the request came in."`
	RequesterID int      `json:"requester_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"User who asked; defaults to the API integration user."`
	TeamID      int      `json:"team_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Team to route the ticket to."`
	Tags        []string `json:"tags,omitempty" jsonschema_description:"Initial tags, lowercase."`
}

// UpdateTicketInput changes ticket fields; omitted fields keep their value.
type UpdateTicketInput struct {
	TicketRef
	Subject  *string `json:"subject,omitempty" jsonschema:"minLength=3,maxLength=200" jsonschema_description:"New subject."`
	Status   *string `json:"status,omitempty" jsonschema:"enum=new,enum=open,enum=pending,enum=on_hold,enum=solved,enum=closed" jsonschema_description:"New status."`
	Priority *string `json:"priority,omitempty" jsonschema:"enum=low,enum=normal,enum=high,enum=urgent" jsonschema_description:"New priority."`
	Type     *string `json:"type,omitempty" jsonschema:"enum=question,enum=incident,enum=problem,enum=task" jsonschema_description:"New ticket type."`
	TeamID   *int    `json:"team_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Team to route the ticket to."`
}

// AssignTicketInput gives a ticket to an agent.
type AssignTicketInput struct {
	TicketRef
	AssigneeID int `json:"assignee_id" jsonschema:"minimum=1" jsonschema_description:"Agent or admin to assign (user id); find one with helpdesk.users.list role=agent."`
	TeamID     int `json:"team_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Team to route to as well; defaults to the agent's team when the ticket's team is not theirs."`
}

// CloseTicketInput closes a ticket.
type CloseTicketInput struct {
	TicketRef
	Resolution string `json:"resolution,omitempty" jsonschema:"maxLength=2000" jsonschema_description:"Closing reply posted publicly on the ticket."`
}

// ReopenTicketInput reopens a solved or closed ticket.
type ReopenTicketInput struct {
	TicketRef
	Reason string `json:"reason,omitempty" jsonschema:"maxLength=2000" jsonschema_description:"Why the ticket is reopened; saved as an internal note."`
}

// EscalateTicketInput escalates a ticket to engineering.
type EscalateTicketInput struct {
	TicketRef
	Reason string `json:"reason" jsonschema:"minLength=3,maxLength=2000" jsonschema_description:"Why it needs escalating; saved as an internal note."`
}

// MergeTicketsInput merges duplicates into one ticket.
type MergeTicketsInput struct {
	SourceTicketIDs []int `json:"source_ticket_ids" jsonschema:"minItems=1,maxItems=20,uniqueItems=true,minimum=1" jsonschema_description:"Duplicate tickets to fold into the target; they are closed."`
	TargetTicketID  int   `json:"target_ticket_id" jsonschema:"minimum=1" jsonschema_description:"Ticket that keeps the conversation."`
}

// MergeResult reports a merge.
type MergeResult struct {
	Target    Ticket `json:"target"`
	MergedIDs []int  `json:"merged_ids"`
}

// DeleteTicketResult reports a deletion.
type DeleteTicketResult struct {
	TicketID           int  `json:"ticket_id"`
	Deleted            bool `json:"deleted"`
	CommentsDeleted    int  `json:"comments_deleted"`
	AttachmentsDeleted int  `json:"attachments_deleted"`
}

func (s *Service) registerTickets(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.tickets.get",
		Summary:     "Get one ticket with its status, priority, assignee, requester and tags.",
		Description: "Reads a single ticket by number. Use it to see who a ticket is assigned to, its status and priority, who filed it and when it was answered.",
		Tags:        []string{"tickets"},
		Aliases:     []string{"helpdesk.tickets.show"},
		Examples: []operations.Example{
			{Intent: "who is assigned to ticket 42", Params: map[string]any{"ticket_id": 42}},
			{Intent: "show me ticket 7", Params: map[string]any{"ticket_id": 7}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.getTicket)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.list",
		Summary:     "List tickets, filtered by status, priority, assignee, team, requester, organization or tag.",
		Description: "Pages through tickets matching every filter given. Use unassigned=true for the unassigned queue and sort=priority to see the most urgent first.",
		Tags:        []string{"tickets"},
		Examples: []operations.Example{
			{Intent: "open urgent tickets", Params: map[string]any{"status": "open", "priority": "urgent"}},
			{Intent: "tickets nobody is working on", Params: map[string]any{"unassigned": true}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.listTickets)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.search",
		Summary:     "Full-text search of tickets by words in subject, description and comments.",
		Description: "Finds tickets mentioning the query words, best matches first. Use it when you know what a ticket is about but not its number.",
		Tags:        []string{"tickets", "search"},
		Examples: []operations.Example{
			{Intent: "find tickets about the checkout 502 error", Params: map[string]any{"query": "checkout 502"}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.searchTickets)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.create",
		Summary:     "Open a new ticket on behalf of a customer.",
		Description: "Creates a ticket and returns it with its new number. Priority defaults to normal; the requester defaults to the API integration user.",
		Tags:        []string{"tickets"},
		Examples: []operations.Example{
			{Intent: "file a ticket: the invoice page is blank", Params: map[string]any{"subject": "Invoice page is blank", "description": "The invoice page shows nothing since this morning.", "priority": "high"}},
		},
		Kind: operations.KindWrite,
	}, s.createTicket)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.update",
		Summary:     "Change a ticket's subject, status, priority, type or team.",
		Description: "Updates only the fields given. Setting status to solved records the solve time; use helpdesk.tickets.assign to change the assignee.",
		Tags:        []string{"tickets"},
		Examples: []operations.Example{
			{Intent: "set ticket 13 to pending", Params: map[string]any{"ticket_id": 13, "status": "pending"}},
			{Intent: "bump ticket 24 to high priority", Params: map[string]any{"ticket_id": 24, "priority": "high"}},
		},
		Kind: operations.KindWrite, Idempotent: true,
	}, s.updateTicket)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.assign",
		Summary:     "Assign a ticket to an agent.",
		Description: "Makes an active agent or admin the ticket's assignee; a new ticket becomes open. Routes the ticket to the agent's team when its current team is not theirs.",
		Tags:        []string{"tickets", "routing"},
		Aliases:     []string{"helpdesk.tickets.reassign"},
		Examples: []operations.Example{
			{Intent: "give ticket 24 to Amara", Params: map[string]any{"ticket_id": 24, "assignee_id": 6}},
		},
		Kind: operations.KindWrite, Idempotent: true,
	}, s.assignTicket)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.unassign",
		Summary:     "Remove the assignee from a ticket, returning it to its team's queue.",
		Description: "Clears the assignee; the ticket keeps its team and status. It is not an error to unassign a ticket nobody holds.",
		Tags:        []string{"tickets", "routing"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.unassignTicket)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.close",
		Summary:     "Close a ticket, optionally posting a closing reply.",
		Description: "Sets the ticket to closed. A closed ticket can be reopened with helpdesk.tickets.reopen.",
		Tags:        []string{"tickets"},
		Examples: []operations.Example{
			{Intent: "close ticket 26, refund sent", Params: map[string]any{"ticket_id": 26, "resolution": "The refund has been issued."}},
		},
		Kind: operations.KindWrite,
	}, s.closeTicket)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.reopen",
		Summary:     "Reopen a solved or closed ticket.",
		Description: "Sets a solved or closed ticket back to open and clears its solve time. Tickets merged into another cannot be reopened.",
		Tags:        []string{"tickets"},
		Kind:        operations.KindWrite,
	}, s.reopenTicket)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.escalate",
		Summary:     "Escalate a ticket to Technical Escalations and raise its priority one step.",
		Description: "Routes the ticket to the engineering escalation team, raises its priority one level (up to urgent), tags it escalated and records the reason as an internal note.",
		Tags:        []string{"tickets", "routing"},
		Examples: []operations.Example{
			{Intent: "escalate ticket 19, imports failing for everyone", Params: map[string]any{"ticket_id": 19, "reason": "Imports failing for every customer."}},
		},
		Kind: operations.KindWrite,
	}, s.escalateTicket)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.merge",
		Summary:     "Merge duplicate tickets into one; the duplicates are closed.",
		Description: "Moves the comments, attachments and tags of each source ticket onto the target and closes the sources with merged_into set. This cannot be undone.",
		Tags:        []string{"tickets"},
		Examples: []operations.Example{
			{Intent: "43 is a duplicate of 42, merge them", Params: map[string]any{"source_ticket_ids": []int{43}, "target_ticket_id": 42}},
		},
		Kind:    operations.KindDestructive,
		Preview: operations.TypedPreview(s.previewMerge),
	}, s.mergeTickets)

	add(r, operations.Operation{
		ID:          "helpdesk.tickets.delete",
		Summary:     "Permanently delete a ticket with its comments and attachments.",
		Description: "Removes the ticket and everything on it. Prefer helpdesk.tickets.close unless the ticket is spam or was filed by mistake.",
		Tags:        []string{"tickets"},
		Examples: []operations.Example{
			{Intent: "delete spam ticket 48", Params: map[string]any{"ticket_id": 48}},
		},
		Kind:    operations.KindDestructive,
		Preview: operations.TypedPreview(s.previewDelete),
	}, s.deleteTicket)
}

// ticketView returns a copy of t with names resolved. The caller holds the
// lock.
func (s *Service) ticketView(t *Ticket) Ticket {
	v := *t
	v.Tags = slices.Clone(t.Tags)
	if v.Tags == nil {
		v.Tags = []string{}
	}
	v.RequesterName = s.userName(t.RequesterID)
	v.AssigneeName = s.userName(t.AssigneeID)
	if tm, ok := s.teams[t.TeamID]; ok {
		v.TeamName = tm.Name
	}
	if o, ok := s.orgs[t.OrgID]; ok {
		v.OrgName = o.Name
	}
	return v
}

func (s *Service) ticketSummary(t *Ticket) TicketSummary {
	v := s.ticketView(t)
	return TicketSummary{ID: v.ID, Subject: v.Subject, Status: v.Status, Priority: v.Priority,
		AssigneeName: v.AssigneeName, TeamName: v.TeamName, OrgName: v.OrgName, Tags: v.Tags,
		UpdatedAt: v.UpdatedAt}
}

// matches reports whether t passes every set field of f.
func (f ViewFilter) matches(t *Ticket) bool {
	switch {
	case len(f.Statuses) > 0 && !slices.Contains(f.Statuses, t.Status),
		len(f.Priorities) > 0 && !slices.Contains(f.Priorities, t.Priority),
		f.AssigneeID != 0 && t.AssigneeID != f.AssigneeID,
		f.TeamID != 0 && t.TeamID != f.TeamID,
		f.Tag != "" && !slices.Contains(t.Tags, f.Tag),
		f.Unassigned && t.AssigneeID != 0:
		return false
	}
	return true
}

// sortTickets orders ts in place by one of the sort keys of
// ListTicketsInput; ties break on id.
func sortTickets(ts []*Ticket, by string) {
	slices.SortFunc(ts, func(a, b *Ticket) int {
		var c int
		switch by {
		case "oldest":
			c = a.CreatedAt.Compare(b.CreatedAt)
		case "recently_updated":
			c = b.UpdatedAt.Compare(a.UpdatedAt)
		case "priority":
			c = priorityRank[b.Priority] - priorityRank[a.Priority]
			if c == 0 {
				c = a.CreatedAt.Compare(b.CreatedAt)
			}
		default: // newest
			c = b.CreatedAt.Compare(a.CreatedAt)
		}
		if c == 0 {
			c = a.ID - b.ID
		}
		return c
	})
}

func (s *Service) getTicket(_ context.Context, in TicketRef) (Ticket, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Ticket{}, ticketNotFound(in.TicketID)
	}
	return s.ticketView(t), nil
}

func (s *Service) listTickets(_ context.Context, in ListTicketsInput) (List[TicketSummary], error) {
	f := ViewFilter{AssigneeID: in.AssigneeID, TeamID: in.TeamID, Tag: in.Tag, Unassigned: in.Unassigned}
	if in.Status != "" {
		f.Statuses = []string{in.Status}
	}
	if in.Priority != "" {
		f.Priorities = []string{in.Priority}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var hits []*Ticket
	for _, t := range s.tickets {
		if f.matches(t) && (in.RequesterID == 0 || t.RequesterID == in.RequesterID) && (in.OrgID == 0 || t.OrgID == in.OrgID) {
			hits = append(hits, t)
		}
	}
	return s.pageTickets(hits, in.Sort, in.Page)
}

// pageTickets sorts hits and returns the page of summaries p selects. The
// caller holds the lock.
func (s *Service) pageTickets(hits []*Ticket, sortBy string, p Page) (List[TicketSummary], error) {
	sortTickets(hits, sortBy)
	page, err := paginate(hits, p)
	if err != nil {
		return List[TicketSummary]{}, err
	}
	out := List[TicketSummary]{Items: make([]TicketSummary, len(page.Items)), NextCursor: page.NextCursor, Total: page.Total}
	for i, t := range page.Items {
		out.Items[i] = s.ticketSummary(t)
	}
	return out, nil
}

func (s *Service) searchTickets(_ context.Context, in SearchTicketsInput) (List[TicketSummary], error) {
	terms := strings.Fields(strings.ToLower(in.Query))
	s.mu.RLock()
	defer s.mu.RUnlock()
	text := map[int]*strings.Builder{}
	for _, t := range s.tickets {
		b := &strings.Builder{}
		fmt.Fprintf(b, "%s\n%s\n%s\n%s\n%s", t.Subject, t.Description, s.userName(t.RequesterID), strings.Join(t.Tags, " "), s.orgName(t.OrgID))
		text[t.ID] = b
	}
	for _, c := range s.comments {
		if b, ok := text[c.TicketID]; ok {
			b.WriteString("\n" + c.Body)
		}
	}
	score := map[int]int{}
	var hits []*Ticket
	for id, b := range text {
		hay := strings.ToLower(b.String())
		n := 0
		for _, term := range terms {
			if strings.Contains(hay, term) {
				n++
			}
		}
		t := s.tickets[id]
		if n > 0 && (in.Status == "" || t.Status == in.Status) {
			score[id] = n
			hits = append(hits, t)
		}
	}
	// Best matches first, newest first among equals.
	sortTickets(hits, "newest")
	slices.SortStableFunc(hits, func(a, b *Ticket) int { return score[b.ID] - score[a.ID] })
	page, err := paginate(hits, in.Page)
	if err != nil {
		return List[TicketSummary]{}, err
	}
	out := List[TicketSummary]{Items: make([]TicketSummary, len(page.Items)), NextCursor: page.NextCursor, Total: page.Total}
	for i, t := range page.Items {
		out.Items[i] = s.ticketSummary(t)
	}
	return out, nil
}

func (s *Service) orgName(id int) string {
	if o, ok := s.orgs[id]; ok {
		return o.Name
	}
	return ""
}

func (s *Service) createTicket(_ context.Context, in CreateTicketInput) (Ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	requester := in.RequesterID
	if requester == 0 {
		requester = apiUserID
	}
	u, ok := s.users[requester]
	if !ok {
		return Ticket{}, userNotFound(requester)
	}
	if in.TeamID != 0 {
		if _, ok := s.teams[in.TeamID]; !ok {
			return Ticket{}, teamNotFound(in.TeamID)
		}
	}
	tags, err := normalizeTags(in.Tags)
	if err != nil {
		return Ticket{}, err
	}
	now := s.tick()
	t := &Ticket{
		ID: s.newID("ticket"), Subject: strings.TrimSpace(in.Subject), Description: in.Description,
		Status: StatusNew, Priority: cmpOr(in.Priority, PriorityNormal), Type: cmpOr(in.Type, "question"),
		Channel: cmpOr(in.Channel, "api"), RequesterID: requester, TeamID: in.TeamID, OrgID: u.OrgID,
		Tags: tags, CreatedAt: now, UpdatedAt: now,
	}
	s.tickets[t.ID] = t
	s.record(apiUserID, "ticket.created", "ticket", t.ID, t.Subject)
	return s.ticketView(t), nil
}

// cmpOr returns v, or def when v is empty.
func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func (s *Service) updateTicket(_ context.Context, in UpdateTicketInput) (Ticket, error) {
	if in.Subject == nil && in.Status == nil && in.Priority == nil && in.Type == nil && in.TeamID == nil {
		return Ticket{}, invalidParams("nothing to update",
			"pass at least one of subject, status, priority, type or team_id")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Ticket{}, ticketNotFound(in.TicketID)
	}
	if in.TeamID != nil {
		if _, ok := s.teams[*in.TeamID]; !ok {
			return Ticket{}, teamNotFound(*in.TeamID)
		}
	}
	now := s.tick()
	var changes []string
	set := func(field string, dst *string, v *string) {
		if v != nil && *dst != *v {
			changes = append(changes, fmt.Sprintf("%s: %s -> %s", field, *dst, *v))
			*dst = *v
		}
	}
	set("subject", &t.Subject, in.Subject)
	set("priority", &t.Priority, in.Priority)
	set("type", &t.Type, in.Type)
	if in.Status != nil && *in.Status != t.Status {
		s.setStatus(t, *in.Status)
		changes = append(changes, "status -> "+*in.Status)
	}
	if in.TeamID != nil && *in.TeamID != t.TeamID {
		t.TeamID = *in.TeamID
		changes = append(changes, "team -> "+s.teams[t.TeamID].Name)
	}
	if len(changes) > 0 {
		t.UpdatedAt = now
		s.record(apiUserID, "ticket.updated", "ticket", t.ID, strings.Join(changes, "; "))
	}
	return s.ticketView(t), nil
}

// setStatus moves t to status, keeping SolvedAt consistent. The caller
// holds the write lock.
func (s *Service) setStatus(t *Ticket, status string) {
	t.Status = status
	switch status {
	case StatusSolved, StatusClosed:
		if t.SolvedAt == nil {
			at := s.now
			t.SolvedAt = &at
		}
	default:
		t.SolvedAt = nil
	}
}

// agent returns the active agent or admin with the given id, or an error
// saying why the user cannot work tickets. The caller holds the lock.
func (s *Service) agent(id int) (*User, error) {
	u, ok := s.users[id]
	if !ok {
		return nil, userNotFound(id)
	}
	if u.Role == RoleCustomer {
		return nil, invalidParams(fmt.Sprintf("user %d (%s) is a customer, not an agent", id, u.Name),
			"pick an agent with helpdesk.users.list and role=agent")
	}
	if !u.Active {
		return nil, operations.Conflict(fmt.Sprintf("user %d (%s) is deactivated", id, u.Name),
			"pick an active agent with helpdesk.users.list and role=agent")
	}
	return u, nil
}

func (s *Service) assignTicket(_ context.Context, in AssignTicketInput) (Ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Ticket{}, ticketNotFound(in.TicketID)
	}
	u, err := s.agent(in.AssigneeID)
	if err != nil {
		return Ticket{}, err
	}
	if in.TeamID != 0 {
		if _, ok := s.teams[in.TeamID]; !ok {
			return Ticket{}, teamNotFound(in.TeamID)
		}
	}
	s.tick()
	t.AssigneeID = u.ID
	switch {
	case in.TeamID != 0:
		t.TeamID = in.TeamID
	case !slices.Contains(u.TeamIDs, t.TeamID) && len(u.TeamIDs) > 0:
		t.TeamID = u.TeamIDs[0]
	}
	if t.Status == StatusNew {
		t.Status = StatusOpen
	}
	t.UpdatedAt = s.now
	s.record(apiUserID, "ticket.assigned", "ticket", t.ID, "assigned to "+u.Name)
	return s.ticketView(t), nil
}

func (s *Service) unassignTicket(_ context.Context, in TicketRef) (Ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Ticket{}, ticketNotFound(in.TicketID)
	}
	if t.AssigneeID != 0 {
		s.tick()
		s.record(apiUserID, "ticket.unassigned", "ticket", t.ID, "was "+s.userName(t.AssigneeID))
		t.AssigneeID = 0
		t.UpdatedAt = s.now
	}
	return s.ticketView(t), nil
}

// addComment stores a comment. The caller holds the write lock and has
// ticked the clock.
func (s *Service) addComment(t *Ticket, author int, body string, public bool) *Comment {
	c := &Comment{ID: s.newID("comment"), TicketID: t.ID, AuthorID: author, Body: body, Public: public, CreatedAt: s.now}
	s.comments[c.ID] = c
	if public && author != t.RequesterID && t.FirstResponseAt == nil {
		at := s.now
		t.FirstResponseAt = &at
	}
	t.UpdatedAt = s.now
	return c
}

func (s *Service) closeTicket(_ context.Context, in CloseTicketInput) (Ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Ticket{}, ticketNotFound(in.TicketID)
	}
	if t.Status == StatusClosed {
		return Ticket{}, operations.Conflict(fmt.Sprintf("ticket %d is already closed", t.ID),
			"nothing to do; reopen it with helpdesk.tickets.reopen if the issue is back")
	}
	s.tick()
	if in.Resolution != "" {
		s.addComment(t, apiUserID, in.Resolution, true)
	}
	s.setStatus(t, StatusClosed)
	t.UpdatedAt = s.now
	s.record(apiUserID, "ticket.status_changed", "ticket", t.ID, "-> closed")
	return s.ticketView(t), nil
}

func (s *Service) reopenTicket(_ context.Context, in ReopenTicketInput) (Ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Ticket{}, ticketNotFound(in.TicketID)
	}
	if t.MergedInto != 0 {
		return Ticket{}, operations.Conflict(fmt.Sprintf("ticket %d was merged into ticket %d", t.ID, t.MergedInto),
			fmt.Sprintf("work on ticket %d instead; read it with helpdesk.tickets.get", t.MergedInto))
	}
	if t.Status != StatusSolved && t.Status != StatusClosed {
		return Ticket{}, operations.Conflict(fmt.Sprintf("ticket %d is %s, not solved or closed", t.ID, t.Status),
			"only solved or closed tickets can be reopened; change other statuses with helpdesk.tickets.update")
	}
	s.tick()
	if in.Reason != "" {
		s.addComment(t, apiUserID, in.Reason, false)
	}
	s.setStatus(t, StatusOpen)
	t.UpdatedAt = s.now
	s.record(apiUserID, "ticket.status_changed", "ticket", t.ID, "-> open (reopened)")
	return s.ticketView(t), nil
}

// escalationTeamID is the team escalated tickets go to.
const escalationTeamID = 3

func (s *Service) escalateTicket(_ context.Context, in EscalateTicketInput) (Ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Ticket{}, ticketNotFound(in.TicketID)
	}
	if t.Status == StatusSolved || t.Status == StatusClosed {
		return Ticket{}, operations.Conflict(fmt.Sprintf("ticket %d is %s", t.ID, t.Status),
			"reopen it first with helpdesk.tickets.reopen")
	}
	s.tick()
	t.Priority = priorities[min(priorityRank[t.Priority]+1, len(priorities)-1)]
	t.TeamID = escalationTeamID
	if !slices.Contains(t.Tags, "escalated") {
		t.Tags = append(t.Tags, "escalated")
	}
	s.addComment(t, apiUserID, "Escalated: "+in.Reason, false)
	s.record(apiUserID, "ticket.escalated", "ticket", t.ID, in.Reason)
	return s.ticketView(t), nil
}

func (s *Service) mergeTickets(_ context.Context, in MergeTicketsInput) (MergeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	target, ok := s.tickets[in.TargetTicketID]
	if !ok {
		return MergeResult{}, ticketNotFound(in.TargetTicketID)
	}
	if target.MergedInto != 0 {
		return MergeResult{}, operations.Conflict(fmt.Sprintf("target ticket %d was itself merged into %d", target.ID, target.MergedInto),
			fmt.Sprintf("merge into ticket %d instead", target.MergedInto))
	}
	for _, id := range in.SourceTicketIDs {
		src, ok := s.tickets[id]
		if !ok {
			return MergeResult{}, ticketNotFound(id)
		}
		if id == target.ID {
			return MergeResult{}, invalidParams("a ticket cannot be merged into itself",
				"remove the target's id from source_ticket_ids")
		}
		if src.MergedInto != 0 {
			return MergeResult{}, operations.Conflict(fmt.Sprintf("ticket %d was already merged into %d", id, src.MergedInto),
				"remove it from source_ticket_ids")
		}
	}
	s.tick()
	for _, id := range in.SourceTicketIDs {
		src := s.tickets[id]
		for _, c := range s.comments {
			if c.TicketID == id {
				c.TicketID = target.ID
			}
		}
		for _, a := range s.attachments {
			if a.TicketID == id {
				a.TicketID = target.ID
			}
		}
		tags := map[string]bool{}
		for _, tag := range append(slices.Clone(target.Tags), src.Tags...) {
			tags[tag] = true
		}
		target.Tags = slices.Sorted(maps.Keys(tags))
		s.addComment(target, apiUserID, fmt.Sprintf("Merged ticket %d (%s) into this ticket.", id, src.Subject), false)
		s.setStatus(src, StatusClosed)
		src.MergedInto = target.ID
		src.UpdatedAt = s.now
		s.record(apiUserID, "ticket.merged", "ticket", id, fmt.Sprintf("into ticket %d", target.ID))
	}
	return MergeResult{Target: s.ticketView(target), MergedIDs: slices.Clone(in.SourceTicketIDs)}, nil
}

// TicketImpact is what a destructive ticket operation would touch, shown in
// its preview before the caller confirms.
type TicketImpact struct {
	Ticket      TicketSummary `json:"ticket"`
	Comments    int           `json:"comments"`
	Attachments int           `json:"attachments"`
}

// impact counts what hangs off ticket t. The caller holds the lock.
func (s *Service) impact(t *Ticket) TicketImpact {
	im := TicketImpact{Ticket: s.ticketSummary(t)}
	for _, c := range s.comments {
		if c.TicketID == t.ID {
			im.Comments++
		}
	}
	for _, a := range s.attachments {
		if a.TicketID == t.ID {
			im.Attachments++
		}
	}
	return im
}

// previewDelete shows the ticket a delete would remove and what goes with
// it, without changing anything.
func (s *Service) previewDelete(_ context.Context, in TicketRef) (any, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return nil, ticketNotFound(in.TicketID)
	}
	return map[string]any{"would_delete": s.impact(t)}, nil
}

// previewMerge shows the tickets a merge would close and the target that
// would receive their comments and attachments.
func (s *Service) previewMerge(_ context.Context, in MergeTicketsInput) (any, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	target, ok := s.tickets[in.TargetTicketID]
	if !ok {
		return nil, ticketNotFound(in.TargetTicketID)
	}
	var closing []TicketImpact
	for _, id := range in.SourceTicketIDs {
		src, ok := s.tickets[id]
		if !ok {
			return nil, ticketNotFound(id)
		}
		closing = append(closing, s.impact(src))
	}
	return map[string]any{"target": s.ticketSummary(target), "would_close_and_move": closing}, nil
}

func (s *Service) deleteTicket(_ context.Context, in TicketRef) (DeleteTicketResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return DeleteTicketResult{}, ticketNotFound(in.TicketID)
	}
	s.tick()
	res := DeleteTicketResult{TicketID: t.ID, Deleted: true}
	for id, c := range s.comments {
		if c.TicketID == t.ID {
			delete(s.comments, id)
			res.CommentsDeleted++
		}
	}
	for id, a := range s.attachments {
		if a.TicketID == t.ID {
			delete(s.attachments, id)
			res.AttachmentsDeleted++
		}
	}
	delete(s.tickets, t.ID)
	s.record(apiUserID, "ticket.deleted", "ticket", t.ID, t.Subject)
	return res, nil
}
