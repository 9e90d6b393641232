package helpdesk

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// seed fills a new service with the demonstration data set. It uses no
// randomness: every value derives from the tables below and seedNow.
func (s *Service) seed() {
	s.seedPolicies()
	s.seedOrgs()
	s.seedUsers()
	s.seedTeams()
	s.seedTickets()
	s.seedKB()
	s.seedMacros()
	s.seedViews()
	s.seedWebhooks()
	s.seedHours()
	s.seedLogins()
	// Seeded audit entries were appended per record; order them by time
	// and number them in that order, as a real log would be.
	slices.SortStableFunc(s.audit, func(a, b AuditEntry) int { return a.At.Compare(b.At) })
	for i := range s.audit {
		s.audit[i].ID = i + 1
	}
}

// ago returns the seed time minus d.
func ago(d time.Duration) time.Time { return seedNow.Add(-d) }

// seedAudit appends an entry at a given time (record uses the clock).
func (s *Service) seedAudit(at time.Time, actorID int, action, targetType string, targetID int, detail string) {
	s.audit = append(s.audit, AuditEntry{At: at, ActorID: actorID, ActorName: s.userName(actorID),
		Action: action, TargetType: targetType, TargetID: targetID, Detail: detail})
}

func (s *Service) seedPolicies() {
	s.policies[s.newID("policy")] = &SLAPolicy{ID: 1, Name: "Standard",
		Description: "Default targets for free and team plans.",
		Targets: []SLATarget{
			{PriorityUrgent, 60, 8 * 60},
			{PriorityHigh, 4 * 60, 24 * 60},
			{PriorityNormal, 8 * 60, 48 * 60},
			{PriorityLow, 24 * 60, 120 * 60},
		}}
	s.policies[s.newID("policy")] = &SLAPolicy{ID: 2, Name: "Premium",
		Description: "Faster targets for business and enterprise plans.",
		Targets: []SLATarget{
			{PriorityUrgent, 30, 4 * 60},
			{PriorityHigh, 2 * 60, 12 * 60},
			{PriorityNormal, 4 * 60, 24 * 60},
			{PriorityLow, 12 * 60, 72 * 60},
		}}
}

func (s *Service) seedOrgs() {
	orgs := []struct {
		name, domain, plan string
		policy             int
		notes              string
	}{
		{"Brightwater Foods", "brightwater.example", "business", 2, "Grocery distributor; peak season in December."},
		{"Kestrel Aviation", "kestrel-aviation.example", "enterprise", 2, "24/7 operations; escalate outages to their ops desk."},
		{"Orchard Lane Dental", "orchardlane.example", "team", 1, ""},
		{"Tidewater Freight", "tidewater.example", "business", 2, "Nightly API sync from their TMS."},
		{"Copperleaf Software", "copperleaf.example", "team", 1, "Evaluating an upgrade to business."},
		{"Harbor & Pine Legal", "harborpine.example", "free", 1, ""},
		{"Meridian Clinics", "meridian-clinics.example", "enterprise", 2, "Healthcare customer: never paste patient data in public replies."},
		{"Bluefin Retail", "bluefin.example", "team", 1, "E-commerce; EU and UK storefronts."},
	}
	for i, o := range orgs {
		id := s.newID("org")
		s.orgs[id] = &Org{ID: id, Name: o.name, Domain: o.domain, Plan: o.plan, SLAPolicyID: o.policy,
			Notes: o.notes, CreatedAt: ago(time.Duration(400-i*30) * 24 * time.Hour)}
	}
}

