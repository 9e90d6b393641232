package helpdesk

import "time"

// Ticket statuses, in the order a ticket usually moves through them.
const (
	StatusNew     = "new"
	StatusOpen    = "open"
	StatusPending = "pending"
	StatusOnHold  = "on_hold"
	StatusSolved  = "solved"
	StatusClosed  = "closed"
)

// Ticket priorities, lowest first.
const (
	PriorityLow    = "low"
	PriorityNormal = "normal"
	PriorityHigh   = "high"
	PriorityUrgent = "urgent"
)

// User roles.
const (
	RoleCustomer = "customer"
	RoleAgent    = "agent"
	RoleAdmin    = "admin"
)

// priorities lists the priorities, lowest first; priorityRank is the
// inverse, for sorting and escalation.
var (
	priorities   = []string{PriorityLow, PriorityNormal, PriorityHigh, PriorityUrgent}
	priorityRank = map[string]int{PriorityLow: 0, PriorityNormal: 1, PriorityHigh: 2, PriorityUrgent: 3}
)

// Ticket is a customer request. The *Name fields are resolved when the
// ticket is read and are not stored.
type Ticket struct {
	ID              int        `json:"id"`
	Subject         string     `json:"subject"`
	Description     string     `json:"description"`
	Status          string     `json:"status"`
	Priority        string     `json:"priority"`
	Type            string     `json:"type"`
	Channel         string     `json:"channel"`
	RequesterID     int        `json:"requester_id"`
	RequesterName   string     `json:"requester_name,omitempty"`
	AssigneeID      int        `json:"assignee_id,omitempty"`
	AssigneeName    string     `json:"assignee_name,omitempty"`
	TeamID          int        `json:"team_id,omitempty"`
	TeamName        string     `json:"team_name,omitempty"`
	OrgID           int        `json:"org_id,omitempty"`
	OrgName         string     `json:"org_name,omitempty"`
	Tags            []string   `json:"tags"`
	Satisfaction    string     `json:"satisfaction,omitempty"`
	MergedInto      int        `json:"merged_into,omitempty"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	FirstResponseAt *time.Time `json:"first_response_at,omitempty"`
	SolvedAt        *time.Time `json:"solved_at,omitempty"`
}

// Comment is a public reply or an internal note on a ticket.
type Comment struct {
	ID         int        `json:"id"`
	TicketID   int        `json:"ticket_id"`
	AuthorID   int        `json:"author_id"`
	AuthorName string     `json:"author_name,omitempty"`
	Body       string     `json:"body"`
	Public     bool       `json:"public"`
	CreatedAt  time.Time  `json:"created_at"`
	EditedAt   *time.Time `json:"edited_at,omitempty"`
}

// Attachment is the metadata of a file attached to a ticket. The service
// keeps no file contents.
type Attachment struct {
	ID          int       `json:"id"`
	TicketID    int       `json:"ticket_id"`
	CommentID   int       `json:"comment_id,omitempty"`
	Filename    string    `json:"filename"`
	ContentType string    `json:"content_type"`
	SizeBytes   int64     `json:"size_bytes"`
	UploadedBy  int       `json:"uploaded_by"`
	CreatedAt   time.Time `json:"created_at"`
}

// User is a customer, an agent or an admin.
type User struct {
	ID        int       `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	OrgID     int       `json:"org_id,omitempty"`
	TeamIDs   []int     `json:"team_ids,omitempty"`
	Timezone  string    `json:"timezone,omitempty"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
}

// Team is a group of agents that tickets can be routed to.
type Team struct {
	ID          int          `json:"id"`
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	LeadID      int          `json:"lead_id,omitempty"`
	Members     []TeamMember `json:"members"`
}

// TeamMember names one agent of a team.
type TeamMember struct {
	UserID int    `json:"user_id"`
	Name   string `json:"name"`
	Email  string `json:"email"`
}

// Org is a customer organization.
type Org struct {
	ID          int       `json:"id"`
	Name        string    `json:"name"`
	Domain      string    `json:"domain"`
	Plan        string    `json:"plan"`
	SLAPolicyID int       `json:"sla_policy_id"`
	Notes       string    `json:"notes,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	// Counts are filled by reads.
	UserCount       int `json:"user_count"`
	OpenTicketCount int `json:"open_ticket_count"`
}

