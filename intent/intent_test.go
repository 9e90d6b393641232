package intent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

func TestToolsListing(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		want   []string
		hasAct bool
	}{
		{"default is read-only", Options{}, []string{"find", "describe", "ask"}, false},
		{"confirm lists act", Options{Writes: WritesConfirm}, []string{"find", "describe", "ask", "act"}, true},
		{"allow lists act", Options{Writes: WritesAllow}, []string{"find", "describe", "ask", "act"}, true},
		{"prefix", Options{Writes: WritesAllow, ToolPrefix: "gh_"}, []string{"gh_find", "gh_describe", "gh_ask", "gh_act"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestServer(t, tc.opts)
			tools := s.MCPTools()
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
				if !ValidToolName(tool.Name) {
					t.Errorf("illegal tool name %q", tool.Name)
				}
				a := tool.Annotations
				if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
					t.Errorf("%s: every annotation must be set explicitly: %+v", tool.Name, a)
					continue
				}
				isAct := strings.HasSuffix(tool.Name, "act")
				if *a.ReadOnlyHint == isAct || *a.DestructiveHint != isAct {
					t.Errorf("%s: readOnly=%v destructive=%v", tool.Name, *a.ReadOnlyHint, *a.DestructiveHint)
				}
				if lines := strings.Count(tool.Description, "\n") + 1; lines > 3 {
					t.Errorf("%s: description has %d lines", tool.Name, lines)
				}
			}
			if strings.Join(names, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("tools = %v, want %v", names, tc.want)
			}
		})
	}
}

func TestBadOptions(t *testing.T) {
	r, _ := newTestRegistry(t)
	for _, o := range []Options{{Writes: "sometimes"}, {ToolPrefix: "bad prefix!"}, {Deny: []string{"[unclosed"}}} {
		if _, err := New(r, o); err == nil {
			t.Errorf("New(%+v) accepted bad options", o)
		}
	}
}

func TestFind(t *testing.T) {
	s, _ := newTestServer(t, Options{Writes: WritesAllow})
	t.Run("exact id ranks first", func(t *testing.T) {
		env := call(t, s, "find", `{"intent":"notes.delete"}`)
		if !env.OK {
			t.Fatalf("find failed: %s", env.JSON())
		}
		c := data(t, env)["candidates"].([]any)[0].(map[string]any)
		if c["id"] != "notes.delete" || c["tool"] != "act" || c["kind"] != "destructive" {
			t.Fatalf("top candidate = %v", c)
		}
		if req, _ := c["required"].([]any); len(req) != 1 || req[0] != "id" {
			t.Fatalf("required = %v, want [id]", c["required"])
		}
	})
	t.Run("intent", func(t *testing.T) {
		env := call(t, s, "find", `{"intent":"create a new note"}`)
		c := data(t, env)["candidates"].([]any)[0].(map[string]any)
		if c["id"] != "notes.create" {
			t.Fatalf("top = %v, want notes.create: %s", c["id"], env.JSON())
		}
		if len(env.NextSteps) == 0 || env.NextSteps[0].Action != "notes.create" {
			t.Fatalf("next steps = %+v", env.NextSteps)
		}
	})
	t.Run("kind filter", func(t *testing.T) {
		env := call(t, s, "find", `{"intent":"note","params":{"kind":"read","limit":10}}`)
		for _, c := range data(t, env)["candidates"].([]any) {
			if k := c.(map[string]any)["kind"]; k != "read" {
				t.Fatalf("kind filter let through %v", c)
			}
		}
	})
	t.Run("no intent is the overview", func(t *testing.T) {
		env := call(t, s, "find", `{}`)
		if data(t, env)["operations"] == nil {
			t.Fatalf("overview missing: %s", env.JSON())
		}
	})
	t.Run("nothing relevant is an honest empty result", func(t *testing.T) {
		env := call(t, s, "find", `{"intent":"xqzv plorth wibble"}`)
		if !env.OK || len(data(t, env)["candidates"].([]any)) != 0 || len(env.NextSteps) == 0 {
			t.Fatalf("want empty candidates with a next step: %s", env.JSON())
		}
	})
	t.Run("unknown filter", func(t *testing.T) {
		env := call(t, s, "find", `{"intent":"note","params":{"colour":"red"}}`)
		if env.OK || env.Code != CodeInvalidParams || env.Remedy == nil {
			t.Fatalf("want invalid_params: %s", env.JSON())
		}
	})
	t.Run("unknown namespace suggests", func(t *testing.T) {
		env := call(t, s, "find", `{"intent":"note","params":{"namespace":"note"}}`)
		if env.Code != CodeInvalidParams || !strings.Contains(env.Remedy.Fix, "notes") {
			t.Fatalf("want did-you-mean notes: %s", env.JSON())
		}
	})
}

func TestDescribe(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	t.Run("overview", func(t *testing.T) {
		env := call(t, s, "describe", `{}`)
		d := data(t, env)
		nss := d["namespaces"].([]any)
		found := false
		for _, n := range nss {
			m := n.(map[string]any)
			if m["name"] == "notes" {
				found = true
				if m["count"].(float64) != 2 || m["blurb"] != "Personal notes" {
					t.Errorf("notes namespace = %v (writes hidden under deny: want 2 reads)", m)
				}
			}
		}
		if !found {
			t.Fatalf("notes namespace missing: %s", env.JSON())
		}
	})
	t.Run("namespace paging", func(t *testing.T) {
		env := call(t, s, "describe", `{"params":{"namespace":"faults","limit":2}}`)
		d := data(t, env)
		if len(d["operations"].([]any)) != 2 || d["next_cursor"] == nil {
			t.Fatalf("page 1: %s", env.JSON())
		}
		seen := map[string]bool{}
		cursor := ""
		for page := 0; page < 10; page++ {
			in := `{"params":{"namespace":"faults","limit":2` + cursor + `}}`
			d := data(t, call(t, s, "describe", in))
			for _, o := range d["operations"].([]any) {
				seen[o.(map[string]any)["id"].(string)] = true
			}
			next, ok := d["next_cursor"].(string)
			if !ok {
				break
			}
			cursor = `,"cursor":"` + next + `"`
		}
		if len(seen) != int(d["count"].(float64)) {
			t.Fatalf("paged through %d of %v operations", len(seen), d["count"])
		}
	})
	t.Run("one operation", func(t *testing.T) {
		env := call(t, s, "describe", `{"action":"notes.get"}`)
		d := data(t, env)
		in := d["input"].(map[string]any)
		ret, _ := d["returns"].(map[string]any)
		if in["properties"].(map[string]any)["id"] == nil || d["tool"] != "ask" || ret["title"] != "string" || ret["id"] != "integer" {
			t.Fatalf("descriptor: %s", env.JSON())
		}
		if _, ok := in["$schema"]; ok {
			t.Error("descriptor keeps $schema, which only costs tokens")
		}
	})
	t.Run("unknown action suggests", func(t *testing.T) {
		env := call(t, s, "describe", `{"action":"notes.gett"}`)
		if env.Code != CodeUnknownAction {
			t.Fatalf("want unknown_action: %s", env.JSON())
		}
		dym := details(t, env)["did_you_mean"].([]any)
		if len(dym) == 0 || dym[0] != "notes.get" {
			t.Fatalf("did_you_mean = %v", dym)
		}
	})
	t.Run("intent", func(t *testing.T) {
		env := call(t, s, "describe", `{"intent":"list all notes"}`)
		m := data(t, env)["match"].(map[string]any)
		if m["id"] != "notes.list" || m["input"] == nil {
			t.Fatalf("describe intent: %s", env.JSON())
		}
	})
	t.Run("action describe on other tools", func(t *testing.T) {
		for _, tool := range []string{"find", "ask"} {
			env := call(t, s, tool, `{"action":"describe"}`)
			if !env.OK || data(t, env)["tool"] != tool {
				t.Fatalf("%s describe: %s", tool, env.JSON())
			}
		}
	})
}