func (s *Service) seedUsers() {
	staff := []struct{ name, email, role, tz string }{
		{"Help Desk API", "api@harborlight.example", RoleAdmin, "UTC"},
		{"Priya Natarajan", "priya.natarajan@harborlight.example", RoleAgent, "Europe/Dublin"},
		{"Marcus Webb", "marcus.webb@harborlight.example", RoleAgent, "Europe/Dublin"},
		{"Sofia Alvarez", "sofia.alvarez@harborlight.example", RoleAgent, "Europe/Madrid"},
		{"Kenji Watanabe", "kenji.watanabe@harborlight.example", RoleAgent, "Europe/Dublin"},
		{"Amara Okafor", "amara.okafor@harborlight.example", RoleAgent, "Europe/London"},
		{"Liam O'Connor", "liam.oconnor@harborlight.example", RoleAgent, "Europe/Dublin"},
		{"Hannah Becker", "hannah.becker@harborlight.example", RoleAgent, "Europe/Berlin"},
		{"Diego Ramos", "diego.ramos@harborlight.example", RoleAgent, "Europe/Madrid"},
		{"Chloe Martin", "chloe.martin@harborlight.example", RoleAdmin, "Europe/Paris"},
		{"Yusuf Demir", "yusuf.demir@harborlight.example", RoleAgent, "Europe/Istanbul"},
	}
	for i, u := range staff {
		id := s.newID("user")
		s.users[id] = &User{ID: id, Name: u.name, Email: u.email, Role: u.role, Timezone: u.tz,
			Active: true, CreatedAt: ago(time.Duration(500-i*10) * 24 * time.Hour)}
	}
	customers := []struct {
		name, local string
		org         int
	}{
		{"Olivia Grant", "olivia.grant", 1}, {"Noah Fischer", "noah.fischer", 2},
		{"Emma Lindqvist", "emma.lindqvist", 3}, {"Mateo Rossi", "mateo.rossi", 4},
		{"Ava Thompson", "ava.thompson", 5}, {"Lucas Moreau", "lucas.moreau", 6},
		{"Isla MacLeod", "isla.macleod", 7}, {"Ethan Park", "ethan.park", 8},
		{"Zoe Adeyemi", "zoe.adeyemi", 1}, {"Samuel Cohen", "samuel.cohen", 2},
		{"Mia Kowalski", "mia.kowalski", 3}, {"Oscar Nilsson", "oscar.nilsson", 4},
		{"Leah Haddad", "leah.haddad", 5}, {"Daniel Sato", "daniel.sato", 6},
		{"Grace O'Brien", "grace.obrien", 7}, {"Arjun Mehta", "arjun.mehta", 8},
		{"Nora Jensen", "nora.jensen", 1}, {"Felix Wagner", "felix.wagner", 2},
		{"Ruby Chen", "ruby.chen", 7}, {"Tomás Silva", "tomas.silva", 8},
	}
	for i, c := range customers {
		id := s.newID("user")
		s.users[id] = &User{ID: id, Name: c.name, Email: c.local + "@" + s.orgs[c.org].Domain,
			Role: RoleCustomer, OrgID: c.org, Active: i != 13, // Daniel Sato left his company
			CreatedAt: ago(time.Duration(300-i*7) * 24 * time.Hour)}
	}
}

func (s *Service) seedTeams() {
	teams := []team{
		{Name: "Tier 1 Support", Description: "First line for every new ticket.", LeadID: 2, MemberIDs: []int{2, 3, 7, 11}},
		{Name: "Billing", Description: "Invoices, refunds, plans and seats.", LeadID: 4, MemberIDs: []int{4, 8}},
		{Name: "Technical Escalations", Description: "Bugs, outages and integrations that need engineering.", LeadID: 5, MemberIDs: []int{5, 6, 2}},
		{Name: "Onboarding", Description: "Setup, training and migrations for new customers.", LeadID: 9, MemberIDs: []int{9, 11}},
	}
	for _, t := range teams {
		t.ID = s.newID("team")
		s.teams[t.ID] = &t
		for _, m := range t.MemberIDs {
			s.users[m].TeamIDs = append(s.users[m].TeamIDs, t.ID)
		}
	}
}

// seedTicket is one row of the ticket table.
type seedTicket struct {
	subject, description string
	priority, status     string
	kind, channel        string
	team, assignee       int
	requester            int
	ageMinutes           int
	tags                 string
	satisfaction         string
}

const hour = 60

