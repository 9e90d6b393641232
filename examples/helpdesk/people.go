package helpdesk

import (
	"context"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// UserRef names one user.
type UserRef struct {
	UserID int `json:"user_id" jsonschema:"minimum=1" jsonschema_description:"User id, from helpdesk.users.list."`
}

// ListUsersInput filters and pages users.
type ListUsersInput struct {
	Role   string `json:"role,omitempty" jsonschema:"enum=customer,enum=agent,enum=admin" jsonschema_description:"Only users with this role; agent covers support staff."`
	OrgID  int    `json:"org_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only customers of this organization."`
	TeamID int    `json:"team_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only members of this team."`
	Active *bool  `json:"active,omitempty" jsonschema_description:"Only active (true) or deactivated (false) users."`
	Query  string `json:"query,omitempty" jsonschema_description:"Part of a name or email address, case-insensitive."`
	Page
}

// CreateUserInput adds a user.
type CreateUserInput struct {
	Name     string `json:"name" jsonschema:"minLength=1,maxLength=120" jsonschema_description:"Full name."`
	Email    string `json:"email" jsonschema:"format=email" jsonschema_description:"Email address; must be unique."`
	Role     string `json:"role,omitempty" jsonschema:"enum=customer,enum=agent,enum=admin,default=customer" jsonschema_description:"What the user can do."`
	OrgID    int    `json:"org_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Organization a customer belongs to."`
	Timezone string `json:"timezone,omitempty" jsonschema_description:"IANA time zone, e.g. Europe/Dublin."`
}

// UpdateUserInput changes user fields; omitted fields keep their value.
type UpdateUserInput struct {
	UserRef
	Name     *string `json:"name,omitempty" jsonschema:"minLength=1,maxLength=120" jsonschema_description:"New full name."`
	Email    *string `json:"email,omitempty" jsonschema:"format=email" jsonschema_description:"New email address; must be unique."`
	Role     *string `json:"role,omitempty" jsonschema:"enum=customer,enum=agent,enum=admin" jsonschema_description:"New role."`
	OrgID    *int    `json:"org_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"New organization."`
	Timezone *string `json:"timezone,omitempty" jsonschema_description:"New IANA time zone."`
	Active   *bool   `json:"active,omitempty" jsonschema_description:"Set true to reactivate a deactivated user."`
}

// DeactivateResult reports a deactivation.
type DeactivateResult struct {
	User                User  `json:"user"`
	UnassignedTicketIDs []int `json:"unassigned_ticket_ids"`
}

// TeamRef names one team.
type TeamRef struct {
	TeamID int `json:"team_id" jsonschema:"minimum=1" jsonschema_description:"Team id, from helpdesk.teams.list."`
}

// CreateTeamInput adds a team.
type CreateTeamInput struct {
	Name        string `json:"name" jsonschema:"minLength=1,maxLength=80" jsonschema_description:"Team name; must be unique."`
	Description string `json:"description,omitempty" jsonschema:"maxLength=500" jsonschema_description:"What the team handles."`
	LeadID      int    `json:"lead_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"Agent who leads the team; becomes its first member."`
}

// TeamMemberInput names a team and an agent.
type TeamMemberInput struct {
	TeamRef
	UserID int `json:"user_id" jsonschema:"minimum=1" jsonschema_description:"Agent to add or remove."`
}

// OrgRef names one organization.
type OrgRef struct {
	OrgID int `json:"org_id" jsonschema:"minimum=1" jsonschema_description:"Organization id, from helpdesk.orgs.list."`
}

// ListOrgsInput filters and pages organizations.
type ListOrgsInput struct {
	Plan  string `json:"plan,omitempty" jsonschema:"enum=free,enum=team,enum=business,enum=enterprise" jsonschema_description:"Only organizations on this plan."`
	Query string `json:"query,omitempty" jsonschema_description:"Part of the name or domain, case-insensitive."`
	Page
}

// CreateOrgInput adds an organization.
type CreateOrgInput struct {
	Name   string `json:"name" jsonschema:"minLength=1,maxLength=120" jsonschema_description:"Company name."`
	Domain string `json:"domain" jsonschema:"format=hostname" jsonschema_description:"Email domain of its people, e.g. example.com."`
	Plan   string `json:"plan,omitempty" jsonschema:"enum=free,enum=team,enum=business,enum=enterprise,default=team" jsonschema_description:"Subscription plan; business and enterprise get the Premium SLA."`
	Notes  string `json:"notes,omitempty" jsonschema:"maxLength=2000" jsonschema_description:"Internal notes for agents."`
}

// UpdateOrgInput changes organization fields; omitted fields keep their
// value.
type UpdateOrgInput struct {
	OrgRef
	Name        *string `json:"name,omitempty" jsonschema:"minLength=1,maxLength=120" jsonschema_description:"New company name."`
	Plan        *string `json:"plan,omitempty" jsonschema:"enum=free,enum=team,enum=business,enum=enterprise" jsonschema_description:"New plan."`
	SLAPolicyID *int    `json:"sla_policy_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"SLA policy to apply, from helpdesk.sla.list_policies."`
	Notes       *string `json:"notes,omitempty" jsonschema:"maxLength=2000" jsonschema_description:"New internal notes."`
}

// DeleteOrgInput deletes an organization.
type DeleteOrgInput struct {
	OrgRef
	Force bool `json:"force,omitempty" jsonschema_description:"Delete even when users or tickets still belong to it; they are detached, not deleted."`
}

// DeleteOrgResult reports an organization deletion.
type DeleteOrgResult struct {
	ID              int  `json:"id"`
	Deleted         bool `json:"deleted"`
	DetachedUsers   int  `json:"detached_users"`
	DetachedTickets int  `json:"detached_tickets"`
}

func (s *Service) registerUsers(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.users.list",
		Summary:     "List users: customers, agents and admins, filtered by role, organization, team or name.",
		Description: "Pages through people in the help desk. Use role=agent to find someone to assign a ticket to, or query to look a person up by name or email.",
		Tags:        []string{"users", "agents", "customers"},
		Examples: []operations.Example{
			{Intent: "which agents do we have", Params: map[string]any{"role": "agent"}},
			{Intent: "find the user with email ruby.chen", Params: map[string]any{"query": "ruby.chen"}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.listUsers)

	add(r, operations.Operation{
		ID:          "helpdesk.users.get",
		Summary:     "Get one user's profile: name, email, role, organization, teams and time zone.",
		Description: "Reads a single customer, agent or admin by id.",
		Tags:        []string{"users"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.getUser)

	add(r, operations.Operation{
		ID:          "helpdesk.users.create",
		Summary:     "Add a customer, agent or admin.",
		Description: "Creates a user with a unique email address. Role defaults to customer; set org_id to link a customer to their company.",
		Tags:        []string{"users"},
		Examples: []operations.Example{
			{Intent: "add Jane Doe from Bluefin as a customer", Params: map[string]any{"name": "Jane Doe", "email": "jane.doe@bluefin.example", "org_id": 8}},
		},
		Kind: operations.KindWrite,
	}, s.createUser)

	add(r, operations.Operation{
		ID:          "helpdesk.users.update",
		Summary:     "Change a user's name, email, role, organization, time zone or active flag.",
		Description: "Updates only the fields given; set active to true to reactivate a deactivated user.",
		Tags:        []string{"users"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.updateUser)

	add(r, operations.Operation{
		ID:          "helpdesk.users.deactivate",
		Summary:     "Deactivate a user so they can no longer sign in; their open tickets are unassigned.",
		Description: "Use it when someone leaves. An agent's unsolved tickets go back to their team's queue; reactivate with helpdesk.users.update active=true.",
		Tags:        []string{"users", "offboarding"},
		Aliases:     []string{"helpdesk.users.disable", "helpdesk.users.suspend"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.deactivateUser)
}

func (s *Service) registerTeams(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.teams.list",
		Summary:     "List agent teams with their members.",
		Description: "Shows every team, its lead and the agents in it.",
		Tags:        []string{"teams", "agents"},
		Aliases:     []string{"helpdesk.groups.list"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.listTeams)

	add(r, operations.Operation{
		ID:          "helpdesk.teams.get",
		Summary:     "Get one team with its lead and members.",
		Description: "Reads a single team by id.",
		Tags:        []string{"teams"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.getTeam)

	add(r, operations.Operation{
		ID:          "helpdesk.teams.create",
		Summary:     "Create an agent team.",
		Description: "Creates a team tickets can be routed to; the lead, if given, becomes its first member.",
		Tags:        []string{"teams"},
		Kind:        operations.KindWrite,
	}, s.createTeam)

	add(r, operations.Operation{
		ID:          "helpdesk.teams.add_member",
		Summary:     "Add an agent to a team.",
		Description: "Makes an agent or admin a member of the team. It is not an error to add someone already in it.",
		Tags:        []string{"teams", "agents"},
		Examples: []operations.Example{
			{Intent: "put Hannah on the escalations team", Params: map[string]any{"team_id": 3, "user_id": 8}},
		},
		Kind: operations.KindWrite, Idempotent: true,
	}, s.addTeamMember)

	add(r, operations.Operation{
		ID:          "helpdesk.teams.remove_member",
		Summary:     "Remove an agent from a team.",
		Description: "Takes the agent out of the team; tickets they hold keep their assignee. A team's lead cannot be removed.",
		Tags:        []string{"teams", "agents"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.removeTeamMember)
}

func (s *Service) registerOrgs(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.orgs.list",
		Summary:     "List customer organizations with plan, user count and open tickets.",
		Description: "Pages through the companies the help desk serves. Filter by plan or by part of the name or domain.",
		Tags:        []string{"orgs", "customers", "companies"},
		Aliases:     []string{"helpdesk.organizations.list", "helpdesk.companies.list"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.listOrgs)

	add(r, operations.Operation{
		ID:          "helpdesk.orgs.get",
		Summary:     "Get one organization: plan, SLA policy, notes, user and open-ticket counts.",
		Description: "Reads a single customer organization by id.",
		Tags:        []string{"orgs", "customers", "companies"},
		Aliases:     []string{"helpdesk.organizations.get"},
		Examples: []operations.Example{
			{Intent: "what plan is Kestrel Aviation on", Params: map[string]any{"org_id": 2}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.getOrg)

	add(r, operations.Operation{
		ID:          "helpdesk.orgs.create",
		Summary:     "Add a customer organization.",
		Description: "Creates a company with a unique domain. Its SLA policy follows its plan: Premium for business and enterprise, Standard otherwise.",
		Tags:        []string{"orgs", "customers"},
		Kind:        operations.KindWrite,
	}, s.createOrg)

	add(r, operations.Operation{
		ID:          "helpdesk.orgs.update",
		Summary:     "Change an organization's name, plan, SLA policy or notes.",
		Description: "Updates only the fields given. Changing the plan does not change the SLA policy unless sla_policy_id is given too.",
		Tags:        []string{"orgs", "customers"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.updateOrg)

	add(r, operations.Operation{
		ID:          "helpdesk.orgs.delete",
		Summary:     "Delete a customer organization.",
		Description: "Refuses while users or tickets belong to it unless force is true, in which case they are detached from it.",
		Tags:        []string{"orgs", "customers"},
		Kind:        operations.KindDestructive,
	}, s.deleteOrg)
}

// userView returns a copy of u.
func userView(u *User) User {
	v := *u
	v.TeamIDs = slices.Clone(u.TeamIDs)
	return v
}

func (s *Service) listUsers(_ context.Context, in ListUsersInput) (List[User], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var us []User
	for _, id := range sortedKeys(s.users) {
		u := s.users[id]
		switch {
		case in.Role != "" && u.Role != in.Role,
			in.OrgID != 0 && u.OrgID != in.OrgID,
			in.TeamID != 0 && !slices.Contains(u.TeamIDs, in.TeamID),
			in.Active != nil && u.Active != *in.Active,
			in.Query != "" && !containsFold(u.Name, in.Query) && !containsFold(u.Email, in.Query):
			continue
		}
		us = append(us, userView(u))
	}
	return paginate(us, in.Page)
}

func (s *Service) getUser(_ context.Context, in UserRef) (User, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	u, ok := s.users[in.UserID]
	if !ok {
		return User{}, userNotFound(in.UserID)
	}
	return userView(u), nil
}

// checkEmail validates an address (the schema's format is not asserted by
// every validator) and that no other user has it. The caller holds the lock.
func (s *Service) checkEmail(email string, self int) (string, error) {
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Name != "" {
		return "", invalidParams(fmt.Sprintf("%q is not an email address", email), "pass a bare address such as name@example.com")
	}
	email = strings.ToLower(addr.Address)
	for _, u := range s.users {
		if u.ID != self && u.Email == email {
			return "", operations.Conflict(fmt.Sprintf("email %s already belongs to user %d (%s)", email, u.ID, u.Name),
				fmt.Sprintf("use the existing user %d, or choose another address", u.ID))
		}
	}
	return email, nil
}

func checkTimezone(tz string) error {
	if _, err := time.LoadLocation(tz); err != nil || tz == "" || tz == "Local" {
		return invalidParams(fmt.Sprintf("unknown time zone %q", tz), "use an IANA name such as Europe/Dublin or America/New_York")
	}
	return nil
}

func (s *Service) createUser(_ context.Context, in CreateUserInput) (User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	email, err := s.checkEmail(in.Email, 0)
	if err != nil {
		return User{}, err
	}
	if in.OrgID != 0 {
		if _, ok := s.orgs[in.OrgID]; !ok {
			return User{}, orgNotFound(in.OrgID)
		}
	}
	if in.Timezone != "" {
		if err := checkTimezone(in.Timezone); err != nil {
			return User{}, err
		}
	}
	s.tick()
	u := &User{ID: s.newID("user"), Name: strings.TrimSpace(in.Name), Email: email, Role: cmpOr(in.Role, RoleCustomer),
		OrgID: in.OrgID, Timezone: in.Timezone, Active: true, CreatedAt: s.now}
	s.users[u.ID] = u
	s.record(apiUserID, "user.created", "user", u.ID, u.Role)
	return userView(u), nil
}

func (s *Service) updateUser(_ context.Context, in UpdateUserInput) (User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[in.UserID]
	if !ok {
		return User{}, userNotFound(in.UserID)
	}
	email := u.Email
	if in.Email != nil {
		var err error
		if email, err = s.checkEmail(*in.Email, u.ID); err != nil {
			return User{}, err
		}
	}
	if in.OrgID != nil {
		if _, ok := s.orgs[*in.OrgID]; !ok {
			return User{}, orgNotFound(*in.OrgID)
		}
	}
	if in.Timezone != nil {
		if err := checkTimezone(*in.Timezone); err != nil {
			return User{}, err
		}
	}
	s.tick()
	u.Email = email
	if in.Name != nil {
		u.Name = strings.TrimSpace(*in.Name)
	}
	if in.Role != nil {
		u.Role = *in.Role
	}
	if in.OrgID != nil {
		u.OrgID = *in.OrgID
	}
	if in.Timezone != nil {
		u.Timezone = *in.Timezone
	}
	if in.Active != nil {
		u.Active = *in.Active
	}
	s.record(apiUserID, "user.updated", "user", u.ID, "")
	return userView(u), nil
}

func (s *Service) deactivateUser(_ context.Context, in UserRef) (DeactivateResult, error) {
	if in.UserID == apiUserID {
		return DeactivateResult{}, operations.Conflict("the API integration user cannot be deactivated",
			"deactivate a person instead; list them with helpdesk.users.list")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[in.UserID]
	if !ok {
		return DeactivateResult{}, userNotFound(in.UserID)
	}
	res := DeactivateResult{UnassignedTicketIDs: []int{}}
	if u.Active {
		s.tick()
		u.Active = false
		for _, id := range sortedKeys(s.tickets) {
			t := s.tickets[id]
			if t.AssigneeID == u.ID && t.Status != StatusSolved && t.Status != StatusClosed {
				t.AssigneeID = 0
				t.UpdatedAt = s.now
				res.UnassignedTicketIDs = append(res.UnassignedTicketIDs, id)
			}
		}
		s.record(apiUserID, "user.deactivated", "user", u.ID, fmt.Sprintf("%d tickets unassigned", len(res.UnassignedTicketIDs)))
	}
	res.User = userView(u)
	return res, nil
}

// teamView resolves a stored team's members. The caller holds the lock.
func (s *Service) teamView(t *team) Team {
	v := Team{ID: t.ID, Name: t.Name, Description: t.Description, LeadID: t.LeadID, Members: []TeamMember{}}
	for _, id := range t.MemberIDs {
		if u, ok := s.users[id]; ok {
			v.Members = append(v.Members, TeamMember{UserID: u.ID, Name: u.Name, Email: u.Email})
		}
	}
	return v
}

func (s *Service) listTeams(_ context.Context, in Page) (List[Team], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return pageAll(s.teams, s.teamView, in)
}

func (s *Service) getTeam(_ context.Context, in TeamRef) (Team, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.teams[in.TeamID]
	if !ok {
		return Team{}, teamNotFound(in.TeamID)
	}
	return s.teamView(t), nil
}

func (s *Service) createTeam(_ context.Context, in CreateTeamInput) (Team, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.teams {
		if strings.EqualFold(t.Name, in.Name) {
			return Team{}, operations.Conflict(fmt.Sprintf("team %q already exists (id %d)", t.Name, t.ID),
				"use the existing team, or choose another name")
		}
	}
	var members []int
	if in.LeadID != 0 {
		if _, err := s.agent(in.LeadID); err != nil {
			return Team{}, err
		}
		members = []int{in.LeadID}
	}
	s.tick()
	t := &team{ID: s.newID("team"), Name: strings.TrimSpace(in.Name), Description: in.Description, LeadID: in.LeadID, MemberIDs: members}
	s.teams[t.ID] = t
	if in.LeadID != 0 {
		s.users[in.LeadID].TeamIDs = append(s.users[in.LeadID].TeamIDs, t.ID)
	}
	s.record(apiUserID, "team.created", "team", t.ID, t.Name)
	return s.teamView(t), nil
}

func (s *Service) addTeamMember(_ context.Context, in TeamMemberInput) (Team, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.teams[in.TeamID]
	if !ok {
		return Team{}, teamNotFound(in.TeamID)
	}
	u, err := s.agent(in.UserID)
	if err != nil {
		return Team{}, err
	}
	if !slices.Contains(t.MemberIDs, u.ID) {
		s.tick()
		t.MemberIDs = append(t.MemberIDs, u.ID)
		u.TeamIDs = append(u.TeamIDs, t.ID)
		s.record(apiUserID, "team.member_added", "team", t.ID, u.Name)
	}
	return s.teamView(t), nil
}

func (s *Service) removeTeamMember(_ context.Context, in TeamMemberInput) (Team, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.teams[in.TeamID]
	if !ok {
		return Team{}, teamNotFound(in.TeamID)
	}
	if _, ok := s.users[in.UserID]; !ok {
		return Team{}, userNotFound(in.UserID)
	}
	if t.LeadID == in.UserID {
		return Team{}, operations.Conflict(fmt.Sprintf("team %s is led by %s", t.Name, s.userName(in.UserID)),
			"a team must keep its lead; make someone else lead first")
	}
	if i := slices.Index(t.MemberIDs, in.UserID); i >= 0 {
		s.tick()
		t.MemberIDs = slices.Delete(t.MemberIDs, i, i+1)
		u := s.users[in.UserID]
		u.TeamIDs = slices.DeleteFunc(u.TeamIDs, func(id int) bool { return id == t.ID })
		s.record(apiUserID, "team.member_removed", "team", t.ID, u.Name)
	}
	return s.teamView(t), nil
}

// orgView returns a copy of o with its counts. The caller holds the lock.
func (s *Service) orgView(o *Org) Org {
	v := *o
	for _, u := range s.users {
		if u.OrgID == o.ID {
			v.UserCount++
		}
	}
	for _, t := range s.tickets {
		if t.OrgID == o.ID && t.Status != StatusSolved && t.Status != StatusClosed {
			v.OpenTicketCount++
		}
	}
	return v
}

func (s *Service) listOrgs(_ context.Context, in ListOrgsInput) (List[Org], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var os []Org
	for _, id := range sortedKeys(s.orgs) {
		o := s.orgs[id]
		if (in.Plan == "" || o.Plan == in.Plan) && (in.Query == "" || containsFold(o.Name, in.Query) || containsFold(o.Domain, in.Query)) {
			os = append(os, s.orgView(o))
		}
	}
	return paginate(os, in.Page)
}

func (s *Service) getOrg(_ context.Context, in OrgRef) (Org, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	o, ok := s.orgs[in.OrgID]
	if !ok {
		return Org{}, orgNotFound(in.OrgID)
	}
	return s.orgView(o), nil
}

// policyForPlan is the SLA policy a new organization on plan gets.
func policyForPlan(plan string) int {
	if plan == "business" || plan == "enterprise" {
		return 2
	}
	return 1
}

func (s *Service) createOrg(_ context.Context, in CreateOrgInput) (Org, error) {
	domain := strings.ToLower(strings.TrimSpace(in.Domain))
	if !strings.Contains(domain, ".") || strings.ContainsAny(domain, " /@:") {
		return Org{}, invalidParams(fmt.Sprintf("%q is not a domain name", in.Domain), "pass a bare domain such as example.com")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.orgs {
		if o.Domain == domain {
			return Org{}, operations.Conflict(fmt.Sprintf("domain %s already belongs to %s (id %d)", domain, o.Name, o.ID),
				fmt.Sprintf("use organization %d, or check the domain", o.ID))
		}
	}
	s.tick()
	plan := cmpOr(in.Plan, "team")
	o := &Org{ID: s.newID("org"), Name: strings.TrimSpace(in.Name), Domain: domain, Plan: plan,
		SLAPolicyID: policyForPlan(plan), Notes: in.Notes, CreatedAt: s.now}
	s.orgs[o.ID] = o
	s.record(apiUserID, "org.created", "org", o.ID, o.Name)
	return s.orgView(o), nil
}

func (s *Service) updateOrg(_ context.Context, in UpdateOrgInput) (Org, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orgs[in.OrgID]
	if !ok {
		return Org{}, orgNotFound(in.OrgID)
	}
	if in.SLAPolicyID != nil {
		if _, ok := s.policies[*in.SLAPolicyID]; !ok {
			return Org{}, policyNotFound(*in.SLAPolicyID)
		}
	}
	s.tick()
	if in.Name != nil {
		o.Name = strings.TrimSpace(*in.Name)
	}
	if in.Plan != nil {
		o.Plan = *in.Plan
	}
	if in.SLAPolicyID != nil {
		o.SLAPolicyID = *in.SLAPolicyID
	}
	if in.Notes != nil {
		o.Notes = *in.Notes
	}
	s.record(apiUserID, "org.updated", "org", o.ID, o.Name)
	return s.orgView(o), nil
}

func (s *Service) deleteOrg(_ context.Context, in DeleteOrgInput) (DeleteOrgResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orgs[in.OrgID]
	if !ok {
		return DeleteOrgResult{}, orgNotFound(in.OrgID)
	}
	res := DeleteOrgResult{ID: o.ID, Deleted: true}
	for _, u := range s.users {
		if u.OrgID == o.ID {
			res.DetachedUsers++
		}
	}
	for _, t := range s.tickets {
		if t.OrgID == o.ID {
			res.DetachedTickets++
		}
	}
	if !in.Force && res.DetachedUsers+res.DetachedTickets > 0 {
		return DeleteOrgResult{}, operations.Conflict(
			fmt.Sprintf("organization %s still has %d users and %d tickets", o.Name, res.DetachedUsers, res.DetachedTickets),
			"set force to true to detach them and delete the organization anyway")
	}
	s.tick()
	for _, u := range s.users {
		if u.OrgID == o.ID {
			u.OrgID = 0
		}
	}
	for _, t := range s.tickets {
		if t.OrgID == o.ID {
			t.OrgID = 0
		}
	}
	delete(s.orgs, o.ID)
	s.record(apiUserID, "org.deleted", "org", o.ID, o.Name)
	return res, nil
}
