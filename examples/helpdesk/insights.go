package helpdesk

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // business hours need time zones on hosts without a zoneinfo database

	"github.com/intentsrv/intentsrv/operations"
)

// DateRange bounds a report by calendar day (UTC), both ends included.
type DateRange struct {
	Since string `json:"since,omitempty" jsonschema:"format=date" jsonschema_description:"First day included, YYYY-MM-DD; defaults to 13 days before today."`
	Until string `json:"until,omitempty" jsonschema:"format=date" jsonschema_description:"Last day included, YYYY-MM-DD; defaults to today."`
}

// window returns the half-open interval [from, to) the range covers, given
// the service's current time.
func (d DateRange) window(now time.Time) (from, to time.Time, err error) {
	today := now.Truncate(24 * time.Hour)
	from, to = today.AddDate(0, 0, -13), today.AddDate(0, 0, 1)
	if d.Since != "" {
		if from, err = time.Parse(time.DateOnly, d.Since); err != nil {
			return from, to, invalidParams(fmt.Sprintf("since %q is not a date", d.Since), "write dates as YYYY-MM-DD, e.g. 2025-03-01")
		}
	}
	if d.Until != "" {
		if to, err = time.Parse(time.DateOnly, d.Until); err != nil {
			return from, to, invalidParams(fmt.Sprintf("until %q is not a date", d.Until), "write dates as YYYY-MM-DD, e.g. 2025-03-14")
		}
		to = to.AddDate(0, 0, 1)
	}
	if !from.Before(to) {
		return from, to, invalidParams("since is after until", "swap the dates, or omit one to use the default")
	}
	return from, to, nil
}

// Bucket is one group of a report and how many tickets fell into it.
type Bucket struct {
	Key   string `json:"key"`
	Count int    `json:"count"`
}

// VolumeInput selects the tickets a volume report counts.
type VolumeInput struct {
	DateRange
	GroupBy string `json:"group_by,omitempty" jsonschema:"enum=day,enum=channel,enum=priority,enum=type,enum=team,default=day" jsonschema_description:"How to group the new tickets."`
}

// VolumeReport counts tickets created in a period.
type VolumeReport struct {
	Since   string   `json:"since"`
	Until   string   `json:"until"`
	GroupBy string   `json:"group_by"`
	Total   int      `json:"total"`
	Buckets []Bucket `json:"buckets"`
}

// BacklogInput narrows the backlog report.
type BacklogInput struct {
	TeamID int `json:"team_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only tickets routed to this team."`
}

// TicketAge is an unsolved ticket and how long it has waited.
type TicketAge struct {
	ID       int    `json:"id"`
	Subject  string `json:"subject"`
	Priority string `json:"priority"`
	AgeHours int    `json:"age_hours"`
}

// BacklogReport summarises the unsolved tickets.
type BacklogReport struct {
	Unsolved   int         `json:"unsolved"`
	Unassigned int         `json:"unassigned"`
	ByStatus   []Bucket    `json:"by_status"`
	ByPriority []Bucket    `json:"by_priority"`
	ByTeam     []Bucket    `json:"by_team"`
	Oldest     []TicketAge `json:"oldest"`
}

// ComplianceRow is one policy's record over a period.
type ComplianceRow struct {
	PolicyID              int     `json:"policy_id"`
	PolicyName            string  `json:"policy_name"`
	FirstResponseMet      int     `json:"first_response_met"`
	FirstResponseBreached int     `json:"first_response_breached"`
	ResolutionMet         int     `json:"resolution_met"`
	ResolutionBreached    int     `json:"resolution_breached"`
	CompliancePercent     float64 `json:"compliance_percent"`
}

// ComplianceReport is SLA performance for tickets created in a period.
type ComplianceReport struct {
	Since             string          `json:"since"`
	Until             string          `json:"until"`
	Policies          []ComplianceRow `json:"policies"`
	CurrentlyBreached int             `json:"currently_breached"`
}

// AgentPerformanceInput narrows the agent report.
type AgentPerformanceInput struct {
	DateRange
	TeamID int `json:"team_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only agents in this team."`
}