var seedTickets = []seedTicket{
	{"Cannot log in after password reset", "I reset my password this morning and the new one is rejected on the login page. I've tried two browsers.", "normal", "solved", "question", "email", 1, 3, 12, 320 * hour, "login,password", "good"},
	{"Invoice shows wrong VAT rate", "Our February invoice applies 23% VAT but we are VAT-registered in Germany and should be reverse-charged.", "normal", "solved", "problem", "email", 2, 4, 13, 310 * hour, "billing,invoice,vat", "good"},
	{"Request to add 15 seats to our plan", "We're onboarding a new clinic team and need 15 more seats from next Monday.", "low", "closed", "task", "web", 2, 8, 14, 300 * hour, "billing,seats", "good"},
	{"Data export stuck at 99%", "The full account export has shown 99% for six hours. We need the file for an audit tomorrow.", "high", "solved", "incident", "web", 3, 6, 15, 290 * hour, "export,bug", "bad"},
	{"How do we set up SAML single sign-on?", "We'd like staff to sign in with our identity provider. Is there a guide for SAML?", "normal", "solved", "question", "email", 4, 9, 16, 280 * hour, "sso,onboarding", "good"},
	{"Mobile app crashes on Android 14", "The app closes as soon as I open a ticket on a Pixel 8 running Android 14.", "high", "pending", "incident", "chat", 3, 5, 17, 270 * hour, "mobile,android,bug", ""},
	{"Please cancel our subscription", "We're closing the practice at the end of the month. Please cancel and confirm no further charges.", "normal", "solved", "task", "email", 2, 4, 25, 260 * hour, "billing,cancellation", "bad"},
	{"Calendar sync duplicates events", "Every event synced from our shared calendar appears twice since Tuesday.", "normal", "open", "problem", "web", 3, 6, 18, 250 * hour, "integrations,calendar", ""},
	{"Need a copy of our signed DPA", "Legal is asking for the countersigned data processing agreement.", "low", "solved", "question", "email", 1, 7, 26, 240 * hour, "legal,compliance", "good"},
	{"Webhook deliveries failing with 401", "Our endpoint started rejecting your webhook calls with 401 after we rotated keys.", "high", "open", "incident", "api", 3, 2, 19, 230 * hour, "webhooks,api", ""},
	{"Charged twice for February", "Our card was charged twice on 1 February for the same invoice.", "high", "solved", "problem", "phone", 2, 8, 20, 220 * hour, "billing,refund", "good"},
	{"Onboarding call for new admins", "Two new admins joined; can we book a 30-minute walkthrough?", "normal", "closed", "task", "email", 4, 9, 21, 210 * hour, "onboarding,training", "good"},
	{"Reports page loads very slowly", "The monthly report page takes over a minute to load for our team leads.", "normal", "on_hold", "problem", "web", 3, 5, 22, 200 * hour, "performance,reports", ""},
	{"Typo in the welcome email template", "The welcome email says 'recieve'. Minor, but customers notice.", "low", "solved", "task", "web", 1, 11, 23, 190 * hour, "email,content", "good"},
	{"API rate limit too low for nightly sync", "Our nightly sync hits 429 errors after about 40 minutes. Can the limit be raised?", "normal", "pending", "question", "api", 3, 6, 24, 180 * hour, "api,rate_limit", ""},
	{"User can't see shared dashboards", "A new team member gets 'access denied' on every shared dashboard.", "normal", "open", "problem", "chat", 1, 3, 28, 170 * hour, "permissions,dashboards", ""},
	{"Update billing contact email", "Please send invoices to accounts@kestrel-aviation.example from now on.", "low", "solved", "task", "email", 2, 8, 29, 160 * hour, "billing", "good"},
	{"Two-factor codes not arriving", "Several nurses don't receive their two-factor codes; they can't start their shift.", "high", "open", "incident", "phone", 1, 7, 30, 150 * hour, "login,2fa", ""},
	{"Import of 20k contacts failed", "The CSV import stops with 'unexpected error' at row 12,004.", "high", "open", "incident", "web", 3, 5, 31, 140 * hour, "import,bug", ""},
	{"Question about annual pricing", "What discount do you offer if we switch to annual billing?", "low", "pending", "question", "chat", 2, 4, 12, 130 * hour, "billing,pricing", ""},
	{"Audit log missing entries for March 3", "Our compliance team can't find any audit entries for March 3 between 14:00 and 16:00.", "normal", "open", "problem", "email", 3, 6, 13, 120 * hour, "audit,compliance", ""},
	{"Set up sandbox environment", "We need a sandbox to test workflows before rolling out to all clinics.", "normal", "open", "task", "email", 4, 11, 14, 110 * hour, "onboarding,sandbox", ""},
	{"Email notifications going to spam", "Ticket notification emails land in spam for our Outlook users.", "normal", "open", "problem", "email", 1, 2, 15, 100 * hour, "email,deliverability", ""},
	{"Custom fields missing from export", "Exports don't include the custom fields we added last week.", "normal", "new", "problem", "web", 3, 0, 16, 96 * hour, "export,custom_fields", ""},
	{"Locked out of admin account", "Our only admin is locked out after too many attempts. Nobody can manage users.", "urgent", "solved", "incident", "phone", 1, 7, 17, 90 * hour, "login,admin", "good"},
	{"Refund request for unused seats", "We downsized from 40 to 25 seats mid-term; can we get a prorated refund?", "normal", "open", "task", "email", 2, 8, 18, 84 * hour, "billing,refund", ""},
	{"Dark mode makes tables unreadable", "In dark mode the table borders and text are nearly the same colour.", "low", "new", "problem", "web", 0, 0, 19, 80 * hour, "ui,accessibility", ""},
	{"Automation integration disconnects nightly", "Our automation connector loses its connection every night around 02:00 and needs re-authorising.", "normal", "open", "problem", "web", 3, 6, 20, 76 * hour, "integrations", ""},
	{"Training session for support leads", "Could you run a training session on macros and views for our four leads?", "low", "open", "task", "email", 4, 9, 21, 72 * hour, "onboarding,training", ""},
	{"Search ignores accented names", "Searching for 'Jose' doesn't find 'José' and vice versa.", "normal", "open", "problem", "web", 3, 5, 22, 66 * hour, "search,i18n", ""},
	{"Add PO number to invoices", "Our finance team needs our purchase order number printed on every invoice.", "low", "new", "task", "email", 2, 0, 23, 60 * hour, "billing,invoice", ""},
	{"Password reset link expired immediately", "The reset link says 'expired' the moment I click it, even straight after requesting it.", "high", "new", "incident", "email", 1, 0, 24, 54 * hour, "login,password", ""},
	{"Bulk delete of archived projects", "Is there a way to delete 300 archived projects at once?", "normal", "pending", "question", "chat", 1, 11, 28, 48 * hour, "data", ""},
	{"Outage: dashboard 500 errors", "Every dashboard returns a 500 error for all of our users.", "urgent", "solved", "incident", "phone", 3, 5, 29, 44 * hour, "outage,dashboards", "good"},
	{"Time zone wrong on scheduled reports", "Scheduled reports arrive an hour early since the clocks changed.", "normal", "open", "problem", "web", 3, 6, 30, 40 * hour, "reports,timezone", ""},
	{"Need your SOC 2 report", "Our security review needs your latest SOC 2 Type II report.", "low", "open", "question", "email", 1, 7, 31, 36 * hour, "compliance,security", ""},
	{"Cannot upload files larger than 10 MB", "Uploading a 14 MB PDF to a ticket fails without an error message.", "normal", "new", "problem", "web", 0, 0, 12, 30 * hour, "attachments,bug", ""},
	{"Seat count mismatch after upgrade", "We upgraded to 60 seats but the admin page still shows 45.", "normal", "open", "problem", "email", 2, 4, 13, 26 * hour, "billing,seats", ""},
	{"Chat notifications stopped after workspace rename", "Since we renamed our chat workspace, no ticket notifications arrive in our channel.", "normal", "open", "incident", "api", 3, 2, 14, 22 * hour, "integrations,notifications", ""},
	{"Spanish translation of the help center", "Our Madrid office asks whether the help center can be offered in Spanish.", "low", "on_hold", "task", "email", 4, 9, 15, 20 * hour, "kb,i18n", ""},
	{"Printed invoices are cut off", "When printing an invoice the right-hand column is cut off.", "low", "new", "problem", "web", 2, 0, 16, 18 * hour, "billing,invoice,ui", ""},
	{"Checkout returns 502 for EU customers", "Since 09:00 every checkout on our EU storefront fails with a 502 from your payment step. UK is fine. We are losing orders.", "urgent", "open", "incident", "phone", 3, 5, 19, 7 * hour, "outage,checkout,eu", ""},
	{"Checkout failing on EU store", "Customers report a 502 at the payment step on the EU site.", "high", "new", "incident", "email", 0, 0, 27, 5 * hour, "checkout", ""},
	{"API key rotation guidance", "How do we rotate API keys without downtime for our nightly jobs?", "normal", "new", "question", "api", 0, 0, 20, 4 * hour, "api,security", ""},
	{"Mobile login loop on iOS", "After updating the iOS app, login sends me back to the login screen.", "high", "new", "incident", "chat", 1, 0, 21, 3 * hour, "mobile,ios,login", ""},
	{"Add a new location to our account", "We opened a clinic in Galway and need it added as a location.", "low", "new", "task", "web", 4, 0, 22, 2 * hour, "onboarding", ""},
	{"Invoice PDF download fails", "Clicking 'Download PDF' on any invoice shows a blank page.", "normal", "new", "problem", "web", 2, 0, 23, 60, "billing,invoice", ""},
	{"Export saved views to CSV", "It would help to export the results of a saved view to a spreadsheet.", "low", "new", "task", "web", 0, 0, 24, 30, "feature_request", ""},
}

