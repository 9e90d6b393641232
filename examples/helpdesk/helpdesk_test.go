package helpdesk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// call runs id with args on reg and decodes the result into a generic map.
func call(t *testing.T, reg *operations.Registry, id, args string) (map[string]any, error) {
	t.Helper()
	raw, err := reg.Call(context.Background(), id, json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s returned invalid JSON: %v\n%s", id, err, raw)
	}
	return out, nil
}

func mustCall(t *testing.T, reg *operations.Registry, id, args string) map[string]any {
	t.Helper()
	out, err := call(t, reg, id, args)
	if err != nil {
		t.Fatalf("%s %s: %v", id, args, err)
	}
	return out
}

// items returns the items of a list result.
func items(out map[string]any) []map[string]any {
	raw, _ := out["items"].([]any)
	res := make([]map[string]any, len(raw))
	for i, v := range raw {
		res[i], _ = v.(map[string]any)
	}
	return res
}

// ids returns the given numeric field of every item.
func ids(out map[string]any, field string) []int {
	var res []int
	for _, it := range items(out) {
		res = append(res, int(it[field].(float64)))
	}
	return res
}

func num(v any) int { f, _ := v.(float64); return int(f) }

// errCode returns the operations.Error code of err, "schema" for a
// validation error, or "" for anything else.
func errCode(err error) string {
	var oe *operations.Error
	var ve *operations.ValidationError
	switch {
	case errors.As(err, &oe):
		return oe.Code
	case errors.As(err, &ve):
		return "schema"
	}
	return ""
}

