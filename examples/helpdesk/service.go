package helpdesk

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// seedNow is the simulated time at which a new Service starts.
var seedNow = time.Date(2025, time.March, 14, 16, 0, 0, 0, time.UTC)

// SeedNow returns the simulated time at which a new Service starts: Friday
// 14 March 2025, 16:00 UTC. Every write moves a service's clock forward by
// one minute; reads do not move it.
func SeedNow() time.Time { return seedNow }

// apiUserID is the integration user that performs writes made through the
// operations, and files tickets created without a requester.
const apiUserID = 1

// Service is an in-memory help desk. It is safe for concurrent use: reads
// share a lock and writes take it exclusively. Values returned by its
// operations are copies; changing them does not change the service.
type Service struct {
	mu  sync.RWMutex
	now time.Time

	tickets     map[int]*Ticket
	comments    map[int]*Comment
	attachments map[int]*Attachment
	users       map[int]*User
	teams       map[int]*team
	orgs        map[int]*Org
	policies    map[int]*SLAPolicy
	macros      map[int]*Macro
	views       map[int]*View
	articles    map[int]*Article
	webhooks    map[int]*webhook
	hours       BusinessHours
	audit       []AuditEntry

	// next holds the next id per kind of record ("ticket", "comment", ...).
	next map[string]int
}

// team is a Team as stored: members by id, names resolved on read.
type team struct {
	ID          int
	Name        string
	Description string
	LeadID      int
	MemberIDs   []int
}

// webhook is a Webhook as stored, with its full secret.
type webhook struct {
	Webhook
	secret string
}

// New returns a service seeded with the demonstration data set. Two services
// returned by New hold identical data.
func New() *Service {
	s := &Service{
		now:         seedNow,
		tickets:     map[int]*Ticket{},
		comments:    map[int]*Comment{},
		attachments: map[int]*Attachment{},
		users:       map[int]*User{},
		teams:       map[int]*team{},
		orgs:        map[int]*Org{},
		policies:    map[int]*SLAPolicy{},
		macros:      map[int]*Macro{},
		views:       map[int]*View{},
		articles:    map[int]*Article{},
		webhooks:    map[int]*webhook{},
		next:        map[string]int{},
	}
	s.seed()
	return s
}

// Catalog returns a fresh registry holding every operation of a fresh
// service. It is what intentsrv serves when no other catalog is configured.
func Catalog() (*operations.Registry, error) {
	reg := operations.NewRegistry()
	if err := New().Register(reg); err != nil {
		return nil, err
	}
	return reg, nil
}

// namespaceBlurbs are the one-line descriptions describe shows per namespace.
var namespaceBlurbs = map[string]string{
	"helpdesk.tickets":        "Customer requests: their status, priority, assignee and history.",
	"helpdesk.comments":       "Public replies and internal notes on tickets.",
	"helpdesk.attachments":    "Files attached to tickets (metadata only).",
	"helpdesk.users":          "Customers, agents and admins.",
	"helpdesk.teams":          "Agent teams that tickets are routed to.",
	"helpdesk.orgs":           "Customer organizations and their plans.",
	"helpdesk.tags":           "Labels on tickets, one ticket at a time or across the desk.",
	"helpdesk.sla":            "Service-level policies, per-ticket SLA clocks and breaches.",
	"helpdesk.macros":         "Canned responses that reply and update a ticket in one step.",
	"helpdesk.views":          "Saved ticket filters and their results.",
	"helpdesk.kb":             "Knowledge-base articles for customers.",
	"helpdesk.webhooks":       "Endpoints that receive ticket events.",
	"helpdesk.reports":        "Volume, backlog, SLA, satisfaction and agent reports.",
	"helpdesk.audit":          "Who changed what, and when.",
	"helpdesk.business_hours": "Support opening hours and holidays.",
}

// Register adds every help-desk operation to reg and sets a blurb for each
// namespace. It returns the registration errors joined; on error some
// operations may already be registered. Register may be called on several
// registries; they then share this service's data.
func (s *Service) Register(reg *operations.Registry) error {
	r := &registrar{reg: reg}
	s.registerTickets(r)
	s.registerComments(r)
	s.registerAttachments(r)
	s.registerUsers(r)
	s.registerTeams(r)
	s.registerOrgs(r)
	s.registerTags(r)
	s.registerSLA(r)
	s.registerMacros(r)
	s.registerViews(r)
	s.registerKB(r)
	s.registerWebhooks(r)
	s.registerReports(r)
	s.registerAudit(r)
	s.registerBusinessHours(r)
	for ns, blurb := range namespaceBlurbs {
		reg.SetNamespaceBlurb(ns, blurb)
	}
	return errors.Join(r.errs...)
}