func (s *Service) seedTickets() {
	for _, st := range seedTickets {
		id := s.newID("ticket")
		created := ago(time.Duration(st.ageMinutes) * time.Minute)
		req := s.users[st.requester]
		t := &Ticket{
			ID: id, Subject: st.subject, Description: st.description,
			Status: st.status, Priority: st.priority, Type: st.kind, Channel: st.channel,
			RequesterID: st.requester, AssigneeID: st.assignee, TeamID: st.team, OrgID: req.OrgID,
			Tags: strings.Split(st.tags, ","), Satisfaction: st.satisfaction,
			CreatedAt: created, UpdatedAt: created,
		}
		s.tickets[id] = t
		s.seedAudit(created, st.requester, "ticket.created", "ticket", id, st.subject)
		if st.assignee != 0 {
			s.seedAudit(created.Add(5*time.Minute), s.teams[st.team].LeadID, "ticket.assigned", "ticket", id,
				"assigned to "+s.userName(st.assignee))
		}
		s.seedConversation(t)
	}
	// Ticket 42 is the showcase outage: a specific conversation and files.
	s.seedAttachment(42, 0, "checkout-502.har", "application/json", 2_483_201, 19, ago(6*time.Hour))
	s.seedAttachment(42, 0, "payment-step-error.png", "image/png", 318_554, 19, ago(6*time.Hour))
	for _, a := range []struct {
		ticket   int
		name     string
		ctype    string
		size     int64
		ageHours int
	}{
		{4, "export-progress.png", "image/png", 201_332, 289},
		{6, "crash-log.txt", "text/plain", 48_120, 269},
		{10, "webhook-401-response.json", "application/json", 2_201, 229},
		{13, "reports-timing.har", "application/json", 5_912_004, 199},
		{19, "contacts-import.csv", "text/csv", 4_118_560, 139},
		{21, "audit-gap.png", "image/png", 156_871, 119},
		{30, "search-accents.mp4", "video/mp4", 9_874_112, 65},
		{37, "upload-failure.png", "image/png", 88_410, 29},
		{47, "blank-invoice.png", "image/png", 64_003, 0},
	} {
		t := s.tickets[a.ticket]
		s.seedAttachment(a.ticket, 0, a.name, a.ctype, a.size, t.RequesterID, t.CreatedAt.Add(time.Duration(a.ageHours%2+1)*time.Minute))
	}
}

