package intent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/runs"
)

// A call past the server's bound on runs under way is refused before
// anything runs, with rate_limited and the way forward (runs.list, then
// await or cancel); the runs.* operations still answer; once a run ends
// the call goes through.
func TestMaxRunsRefusesWithAWayForward(t *testing.T) {
	ctx := context.Background()
	s, so := newSlowServer(t, Options{Wait: time.Millisecond, Runs: runs.NewManager(runs.Options{MaxRuns: 1})})
	first := runID(t, call(t, s, ToolAsk, `{"action":"slow.crawl","params":{"pages":1}}`))
	<-so.calls
	refused := call(t, s, ToolAsk, `{"action":"fast.echo","params":{"pages":1,"site":"x"}}`)
	if refused.OK || refused.Code != CodeRateLimited || !strings.Contains(refused.Error, "did not run") ||
		refused.Remedy == nil || refused.Remedy.Action != "runs.list" || !strings.Contains(refused.Remedy.Fix, "runs.cancel") {
		t.Fatalf("a call past --max-runs = %s", refused.JSON())
	}
	if list := call(t, s, ToolAsk, `{"action":"runs.list","params":{"state":"running"}}`); !list.OK || !strings.Contains(string(list.Data), first) {
		t.Fatalf("runs.list while full = %s", list.JSON())
	}
	if c := askRuns(t, ctx, s, "runs.cancel", first, ""); !c.OK {
		t.Fatalf("runs.cancel while full = %s", c.JSON())
	}
	// The cancel waits for the run to stop, so its slot is free. The call
	// waits longer than the server's 1 ms: under the race detector on a
	// loaded machine even fast.echo can take that long.
	if env := call(t, s, ToolAsk, `{"action":"fast.echo","params":{"pages":1,"site":"x","_wait":30}}`); !env.OK || string(env.Data) != `{"site":"x","pages":1}` {
		t.Fatalf("after the run ended = %s", env.JSON())
	}
}

// A run cut by the server's shutdown (runs.Manager.Close) reads
// interrupted, with the remedy to check before running it again.
func TestShutdownInterruptsRunsThroughAsk(t *testing.T) {
	ctx := context.Background()
	m := runs.NewManager(runs.Options{})
	s, so := newSlowServer(t, Options{Wait: time.Millisecond, Writes: WritesAllow, Runs: m})
	id := runID(t, call(t, s, ToolAct, `{"action":"slow.reindex","params":{"pages":1}}`))
	<-so.reported
	closing, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if ended, stuck := m.Close(closing); ended != 1 || stuck != 0 {
		t.Fatalf("Close ended %d, stuck %d", ended, stuck)
	}
	res := askRuns(t, ctx, s, "runs.await", id, "")
	if res.OK || res.Code != CodeInternalError || !strings.Contains(res.Error, "interrupted") || res.Remedy == nil || !strings.Contains(res.Remedy.Fix, "check the state") {
		t.Fatalf("await of a run cut by shutdown = %s", res.JSON())
	}
}