// registrar collects registration errors so Register can report them all.
type registrar struct {
	reg  *operations.Registry
	errs []error
}

// add registers fn as op, refusing calls whose context is already done.
// Handlers here never block, so checking once on entry is enough to honour
// cancellation.
func add[In, Out any](r *registrar, op operations.Operation, fn operations.Func[In, Out]) {
	guarded := func(ctx context.Context, in In) (Out, error) {
		if err := ctx.Err(); err != nil {
			var zero Out
			return zero, fmt.Errorf("%s: %w", op.ID, err)
		}
		return fn(ctx, in)
	}
	if err := operations.Add(r.reg, op, guarded); err != nil {
		r.errs = append(r.errs, err)
	}
}

// Empty is the input of operations that take no arguments.
type Empty struct{}

// Page holds the paging arguments every list operation accepts.
type Page struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200,default=25" jsonschema_description:"Maximum number of items to return (1-200; default 25)."`
	Cursor string `json:"cursor,omitempty" jsonschema_description:"Opaque cursor from a previous page's next_cursor; omit for the first page."`
}

// List is one page of a list operation's results. NextCursor is empty on the
// last page.
type List[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"next_cursor,omitempty"`
	Total      int    `json:"total"`
}

const defaultLimit = 25

// paginate returns the page of items that p selects. Cursors encode an
// offset; a cursor this service did not issue is an invalid_params error.
// pageAll pages through every record of m in id order, each copied with
// view so callers never share the store's memory. The caller holds the
// read lock.
func pageAll[R, T any](m map[int]*R, view func(*R) T, p Page) (List[T], error) {
	items := make([]T, 0, len(m))
	for _, id := range sortedKeys(m) {
		items = append(items, view(m[id]))
	}
	return paginate(items, p)
}

func paginate[T any](items []T, p Page) (List[T], error) {
	limit := p.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	offset := 0
	if p.Cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(p.Cursor)
		n, ok := strings.CutPrefix(string(raw), "offset:")
		if err == nil && ok {
			offset, err = strconv.Atoi(n)
		}
		if err != nil || !ok || offset < 0 {
			return List[T]{}, invalidParams(fmt.Sprintf("cursor %q is not one this service issued", p.Cursor),
				"pass the next_cursor of the previous page unchanged, or omit cursor to start from the first page")
		}
	}
	out := List[T]{Items: []T{}, Total: len(items)}
	if offset >= len(items) {
		return out, nil
	}
	end := min(offset+limit, len(items))
	out.Items = items[offset:end]
	if end < len(items) {
		out.NextCursor = base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(end)))
	}
	return out, nil
}

// invalidParams returns an invalid_params error for arguments that pass the
// schema but make no sense for the current data.
func invalidParams(msg, fix string) *operations.Error {
	return &operations.Error{Code: "invalid_params", Message: msg, Fix: fix}
}

// tick moves the clock forward one minute and returns the new time. The
// caller holds the write lock.
func (s *Service) tick() time.Time {
	s.now = s.now.Add(time.Minute)
	return s.now
}

// newID returns the next id for kind. The caller holds the write lock.
func (s *Service) newID(kind string) int {
	s.next[kind]++
	return s.next[kind]
}

// record appends an audit entry at the current time. The caller holds the
// write lock.
func (s *Service) record(actorID int, action, targetType string, targetID int, detail string) {
	s.audit = append(s.audit, AuditEntry{
		ID:         len(s.audit) + 1,
		At:         s.now,
		ActorID:    actorID,
		ActorName:  s.userName(actorID),
		Action:     action,
		TargetType: targetType,
		TargetID:   targetID,
		Detail:     detail,
	})
}

func (s *Service) userName(id int) string {
	if u, ok := s.users[id]; ok {
		return u.Name
	}
	return ""
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// containsFold reports whether substr is within s, ignoring case.
func containsFold(s, substr string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(substr))
}

// Errors for records that do not exist, each with a fix naming the
// operation that lists what does.

func ticketNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("ticket %d", id),
		"list tickets with helpdesk.tickets.list or search them with helpdesk.tickets.search")
}

func userNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("user %d", id), "list users with helpdesk.users.list")
}

func teamNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("team %d", id), "list teams with helpdesk.teams.list")
}

func orgNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("organization %d", id), "list organizations with helpdesk.orgs.list")
}