func TestAsk(t *testing.T) {
	s, _ := newTestServer(t, Options{Writes: WritesAllow})
	t.Run("runs a read", func(t *testing.T) {
		env := call(t, s, "ask", `{"action":"notes.get","params":{"id":3}}`)
		if !env.OK || data(t, env)["title"] != "note number 2" {
			t.Fatalf("ask: %s", env.JSON())
		}
	})
	t.Run("validates params with pointers", func(t *testing.T) {
		env := call(t, s, "ask", `{"action":"notes.get","params":{"id":"three"}}`)
		if env.Code != CodeInvalidParams || env.Remedy.Action != "notes.get" || env.Remedy.Tool != "describe" {
			t.Fatalf("want invalid_params: %s", env.JSON())
		}
		probs := details(t, env)["problems"].([]any)
		if probs[0].(map[string]any)["pointer"] != "/id" {
			t.Fatalf("problems = %v", probs)
		}
	})
	t.Run("refuses writes", func(t *testing.T) {
		env := call(t, s, "ask", `{"action":"notes.create","params":{"title":"x"}}`)
		if env.Code != CodeNotReadOnly || env.Remedy.Tool != "act" {
			t.Fatalf("want not_read_only: %s", env.JSON())
		}
	})
	t.Run("domain not found", func(t *testing.T) {
		env := call(t, s, "ask", `{"action":"notes.get","params":{"id":99999}}`)
		if env.Code != CodeNotFound || !strings.Contains(env.Remedy.Fix, "notes.list") {
			t.Fatalf("want not_found with fix: %s", env.JSON())
		}
	})
	t.Run("unknown action", func(t *testing.T) {
		env := call(t, s, "ask", `{"action":"notes.lst"}`)
		if env.Code != CodeUnknownAction || env.Remedy.Action != "notes.list" {
			t.Fatalf("want did-you-mean notes.list: %s", env.JSON())
		}
	})
	t.Run("intent runs only when sure", func(t *testing.T) {
		env := call(t, s, "ask", `{"intent":"notes.list"}`)
		if !env.OK || env.Meta.RoutedTo != "notes.list" {
			t.Fatalf("exact intent should run: %s", env.JSON())
		}
	})
	t.Run("meta names what ran when the params picked it", func(t *testing.T) {
		// "notes" is ambiguous (list or get); only notes.get takes an id,
		// so the params pick it, and meta must say so.
		env := call(t, s, "ask", `{"intent":"notes","params":{"id":3}}`)
		if !env.OK || data(t, env)["id"] != 3.0 || env.Meta == nil || env.Meta.RoutedTo != "notes.get" {
			t.Fatalf("want notes.get run and named: %s", env.JSON())
		}
		for _, a := range env.Meta.Alternatives {
			if a == "notes.get" {
				t.Fatalf("what ran is not its own alternative: %s", env.JSON())
			}
		}
		if len(env.Meta.Alternatives) == 0 || env.Meta.Alternatives[0] != "notes.list" {
			t.Fatalf("the router's first choice is an alternative: %s", env.JSON())
		}
	})
	t.Run("intent with nothing relevant", func(t *testing.T) {
		env := call(t, s, "ask", `{"intent":"book me a flight to lisbon"}`)
		if env.OK || (env.Code != CodeNoMatch && env.Code != CodeAmbiguousIntent) {
			t.Fatalf("want no_match: %s", env.JSON())
		}
	})
	t.Run("needs action or intent", func(t *testing.T) {
		env := call(t, s, "ask", `{}`)
		if env.Code != CodeInvalidParams || env.Remedy.Tool != "find" {
			t.Fatalf("want invalid_params: %s", env.JSON())
		}
	})
	t.Run("next page step", func(t *testing.T) {
		env := call(t, s, "ask", `{"action":"notes.list","params":{"limit":5}}`)
		if len(env.NextSteps) != 1 || env.NextSteps[0].Params["cursor"] != "5" {
			t.Fatalf("want a next-page step: %s", env.JSON())
		}
	})
}

func TestWritesDenied(t *testing.T) {
	s, n := newTestServer(t, Options{})
	before := len(n.items)
	env := call(t, s, "act", `{"action":"notes.create","params":{"title":"x"}}`)
	if env.Code != CodeWritesDisabled {
		t.Fatalf("act under deny: %s", env.JSON())
	}
	env = call(t, s, "ask", `{"action":"notes.delete","params":{"id":1}}`)
	if env.Code != CodeWritesDisabled {
		t.Fatalf("ask of a hidden write: %s", env.JSON())
	}
	env = call(t, s, "find", `{"intent":"notes.delete"}`)
	for _, c := range data(t, env)["candidates"].([]any) {
		if c.(map[string]any)["kind"] != "read" {
			t.Fatalf("find shows a write under deny: %v", c)
		}
	}
	if len(n.items) != before {
		t.Fatal("a write ran under the deny policy")
	}
}

func TestAllowDeny(t *testing.T) {
	s, _ := newTestServer(t, Options{Allow: []string{"notes.*", "faults.*"}, Deny: []string{"faults.hang"}})
	if env := call(t, s, "ask", `{"action":"faults.hang"}`); env.Code != CodeUnknownAction {
		t.Fatalf("denied op callable: %s", env.JSON())
	}
	if env := call(t, s, "ask", `{"action":"ping.now"}`); env.Code != CodeUnknownAction {
		t.Fatalf("op outside allow callable: %s", env.JSON())
	}
	if env := call(t, s, "describe", `{"action":"faults.hang"}`); env.Code != CodeUnknownAction {
		t.Fatalf("denied op describable: %s", env.JSON())
	}
	if env := call(t, s, "ask", `{"action":"notes.get","params":{"id":1}}`); !env.OK {
		t.Fatalf("allowed op refused: %s", env.JSON())
	}
}