func TestOperations(t *testing.T) {
	tests := []struct {
		name  string
		id    string
		args  string
		check func(t *testing.T, out map[string]any)
	}{
		{"ticket 42 has an assignee", "helpdesk.tickets.get", `{"ticket_id":42}`, func(t *testing.T, out map[string]any) {
			if out["assignee_name"] != "Kenji Watanabe" || out["priority"] != "urgent" || out["org_name"] != "Bluefin Retail" {
				t.Errorf("ticket 42 = %v", out)
			}
		}},
		{"alias reaches tickets.get", "helpdesk.tickets.show", `{"ticket_id":1}`, func(t *testing.T, out map[string]any) {
			if out["status"] != "solved" {
				t.Errorf("status = %v, want solved", out["status"])
			}
		}},
		{"list filters by status and priority", "helpdesk.tickets.list", `{"status":"new","priority":"high"}`, func(t *testing.T, out map[string]any) {
			for _, it := range items(out) {
				if it["status"] != "new" || it["priority"] != "high" {
					t.Errorf("item does not match the filter: %v", it)
				}
			}
			if got := ids(out, "id"); !slices.Contains(got, 32) || !slices.Contains(got, 43) {
				t.Errorf("ids = %v, want 32 and 43 among them", got)
			}
		}},
		{"unassigned queue", "helpdesk.tickets.list", `{"unassigned":true,"limit":200}`, func(t *testing.T, out map[string]any) {
			for _, it := range items(out) {
				if it["assignee_name"] != nil {
					t.Errorf("assigned ticket in unassigned list: %v", it)
				}
			}
			if num(out["total"]) == 0 {
				t.Error("no unassigned tickets")
			}
		}},
		{"priority sort puts urgent first", "helpdesk.tickets.list", `{"sort":"priority","limit":1}`, func(t *testing.T, out map[string]any) {
			if it := items(out); len(it) != 1 || it[0]["priority"] != "urgent" {
				t.Errorf("first item = %v", it)
			}
			if out["next_cursor"] == nil {
				t.Error("no next_cursor on a partial page")
			}
		}},
		{"search finds the checkout outage", "helpdesk.tickets.search", `{"query":"checkout 502"}`, func(t *testing.T, out map[string]any) {
			if got := ids(out, "id"); !slices.Contains(got, 42) || !slices.Contains(got, 43) {
				t.Errorf("ids = %v, want 42 and 43", got)
			}
		}},
		{"comments on 42 include an internal note", "helpdesk.comments.list", `{"ticket_id":42}`, func(t *testing.T, out map[string]any) {
			notes := 0
			for _, it := range items(out) {
				if it["public"] == false {
					notes++
				}
			}
			if num(out["total"]) != 4 || notes != 1 {
				t.Errorf("total = %v, internal notes = %d; want 4 and 1", out["total"], notes)
			}
		}},
		{"public_only hides notes", "helpdesk.comments.list", `{"ticket_id":42,"public_only":true}`, func(t *testing.T, out map[string]any) {
			if num(out["total"]) != 3 {
				t.Errorf("total = %v, want 3", out["total"])
			}
		}},
		{"attachments of 42", "helpdesk.attachments.list", `{"ticket_id":42}`, func(t *testing.T, out map[string]any) {
			if num(out["total"]) != 2 {
				t.Errorf("total = %v, want 2", out["total"])
			}
		}},
		{"agents only", "helpdesk.users.list", `{"role":"agent","limit":200}`, func(t *testing.T, out map[string]any) {
			for _, it := range items(out) {
				if it["role"] != "agent" {
					t.Errorf("non-agent listed: %v", it)
				}
			}
			if num(out["total"]) != 9 {
				t.Errorf("total = %v, want 9 agents", out["total"])
			}
		}},
		{"user lookup by email fragment", "helpdesk.users.list", `{"query":"RUBY.CHEN"}`, func(t *testing.T, out map[string]any) {
			if got := ids(out, "id"); !slices.Equal(got, []int{30}) {
				t.Errorf("ids = %v, want [30]", got)
			}
		}},
		{"team members are resolved", "helpdesk.teams.get", `{"team_id":3}`, func(t *testing.T, out map[string]any) {
			members, _ := out["members"].([]any)
			if out["name"] != "Technical Escalations" || len(members) != 3 {
				t.Errorf("team 3 = %v", out)
			}
		}},
		{"org counts", "helpdesk.orgs.get", `{"org_id":8}`, func(t *testing.T, out map[string]any) {
			if out["plan"] != "team" || num(out["user_count"]) != 3 || num(out["open_ticket_count"]) == 0 {
				t.Errorf("org 8 = %v", out)
			}
		}},
		{"enterprise orgs", "helpdesk.orgs.list", `{"plan":"enterprise"}`, func(t *testing.T, out map[string]any) {
			if num(out["total"]) != 2 {
				t.Errorf("total = %v, want 2", out["total"])
			}
		}},
		{"tags most used first", "helpdesk.tags.list", `{"limit":1}`, func(t *testing.T, out map[string]any) {
			if it := items(out); len(it) != 1 || it[0]["name"] != "billing" {
				t.Errorf("top tag = %v, want billing", it)
			}
		}},
		{"policies", "helpdesk.sla.list_policies", `{}`, func(t *testing.T, out map[string]any) {
			if num(out["total"]) != 2 {
				t.Errorf("total = %v, want 2", out["total"])
			}
		}},
		{"ticket 42 is at risk", "helpdesk.sla.get_status", `{"ticket_id":42}`, func(t *testing.T, out map[string]any) {
			if out["state"] != "at_risk" {
				t.Errorf("state = %v, want at_risk", out["state"])
			}
		}},
		{"breaches are all breached and unsolved", "helpdesk.sla.list_breaches", `{"limit":200}`, func(t *testing.T, out map[string]any) {
			if num(out["total"]) == 0 {
				t.Fatal("no breaches in the seed data")
			}
			for _, it := range items(out) {
				if it["state"] != "breached" {
					t.Errorf("not breached: %v", it)
				}
			}
			if slices.Contains(ids(out, "ticket_id"), 1) {
				t.Error("solved ticket 1 listed as breaching")
			}
		}},
		{"at-risk list includes 42", "helpdesk.sla.list_breaches", `{"state":"at_risk"}`, func(t *testing.T, out map[string]any) {
			if !slices.Contains(ids(out, "ticket_id"), 42) {
				t.Errorf("ids = %v, want 42 among them", ids(out, "ticket_id"))
			}
		}},
		{"macros most used first", "helpdesk.macros.list", `{}`, func(t *testing.T, out map[string]any) {
			if it := items(out); len(it) == 0 || it[0]["title"] != "Ask for more information" {
				t.Errorf("first macro = %v", it)
			}
		}},
		{"billing queue view", "helpdesk.views.run", `{"view_id":3,"limit":200}`, func(t *testing.T, out map[string]any) {
			for _, it := range items(out) {
				if it["team_name"] != "Billing" || it["status"] == "solved" || it["status"] == "closed" {
					t.Errorf("ticket outside the billing queue: %v", it)
				}
			}
		}},
		{"kb search ranks title matches", "helpdesk.kb.search", `{"query":"refund"}`, func(t *testing.T, out map[string]any) {
			if it := items(out); len(it) == 0 || it[0]["title"] != "Requesting a refund" {
				t.Errorf("first article = %v", it)
			}
		}},
		{"kb search hides drafts", "helpdesk.kb.search", `{"query":"dashboards"}`, func(t *testing.T, out map[string]any) {
			for _, it := range items(out) {
				if it["status"] != "published" {
					t.Errorf("draft in results: %v", it)
				}
			}
		}},
		{"webhooks hide secrets", "helpdesk.webhooks.get", `{"webhook_id":1}`, func(t *testing.T, out map[string]any) {
			if _, ok := out["secret"]; ok || len(out["secret_last4"].(string)) != 4 {
				t.Errorf("webhook 1 = %v", out)
			}
		}},
		{"volume by channel adds up", "helpdesk.reports.ticket_volume", `{"group_by":"channel"}`, func(t *testing.T, out map[string]any) {
			sum := 0
			for _, b := range out["buckets"].([]any) {
				sum += num(b.(map[string]any)["count"])
			}
			if sum != num(out["total"]) || sum != 48 {
				t.Errorf("buckets sum to %d, total %v; want 48", sum, out["total"])
			}
		}},
		{"backlog", "helpdesk.reports.backlog", `{}`, func(t *testing.T, out map[string]any) {
			if num(out["unsolved"]) == 0 || len(out["oldest"].([]any)) != 5 {
				t.Errorf("backlog = %v", out)
			}
		}},
		{"csat score", "helpdesk.reports.csat", `{}`, func(t *testing.T, out map[string]any) {
			if out["score_percent"].(float64) <= 50 || num(out["bad"]) == 0 {
				t.Errorf("csat = %v", out)
			}
		}},
		{"agent report", "helpdesk.reports.agent_performance", `{"team_id":2}`, func(t *testing.T, out map[string]any) {
			if n := len(out["agents"].([]any)); n != 2 {
				t.Errorf("billing team has %d agents in the report, want 2", n)
			}
		}},
		{"sla compliance", "helpdesk.reports.sla_compliance", `{"since":"2025-03-01","until":"2025-03-14"}`, func(t *testing.T, out map[string]any) {
			if len(out["policies"].([]any)) != 2 || num(out["currently_breached"]) == 0 {
				t.Errorf("compliance = %v", out)
			}
		}},
		{"audit of ticket 42", "helpdesk.audit.list", `{"target_type":"ticket","target_id":42,"limit":200}`, func(t *testing.T, out map[string]any) {
			for _, it := range items(out) {
				if num(it["target_id"]) != 42 {
					t.Errorf("entry for another target: %v", it)
				}
			}
			if num(out["total"]) < 5 {
				t.Errorf("total = %v, want the creation, assignment, comments and uploads", out["total"])
			}
		}},
		{"audit is long enough to truncate", "helpdesk.audit.list", `{"limit":200}`, func(t *testing.T, out map[string]any) {
			if len(items(out)) != 200 || num(out["total"]) < 400 {
				t.Errorf("got %d items of %v", len(items(out)), out["total"])
			}
		}},
		{"open on a Friday afternoon", "helpdesk.business_hours.is_open", `{}`, func(t *testing.T, out map[string]any) {
			if out["open"] != true {
				t.Errorf("is_open = %v", out)
			}
		}},
		{"closed on St Patrick's Day", "helpdesk.business_hours.is_open", `{"at":"2025-03-17T12:00:00Z"}`, func(t *testing.T, out map[string]any) {
			if out["open"] != false || !strings.Contains(out["reason"].(string), "St Patrick") || out["next_open"] != "2025-03-18T08:00:00Z" {
				t.Errorf("is_open = %v", out)
			}
		}},
		{"holidays by year", "helpdesk.business_hours.list_holidays", `{"year":2025}`, func(t *testing.T, out map[string]any) {
			if num(out["total"]) != 6 {
				t.Errorf("total = %v, want 6", out["total"])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, mustCall(t, mustCatalog(t), tt.id, tt.args))
		})
	}
}