// AgentStats is one agent's workload and results.
type AgentStats struct {
	UserID                  int    `json:"user_id"`
	Name                    string `json:"name"`
	OpenAssigned            int    `json:"open_assigned"`
	Solved                  int    `json:"solved"`
	AvgFirstResponseMinutes int    `json:"avg_first_response_minutes"`
	SatisfactionGood        int    `json:"satisfaction_good"`
	SatisfactionBad         int    `json:"satisfaction_bad"`
}

// AgentReport lists agent statistics, most tickets solved first.
type AgentReport struct {
	Since  string       `json:"since"`
	Until  string       `json:"until"`
	Agents []AgentStats `json:"agents"`
}

// CSATInput narrows the satisfaction report.
type CSATInput struct {
	DateRange
	OrgID int `json:"org_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only tickets from this organization."`
}

// Rating is one customer's satisfaction answer.
type Rating struct {
	TicketID int    `json:"ticket_id"`
	Subject  string `json:"subject"`
	OrgName  string `json:"org_name,omitempty"`
	Rating   string `json:"rating"`
}

// CSATReport is customer satisfaction for tickets solved in a period.
type CSATReport struct {
	Since        string   `json:"since"`
	Until        string   `json:"until"`
	Good         int      `json:"good"`
	Bad          int      `json:"bad"`
	ScorePercent float64  `json:"score_percent"`
	Ratings      []Rating `json:"ratings"`
}

// ListAuditInput filters and pages the audit log.
type ListAuditInput struct {
	ActorID    int    `json:"actor_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only changes made by this user."`
	Action     string `json:"action,omitempty" jsonschema_description:"Only actions starting with this text, e.g. ticket. or ticket.deleted."`
	TargetType string `json:"target_type,omitempty" jsonschema:"enum=ticket,enum=user,enum=team,enum=org,enum=article,enum=macro,enum=view,enum=webhook,enum=sla_policy,enum=tag,enum=schedule" jsonschema_description:"Only changes to this kind of record."`
	TargetID   int    `json:"target_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only changes to the record with this id (with target_type)."`
	Since      string `json:"since,omitempty" jsonschema:"format=date-time" jsonschema_description:"Only entries at or after this RFC 3339 time."`
	Until      string `json:"until,omitempty" jsonschema:"format=date-time" jsonschema_description:"Only entries before this RFC 3339 time."`
	Page
}

// AuditRef names one audit entry.
type AuditRef struct {
	EntryID int `json:"entry_id" jsonschema:"minimum=1" jsonschema_description:"Audit entry id, from helpdesk.audit.list."`
}

// UpdateHoursInput changes the schedule; omitted fields keep their value.
type UpdateHoursInput struct {
	Timezone string     `json:"timezone,omitempty" jsonschema_description:"IANA time zone of the schedule, e.g. Europe/Dublin."`
	Week     []DayHours `json:"week,omitempty" jsonschema:"minItems=1,maxItems=7" jsonschema_description:"Opening hours for the days to change; days not listed keep theirs."`
}

// ListHolidaysInput pages through holidays.
type ListHolidaysInput struct {
	Year int `json:"year,omitempty" jsonschema:"minimum=2000,maximum=2100" jsonschema_description:"Only holidays in this year."`
	Page
}

// HolidayInput adds a holiday.
type HolidayInput struct {
	Date string `json:"date" jsonschema:"format=date" jsonschema_description:"Day support is closed, YYYY-MM-DD."`
	Name string `json:"name" jsonschema:"minLength=1,maxLength=80" jsonschema_description:"Name of the holiday."`
}

// HolidayRef names a holiday by date.
type HolidayRef struct {
	Date string `json:"date" jsonschema:"format=date" jsonschema_description:"Date of the holiday to remove, YYYY-MM-DD."`
}

// IsOpenInput asks whether support is open.
type IsOpenInput struct {
	At string `json:"at,omitempty" jsonschema:"format=date-time" jsonschema_description:"Moment to check, RFC 3339; defaults to now."`
}