// find shows only what the policies let through, whether the router is
// given the policy predicate or, when the policies hide nothing, none; the
// predicate is left out only then.
func TestFindFiltersByPolicy(t *testing.T) {
	for _, opts := range []Options{
		{Writes: WritesAllow},
		{Writes: WritesConfirm},
		{},
		{Writes: WritesAllow, Deny: []string{"notes.*"}},
		{Writes: WritesAllow, Allow: []string{"notes.*"}},
	} {
		s, _ := newTestServer(t, opts)
		hidesNothing := opts.Writes != "" && opts.Writes != WritesDeny && len(opts.Allow)+len(opts.Deny) == 0
		if got := s.policyFilter() == nil; got != hidesNothing {
			t.Errorf("%+v: policy predicate left out = %v, want %v", opts, got, hidesNothing)
		}
		for _, q := range []string{"notes", "create a note", "delete", "ping", "hang"} {
			env := call(t, s, "find", `{"intent":"`+q+`","params":{"limit":25}}`)
			var d struct {
				Candidates []struct{ ID string } `json:"candidates"`
			}
			if err := json.Unmarshal(env.Data, &d); err != nil {
				t.Fatalf("%+v %q: %s", opts, q, env.JSON())
			}
			for _, c := range d.Candidates {
				op, ok := s.Registry().Get(c.ID)
				if !ok || !s.Visible(op) {
					t.Errorf("%+v: find %q shows %s, which the policies hide", opts, q, c.ID)
				}
			}
		}
	}
}

func TestActPlans(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	s, n := newTestServer(t, Options{Writes: WritesAllow, Now: clock})

	t.Run("write under allow runs", func(t *testing.T) {
		env := call(t, s, "act", `{"action":"notes.create","params":{"title":"hello"}}`)
		if !env.OK {
			t.Fatalf("create: %s", env.JSON())
		}
		id := data(t, env)["id"].(float64)
		got := call(t, s, "ask", `{"action":"notes.get","params":{"id":`+jsonNum(id)+`}}`)
		if data(t, got)["title"] != "hello" {
			t.Fatalf("read back: %s", got.JSON())
		}
	})

	preview := func(t *testing.T, id int) string {
		t.Helper()
		env := call(t, s, "act", `{"action":"notes.delete","params":{"id":`+jsonNum(float64(id))+`}}`)
		if env.OK || env.Code != CodeConfirmationRequired {
			t.Fatalf("destructive act should preview: %s", env.JSON())
		}
		d := details(t, env)
		if d["preview"] == nil || env.Remedy.Tool != "act" {
			t.Fatalf("preview: %s", env.JSON())
		}
		if _, still := n.items[id]; !still {
			t.Fatal("preview deleted the note")
		}
		return d["plan_ref"].(string)
	}

	t.Run("confirm executes once", func(t *testing.T) {
		ref := preview(t, 5)
		in := `{"action":"notes.delete","params":{"id":5},"plan_ref":"` + ref + `"}`
		if env := call(t, s, "act", in); !env.OK {
			t.Fatalf("confirm: %s", env.JSON())
		}
		if _, still := n.items[5]; still {
			t.Fatal("confirmed delete did not run")
		}
		if env := call(t, s, "act", in); env.Code != CodePlanInvalid {
			t.Fatalf("replayed plan_ref: %s", env.JSON())
		}
	})
	t.Run("key order and spacing do not matter", func(t *testing.T) {
		ref := preview(t, 6)
		in := `{"plan_ref":"` + ref + `","params":{ "id" :   6.0 },"action":"notes.delete"}`
		if env := call(t, s, "act", in); !env.OK {
			t.Fatalf("same call, other spelling: %s", env.JSON())
		}
	})
	t.Run("mismatch", func(t *testing.T) {
		ref := preview(t, 7)
		for _, in := range []string{
			`{"action":"notes.delete","params":{"id":8},"plan_ref":"` + ref + `"}`,
			`{"action":"notes.delete","params":{"id":7},"plan_ref":"` + ref[:len(ref)-2] + `xx"}`,
			`{"action":"notes.delete","params":{"id":7},"plan_ref":"garbage"}`,
		} {
			if env := call(t, s, "act", in); env.Code != CodePlanInvalid {
				t.Fatalf("%s: %s", in, env.JSON())
			}
		}
		ctx := WithCaller(context.Background(), "mallory")
		env := s.Call(ctx, "act", []byte(`{"action":"notes.delete","params":{"id":7},"plan_ref":"`+ref+`"}`))
		if env.Code != CodePlanInvalid {
			t.Fatalf("another caller confirmed the plan: %s", env.JSON())
		}
		if _, still := n.items[7]; !still {
			t.Fatal("a refused plan ran")
		}
	})
	t.Run("expired", func(t *testing.T) {
		ref := preview(t, 9)
		now = now.Add(DefaultPlanTTL + time.Second)
		env := call(t, s, "act", `{"action":"notes.delete","params":{"id":9},"plan_ref":"`+ref+`"}`)
		if env.Code != CodePlanExpired {
			t.Fatalf("want plan_expired: %s", env.JSON())
		}
	})
	t.Run("intent only never executes", func(t *testing.T) {
		before := len(n.items)
		env := call(t, s, "act", `{"intent":"notes.create","params":{"title":"via intent"}}`)
		if env.Code != CodeConfirmationRequired || env.Meta.RoutedTo != "notes.create" {
			t.Fatalf("want a plan: %s", env.JSON())
		}
		if len(n.items) != before {
			t.Fatal("act with an intent executed a write")
		}
		ref := details(t, env)["plan_ref"].(string)
		ok := call(t, s, "act", `{"action":"notes.create","params":{"title":"via intent"},"plan_ref":"`+ref+`"}`)
		if !ok.OK || len(n.items) != before+1 {
			t.Fatalf("confirming the resolved plan: %s", ok.JSON())
		}
	})
	t.Run("plan_ref without action", func(t *testing.T) {
		if env := call(t, s, "act", `{"intent":"x","plan_ref":"v1.1.a.b"}`); env.Code != CodeInvalidParams {
			t.Fatalf("%s", env.JSON())
		}
	})
}

func TestConfirmPolicyPreviewsEveryWrite(t *testing.T) {
	s, n := newTestServer(t, Options{Writes: WritesConfirm})
	before := len(n.items)
	env := call(t, s, "act", `{"action":"notes.create","params":{"title":"x"}}`)
	if env.Code != CodeConfirmationRequired || len(n.items) != before {
		t.Fatalf("confirm policy ran a write without a plan: %s", env.JSON())
	}
	// Replicas sharing a key accept each other's plans.
	r2, n2 := newTestRegistry(t)
	_ = n2
	key := []byte("shared-key-shared-key-shared-key")
	a, _ := New(r2, Options{Writes: WritesConfirm, PlanKey: key})
	b, _ := New(r2, Options{Writes: WritesConfirm, PlanKey: key})
	p := a.Call(context.Background(), "act", []byte(`{"action":"notes.create","params":{"title":"y"}}`))
	ref := details(t, p)["plan_ref"].(string)
	if env := b.Call(context.Background(), "act", []byte(`{"action":"notes.create","params":{"title":"y"},"plan_ref":"`+ref+`"}`)); !env.OK {
		t.Fatalf("replica refused a plan signed with the shared key: %s", env.JSON())
	}
}