func TestWrites(t *testing.T) {
	tests := []struct {
		name  string
		id    string
		args  string
		check func(t *testing.T, reg *operations.Registry, out map[string]any)
	}{
		{"update sets status and solve time", "helpdesk.tickets.update", `{"ticket_id":13,"status":"solved"}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if out["status"] != "solved" || out["solved_at"] == nil {
				t.Errorf("ticket = %v", out)
			}
		}},
		{"assign opens a new ticket and routes it", "helpdesk.tickets.assign", `{"ticket_id":24,"assignee_id":4}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if out["assignee_name"] != "Sofia Alvarez" || out["status"] != "open" || out["team_name"] != "Billing" {
				t.Errorf("ticket = %v", out)
			}
		}},
		{"unassign", "helpdesk.tickets.unassign", `{"ticket_id":42}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if _, ok := out["assignee_id"]; ok {
				t.Errorf("still assigned: %v", out)
			}
		}},
		{"close with a resolution posts a reply", "helpdesk.tickets.close", `{"ticket_id":26,"resolution":"Refund issued."}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			cs := mustCall(t, reg, "helpdesk.comments.list", `{"ticket_id":26,"limit":200}`)
			last := items(cs)[len(items(cs))-1]
			if out["status"] != "closed" || last["body"] != "Refund issued." {
				t.Errorf("ticket = %v, last comment = %v", out, last)
			}
		}},
		{"reopen a solved ticket", "helpdesk.tickets.reopen", `{"ticket_id":1,"reason":"Customer says it is back."}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if out["status"] != "open" || out["solved_at"] != nil {
				t.Errorf("ticket = %v", out)
			}
		}},
		{"escalate raises priority and routes", "helpdesk.tickets.escalate", `{"ticket_id":23,"reason":"Affects every Outlook user."}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if out["priority"] != "high" || out["team_name"] != "Technical Escalations" || !slices.Contains(out["tags"].([]any), any("escalated")) {
				t.Errorf("ticket = %v", out)
			}
		}},
		{"merge moves the conversation", "helpdesk.tickets.merge", `{"source_ticket_ids":[43],"target_ticket_id":42}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			src := mustCall(t, reg, "helpdesk.tickets.get", `{"ticket_id":43}`)
			if src["status"] != "closed" || num(src["merged_into"]) != 42 {
				t.Errorf("source = %v", src)
			}
			if _, err := call(t, reg, "helpdesk.tickets.reopen", `{"ticket_id":43}`); errCode(err) != "conflict" {
				t.Errorf("reopening a merged ticket: %v, want conflict", err)
			}
		}},
		{"delete removes comments and files", "helpdesk.tickets.delete", `{"ticket_id":42}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if num(out["comments_deleted"]) != 4 || num(out["attachments_deleted"]) != 2 {
				t.Errorf("result = %v", out)
			}
			if _, err := call(t, reg, "helpdesk.tickets.get", `{"ticket_id":42}`); errCode(err) != "not_found" {
				t.Errorf("get after delete: %v, want not_found", err)
			}
		}},
		{"agent reply opens a new ticket and counts as first response", "helpdesk.comments.add", `{"ticket_id":32,"body":"Looking into it.","author_id":3}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			tk := mustCall(t, reg, "helpdesk.tickets.get", `{"ticket_id":32}`)
			if tk["status"] != "open" || tk["first_response_at"] == nil || out["author_name"] != "Marcus Webb" {
				t.Errorf("ticket = %v, comment = %v", tk, out)
			}
		}},
		{"edit a comment", "helpdesk.comments.update", `{"comment_id":1,"body":"Edited."}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if out["body"] != "Edited." || out["edited_at"] == nil {
				t.Errorf("comment = %v", out)
			}
		}},
		{"delete a comment", "helpdesk.comments.delete", `{"comment_id":1}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if _, err := call(t, reg, "helpdesk.comments.update", `{"comment_id":1,"body":"x"}`); errCode(err) != "not_found" {
				t.Errorf("update after delete: %v", err)
			}
		}},
		{"delete an attachment", "helpdesk.attachments.delete", `{"attachment_id":1}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if got := mustCall(t, reg, "helpdesk.attachments.list", `{"ticket_id":42}`); num(got["total"]) != 1 {
				t.Errorf("attachments left = %v, want 1", got["total"])
			}
		}},
		{"create a user with a normalised email", "helpdesk.users.create", `{"name":"Jane Doe","email":"Jane.Doe@Bluefin.example","org_id":8}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if out["email"] != "jane.doe@bluefin.example" || out["role"] != "customer" {
				t.Errorf("user = %v", out)
			}
		}},
		{"update a user's time zone", "helpdesk.users.update", `{"user_id":3,"timezone":"America/New_York"}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if out["timezone"] != "America/New_York" {
				t.Errorf("user = %v", out)
			}
		}},
		{"deactivating an agent frees their tickets", "helpdesk.users.deactivate", `{"user_id":5}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			freed := out["unassigned_ticket_ids"].([]any)
			if len(freed) == 0 || !slices.Contains(freed, any(float64(42))) {
				t.Errorf("freed = %v, want 42 among them", freed)
			}
			if _, err := call(t, reg, "helpdesk.tickets.assign", `{"ticket_id":42,"assignee_id":5}`); errCode(err) != "conflict" {
				t.Errorf("assigning a deactivated agent: %v, want conflict", err)
			}
		}},
		{"create a team led by an agent", "helpdesk.teams.create", `{"name":"Night Shift","lead_id":7}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if len(out["members"].([]any)) != 1 {
				t.Errorf("team = %v", out)
			}
		}},
		{"add a team member", "helpdesk.teams.add_member", `{"team_id":3,"user_id":8}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			u := mustCall(t, reg, "helpdesk.users.get", `{"user_id":8}`)
			if len(out["members"].([]any)) != 4 || !slices.Contains(u["team_ids"].([]any), any(float64(3))) {
				t.Errorf("team = %v, user = %v", out, u)
			}
		}},
		{"remove a team member", "helpdesk.teams.remove_member", `{"team_id":1,"user_id":3}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if len(out["members"].([]any)) != 3 {
				t.Errorf("team = %v", out)
			}
		}},
		{"create an org on business gets Premium", "helpdesk.orgs.create", `{"name":"Larkspur Hotels","domain":"larkspur.example","plan":"business"}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if num(out["sla_policy_id"]) != 2 {
				t.Errorf("org = %v", out)
			}
		}},
		{"update an org's plan", "helpdesk.orgs.update", `{"org_id":5,"plan":"business","sla_policy_id":2}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if out["plan"] != "business" || num(out["sla_policy_id"]) != 2 {
				t.Errorf("org = %v", out)
			}
		}},
		{"force-delete an org detaches its people", "helpdesk.orgs.delete", `{"org_id":6,"force":true}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			u := mustCall(t, reg, "helpdesk.users.get", `{"user_id":17}`)
			if num(out["detached_users"]) != 2 || u["org_id"] != nil {
				t.Errorf("result = %v, user 17 = %v", out, u)
			}
		}},
		{"tags are normalised and not duplicated", "helpdesk.tags.add", `{"ticket_id":42,"tags":["VIP","needs engineering","outage"]}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			want := []any{"outage", "checkout", "eu", "vip", "needs_engineering"}
			if !slices.Equal(out["tags"].([]any), want) {
				t.Errorf("tags = %v, want %v", out["tags"], want)
			}
		}},
		{"remove tags", "helpdesk.tags.remove", `{"ticket_id":42,"tags":["eu"]}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if slices.Contains(out["tags"].([]any), any("eu")) {
				t.Errorf("tags = %v", out["tags"])
			}
		}},
		{"rename a tag everywhere", "helpdesk.tags.rename", `{"from":"bug","to":"defect"}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if num(out["tickets_changed"]) != 4 {
				t.Errorf("result = %v", out)
			}
			if got := mustCall(t, reg, "helpdesk.tickets.list", `{"tag":"bug"}`); num(got["total"]) != 0 {
				t.Errorf("%v tickets still tagged bug", got["total"])
			}
		}},
		{"delete a tag everywhere", "helpdesk.tags.delete", `{"tag":"billing"}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if num(out["tickets_changed"]) != 11 {
				t.Errorf("result = %v", out)
			}
		}},
		{"tighten an SLA target", "helpdesk.sla.update_policy", `{"policy_id":2,"priority":"urgent","first_response_minutes":15}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			p := mustCall(t, reg, "helpdesk.sla.get_policy", `{"policy_id":2}`)
			if num(p["targets"].([]any)[0].(map[string]any)["first_response_minutes"]) != 15 {
				t.Errorf("policy = %v", p)
			}
		}},
		{"apply a macro", "helpdesk.macros.apply", `{"macro_id":2,"ticket_id":32}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			cs := items(mustCall(t, reg, "helpdesk.comments.list", `{"ticket_id":32}`))
			if out["status"] != "solved" || len(cs) != 1 || !strings.HasPrefix(cs[0]["body"].(string), "Hi Leah,") {
				t.Errorf("ticket = %v, comments = %v", out, cs)
			}
		}},
		{"create a macro", "helpdesk.macros.create", `{"title":"Close as spam","actions":{"status":"closed","add_tags":["Spam"]}}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if num(out["id"]) != 7 || out["actions"].(map[string]any)["add_tags"].([]any)[0] != "spam" {
				t.Errorf("macro = %v", out)
			}
		}},
		{"delete a macro", "helpdesk.macros.delete", `{"macro_id":6}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if _, err := call(t, reg, "helpdesk.macros.get", `{"macro_id":6}`); errCode(err) != "not_found" {
				t.Errorf("get after delete: %v", err)
			}
		}},
		{"create and run a view", "helpdesk.views.create", `{"name":"Outages","filter":{"tag":"outage"}}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			run := mustCall(t, reg, "helpdesk.views.run", fmt.Sprintf(`{"view_id":%d}`, num(out["id"])))
			if got := ids(run, "id"); !slices.Equal(got, []int{34, 42}) {
				t.Errorf("view ids = %v, want [34 42] (urgent, oldest first)", got)
			}
		}},
		{"delete a view", "helpdesk.views.delete", `{"view_id":6}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if got := mustCall(t, reg, "helpdesk.views.list", `{}`); num(got["total"]) != 5 {
				t.Errorf("views left = %v", got["total"])
			}
		}},
		{"draft, edit and publish an article", "helpdesk.kb.create", `{"title":"Rotating API keys","body":"Create the new key, deploy it, then revoke the old one.","section":"Integrations","tags":["api"]}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			id := num(out["id"])
			if out["status"] != "draft" {
				t.Errorf("new article = %v", out)
			}
			mustCall(t, reg, "helpdesk.kb.update", fmt.Sprintf(`{"article_id":%d,"title":"Rotating API keys without downtime"}`, id))
			mustCall(t, reg, "helpdesk.kb.publish", fmt.Sprintf(`{"article_id":%d}`, id))
			found := mustCall(t, reg, "helpdesk.kb.search", `{"query":"downtime"}`)
			if !slices.Contains(ids(found, "id"), id) {
				t.Errorf("published article %d not found by search: %v", id, found)
			}
		}},
		{"delete an article", "helpdesk.kb.delete", `{"article_id":13}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if got := mustCall(t, reg, "helpdesk.kb.list", `{"status":"draft"}`); num(got["total"]) != 1 {
				t.Errorf("drafts left = %v, want 1", got["total"])
			}
		}},
		{"create a webhook returns its secret once", "helpdesk.webhooks.create", `{"name":"Chat bridge","url":"https://bridge.example.com/hd","events":["ticket.created"]}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			secret := out["secret"].(string)
			w := out["webhook"].(map[string]any)
			if !strings.HasPrefix(secret, "whsec_") || !strings.HasSuffix(secret, w["secret_last4"].(string)) {
				t.Errorf("result = %v", out)
			}
		}},
		{"rotate a webhook secret", "helpdesk.webhooks.rotate_secret", `{"webhook_id":1}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			again := mustCall(t, reg, "helpdesk.webhooks.rotate_secret", `{"webhook_id":1}`)
			if out["secret"] == again["secret"] {
				t.Error("rotation returned the same secret twice")
			}
		}},
		{"pause a webhook, then testing it conflicts", "helpdesk.webhooks.update", `{"webhook_id":2,"active":false}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if _, err := call(t, reg, "helpdesk.webhooks.test", `{"webhook_id":2}`); errCode(err) != "conflict" {
				t.Errorf("test of a paused webhook: %v, want conflict", err)
			}
		}},
		{"test a webhook", "helpdesk.webhooks.test", `{"webhook_id":1}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			w := mustCall(t, reg, "helpdesk.webhooks.get", `{"webhook_id":1}`)
			if out["success"] != true || w["last_delivery"].(map[string]any)["event"] != "ping" {
				t.Errorf("delivery = %v, webhook = %v", out, w)
			}
		}},
		{"delete a webhook", "helpdesk.webhooks.delete", `{"webhook_id":3}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			if got := mustCall(t, reg, "helpdesk.webhooks.list", `{}`); num(got["total"]) != 2 {
				t.Errorf("webhooks left = %v", got["total"])
			}
		}},
		{"close on Saturdays", "helpdesk.business_hours.update", `{"week":[{"day":"saturday","closed":true}]}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			st := mustCall(t, reg, "helpdesk.business_hours.is_open", `{"at":"2025-03-15T11:00:00Z"}`)
			if st["open"] != false {
				t.Errorf("open on a closed Saturday: %v", st)
			}
		}},
		{"add and remove a holiday", "helpdesk.business_hours.add_holiday", `{"date":"2025-06-02","name":"June Bank Holiday"}`, func(t *testing.T, reg *operations.Registry, out map[string]any) {
			hs := mustCall(t, reg, "helpdesk.business_hours.list_holidays", `{}`)
			if num(hs["total"]) != 7 || items(hs)[4]["date"] != "2025-06-02" {
				t.Errorf("holidays = %v", hs)
			}
			mustCall(t, reg, "helpdesk.business_hours.remove_holiday", `{"date":"2025-06-02"}`)
			if hs := mustCall(t, reg, "helpdesk.business_hours.list_holidays", `{}`); num(hs["total"]) != 6 {
				t.Errorf("holidays after removal = %v", hs["total"])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := mustCatalog(t)
			before := num(mustCall(t, reg, "helpdesk.audit.list", `{"limit":1}`)["total"])
			tt.check(t, reg, mustCall(t, reg, tt.id, tt.args))
			if after := num(mustCall(t, reg, "helpdesk.audit.list", `{"limit":1}`)["total"]); after <= before {
				t.Errorf("%s left no audit entry", tt.id)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, id, args string
		code           string // operations.Error code, or "schema"
		fix            string // part of the Fix, for operations errors
	}{
		{"missing ticket", "helpdesk.tickets.get", `{"ticket_id":9999}`, "not_found", "helpdesk.tickets.list"},
		{"missing required field", "helpdesk.tickets.get", `{}`, "schema", ""},
		{"wrong type", "helpdesk.tickets.get", `{"ticket_id":"42"}`, "schema", ""},
		{"unknown parameter", "helpdesk.tickets.get", `{"ticket_id":42,"verbose":true}`, "schema", ""},
		{"bad status enum", "helpdesk.tickets.list", `{"status":"archived"}`, "schema", ""},
		{"limit above maximum", "helpdesk.tickets.list", `{"limit":1000}`, "schema", ""},
		{"limit below minimum", "helpdesk.audit.list", `{"limit":0}`, "schema", ""},
		{"bad cursor", "helpdesk.tickets.list", `{"cursor":"not-a-cursor"}`, "invalid_params", "next_cursor"},
		{"subject too short", "helpdesk.tickets.create", `{"subject":"x","description":"y"}`, "schema", ""},
		{"create without description", "helpdesk.tickets.create", `{"subject":"Printer on fire"}`, "schema", ""},
		{"create for unknown requester", "helpdesk.tickets.create", `{"subject":"Help","description":"d","requester_id":999}`, "not_found", "helpdesk.users.list"},
		{"empty update", "helpdesk.tickets.update", `{"ticket_id":42}`, "invalid_params", "at least one"},
		{"assign to a customer", "helpdesk.tickets.assign", `{"ticket_id":42,"assignee_id":19}`, "invalid_params", "role=agent"},
		{"assign to nobody known", "helpdesk.tickets.assign", `{"ticket_id":42,"assignee_id":999}`, "not_found", ""},
		{"close twice", "helpdesk.tickets.close", `{"ticket_id":3}`, "conflict", "reopen"},
		{"reopen an open ticket", "helpdesk.tickets.reopen", `{"ticket_id":42}`, "conflict", "helpdesk.tickets.update"},
		{"merge into itself", "helpdesk.tickets.merge", `{"source_ticket_ids":[42],"target_ticket_id":42}`, "invalid_params", ""},
		{"merge with no sources", "helpdesk.tickets.merge", `{"source_ticket_ids":[],"target_ticket_id":42}`, "schema", ""},
		{"escalate a solved ticket", "helpdesk.tickets.escalate", `{"ticket_id":1,"reason":"again"}`, "conflict", "reopen"},
		{"comments of a missing ticket", "helpdesk.comments.list", `{"ticket_id":777}`, "not_found", ""},
		{"customer internal note", "helpdesk.comments.add", `{"ticket_id":42,"body":"psst","public":false,"author_id":19}`, "invalid_params", ""},
		{"missing attachment", "helpdesk.attachments.get", `{"attachment_id":500}`, "not_found", "helpdesk.attachments.list"},
		{"duplicate email", "helpdesk.users.create", `{"name":"Copy","email":"ruby.chen@meridian-clinics.example"}`, "conflict", "user 30"},
		{"not an email", "helpdesk.users.create", `{"name":"Nobody","email":"nobody"}`, "invalid_params", ""},
		{"bad role", "helpdesk.users.create", `{"name":"N","email":"n@example.com","role":"owner"}`, "schema", ""},
		{"bad time zone", "helpdesk.users.update", `{"user_id":3,"timezone":"Mars/Olympus"}`, "invalid_params", "IANA"},
		{"deactivate the API user", "helpdesk.users.deactivate", `{"user_id":1}`, "conflict", ""},
		{"missing team", "helpdesk.teams.get", `{"team_id":40}`, "not_found", "helpdesk.teams.list"},
		{"remove a team lead", "helpdesk.teams.remove_member", `{"team_id":2,"user_id":4}`, "conflict", ""},
		{"duplicate team", "helpdesk.teams.create", `{"name":"billing"}`, "conflict", ""},
		{"delete an org with people", "helpdesk.orgs.delete", `{"org_id":1}`, "conflict", "force"},
		{"duplicate domain", "helpdesk.orgs.create", `{"name":"Again","domain":"bluefin.example"}`, "conflict", ""},
		{"tag with punctuation", "helpdesk.tags.add", `{"ticket_id":42,"tags":["vip!"]}`, "invalid_params", ""},
		{"rename an unused tag", "helpdesk.tags.rename", `{"from":"nonexistent","to":"x"}`, "not_found", "helpdesk.tags.list"},
		{"first response after resolution", "helpdesk.sla.update_policy", `{"policy_id":1,"priority":"urgent","first_response_minutes":600}`, "invalid_params", ""},
		{"bad breach state", "helpdesk.sla.list_breaches", `{"state":"late"}`, "schema", ""},
		{"macro that does nothing", "helpdesk.macros.create", `{"title":"Nothing","actions":{}}`, "invalid_params", ""},
		{"missing macro", "helpdesk.macros.apply", `{"macro_id":99,"ticket_id":42}`, "not_found", "helpdesk.macros.list"},
		{"missing view", "helpdesk.views.run", `{"view_id":99}`, "not_found", "helpdesk.views.list"},
		{"contradictory view", "helpdesk.views.create", `{"name":"x","filter":{"unassigned":true,"assignee_id":5}}`, "invalid_params", ""},
		{"missing article", "helpdesk.kb.get", `{"article_id":99}`, "not_found", "helpdesk.kb.search"},
		{"http webhook", "helpdesk.webhooks.create", `{"name":"x","url":"http://example.com/h","events":["ticket.created"]}`, "invalid_params", "https"},
		{"unknown webhook event", "helpdesk.webhooks.create", `{"name":"x","url":"https://example.com/h","events":["ticket.exploded"]}`, "schema", ""},
		{"report dates reversed", "helpdesk.reports.ticket_volume", `{"since":"2025-03-10","until":"2025-03-01"}`, "invalid_params", ""},
		{"report date malformed", "helpdesk.reports.csat", `{"since":"last week"}`, "invalid_params", "YYYY-MM-DD"},
		{"missing audit entry", "helpdesk.audit.get", `{"entry_id":100000}`, "not_found", "helpdesk.audit.list"},
		{"opening after closing", "helpdesk.business_hours.update", `{"week":[{"day":"monday","open":"18:00","close":"08:00"}]}`, "invalid_params", ""},
		{"bad weekday", "helpdesk.business_hours.update", `{"week":[{"day":"funday","closed":true}]}`, "schema", ""},
		{"remove a missing holiday", "helpdesk.business_hours.remove_holiday", `{"date":"2025-01-02"}`, "not_found", "list_holidays"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, mustCatalog(t), tt.id, tt.args)
			if err == nil {
				t.Fatalf("%s %s succeeded; want %s", tt.id, tt.args, tt.code)
			}
			if got := errCode(err); got != tt.code {
				t.Fatalf("error %v has code %q, want %q", err, got, tt.code)
			}
			var oe *operations.Error
			if errors.As(err, &oe) {
				if oe.Fix == "" || !strings.Contains(oe.Fix, tt.fix) {
					t.Errorf("fix %q does not mention %q", oe.Fix, tt.fix)
				}
				if oe.Message == "" || oe.Message != strings.ToLower(oe.Message[:1])+oe.Message[1:] {
					t.Errorf("message %q should start lowercase", oe.Message)
				}
			}
		})
	}
}

func TestCreateThenGet(t *testing.T) {
	reg := mustCatalog(t)
	created := mustCall(t, reg, "helpdesk.tickets.create",
		`{"subject":"Invoice page is blank","description":"Nothing renders since this morning.","priority":"high","requester_id":12,"tags":["billing","UI"]}`)
	id := num(created["id"])
	if id != 49 {
		t.Errorf("new ticket id = %d, want 49 (the seed has 48)", id)
	}
	got := mustCall(t, reg, "helpdesk.tickets.get", fmt.Sprintf(`{"ticket_id":%d}`, id))
	for _, field := range []string{"subject", "description", "priority", "status", "requester_name", "org_name", "created_at"} {
		if fmt.Sprint(got[field]) != fmt.Sprint(created[field]) {
			t.Errorf("%s: get = %v, create returned %v", field, got[field], created[field])
		}
	}
	if got["status"] != "new" || got["org_name"] != "Brightwater Foods" || fmt.Sprint(got["tags"]) != "[billing ui]" {
		t.Errorf("ticket = %v", got)
	}
	// Defaults apply when optional fields are left out.
	minimal := mustCall(t, reg, "helpdesk.tickets.create", `{"subject":"Question","description":"How do I export?"}`)
	if minimal["priority"] != "normal" || minimal["type"] != "question" || minimal["channel"] != "api" || num(minimal["requester_id"]) != apiUserID {
		t.Errorf("defaults = %v", minimal)
	}
}

func TestPagingWalksEveryItemOnce(t *testing.T) {
	reg := mustCatalog(t)
	seen := map[int]bool{}
	cursor, total, pages := "", 0, 0
	for {
		args := `{"limit":100}`
		if cursor != "" {
			args = fmt.Sprintf(`{"limit":100,"cursor":%q}`, cursor)
		}
		out := mustCall(t, reg, "helpdesk.audit.list", args)
		total = num(out["total"])
		pages++
		for _, id := range ids(out, "id") {
			if seen[id] {
				t.Fatalf("entry %d seen twice", id)
			}
			seen[id] = true
		}
		next, _ := out["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if len(seen) != total || pages != (total+99)/100 {
		t.Errorf("saw %d of %d entries in %d pages", len(seen), total, pages)
	}
	// A cursor past the end is an empty last page, not an error.
	out := mustCall(t, reg, "helpdesk.tickets.list", `{"cursor":"b2Zmc2V0OjUwMA"}`)
	if len(items(out)) != 0 || out["next_cursor"] != nil {
		t.Errorf("page past the end = %v", out)
	}
}

func TestDeterministicSeed(t *testing.T) {
	a, _ := mustCatalog(t).Call(context.Background(), "helpdesk.audit.list", json.RawMessage(`{"limit":200}`))
	b, _ := mustCatalog(t).Call(context.Background(), "helpdesk.audit.list", json.RawMessage(`{"limit":200}`))
	if string(a) != string(b) {
		t.Error("two fresh catalogs returned different audit logs")
	}
}

func TestConcurrentUse(t *testing.T) {
	reg := mustCatalog(t)
	const writers, perWriter = 8, 25
	var wg sync.WaitGroup
	created := make(chan int, writers*perWriter)
	errs := make(chan error, writers*perWriter*3)
	for w := range writers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				raw, err := reg.Call(context.Background(), "helpdesk.tickets.create",
					json.RawMessage(fmt.Sprintf(`{"subject":"Load test %d-%d","description":"parallel create"}`, w, i)))
				if err != nil {
					errs <- err
					continue
				}
				var tk Ticket
				if err := json.Unmarshal(raw, &tk); err != nil {
					errs <- err
					continue
				}
				created <- tk.ID
				if _, err := reg.Call(context.Background(), "helpdesk.comments.add",
					json.RawMessage(fmt.Sprintf(`{"ticket_id":%d,"body":"ack"}`, tk.ID))); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range perWriter {
				for _, c := range []struct{ id, args string }{
					{"helpdesk.tickets.get", `{"ticket_id":42}`},
					{"helpdesk.tickets.list", `{"sort":"recently_updated"}`},
					{"helpdesk.sla.list_breaches", `{}`},
					{"helpdesk.reports.backlog", `{}`},
				} {
					if _, err := reg.Call(context.Background(), c.id, json.RawMessage(c.args)); err != nil {
						errs <- err
					}
				}
			}
		}()
	}
	wg.Wait()
	close(created)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	unique := map[int]bool{}
	for id := range created {
		if unique[id] {
			t.Errorf("ticket id %d issued twice", id)
		}
		unique[id] = true
	}
	out := mustCall(t, reg, "helpdesk.tickets.list", `{"limit":1}`)
	if want := 48 + writers*perWriter; num(out["total"]) != want || len(unique) != writers*perWriter {
		t.Errorf("total = %v, unique new ids = %d; want %d tickets", out["total"], len(unique), want)
	}
}