func (s *Service) seedAttachment(ticketID, commentID int, name, ctype string, size int64, by int, at time.Time) {
	id := s.newID("attachment")
	s.attachments[id] = &Attachment{ID: id, TicketID: ticketID, CommentID: commentID, Filename: name,
		ContentType: ctype, SizeBytes: size, UploadedBy: by, CreatedAt: at}
	s.seedAudit(at, by, "attachment.uploaded", "ticket", ticketID, name)
}

// seedConversation writes the comments a ticket in its status would have
// and sets its response and solve times.
func (s *Service) seedConversation(t *Ticket) {
	first := strings.Fields(s.users[t.RequesterID].Name)[0]
	agent := t.AssigneeID
	at := t.CreatedAt
	comment := func(author int, public bool, after time.Duration, body string) {
		at = at.Add(after)
		if at.After(seedNow) {
			at = seedNow
		}
		id := s.newID("comment")
		s.comments[id] = &Comment{ID: id, TicketID: t.ID, AuthorID: author, Body: body, Public: public, CreatedAt: at}
		if public && author != t.RequesterID && t.FirstResponseAt == nil {
			fr := at
			t.FirstResponseAt = &fr
		}
		t.UpdatedAt = at
		kind := "internal note"
		if public {
			kind = "public reply"
		}
		s.seedAudit(at, author, "comment.added", "ticket", t.ID, kind)
	}
	if t.ID == 42 {
		comment(agent, true, 18*time.Minute, "Hi "+first+", we've reproduced the 502 on the EU checkout path and paged the on-call engineer. Next update within 30 minutes.")
		comment(agent, false, 40*time.Minute, "Suspect the expired TLS certificate on the EU payment gateway. Engineering incident INC-2291 opened.")
		comment(t.RequesterID, true, 3*time.Hour, "Any update? We're still losing every EU order.")
		comment(agent, true, 20*time.Minute, "Certificate renewal is in progress; we expect checkout to recover within the hour. Sorry for the disruption.")
		t.UpdatedAt = at
		return
	}
	if t.Status == StatusNew {
		return
	}
	comment(agent, true, time.Duration(15+t.ID%40)*time.Minute,
		fmt.Sprintf("Hi %s, thanks for getting in touch. I'm looking into %q now and will update you here.", first, t.Subject))
	if t.ID%3 == 0 {
		comment(agent, false, 30*time.Minute, fmt.Sprintf("Reproduced internally; tracked as ENG-%d.", 4100+t.ID))
	}
	switch t.Status {
	case StatusPending:
		comment(agent, true, 2*time.Hour, "Could you send a screenshot and the approximate time this last happened? That will help us narrow it down.")
	case StatusOnHold:
		comment(agent, true, 3*time.Hour, "We're waiting on a fix from our engineering team and will update you as soon as it ships.")
	case StatusSolved, StatusClosed:
		comment(t.RequesterID, true, 5*time.Hour, "That sorted it, thank you!")
		comment(agent, true, 30*time.Minute, "Glad to hear it. I'll mark this as solved; reply any time if it comes back.")
		solved := at
		t.SolvedAt = &solved
		s.seedAudit(at, agent, "ticket.status_changed", "ticket", t.ID, "open -> "+t.Status)
	}
}