func TestHandlerFaults(t *testing.T) {
	s, _ := newTestServer(t, Options{Timeout: 100 * time.Millisecond})
	tests := []struct {
		action string
		code   Code
	}{
		{"faults.panic", CodeInternalError},
		{"faults.hang", CodeTimeout},
		{"faults.garbage", CodeInternalError},
		{"faults.rate_limited", CodeRateLimited},
		{"faults.unauthorized", CodeUnauthorized},
		{"faults.upstream_unavailable", CodeUpstreamUnavailable},
		{"faults.upstream_error", CodeUpstreamError},
	}
	for _, tc := range tests {
		t.Run(tc.action, func(t *testing.T) {
			env := call(t, s, "ask", `{"action":"`+tc.action+`"}`)
			if env.OK || env.Code != tc.code || env.Remedy == nil || env.Remedy.Fix == "" {
				t.Fatalf("want %s with a remedy: %s", tc.code, env.JSON())
			}
			// The server keeps serving.
			if ok := call(t, s, "ask", `{"action":"ping.now"}`); !ok.OK {
				t.Fatalf("server broken after %s: %s", tc.action, ok.JSON())
			}
		})
	}
}

func TestResultBudget(t *testing.T) {
	s, _ := newTestServer(t, Options{MaxResultTokens: 500})
	env := call(t, s, "ask", `{"action":"notes.list","params":{"limit":300}}`)
	if !env.OK || env.Meta == nil || !env.Meta.Truncated || len(env.Warnings) == 0 {
		t.Fatalf("want a truncated result: %s", env.JSON())
	}
	items := data(t, env)["items"].([]any)
	if len(items) == 0 || len(items) >= 300 {
		t.Fatalf("kept %d items", len(items))
	}
	if _, stale := data(t, env)["next_cursor"]; stale {
		t.Fatalf("a cut result kept a cursor that would skip the cut items: %s", env.JSON())
	}
	step := env.NextSteps[0]
	if step.Action != "notes.list" || step.Params["limit"] != len(items) {
		t.Fatalf("next step should repeat the call with a limit that fits: %+v", step)
	}
	// Following the step gives a page that fits, with a cursor to go on.
	b, _ := json.Marshal(map[string]any{"action": step.Action, "params": step.Params})
	next := call(t, s, "ask", string(b))
	if !next.OK || (next.Meta != nil && next.Meta.Truncated) || data(t, next)["next_cursor"] == nil {
		t.Fatalf("following the step: %s", next.JSON())
	}
	env = call(t, s, "ask", `{"action":"faults.blob"}`)
	if env.Code != CodeResultTooLarge || env.Remedy == nil {
		t.Fatalf("want result_too_large: %s", env.JSON())
	}
}

func TestBadInputNeverCrashes(t *testing.T) {
	s, _ := newTestServer(t, Options{Writes: WritesAllow})
	for _, in := range []string{``, `null`, `[]`, `"x"`, `{"action":5}`, `{"params":[1]}`, `{"nope":1}`, `{"action":"` + strings.Repeat("a", 300) + `"}`, `{`} {
		for _, tool := range []string{"find", "describe", "ask", "act", "bogus"} {
			env := s.Call(context.Background(), tool, []byte(in))
			if !env.OK && (env.Code == "" || env.Remedy == nil) {
				t.Errorf("%s %s: failure without code or remedy: %s", tool, in, env.JSON())
			}
		}
	}
}

func TestConcurrentCalls(t *testing.T) {
	s, _ := newTestServer(t, Options{Writes: WritesAllow})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				call(t, s, "act", `{"action":"notes.create","params":{"title":"c"}}`)
				call(t, s, "find", `{"intent":"list notes"}`)
				call(t, s, "ask", `{"action":"notes.get","params":{"id":1}}`)
			}
		}()
	}
	wg.Wait()
}

func TestPrefixAppliesToSteps(t *testing.T) {
	s, _ := newTestServer(t, Options{ToolPrefix: "hd_"})
	env := call(t, s, "find", `{"intent":"notes.get"}`)
	for _, st := range env.NextSteps {
		if !strings.HasPrefix(st.Tool, "hd_") {
			t.Fatalf("step tool %q lacks the prefix", st.Tool)
		}
	}
	env = call(t, s, "ask", `{"action":"nope.nope"}`)
	if !strings.HasPrefix(env.Remedy.Tool, "hd_") {
		t.Fatalf("remedy tool %q lacks the prefix", env.Remedy.Tool)
	}
}