// OpenStatus says whether support is open at a moment.
type OpenStatus struct {
	At       time.Time  `json:"at"`
	Open     bool       `json:"open"`
	Reason   string     `json:"reason"`
	Timezone string     `json:"timezone"`
	NextOpen *time.Time `json:"next_open,omitempty"`
}

func (s *Service) registerReports(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.reports.ticket_volume",
		Summary:     "Count new tickets over a period, by day, channel, priority, type or team.",
		Description: "Shows how many tickets came in and how they split; defaults to the last 14 days by day.",
		Tags:        []string{"reports", "analytics", "metrics"},
		Examples: []operations.Example{
			{Intent: "how many tickets did we get each day this week", Params: map[string]any{"since": "2025-03-10", "group_by": "day"}},
			{Intent: "which channel brings the most tickets", Params: map[string]any{"group_by": "channel"}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.volumeReport)

	add(r, operations.Operation{
		ID:          "helpdesk.reports.backlog",
		Summary:     "Summarise unsolved tickets by status, priority and team, with the oldest waiting.",
		Description: "A snapshot of the open workload: totals, unassigned count, splits and the five oldest unsolved tickets.",
		Tags:        []string{"reports", "analytics", "workload"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.backlogReport)

	add(r, operations.Operation{
		ID:          "helpdesk.reports.sla_compliance",
		Summary:     "SLA compliance per policy: targets met versus breached over a period.",
		Description: "For tickets created in the period, counts first-response and resolution targets met and missed, and the share met.",
		Tags:        []string{"reports", "sla", "metrics"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.complianceReport)

	add(r, operations.Operation{
		ID:          "helpdesk.reports.agent_performance",
		Summary:     "Per-agent workload and results: open tickets, solved, response time, satisfaction.",
		Description: "Compares agents over a period, most tickets solved first; filter by team.",
		Tags:        []string{"reports", "agents", "metrics"},
		Examples: []operations.Example{
			{Intent: "who solved the most tickets this fortnight", Params: map[string]any{}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.agentReport)

	add(r, operations.Operation{
		ID:          "helpdesk.reports.csat",
		Summary:     "Customer satisfaction (CSAT): good and bad ratings on solved tickets.",
		Description: "Score and individual ratings for tickets solved in the period; filter by organization.",
		Tags:        []string{"reports", "satisfaction", "metrics"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.csatReport)
}

func (s *Service) registerAudit(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.audit.list",
		Summary:     "List audit log entries, newest first: who changed what and when.",
		Description: "Filters by actor, action prefix, target and time. The log holds hundreds of entries, including agent sign-ins; page with limit and cursor.",
		Tags:        []string{"audit", "history", "compliance"},
		Aliases:     []string{"helpdesk.audit_log.list"},
		Examples: []operations.Example{
			{Intent: "who changed ticket 42", Params: map[string]any{"target_type": "ticket", "target_id": 42}},
			{Intent: "what did Kenji do today", Params: map[string]any{"actor_id": 5, "since": "2025-03-14T00:00:00Z"}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.listAudit)

	add(r, operations.Operation{
		ID:          "helpdesk.audit.get",
		Summary:     "Get one audit log entry.",
		Description: "Reads a single audit entry by id.",
		Tags:        []string{"audit", "history"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.getAudit)
}

func (s *Service) registerBusinessHours(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.business_hours.get",
		Summary:     "Show support opening hours for each weekday, the time zone and holidays.",
		Description: "Reads the support schedule.",
		Tags:        []string{"business_hours", "schedule"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.getHours)

	add(r, operations.Operation{
		ID:          "helpdesk.business_hours.is_open",
		Summary:     "Check whether support is open now (or at a given time) and when it next opens.",
		Description: "Evaluates the weekly schedule and holidays in the schedule's time zone.",
		Tags:        []string{"business_hours", "schedule"},
		Examples: []operations.Example{
			{Intent: "is support open right now", Params: map[string]any{}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.isOpen)

	add(r, operations.Operation{
		ID:          "helpdesk.business_hours.update",
		Summary:     "Change support opening hours or the schedule's time zone.",
		Description: "Replaces the hours of the weekdays given and, optionally, the time zone.",
		Tags:        []string{"business_hours", "schedule"},
		Examples: []operations.Example{
			{Intent: "we're closed on Saturdays from now on", Params: map[string]any{"week": []map[string]any{{"day": "saturday", "closed": true}}}},
		},
		Kind: operations.KindWrite, Idempotent: true,
	}, s.updateHours)

	add(r, operations.Operation{
		ID:          "helpdesk.business_hours.list_holidays",
		Summary:     "List holidays when support is closed.",
		Description: "Pages through holiday closures in date order; filter by year.",
		Tags:        []string{"business_hours", "holidays"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.listHolidays)

	add(r, operations.Operation{
		ID:          "helpdesk.business_hours.add_holiday",
		Summary:     "Add a holiday closure to the support schedule.",
		Description: "Marks a date as closed; SLA clocks are not paused by holidays in this service.",
		Tags:        []string{"business_hours", "holidays"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.addHoliday)

	add(r, operations.Operation{
		ID:          "helpdesk.business_hours.remove_holiday",
		Summary:     "Remove a holiday closure.",
		Description: "Reopens support on a date that was a holiday.",
		Tags:        []string{"business_hours", "holidays"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.removeHoliday)
}

// countBy groups keys into buckets, largest first (or in key order when
// byKey is true).
func countBy(keys []string, byKey bool) []Bucket {
	counts := map[string]int{}
	for _, k := range keys {
		counts[k]++
	}
	out := make([]Bucket, 0, len(counts))
	for k, n := range counts {
		out = append(out, Bucket{Key: k, Count: n})
	}
	slices.SortFunc(out, func(a, b Bucket) int {
		if byKey {
			return strings.Compare(a.Key, b.Key)
		}
		return cmp.Or(b.Count-a.Count, strings.Compare(a.Key, b.Key))
	})
	return out
}

func day(t time.Time) string { return t.Format(time.DateOnly) }

func (s *Service) volumeReport(_ context.Context, in VolumeInput) (VolumeReport, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	from, to, err := in.window(s.now)
	if err != nil {
		return VolumeReport{}, err
	}
	groupBy := cmpOr(in.GroupBy, "day")
	var keys []string
	for _, t := range s.tickets {
		if t.CreatedAt.Before(from) || !t.CreatedAt.Before(to) {
			continue
		}
		switch groupBy {
		case "day":
			keys = append(keys, day(t.CreatedAt))
		case "channel":
			keys = append(keys, t.Channel)
		case "priority":
			keys = append(keys, t.Priority)
		case "type":
			keys = append(keys, t.Type)
		case "team":
			keys = append(keys, cmpOr(s.ticketView(t).TeamName, "no team"))
		}
	}
	return VolumeReport{Since: day(from), Until: day(to.AddDate(0, 0, -1)), GroupBy: groupBy, Total: len(keys),
		Buckets: countBy(keys, groupBy == "day")}, nil
}

func (s *Service) backlogReport(_ context.Context, in BacklogInput) (BacklogReport, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if in.TeamID != 0 {
		if _, ok := s.teams[in.TeamID]; !ok {
			return BacklogReport{}, teamNotFound(in.TeamID)
		}
	}
	var rep BacklogReport
	var statuses, prios, teams []string
	var open []*Ticket
	for _, t := range s.tickets {
		if t.SolvedAt != nil || t.Status == StatusSolved || t.Status == StatusClosed || (in.TeamID != 0 && t.TeamID != in.TeamID) {
			continue
		}
		rep.Unsolved++
		if t.AssigneeID == 0 {
			rep.Unassigned++
		}
		statuses = append(statuses, t.Status)
		prios = append(prios, t.Priority)
		teams = append(teams, cmpOr(s.ticketView(t).TeamName, "no team"))
		open = append(open, t)
	}
	rep.ByStatus, rep.ByPriority, rep.ByTeam = countBy(statuses, false), countBy(prios, false), countBy(teams, false)
	sortTickets(open, "oldest")
	rep.Oldest = []TicketAge{}
	for _, t := range open[:min(5, len(open))] {
		rep.Oldest = append(rep.Oldest, TicketAge{ID: t.ID, Subject: t.Subject, Priority: t.Priority, AgeHours: int(s.now.Sub(t.CreatedAt).Hours())})
	}
	return rep, nil
}

func percent(part, whole int) float64 {
	if whole == 0 {
		return 100
	}
	return float64(int(float64(part)*1000/float64(whole)+0.5)) / 10
}

func (s *Service) complianceReport(_ context.Context, in DateRange) (ComplianceReport, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	from, to, err := in.window(s.now)
	if err != nil {
		return ComplianceReport{}, err
	}
	rows := map[int]*ComplianceRow{}
	for _, id := range sortedKeys(s.policies) {
		rows[id] = &ComplianceRow{PolicyID: id, PolicyName: s.policies[id].Name}
	}
	rep := ComplianceReport{Since: day(from), Until: day(to.AddDate(0, 0, -1))}
	for _, t := range s.tickets {
		if t.MergedInto != 0 {
			continue
		}
		st := s.slaStatus(t)
		if t.SolvedAt == nil && st.State == slaBreached {
			rep.CurrentlyBreached++
		}
		if t.CreatedAt.Before(from) || !t.CreatedAt.Before(to) {
			continue
		}
		row := rows[st.PolicyID]
		switch st.FirstResponse.State {
		case slaMet:
			row.FirstResponseMet++
		case slaBreached:
			row.FirstResponseBreached++
		}
		switch st.Resolution.State {
		case slaMet:
			row.ResolutionMet++
		case slaBreached:
			row.ResolutionBreached++
		}
	}
	for _, id := range sortedKeys(rows) {
		row := rows[id]
		met := row.FirstResponseMet + row.ResolutionMet
		row.CompliancePercent = percent(met, met+row.FirstResponseBreached+row.ResolutionBreached)
		rep.Policies = append(rep.Policies, *row)
	}
	return rep, nil
}

func (s *Service) agentReport(_ context.Context, in AgentPerformanceInput) (AgentReport, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	from, to, err := in.window(s.now)
	if err != nil {
		return AgentReport{}, err
	}
	if in.TeamID != 0 {
		if _, ok := s.teams[in.TeamID]; !ok {
			return AgentReport{}, teamNotFound(in.TeamID)
		}
	}
	stats := map[int]*AgentStats{}
	responses := map[int][]time.Duration{}
	for _, id := range sortedKeys(s.users) {
		u := s.users[id]
		if u.ID == apiUserID || u.Role == RoleCustomer || (in.TeamID != 0 && !slices.Contains(u.TeamIDs, in.TeamID)) {
			continue
		}
		stats[id] = &AgentStats{UserID: id, Name: u.Name}
	}
	for _, t := range s.tickets {
		a := stats[t.AssigneeID]
		if a == nil {
			continue
		}
		if t.SolvedAt == nil {
			a.OpenAssigned++
		} else if !t.SolvedAt.Before(from) && t.SolvedAt.Before(to) {
			a.Solved++
			switch t.Satisfaction {
			case "good":
				a.SatisfactionGood++
			case "bad":
				a.SatisfactionBad++
			}
		}
		if t.FirstResponseAt != nil && !t.CreatedAt.Before(from) && t.CreatedAt.Before(to) {
			responses[t.AssigneeID] = append(responses[t.AssigneeID], t.FirstResponseAt.Sub(t.CreatedAt))
		}
	}
	rep := AgentReport{Since: day(from), Until: day(to.AddDate(0, 0, -1)), Agents: []AgentStats{}}
	for _, id := range sortedKeys(stats) {
		a := stats[id]
		if rs := responses[id]; len(rs) > 0 {
			var sum time.Duration
			for _, d := range rs {
				sum += d
			}
			a.AvgFirstResponseMinutes = int((sum / time.Duration(len(rs))).Minutes())
		}
		rep.Agents = append(rep.Agents, *a)
	}
	slices.SortStableFunc(rep.Agents, func(a, b AgentStats) int { return b.Solved - a.Solved })
	return rep, nil
}

func (s *Service) csatReport(_ context.Context, in CSATInput) (CSATReport, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	from, to, err := in.window(s.now)
	if err != nil {
		return CSATReport{}, err
	}
	if in.OrgID != 0 {
		if _, ok := s.orgs[in.OrgID]; !ok {
			return CSATReport{}, orgNotFound(in.OrgID)
		}
	}
	rep := CSATReport{Since: day(from), Until: day(to.AddDate(0, 0, -1)), Ratings: []Rating{}}
	for _, id := range sortedKeys(s.tickets) {
		t := s.tickets[id]
		if t.Satisfaction == "" || t.SolvedAt == nil || t.SolvedAt.Before(from) || !t.SolvedAt.Before(to) || (in.OrgID != 0 && t.OrgID != in.OrgID) {
			continue
		}
		if t.Satisfaction == "good" {
			rep.Good++
		} else {
			rep.Bad++
		}
		rep.Ratings = append(rep.Ratings, Rating{TicketID: t.ID, Subject: t.Subject, OrgName: s.orgName(t.OrgID), Rating: t.Satisfaction})
	}
	rep.ScorePercent = percent(rep.Good, rep.Good+rep.Bad)
	return rep, nil
}

func parseRFC3339(field, v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return t, invalidParams(fmt.Sprintf("%s %q is not an RFC 3339 time", field, v), "write times like 2025-03-14T09:00:00Z")
	}
	return t, nil
}

func (s *Service) listAudit(_ context.Context, in ListAuditInput) (List[AuditEntry], error) {
	var since, until time.Time
	var err error
	if in.Since != "" {
		if since, err = parseRFC3339("since", in.Since); err != nil {
			return List[AuditEntry]{}, err
		}
	}
	if in.Until != "" {
		if until, err = parseRFC3339("until", in.Until); err != nil {
			return List[AuditEntry]{}, err
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []AuditEntry
	for i := len(s.audit) - 1; i >= 0; i-- {
		e := s.audit[i]
		switch {
		case in.ActorID != 0 && e.ActorID != in.ActorID,
			in.Action != "" && !strings.HasPrefix(e.Action, in.Action),
			in.TargetType != "" && e.TargetType != in.TargetType,
			in.TargetID != 0 && e.TargetID != in.TargetID,
			!since.IsZero() && e.At.Before(since),
			!until.IsZero() && !e.At.Before(until):
			continue
		}
		out = append(out, e)
	}
	return paginate(out, in.Page)
}

func (s *Service) getAudit(_ context.Context, in AuditRef) (AuditEntry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if in.EntryID > len(s.audit) {
		return AuditEntry{}, operations.NotFound(fmt.Sprintf("audit entry %d", in.EntryID), "list entries with helpdesk.audit.list")
	}
	return s.audit[in.EntryID-1], nil
}

func (s *Service) hoursCopy() BusinessHours {
	return BusinessHours{Timezone: s.hours.Timezone, Week: slices.Clone(s.hours.Week), Holidays: slices.Clone(s.hours.Holidays)}
}

func (s *Service) getHours(context.Context, Empty) (BusinessHours, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hoursCopy(), nil
}

func (s *Service) isOpen(_ context.Context, in IsOpenInput) (OpenStatus, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	at := s.now
	if in.At != "" {
		var err error
		if at, err = parseRFC3339("at", in.At); err != nil {
			return OpenStatus{}, err
		}
	}
	loc, err := time.LoadLocation(s.hours.Timezone)
	if err != nil {
		loc = time.UTC
	}
	local := at.In(loc)
	st := OpenStatus{At: at, Timezone: s.hours.Timezone}
	open, close, reason := s.hoursOn(local)
	switch {
	case reason != "":
		st.Reason = reason
	case local.Before(open):
		st.Reason = "before opening time"
	case !local.Before(close):
		st.Reason = "after closing time"
	default:
		st.Open, st.Reason = true, "within opening hours"
		return st, nil
	}
	// Find the next opening in the coming fortnight.
	for d := 0; d <= 14; d++ {
		o, _, why := s.hoursOn(local.AddDate(0, 0, d))
		if why == "" && o.After(local) {
			next := o.UTC()
			st.NextOpen = &next
			break
		}
	}
	return st, nil
}

// hoursOn returns the opening and closing times on the day of local, or a
// reason the desk is closed all that day. The caller holds the lock.
func (s *Service) hoursOn(local time.Time) (open, close time.Time, closedReason string) {
	date := local.Format(time.DateOnly)
	for _, h := range s.hours.Holidays {
		if h.Date == date {
			return open, close, "closed for " + h.Name
		}
	}
	weekday := strings.ToLower(local.Weekday().String())
	for _, d := range s.hours.Week {
		if d.Day != weekday {
			continue
		}
		if d.Closed || d.Open == "" || d.Close == "" {
			return open, close, "closed on " + weekday + "s"
		}
		at := func(hhmm string) time.Time {
			t, _ := time.Parse("15:04", hhmm)
			y, m, dd := local.Date()
			return time.Date(y, m, dd, t.Hour(), t.Minute(), 0, 0, local.Location())
		}
		return at(d.Open), at(d.Close), ""
	}
	return open, close, "closed on " + weekday + "s"
}

func (s *Service) updateHours(_ context.Context, in UpdateHoursInput) (BusinessHours, error) {
	if in.Timezone == "" && len(in.Week) == 0 {
		return BusinessHours{}, invalidParams("nothing to update", "pass timezone, week or both")
	}
	if in.Timezone != "" {
		if err := checkTimezone(in.Timezone); err != nil {
			return BusinessHours{}, err
		}
	}
	for _, d := range in.Week {
		if !d.Closed && (d.Open == "" || d.Close == "" || d.Open >= d.Close) {
			return BusinessHours{}, invalidParams(fmt.Sprintf("%s: opening time must come before closing time", d.Day),
				"give open and close as HH:MM with open earlier, or set closed to true")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	if in.Timezone != "" {
		s.hours.Timezone = in.Timezone
	}
	for _, d := range in.Week {
		if d.Closed {
			d.Open, d.Close = "", ""
		}
		i := slices.IndexFunc(s.hours.Week, func(h DayHours) bool { return h.Day == d.Day })
		s.hours.Week[i] = d
	}
	s.record(apiUserID, "business_hours.updated", "schedule", 0, "")
	return s.hoursCopy(), nil
}

func (s *Service) listHolidays(_ context.Context, in ListHolidaysInput) (List[Holiday], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var hs []Holiday
	for _, h := range s.hours.Holidays {
		if in.Year == 0 || strings.HasPrefix(h.Date, fmt.Sprintf("%04d-", in.Year)) {
			hs = append(hs, h)
		}
	}
	return paginate(hs, in.Page)
}

func checkDate(v string) error {
	if _, err := time.Parse(time.DateOnly, v); err != nil {
		return invalidParams(fmt.Sprintf("%q is not a date", v), "write dates as YYYY-MM-DD, e.g. 2025-12-24")
	}
	return nil
}

func (s *Service) addHoliday(_ context.Context, in HolidayInput) (BusinessHours, error) {
	if err := checkDate(in.Date); err != nil {
		return BusinessHours{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, found := slices.BinarySearchFunc(s.hours.Holidays, in.Date, func(h Holiday, d string) int { return strings.Compare(h.Date, d) })
	s.tick()
	if found {
		s.hours.Holidays[i].Name = in.Name
	} else {
		s.hours.Holidays = slices.Insert(s.hours.Holidays, i, Holiday(in))
	}
	s.record(apiUserID, "business_hours.holiday_added", "schedule", 0, in.Date+" "+in.Name)
	return s.hoursCopy(), nil
}

func (s *Service) removeHoliday(_ context.Context, in HolidayRef) (BusinessHours, error) {
	if err := checkDate(in.Date); err != nil {
		return BusinessHours{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.hours.Holidays, func(h Holiday) bool { return h.Date == in.Date })
	if i < 0 {
		return BusinessHours{}, operations.NotFound(fmt.Sprintf("holiday on %s", in.Date),
			"list holidays with helpdesk.business_hours.list_holidays")
	}
	s.tick()
	s.hours.Holidays = slices.Delete(s.hours.Holidays, i, i+1)
	s.record(apiUserID, "business_hours.holiday_removed", "schedule", 0, in.Date)
	return s.hoursCopy(), nil
}