func (s *Service) seedKB() {
	articles := []struct {
		title, section, status, tags, body string
		author, views, ageDays             int
	}{
		{"Resetting your password", "Account & login", "published", "login,password", "Open the login page, choose 'Forgot password' and follow the emailed link within 30 minutes. Links can be used once.", 2, 4120, 90},
		{"Setting up two-factor authentication", "Account & login", "published", "login,2fa", "Go to Profile > Security, choose an authenticator app or SMS, and confirm with a code. Admins can require 2FA for everyone.", 3, 2210, 80},
		{"Configuring SAML single sign-on", "Getting started", "published", "sso,onboarding", "Create a SAML app in your identity provider with our ACS URL, upload its metadata under Settings > Security, then test with one user before enforcing.", 9, 980, 120},
		{"Understanding your invoice", "Billing", "published", "billing,invoice", "Invoices list seats, add-ons and tax per line. Reverse-charge VAT applies when your VAT number is on file.", 4, 1530, 60},
		{"Changing your plan or seat count", "Billing", "published", "billing,seats", "Admins change plans under Settings > Billing. Added seats are prorated; removed seats take effect at renewal.", 4, 1210, 45},
		{"Requesting a refund", "Billing", "published", "billing,refund", "Refunds for duplicate charges are automatic within 5 business days. For other refunds contact Billing with the invoice number.", 8, 760, 30},
		{"Connecting calendar integrations", "Integrations", "published", "integrations,calendar", "Connect a shared calendar under Settings > Integrations. Only one connection per calendar is supported; a second one duplicates events.", 6, 640, 70},
		{"Webhook signatures and retries", "Integrations", "published", "webhooks,api", "Each delivery is signed with your webhook secret in the X-Signature header. Failed deliveries are retried five times with backoff.", 5, 530, 50},
		{"API rate limits", "Integrations", "published", "api,rate_limit", "The API allows 600 requests per minute per key. Responses carry X-RateLimit-Remaining; back off on 429.", 6, 890, 40},
		{"Exporting your data", "Troubleshooting", "published", "export", "Full exports run in the background and are emailed when ready. Custom fields are included from the next export after they are created.", 5, 450, 20},
		{"Importing contacts in bulk", "Getting started", "published", "import", "Imports accept UTF-8 CSV files up to 50,000 rows. Check for stray quotes if an import stops with an unexpected error.", 9, 370, 15},
		{"Troubleshooting slow dashboards", "Troubleshooting", "draft", "performance,dashboards", "Large date ranges and many widgets slow dashboards down. Narrow the range or split the dashboard.", 5, 0, 3},
		{"Centro de ayuda en español", "Getting started", "draft", "kb,i18n", "Borrador: traducción de los artículos principales.", 9, 0, 1},
	}
	for _, a := range articles {
		id := s.newID("article")
		at := ago(time.Duration(a.ageDays) * 24 * time.Hour)
		s.articles[id] = &Article{ID: id, Title: a.title, Body: a.body, Section: a.section, Status: a.status,
			AuthorID: a.author, Tags: strings.Split(a.tags, ","), Views: a.views, UpdatedAt: at}
		s.seedAudit(at, a.author, "kb.article_saved", "article", id, a.title)
	}
}