func jsonNum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func TestAmbiguousIntentReturnsCandidates(t *testing.T) {
	r, _ := newTestRegistry(t)
	for _, id := range []string{"mail.send_plain", "mail.send_rich"} {
		if err := r.Register(operations.Operation{ID: id, Summary: "Send an email message to a recipient", Kind: operations.KindRead,
			Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{}`), nil
			}}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(r, Options{Writes: WritesAllow}) // "send" is a write verb: keep the read-only rule out of this test
	if err != nil {
		t.Fatal(err)
	}
	env := call(t, s, "ask", `{"intent":"send an email message"}`)
	if env.Code != CodeAmbiguousIntent || env.Remedy == nil || env.Remedy.Tool != "ask" {
		t.Fatalf("want ambiguous_intent: %s", env.JSON())
	}
	cands := details(t, env)["candidates"].([]any)
	if len(cands) < 2 {
		t.Fatalf("want both candidates: %v", cands)
	}
	env = call(t, s, "ask", `{"intent":"book me a flight to lisbon"}`)
	if env.Code != CodeNoMatch || env.Remedy == nil {
		t.Fatalf("want no_match: %s", env.JSON())
	}
}

func TestParamsNarrowAnAmbiguousIntent(t *testing.T) {
	r, _ := newTestRegistry(t)
	type byEmail struct {
		Email string `json:"email" jsonschema:"description=address"`
	}
	type byPhone struct {
		Phone string `json:"phone" jsonschema:"description=number"`
	}
	if err := operations.Add(r, operations.Operation{ID: "people.find_by_email", Summary: "Look up a person"}, func(ctx context.Context, in byEmail) (string, error) { return "email", nil }); err != nil {
		t.Fatal(err)
	}
	if err := operations.Add(r, operations.Operation{ID: "people.find_by_phone", Summary: "Look up a person"}, func(ctx context.Context, in byPhone) (string, error) { return "phone", nil }); err != nil {
		t.Fatal(err)
	}
	s, _ := New(r, Options{})
	if env := call(t, s, "ask", `{"intent":"look up a person"}`); env.Code != CodeAmbiguousIntent {
		t.Fatalf("without params the intent is ambiguous: %s", env.JSON())
	}
	env := call(t, s, "ask", `{"intent":"look up a person","params":{"phone":"+1 555"}}`)
	if !env.OK || string(env.Data) != `"phone"` {
		t.Fatalf("params fit exactly one candidate: %s", env.JSON())
	}
}

func TestStrayFieldsRemedy(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	env := call(t, s, "ask", `{"action":"notes.get","id":3}`)
	if env.Code != CodeInvalidParams || env.Remedy.Action != "notes.get" || !strings.Contains(env.Remedy.Fix, `"params":{"id":3}`) {
		t.Fatalf("remedy should show the corrected call: %s", env.JSON())
	}
	// A whole argument object sent as a JSON string is accepted.
	if env := call(t, s, "ask", `"{\"action\":\"notes.get\",\"params\":{\"id\":3}}"`); !env.OK {
		t.Fatalf("stringified arguments: %s", env.JSON())
	}
	if env := call(t, s, "ask", `{"action":"NOTES.GET","params":{"id":3}}`); !env.OK {
		t.Fatalf("upper-case id: %s", env.JSON())
	}
	if env := call(t, s, "find", `{"intent":"x","plan_ref":"v1.1.a.b"}`); env.Code != CodeInvalidParams {
		t.Fatalf("plan_ref on find: %s", env.JSON())
	}
	env = call(t, s, "find", `{"intent":"notes.get"}`)
	if score := data(t, env)["candidates"].([]any)[0].(map[string]any)["score"].(float64); score <= 0 || score > 100 {
		t.Fatalf("exact-id score = %v; want a finite positive number", score)
	}
}

func TestWriteIntentOnReadOnlyServer(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	env := call(t, s, "find", `{"intent":"delete note 5"}`)
	if !env.OK || !strings.Contains(strings.Join(env.Warnings, " "), "read-only") {
		t.Fatalf("find should warn that writes are hidden: %s", env.JSON())
	}
	env = call(t, s, "ask", `{"intent":"delete note 5","params":{"id":5}}`)
	if env.Code != CodeWritesDisabled {
		t.Fatalf("ask with a delete intent on a read-only server: %s", env.JSON())
	}
}

func TestCutStepRespectsTheLimitMaximum(t *testing.T) {
	r := operations.NewRegistry()
	type page struct {
		Limit int `json:"limit,omitempty" jsonschema:"description=page size,minimum=1,maximum=5"`
	}
	err := operations.Add(r, operations.Operation{ID: "big.list", Summary: "List big things"}, func(ctx context.Context, in page) ([]string, error) {
		out := make([]string, 300)
		for i := range out {
			out[i] = strings.Repeat("word ", 20)
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := New(r, Options{MaxResultTokens: 500})
	env := call(t, s, "ask", `{"action":"big.list","params":{"limit":5}}`)
	if !env.Meta.Truncated || len(env.NextSteps) == 0 {
		t.Fatalf("want a cut result: %s", env.JSON())
	}
	if got := env.NextSteps[0].Params["limit"]; got != 5 {
		t.Fatalf("next step limit = %v; the schema's maximum is 5", got)
	}
	if strings.Contains(string(env.JSON()), "cursor") {
		t.Fatalf("an operation without a cursor should not be told about one: %s", env.JSON())
	}
}

// TestFindExplainsEachCandidate: a find result says which words of the
// request each candidate matched and where (the issue's "explanation per
// candidate"), at most three fields, the most telling first.
func TestFindExplainsEachCandidate(t *testing.T) {
	if got := explainFields([]string{"namespace", "summary", "description", "tags", "aliases", "examples", "params"}); got != "summary, aliases, examples" {
		t.Errorf("explainFields = %q", got)
	}
	s, _ := newTestServer(t, Options{})
	env := call(t, s, ToolFind, `{"intent": "list my notes, newest last"}`)
	if !env.OK {
		t.Fatalf("find failed: %+v", env)
	}
	b, _ := json.Marshal(env.Data)
	var data struct {
		Candidates []struct {
			Matched []string `json:"matched"`
			Fields  string   `json:"fields"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(b, &data); err != nil || len(data.Candidates) == 0 {
		t.Fatalf("candidates: %v %s", err, b)
	}
	for i, c := range data.Candidates {
		if len(c.Matched) == 0 || c.Fields == "" {
			t.Errorf("candidate %d has no explanation: %+v", i, c)
		}
	}
}

// TestFindSaysWhichCandidateIsDeprecated: a deprecated operation is
// flagged in find's candidates, so an agent shown it behind its
// successor learns why; a current one carries no flag.
func TestFindSaysWhichCandidateIsDeprecated(t *testing.T) {
	r := operations.NewRegistry()
	list := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`[]`), nil
	}
	for _, op := range []operations.Operation{
		{ID: "teams.list_discussions_legacy", Summary: "List discussions of a team by its id", Kind: operations.KindRead, Deprecated: true, Handler: list},
		{ID: "teams.list_discussions", Summary: "List discussions of a team in an organization", Kind: operations.KindRead, Handler: list},
	} {
		if err := r.Register(op); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := call(t, s, ToolFind, `{"intent": "list the discussions of a team"}`)
	if !env.OK {
		t.Fatalf("find failed: %+v", env)
	}
	var got struct {
		Candidates []struct {
			ID         string `json:"id"`
			Deprecated bool   `json:"deprecated"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(env.Data, &got); err != nil || len(got.Candidates) != 2 {
		t.Fatalf("candidates: %v %s", err, env.Data)
	}
	for _, c := range got.Candidates {
		if want := c.ID == "teams.list_discussions_legacy"; c.Deprecated != want {
			t.Errorf("%s: deprecated %v, want %v", c.ID, c.Deprecated, want)
		}
	}
}

// find never answers "nothing" when some operation shares a word with the
// intent: weak matches come back flagged low, with the namespaces to
// browse; only an intent that meets nothing in the catalog is empty.
func TestFindShowsLowConfidenceCandidates(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	env := call(t, s, "find", `{"intent":"translate this note into French and read it aloud on the radio"}`)
	d := data(t, env)
	cands, _ := d["candidates"].([]any)
	if !env.OK || len(cands) == 0 || d["confidence"] != confidenceLow {
		t.Fatalf("want low-confidence candidates: %s", env.JSON())
	}
	if first := cands[0].(map[string]any)["id"].(string); !strings.HasPrefix(first, "notes.") {
		t.Fatalf("closest candidate should be a notes operation: %s", env.JSON())
	}
	browses := false
	for _, st := range env.NextSteps {
		if st.Tool == ToolDescribe && st.Params["namespace"] == "notes" {
			browses = true
		}
	}
	if !browses || !strings.Contains(strings.Join(env.Warnings, " "), "closest") {
		t.Fatalf("a low answer should say so and name the namespace to browse: %s", env.JSON())
	}

	env = call(t, s, "find", `{"intent":"zxqv blorp"}`)
	d = data(t, env)
	if cands, _ := d["candidates"].([]any); !env.OK || len(cands) != 0 || d["confidence"] != confidenceNone {
		t.Fatalf("an intent that meets nothing should be empty: %s", env.JSON())
	}

	env = call(t, s, "find", `{"intent":"list notes"}`)
	if d := data(t, env); d["confidence"] == confidenceLow || d["confidence"] == confidenceNone {
		t.Fatalf("a clear intent should not be low: %s", env.JSON())
	}
}

// A question about state reads: its verbs ("deleted", "open") are words
// to match, so a read-only server answers it instead of refusing it as a
// write.
func TestQuestionIsNotAWrite(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	for _, q := range []string{"is note 3 deleted", "did someone create note 3", "has note 3 been updated"} {
		env := call(t, s, "ask", `{"intent":"`+q+`","params":{"id":3}}`)
		if env.Code == CodeWritesDisabled {
			t.Fatalf("%q refused as a write: %s", q, env.JSON())
		}
	}
	// An order to change state still is one.
	if env := call(t, s, "ask", `{"intent":"delete note 3","params":{"id":3}}`); env.Code != CodeWritesDisabled {
		t.Fatalf("delete on a read-only server: %s", env.JSON())
	}
}

// A write verb on a read-only server is refused only when the policy
// hides a write it could ask for. Over a catalog of reads only there is
// nothing to enable: "generate a preview" is the read named for it, and
// telling the user to ask for writes would send them the wrong way. A
// hidden write refuses it only when it serves the request better than
// the read ("generate" does not say whether anything is stored).
func TestWriteVerbOverReadsOnly(t *testing.T) {
	type design struct {
		ID string `json:"design_id" jsonschema:"description=design id"`
	}
	preview := func(ctx context.Context, in design) (map[string]string, error) {
		return map[string]string{"preview": "png of " + in.ID}, nil
	}
	reads := operations.NewRegistry()
	// serve adds ops to the catalog and serves it read-only.
	serve := func(ops ...operations.Operation) *Server {
		for _, op := range ops {
			if err := operations.Add(reads, op, preview); err != nil {
				t.Fatal(err)
			}
		}
		s, err := New(reads, Options{Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := serve(
		operations.Operation{ID: "cad.generate_preview", Summary: "Generate a preview image of a CAD design", Kind: operations.KindRead},
		operations.Operation{ID: "cad.get_design", Summary: "Get a CAD design's metadata", Kind: operations.KindRead},
	)
	const q = `{"intent":"generate a preview for the CAD design 4ledY5","params":{"design_id":"4ledY5"}}`
	if env := call(t, s, "ask", q); env.Code == CodeWritesDisabled {
		t.Fatalf("a write verb over reads only was refused: %s", env.JSON())
	}
	env := call(t, s, "find", `{"intent":"generate a preview for the CAD design 4ledY5"}`)
	if strings.Contains(strings.Join(env.Warnings, " "), "read-only") {
		t.Fatalf("find warns that writes are hidden where none are: %s", env.JSON())
	}
	// The same request where a write is hidden that serves it less well
	// than the read: "generate" does not say whether anything is stored,
	// and the catalog's best answer reads, so the read answers it.
	s = serve(operations.Operation{ID: "cad.render", Summary: "Render a design to a new file", Kind: operations.KindWrite})
	if env := call(t, s, "ask", q); env.Code == CodeWritesDisabled || !strings.Contains(string(env.JSON()), "cad.generate_preview") {
		t.Fatalf("with a hidden write the read outranks, the read should answer: %s", env.JSON())
	}
	// And where the hidden write is the catalog's best answer, the
	// request asks for it: refused, the reads listed.
	s = serve(operations.Operation{ID: "cad.generate_previews", Summary: "Generate and store preview images for a CAD design", Kind: operations.KindWrite})
	if env := call(t, s, "ask", q); env.Code != CodeWritesDisabled {
		t.Fatalf("with a hidden write that serves it best, a write verb is refused: %s", env.JSON())
	}
}

// httpOpAdder returns a function that registers an HTTP-shaped operation
// in r whose handler counts its calls in ran and answers [].
func httpOpAdder(t *testing.T, r *operations.Registry, ran map[string]int) func(id, method, path, desc string, kind operations.Kind) {
	return func(id, method, path, desc string, kind operations.Kind) {
		h := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			ran[id]++
			return json.RawMessage(`[]`), nil
		}
		if err := r.Register(operations.Operation{ID: id, Description: desc, Kind: kind, Handler: h,
			HTTP: &operations.HTTPBinding{Method: method, Path: path}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAskDoesNotRunAReadForAWrite: "transfer balance" asks for a write
// the catalog has, in a verb the router does not know. Intent-only ask
// searches reads, where the list of transfers stands clear of the rest;
// it must not run it. Read-only, the answer is writes_disabled; with
// writes allowed, not_read_only names the write and points to act. Either
// way, nothing runs; a read the request does ask for still runs.
func TestAskDoesNotRunAReadForAWrite(t *testing.T) {
	ran := map[string]int{}
	r := operations.NewRegistry()
	add := httpOpAdder(t, r, ran)
	add("bank.transfers.get_balance_transfers", "GET", "/{api_key}/balance-transfers", "Lists the balance transfers made between the main account and its subaccounts in a period of time.", operations.KindRead)
	add("bank.transfers.post_balance_transfers", "POST", "/{api_key}/balance-transfers", "Moves balance from the main account to one of its subaccounts, or back.", operations.KindWrite)
	add("bank.transfers.get_credit_transfers", "GET", "/{api_key}/credit-transfers", "Lists the credit transfers made between the main account and its subaccounts in a period of time.", operations.KindRead)
	add("bank.transfers.post_credit_transfers", "POST", "/{api_key}/credit-transfers", "Moves credit limit from the main account to one of its subaccounts, or back.", operations.KindWrite)
	add("bank.subaccounts.get_subaccounts", "GET", "/{api_key}/subaccounts", "Lists the subaccounts of the main account.", operations.KindRead)
	add("bank.subaccounts.post_subaccounts", "POST", "/{api_key}/subaccounts", "Opens a subaccount under the main account.", operations.KindWrite)
	add("bank.subaccounts.get_subaccount", "GET", "/{api_key}/subaccounts/{subaccount_key}", "Gets one subaccount by its key.", operations.KindRead)
	add("bank.subaccounts.patch_subaccount", "PATCH", "/{api_key}/subaccounts/{subaccount_key}", "Changes the name or the limits of a subaccount.", operations.KindWrite)

	readOnly, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if env := call(t, readOnly, ToolAsk, `{"intent":"transfer balance"}`); env.Code != CodeWritesDisabled {
		t.Errorf("read-only ask for a write: %s", env.JSON())
	}
	env := call(t, readOnly, ToolFind, `{"intent":"transfer balance"}`)
	if !env.OK || data(t, env)["confidence"] == confidenceHigh || !strings.Contains(strings.Join(env.Warnings, " "), "read-only") {
		t.Errorf("read-only find for a write: want the reads, not high confidence, and the read-only warning: %s", env.JSON())
	}
	writable, err := New(r, Options{Writes: WritesConfirm, PlanKey: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	env = call(t, writable, ToolAsk, `{"intent":"transfer balance"}`)
	if env.Code != CodeNotReadOnly || env.Remedy == nil || env.Remedy.Tool != ToolAct || env.Remedy.Action != "bank.transfers.post_balance_transfers" {
		t.Errorf("ask for a write on a writable server: want not_read_only pointing act at the write: %s", env.JSON())
	}
	if len(ran) != 0 {
		t.Fatalf("something ran: %v", ran)
	}
	if env := call(t, readOnly, ToolAsk, `{"intent":"list the balance transfers","params":{"api_key":"k"}}`); !env.OK || ran["bank.transfers.get_balance_transfers"] != 1 {
		t.Errorf("a read asked for: %s (ran %v)", env.JSON(), ran)
	}
}

// TestAnUnknownVerbThatNamesAHiddenCall: "pay an invoice" asks for a call
// the catalog names for it (POST /v1/invoices/{invoice}/pay), in a verb
// the router's lexicon does not know. On a read-only server find offers
// the invoice reads flagged as low confidence with the read-only warning,
// and ask refuses with writes_disabled; with writes allowed, ask answers
// not_read_only and points act at the call. A read that only a hidden
// POST serves gets the read-only warning, not "no operation matches".
// Nothing runs.
func TestAnUnknownVerbThatNamesAHiddenCall(t *testing.T) {
	ran := map[string]int{}
	r := operations.NewRegistry()
	add := httpOpAdder(t, r, ran)
	add("billing.invoices.get_invoices", "GET", "/v1/invoices", "Lists your invoices.", operations.KindRead)
	add("billing.invoices.get_invoice", "GET", "/v1/invoices/{invoice}", "Retrieves the invoice with the given ID.", operations.KindRead)
	add("billing.invoices.post_invoices", "POST", "/v1/invoices", "Creates a draft invoice for a customer.", operations.KindWrite)
	add("billing.invoices.post_invoice_pay", "POST", "/v1/invoices/{invoice}/pay", "Attempts to collect payment on an invoice out of the normal collection schedule.", operations.KindWrite)
	add("billing.exports.post_exports_list", "POST", "/v1/exports:list", "Lists the exports of invoices to the ledger.", operations.KindWrite)

	readOnly, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := call(t, readOnly, ToolFind, `{"intent":"pay an invoice"}`)
	if !env.OK || data(t, env)["confidence"] != confidenceLow || !strings.Contains(strings.Join(env.Warnings, " "), "read-only") {
		t.Errorf("read-only find for an unknown verb's call: want the reads, low confidence, and the read-only warning: %s", env.JSON())
	}
	if env := call(t, readOnly, ToolAsk, `{"intent":"pay an invoice"}`); env.Code != CodeWritesDisabled || !strings.Contains(string(env.JSON()), `"candidates":[{"id":"billing.invoices.get_invoice"`) {
		t.Errorf("read-only ask for an unknown verb's call: want writes_disabled with the closest reads: %s", env.JSON())
	}
	// Only a hidden POST serves this read: nothing is listed, and find
	// says why instead of "no operation matches".
	env = call(t, readOnly, ToolFind, `{"intent":"ledger exports"}`)
	if !env.OK || len(data(t, env)["candidates"].([]any)) != 0 || strings.Join(env.Warnings, " ") != readOnlyWarning {
		t.Errorf("read-only find that only a hidden call serves: want no candidates and the read-only warning: %s", env.JSON())
	}
	writable, err := New(r, Options{Writes: WritesConfirm, PlanKey: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	env = call(t, writable, ToolAsk, `{"intent":"pay an invoice"}`)
	if env.Code != CodeNotReadOnly || env.Remedy == nil || env.Remedy.Tool != ToolAct || env.Remedy.Action != "billing.invoices.post_invoice_pay" {
		t.Errorf("ask for an unknown verb's call on a writable server: want not_read_only pointing act at it: %s", env.JSON())
	}
	// find's own kind filter hides the call: its first step names it.
	env = call(t, writable, ToolFind, `{"intent":"pay an invoice","params":{"kind":"read"}}`)
	if !env.OK || len(env.NextSteps) == 0 || env.NextSteps[0].Action != "billing.invoices.post_invoice_pay" {
		t.Errorf("find with kind read for a write's call: want the first step to name it: %s", env.JSON())
	}
	if len(ran) != 0 {
		t.Fatalf("something ran: %v", ran)
	}
}

// TestAReadSentAsAWriteIsNotCalledAChange: on a read-only server, "list
// all crawlers" where every call of the API is a POST (AWSGlue.GetCrawlers)
// is refused, but as a read the server does not call, not as a request to
// change state: the agent would otherwise tell its user the wrong thing.
// The remedy names the way out (mark the call a read), and a call marked
// so runs. A request that does ask for a change is told so, as before.
func TestAReadSentAsAWriteIsNotCalledAChange(t *testing.T) {
	glue := func(getKind operations.Kind) (*Server, map[string]int) {
		ran := map[string]int{}
		r := operations.NewRegistry()
		add := httpOpAdder(t, r, ran)
		add("glue.get_crawlers", "POST", "/#X-Amz-Target=AWSGlue.GetCrawlers", "Retrieves metadata for all crawlers defined in the customer account.", getKind)
		add("glue.create_crawler", "POST", "/#X-Amz-Target=AWSGlue.CreateCrawler", "Creates a new crawler with specified targets, role, configuration, and optional schedule.", operations.KindWrite)
		add("glue.delete_crawler", "POST", "/#X-Amz-Target=AWSGlue.DeleteCrawler", "Removes a specified crawler from the Glue Data Catalog.", operations.KindDestructive)
		add("glue.status", "GET", "/status", "Service status.", operations.KindRead)
		s, err := New(r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s, ran
	}
	s, ran := glue(operations.KindWrite)
	env := call(t, s, ToolAsk, `{"intent":"list all crawlers"}`)
	if env.Code != CodeWritesDisabled || !strings.Contains(env.Error, "that intent reads") || env.Remedy == nil || !strings.Contains(env.Remedy.Fix, "kind: read") {
		t.Errorf("a read only a POST serves: want writes_disabled saying it reads, with the overlay remedy: %s", env.JSON())
	}
	env = call(t, s, ToolFind, `{"intent":"list all crawlers"}`)
	if strings.Join(env.Warnings, " ") != hiddenReadsWarning {
		t.Errorf("find for a read only a POST serves: want the hidden-reads warning: %s", env.JSON())
	}
	// The overview says what the policy hides: here most of the API.
	env = call(t, s, ToolDescribe, `{}`)
	if data(t, env)["hidden_writes"] != float64(3) || !strings.Contains(strings.Join(env.Warnings, " "), "kind: read") {
		t.Errorf("describe on a read-only server that hides most of its API: want hidden_writes 3 and the overlay warning: %s", env.JSON())
	}
	env = call(t, s, ToolAsk, `{"intent":"delete the crawler"}`)
	if env.Code != CodeWritesDisabled || !strings.Contains(env.Error, "asks to change state") {
		t.Errorf("a delete on a read-only server: want writes_disabled saying it changes state: %s", env.JSON())
	}
	if len(ran) != 0 {
		t.Fatalf("something ran: %v", ran)
	}
	s, ran = glue(operations.KindRead) // as an overlay's kind: read leaves it
	env = call(t, s, ToolDescribe, `{}`)
	if data(t, env)["hidden_writes"] != float64(2) || len(env.Warnings) > 0 {
		t.Errorf("describe with as many reads as hidden writes: want hidden_writes 2 and no warning: %s", env.JSON())
	}
	// Intent-only, the read does not run (the whole catalog would run
	// another call), and as the only candidate it is not called one of
	// several.
	env = call(t, s, ToolAsk, `{"intent":"list all crawlers"}`)
	if env.Code != CodeAmbiguousIntent || strings.Contains(env.Error, "several") || env.Remedy == nil || env.Remedy.Action != "glue.get_crawlers" {
		t.Errorf("one candidate not sure enough to run: want ambiguous_intent naming it, not several: %s", env.JSON())
	}
	env = call(t, s, ToolFind, `{"intent":"list all crawlers"}`)
	if cands, _ := data(t, env)["candidates"].([]any); len(cands) == 0 || cands[0].(map[string]any)["id"] != "glue.get_crawlers" || len(env.Warnings) > 0 {
		t.Errorf("the call marked as a read: want find to offer it, with no warning: %s", env.JSON())
	}
	if env := call(t, s, ToolAsk, `{"action":"glue.get_crawlers"}`); !env.OK || ran["glue.get_crawlers"] != 1 {
		t.Errorf("the call marked as a read: want ask to run it: %s (ran %v)", env.JSON(), ran)
	}
}

// TestParamsOutweighARunTheyDoNotFit: an intent the router is sure of
// ("list notes" runs notes.list) comes with params only another candidate
// takes (a note's id). The agent holds the id for that candidate, so that
// is the one ask runs, and meta says so; params no candidate takes still
// get invalid_params for the router's choice, and nothing runs.
func TestParamsOutweighARunTheyDoNotFit(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	if res := s.index().router().Search("list notes", s.index().readsFilter(), 5); res.Decision != "run" || res.Candidates[0].Op.ID != "notes.list" {
		t.Fatalf("the premise: %q should run notes.list on its words, got %s", "list notes", res.Decision)
	}
	env := call(t, s, ToolAsk, `{"intent":"list notes","params":{"id":3}}`)
	if !env.OK || data(t, env)["id"] != 3.0 || env.Meta == nil || env.Meta.RoutedTo != "notes.get" {
		t.Fatalf("want notes.get run with the id it takes: %s", env.JSON())
	}
	if !slices.Contains(env.Meta.Alternatives, "notes.list") {
		t.Errorf("the router's choice should stay as an alternative: %s", env.JSON())
	}
	env = call(t, s, ToolAsk, `{"intent":"list notes","params":{"colour":"red"}}`)
	if env.Code != CodeInvalidParams || !strings.Contains(env.Error, "notes.list") {
		t.Fatalf("params nothing takes: want invalid_params for notes.list: %s", env.JSON())
	}
	env = call(t, s, ToolAsk, `{"intent":"list notes","params":{"limit":2}}`)
	if !env.OK || env.Meta.RoutedTo != "notes.list" {
		t.Fatalf("params the leader takes: want notes.list: %s", env.JSON())
	}
}

// TestParamsThatSeveralCandidatesTake: "get the provider" runs the
// provider's read on its words, but a provider's id and a card's id fit
// the card's read and the list of its transactions, not the provider's
// read. Ask names the two it could mean and runs nothing; without the
// list, the card's read runs.
func TestParamsThatSeveralCandidatesTake(t *testing.T) {
	catalog := func(withTransactions bool) (*Server, map[string]int) {
		ran := map[string]int{}
		r := operations.NewRegistry()
		add := func(id, path, desc, input string) {
			h := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				ran[id]++
				return json.RawMessage(`{}`), nil
			}
			if err := r.Register(operations.Operation{ID: id, Description: desc, Kind: operations.KindRead, Handler: h,
				Input: json.RawMessage(input), HTTP: &operations.HTTPBinding{Method: "GET", Path: path}}); err != nil {
				t.Fatal(err)
			}
		}
		provider := `{"type":"object","additionalProperties":false,"required":["provider_id"],"properties":{"provider_id":{"type":"integer"}}}`
		card := `{"type":"object","additionalProperties":false,"required":["provider_id","card_id"],"properties":{"provider_id":{"type":"integer"},"card_id":{"type":"integer"}}}`
		add("providers.get_provider", "/providers/{provider_id}", "Get a provider by its id.", provider)
		add("providers.list_providers", "/providers", "List the providers.", `{"type":"object","additionalProperties":false,"properties":{}}`)
		add("cards.get_card", "/providers/{provider_id}/cards/{card_id}", "Get a card of a provider.", card)
		if withTransactions {
			add("cards.list_card_transactions", "/providers/{provider_id}/cards/{card_id}/transactions", "List the transactions of a card.", card)
		}
		s, err := New(r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s, ran
	}
	s, ran := catalog(true)
	if res := s.index().router().Search("get the provider", s.index().readsFilter(), 5); res.Decision != "run" || res.Candidates[0].Op.ID != "providers.get_provider" {
		t.Fatalf("the premise: %q should run the provider's read on its words, got %s", "get the provider", res.Decision)
	}
	in := `{"intent":"get the provider","params":{"provider_id":1,"card_id":2}}`
	env := call(t, s, ToolAsk, in)
	if env.Code != CodeAmbiguousIntent || env.Remedy == nil || env.Remedy.Action == "providers.get_provider" {
		t.Fatalf("want ambiguous_intent pointing at a candidate the params fit: %s", env.JSON())
	}
	var listed []string
	for _, c := range details(t, env)["candidates"].([]any) {
		listed = append(listed, c.(map[string]any)["id"].(string))
	}
	slices.Sort(listed)
	if !slices.Equal(listed, []string{"cards.get_card", "cards.list_card_transactions"}) {
		t.Errorf("candidates %v, want the two the params fit", listed)
	}
	if len(ran) != 0 {
		t.Fatalf("something ran: %v", ran)
	}
	s, ran = catalog(false)
	if env := call(t, s, ToolAsk, in); !env.OK || env.Meta.RoutedTo != "cards.get_card" || ran["cards.get_card"] != 1 {
		t.Fatalf("one candidate the params fit: want cards.get_card run: %s", env.JSON())
	}
}

// TestAWordThatChangesStateIsRefusedReadOnly: "Accept the repository
// invitation" asks for a change in a verb of no class the router searches
// for (the learned table's "write" words). On a read-only server ask
// refuses with writes_disabled and lists the closest reads, and find
// offers them with the read-only warning, instead of answering as if
// listing the invitations served the request. Nothing runs.
func TestAWordThatChangesStateIsRefusedReadOnly(t *testing.T) {
	ran := map[string]int{}
	r := operations.NewRegistry()
	add := httpOpAdder(t, r, ran)
	add("gh.invitations.list", "GET", "/user/repository_invitations", "Lists the repository invitations the caller has been sent.", operations.KindRead)
	add("gh.invitations.join", "PATCH", "/user/repository_invitations/{invitation_id}", "", operations.KindWrite)
	add("gh.invitations.turn_down", "DELETE", "/user/repository_invitations/{invitation_id}", "", operations.KindDestructive)
	add("gh.repos.invitations", "GET", "/repos/{owner}/{repo}/invitations", "Lists the open invitations of a repository.", operations.KindRead)
	add("gh.orgs.invitations", "GET", "/orgs/{org}/invitations", "Lists the pending invitations of an organization.", operations.KindRead)
	add("gh.orgs.invitation_teams", "GET", "/orgs/{org}/invitations/{invitation_id}/teams", "Lists the teams an organization invitation is for.", operations.KindRead)
	readOnly, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const q = `{"intent":"Accept a repository invitation"}`
	if env := call(t, readOnly, ToolAsk, q); env.Code != CodeWritesDisabled || !strings.Contains(string(env.JSON()), "gh.invitations.list") {
		t.Errorf("read-only ask for a change of no class: want writes_disabled with the closest reads: %s", env.JSON())
	}
	if env := call(t, readOnly, ToolFind, q); !env.OK || !strings.Contains(strings.Join(env.Warnings, " "), "read-only") {
		t.Errorf("read-only find for a change of no class: want the reads with the read-only warning: %s", env.JSON())
	}
	if len(ran) != 0 {
		t.Errorf("ran %v; nothing may run", ran)
	}
}
