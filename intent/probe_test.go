package intent

import (
	"context"
	"testing"
)

// Under WithProbe, ask and act take every step but the handler: reads,
// writes and confirmed plans reach their operation without running it,
// previews still come back, bad params are still judged, and a plan_ref
// confirmed under a probe stays unused.
func TestProbeRunsNoHandler(t *testing.T) {
	s, n := newTestServer(t, Options{Writes: WritesAllow})
	probe := WithProbe(context.Background())
	before := len(n.items)
	do := func(ctx context.Context, tool, in string) *Envelope {
		t.Helper()
		return s.Call(ctx, tool, []byte(in))
	}
	for _, c := range []struct{ tool, in, want string }{
		{"ask", `{"action":"notes.get","params":{"id":3}}`, "notes.get"},
		{"ask", `{"intent":"list notes","params":{"limit":2}}`, "notes.list"},
		{"act", `{"action":"notes.create","params":{"title":"x"}}`, "notes.create"},
		{"ask", `{"action":"faults.panic"}`, "faults.panic"},
	} {
		env := do(probe, c.tool, c.in)
		if id, ok := Probed(env); !ok || id != c.want {
			t.Errorf("%s %s under a probe: %s, want a probe answer for %s", c.tool, c.in, env.JSON(), c.want)
		}
	}
	if env := do(probe, "ask", `{"action":"notes.get","params":{"id":"three"}}`); env.Code != CodeInvalidParams {
		t.Errorf("bad params under a probe: %s", env.JSON())
	}
	env := do(probe, "act", `{"action":"notes.delete","params":{"id":4}}`)
	if env.Code != CodeConfirmationRequired {
		t.Fatalf("destructive act under a probe should preview: %s", env.JSON())
	}
	ref := details(t, env)["plan_ref"].(string)
	confirm := `{"action":"notes.delete","params":{"id":4},"plan_ref":"` + ref + `"}`
	if id, ok := Probed(do(probe, "act", confirm)); !ok || id != "notes.delete" {
		t.Errorf("confirmed plan under a probe did not reach notes.delete")
	}
	if len(n.items) != before {
		t.Fatalf("a probe ran a handler: %d notes, want %d", len(n.items), before)
	}
	// The plan_ref was not consumed: confirming it for real still runs.
	if env := do(context.Background(), "act", confirm); !env.OK {
		t.Fatalf("plan_ref confirmed under a probe is no longer usable: %s", env.JSON())
	}
	if _, still := n.items[4]; still {
		t.Fatal("the real confirmation did not run")
	}
	if _, ok := Probed(do(context.Background(), "ask", `{"action":"notes.get","params":{"id":3}}`)); ok {
		t.Error("a call without a probe answered as one")
	}
}