func (s *Service) seedMacros() {
	macros := []Macro{
		{Title: "Ask for more information", Description: "Asks the requester for details and sets the ticket to pending.",
			Actions: MacroActions{Status: StatusPending, Reply: "Hi {{requester}}, thanks for the details so far. Could you send a screenshot and the steps that lead to the problem?"}, UsageCount: 212},
		{Title: "Solved: password reset", Description: "Explains the password reset flow and solves the ticket.",
			Actions: MacroActions{Status: StatusSolved, AddTags: []string{"login"}, Reply: "Hi {{requester}}, you can reset your password from the login page with 'Forgot password'. The link is valid for 30 minutes."}, UsageCount: 148},
		{Title: "Route to Billing", Description: "Moves the ticket to the Billing team.",
			Actions: MacroActions{TeamID: 2, AddTags: []string{"billing"}}, UsageCount: 97},
		{Title: "Escalate to engineering", Description: "Raises priority to high and routes to Technical Escalations.",
			Actions: MacroActions{TeamID: 3, Priority: PriorityHigh, AddTags: []string{"escalated"}}, UsageCount: 63},
		{Title: "Refund approved", Description: "Confirms a refund and solves the ticket.",
			Actions: MacroActions{Status: StatusSolved, AddTags: []string{"refund"}, Reply: "Hi {{requester}}, your refund has been approved and will reach your account within 5 business days."}, UsageCount: 41},
		{Title: "Known outage", Description: "Acknowledges an ongoing incident and marks the ticket urgent.",
			Actions: MacroActions{Priority: PriorityUrgent, AddTags: []string{"outage"}, Reply: "Hi {{requester}}, we're aware of an ongoing incident affecting this and our engineers are working on it. We'll update you here."}, UsageCount: 18},
	}
	for _, m := range macros {
		m.ID = s.newID("macro")
		s.macros[m.ID] = &m
	}
}