// SLAPolicy sets response and resolution targets per ticket priority.
type SLAPolicy struct {
	ID          int         `json:"id"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Targets     []SLATarget `json:"targets"`
}

// SLATarget is the pair of targets for one priority, in minutes of calendar
// time.
type SLATarget struct {
	Priority             string `json:"priority"`
	FirstResponseMinutes int    `json:"first_response_minutes"`
	ResolutionMinutes    int    `json:"resolution_minutes"`
}

// SLAStatus is where one ticket stands against its policy.
type SLAStatus struct {
	TicketID      int       `json:"ticket_id"`
	Subject       string    `json:"subject"`
	Priority      string    `json:"priority"`
	PolicyID      int       `json:"policy_id"`
	PolicyName    string    `json:"policy_name"`
	FirstResponse SLAClock  `json:"first_response"`
	Resolution    SLAClock  `json:"resolution"`
	State         string    `json:"state"`
	EvaluatedAt   time.Time `json:"evaluated_at"`
	AssigneeName  string    `json:"assignee_name,omitempty"`
}

// SLAClock is one SLA target of a ticket: when it is due and whether it was
// met, is still running, or was breached.
type SLAClock struct {
	DueAt            time.Time `json:"due_at"`
	State            string    `json:"state"`
	MinutesRemaining int       `json:"minutes_remaining"`
}

// Macro is a canned response with the ticket changes that go with it.
type Macro struct {
	ID          int          `json:"id"`
	Title       string       `json:"title"`
	Description string       `json:"description,omitempty"`
	Actions     MacroActions `json:"actions"`
	UsageCount  int          `json:"usage_count"`
}

// MacroActions are the changes a macro makes to a ticket. Empty fields
// change nothing.
type MacroActions struct {
	Status   string   `json:"status,omitempty" jsonschema:"enum=new,enum=open,enum=pending,enum=on_hold,enum=solved,enum=closed" jsonschema_description:"Status to set on the ticket."`
	Priority string   `json:"priority,omitempty" jsonschema:"enum=low,enum=normal,enum=high,enum=urgent" jsonschema_description:"Priority to set on the ticket."`
	TeamID   int      `json:"team_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Team to route the ticket to."`
	AddTags  []string `json:"add_tags,omitempty" jsonschema_description:"Tags to add to the ticket."`
	Reply    string   `json:"reply,omitempty" jsonschema_description:"Public reply posted on the ticket. {{requester}} is replaced by the requester's first name."`
}

// View is a saved ticket filter.
type View struct {
	ID        int        `json:"id"`
	Name      string     `json:"name"`
	Filter    ViewFilter `json:"filter"`
	Shared    bool       `json:"shared"`
	OwnerID   int        `json:"owner_id"`
	CreatedAt time.Time  `json:"created_at"`
}

// ViewFilter selects tickets; every set field must match.
type ViewFilter struct {
	Statuses   []string `json:"statuses,omitempty" jsonschema:"enum=new,enum=open,enum=pending,enum=on_hold,enum=solved,enum=closed" jsonschema_description:"Ticket statuses to include; empty means any status."`
	Priorities []string `json:"priorities,omitempty" jsonschema:"enum=low,enum=normal,enum=high,enum=urgent" jsonschema_description:"Priorities to include; empty means any priority."`
	AssigneeID int      `json:"assignee_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only tickets assigned to this agent."`
	TeamID     int      `json:"team_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only tickets routed to this team."`
	Tag        string   `json:"tag,omitempty" jsonschema_description:"Only tickets carrying this tag."`
	Unassigned bool     `json:"unassigned,omitempty" jsonschema_description:"Only tickets with no assignee."`
}

// Article is a knowledge-base article.
type Article struct {
	ID        int       `json:"id"`
	Title     string    `json:"title"`
	Body      string    `json:"body,omitempty"`
	Section   string    `json:"section"`
	Status    string    `json:"status"`
	AuthorID  int       `json:"author_id"`
	Tags      []string  `json:"tags,omitempty"`
	Views     int       `json:"views"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Webhook sends ticket events to an HTTP endpoint. The signing secret is
// shown in full only when it is created or rotated.
type Webhook struct {
	ID           int       `json:"id"`
	Name         string    `json:"name"`
	URL          string    `json:"url"`
	Events       []string  `json:"events"`
	Active       bool      `json:"active"`
	SecretLast4  string    `json:"secret_last4"`
	CreatedAt    time.Time `json:"created_at"`
	LastDelivery *Delivery `json:"last_delivery,omitempty"`
}

// Delivery is one attempt to send an event to a webhook.
type Delivery struct {
	Event      string    `json:"event"`
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code"`
	Success    bool      `json:"success"`
}

// BusinessHours is the support schedule.
type BusinessHours struct {
	Timezone string     `json:"timezone"`
	Week     []DayHours `json:"week"`
	Holidays []Holiday  `json:"holidays"`
}

// DayHours is the opening time of one weekday; Closed days have no times.
type DayHours struct {
	Day    string `json:"day" jsonschema:"enum=monday,enum=tuesday,enum=wednesday,enum=thursday,enum=friday,enum=saturday,enum=sunday" jsonschema_description:"Weekday, lowercase."`
	Open   string `json:"open,omitempty" jsonschema:"pattern=^([01][0-9]|2[0-3]):[0-5][0-9]$" jsonschema_description:"Opening time, HH:MM in the schedule's time zone."`
	Close  string `json:"close,omitempty" jsonschema:"pattern=^([01][0-9]|2[0-3]):[0-5][0-9]$" jsonschema_description:"Closing time, HH:MM in the schedule's time zone."`
	Closed bool   `json:"closed,omitempty" jsonschema_description:"True when support is closed all day."`
}

// Holiday is a date on which support is closed.
type Holiday struct {
	Date string `json:"date"`
	Name string `json:"name"`
}

// AuditEntry records one change made in the help desk.
type AuditEntry struct {
	ID         int       `json:"id"`
	At         time.Time `json:"at"`
	ActorID    int       `json:"actor_id"`
	ActorName  string    `json:"actor_name"`
	Action     string    `json:"action"`
	TargetType string    `json:"target_type"`
	TargetID   int       `json:"target_id"`
	Detail     string    `json:"detail,omitempty"`
}