func (s *Service) seedViews() {
	views := []View{
		{Name: "Unassigned tickets", Filter: ViewFilter{Statuses: []string{StatusNew, StatusOpen}, Unassigned: true}, Shared: true, OwnerID: 10},
		{Name: "Urgent and high", Filter: ViewFilter{Priorities: []string{PriorityUrgent, PriorityHigh}, Statuses: []string{StatusNew, StatusOpen, StatusPending}}, Shared: true, OwnerID: 10},
		{Name: "Billing queue", Filter: ViewFilter{TeamID: 2, Statuses: []string{StatusNew, StatusOpen, StatusPending}}, Shared: true, OwnerID: 4},
		{Name: "Escalations", Filter: ViewFilter{TeamID: 3, Statuses: []string{StatusNew, StatusOpen, StatusPending, StatusOnHold}}, Shared: true, OwnerID: 5},
		{Name: "Waiting on customer", Filter: ViewFilter{Statuses: []string{StatusPending}}, Shared: true, OwnerID: 2},
		{Name: "Kenji's open tickets", Filter: ViewFilter{AssigneeID: 5, Statuses: []string{StatusOpen, StatusPending, StatusOnHold}}, Shared: false, OwnerID: 5},
	}
	for i, v := range views {
		v.ID = s.newID("view")
		v.CreatedAt = ago(time.Duration(200-i*20) * 24 * time.Hour)
		s.views[v.ID] = &v
	}
}

func (s *Service) seedWebhooks() {
	hooks := []struct {
		name, url string
		events    []string
		active    bool
	}{
		{"CRM sync", "https://crm.brightwater.example/hooks/helpdesk", []string{"ticket.created", "ticket.updated", "ticket.solved"}, true},
		{"Ops paging", "https://pager.harborlight.example/v1/events", []string{"ticket.created"}, true},
		{"Data warehouse", "https://etl.harborlight.example/ingest/helpdesk", []string{"ticket.created", "ticket.updated", "ticket.solved", "ticket.deleted", "comment.added"}, false},
	}
	for i, h := range hooks {
		id := s.newID("webhook")
		secret := s.newSecret(id)
		w := &webhook{Webhook: Webhook{ID: id, Name: h.name, URL: h.url, Events: h.events, Active: h.active,
			SecretLast4: secret[len(secret)-4:], CreatedAt: ago(time.Duration(150-i*40) * 24 * time.Hour)}, secret: secret}
		if h.active {
			w.LastDelivery = &Delivery{Event: "ticket.created", At: ago(30 * time.Minute), StatusCode: 200, Success: true}
		}
		s.webhooks[id] = w
	}
}

func (s *Service) seedHours() {
	week := []DayHours{}
	for _, d := range []string{"monday", "tuesday", "wednesday", "thursday", "friday"} {
		week = append(week, DayHours{Day: d, Open: "08:00", Close: "18:00"})
	}
	week = append(week, DayHours{Day: "saturday", Open: "10:00", Close: "14:00"}, DayHours{Day: "sunday", Closed: true})
	s.hours = BusinessHours{Timezone: "Europe/Dublin", Week: week, Holidays: []Holiday{
		{"2025-03-17", "St Patrick's Day"},
		{"2025-04-18", "Good Friday"},
		{"2025-04-21", "Easter Monday"},
		{"2025-05-05", "May Bank Holiday"},
		{"2025-12-25", "Christmas Day"},
		{"2025-12-26", "St Stephen's Day"},
	}}
}

// seedLogins writes two weeks of agent sign-ins and sign-outs, which make
// the audit log long enough to page through.
func (s *Service) seedLogins() {
	for day := 14; day >= 1; day-- {
		for agent := 2; agent <= 11; agent++ {
			in := ago(time.Duration(day)*24*time.Hour - time.Duration(agent*7)*time.Minute)
			s.seedAudit(in, agent, "user.signed_in", "user", agent, "")
			s.seedAudit(in.Add(8*time.Hour+time.Duration(agent*3)*time.Minute), agent, "user.signed_out", "user", agent, "")
		}
	}
}

// newSecret returns a webhook signing secret. It is derived from the
// webhook id and a counter so that seeded data stays reproducible; a real
// service would draw it from crypto/rand.
func (s *Service) newSecret(webhookID int) string {
	n := s.newID("secret")
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
	var b strings.Builder
	b.WriteString("whsec_")
	x := uint64(webhookID)*0x9E3779B97F4A7C15 + uint64(n)*0xBF58476D1CE4E5B9
	for range 24 {
		x ^= x >> 31
		x *= 0x94D049BB133111EB
		b.WriteByte(alphabet[x%uint64(len(alphabet))])
	}
	return b.String()
}
