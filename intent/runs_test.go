package intent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/runs"
	"github.com/intentsrv/intentsrv/runs/runstest"
)

// slowOps are operations that take as long as the test says: each crawl
// reports progress page by page, then waits for release or cancellation.
type slowOps struct {
	release   chan struct{} // closed: crawls finish
	reported  chan string   // a crawl's pages reported so far, after each report
	sawCancel chan error    // a crawl's context ended, with its error
	calls     chan struct{} // one per crawl that started
}

type crawlArgs struct {
	Pages int    `json:"pages" jsonschema:"minimum=1,maximum=100,description=pages to crawl"`
	Site  string `json:"site,omitempty" jsonschema:"description=site name"`
}

type crawlResult struct {
	Site  string `json:"site"`
	Pages int    `json:"pages"`
}

func newSlowServer(t testing.TB, opts Options) (*Server, *slowOps) {
	t.Helper()
	so := &slowOps{release: make(chan struct{}), reported: make(chan string, 1000), sawCancel: make(chan error, 1000), calls: make(chan struct{}, 1000)}
	crawl := func(ctx context.Context, in crawlArgs) (crawlResult, error) {
		so.calls <- struct{}{}
		for p := 1; p <= in.Pages; p++ {
			runs.Report(ctx, float64(p), float64(in.Pages), "crawled page "+fmt.Sprint(p))
			so.reported <- fmt.Sprint(p)
		}
		select {
		case <-so.release:
			return crawlResult{Site: in.Site, Pages: in.Pages}, nil
		case <-ctx.Done():
			so.sawCancel <- ctx.Err()
			return crawlResult{}, ctx.Err()
		}
	}
	r := operations.NewRegistry()
	for _, op := range []operations.Operation{
		{ID: "slow.crawl", Summary: "Crawl a site page by page", Kind: operations.KindRead},
		{ID: "slow.purge", Summary: "Purge a site's cache forever", Kind: operations.KindDestructive},
		{ID: "slow.reindex", Summary: "Rebuild a site's index", Kind: operations.KindWrite},
	} {
		if err := operations.Add(r, op, crawl); err != nil {
			t.Fatal(err)
		}
	}
	if err := operations.Add(r, operations.Operation{ID: "fast.echo", Summary: "Echo a site name", Kind: operations.KindRead},
		func(_ context.Context, in crawlArgs) (crawlResult, error) {
			return crawlResult{Site: in.Site, Pages: in.Pages}, nil
		}); err != nil {
		t.Fatal(err)
	}
	if opts.Timeout == 0 {
		opts.Timeout = time.Hour
	}
	s, err := New(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, so
}

// runID returns the run_id of a run handle, failing when env is not one.
func runID(t testing.TB, env *Envelope) string {
	t.Helper()
	if !env.OK || env.Meta == nil || env.Meta.RunID == "" {
		t.Fatalf("not a run handle: %s", env.JSON())
	}
	d := data(t, env)
	if d["run_id"] != env.Meta.RunID {
		t.Fatalf("handle data and meta disagree: %s", env.JSON())
	}
	return env.Meta.RunID
}

func askRuns(t testing.TB, ctx context.Context, s *Server, action, id string, extra string) *Envelope {
	t.Helper()
	return s.Call(ctx, ToolAsk, []byte(fmt.Sprintf(`{"action":%q,"params":{"run_id":%q%s}}`, action, id, extra)))
}

func TestWaitBudgetHandleThenAwait(t *testing.T) {
	s, so := newSlowServer(t, Options{Wait: 10 * time.Millisecond})
	ctx := context.Background()
	handle := call(t, s, ToolAsk, `{"action":"slow.crawl","params":{"pages":3,"site":"example"}}`)
	id := runID(t, handle)
	d := data(t, handle)
	if d["state"] != "running" || d["operation"] != "slow.crawl" || d["started_at"] == "" {
		t.Fatalf("handle = %s", handle.JSON())
	}
	if !strings.Contains(d["note"].(string), "still running after 10ms") {
		t.Fatalf("note = %v", d["note"])
	}
	if len(handle.NextSteps) != 2 || handle.NextSteps[0].Tool != ToolAsk || handle.NextSteps[0].Action != "runs.await" ||
		handle.NextSteps[0].Params["run_id"] != id || handle.NextSteps[1].Action != "runs.cancel" {
		t.Fatalf("next_steps must say exactly what to call: %+v", handle.NextSteps)
	}
	for range 3 {
		<-so.reported
	}
	got := askRuns(t, ctx, s, "runs.get", id, "")
	if p := data(t, got)["progress"].(map[string]any); p["done"] != 3.0 || p["total"] != 3.0 || p["message"] != "crawled page 3" {
		t.Fatalf("runs.get progress = %s", got.JSON())
	}
	still := askRuns(t, ctx, s, "runs.await", id, `,"wait_seconds":0.001`)
	if n := data(t, still)["note"].(string); !strings.Contains(n, "still running") || !strings.Contains(n, "step 3 of 3: crawled page 3") || !strings.Contains(n, "call runs.await again") {
		t.Fatalf("await of a running run = %s", still.JSON())
	}
	close(so.release)
	res := askRuns(t, ctx, s, "runs.await", id, "")
	if !res.OK || string(res.Data) != `{"site":"example","pages":3}` || res.Meta.RunID != id {
		t.Fatalf("await must return the call's own result: %s", res.JSON())
	}
	// The result stays readable: await again, and get shows it finished.
	if again := askRuns(t, ctx, s, "runs.await", id, ""); string(again.Data) != string(res.Data) {
		t.Fatalf("second await = %s", again.JSON())
	}
	if st := data(t, askRuns(t, ctx, s, "runs.get", id, "")); st["state"] != "succeeded" || st["expires_at"] == nil {
		t.Fatalf("get after the end = %v", st)
	}
}

func TestFastCallReturnsItsResult(t *testing.T) {
	s, _ := newSlowServer(t, Options{})
	env := call(t, s, ToolAsk, `{"action":"fast.echo","params":{"pages":1,"site":"x"}}`)
	if !env.OK || string(env.Data) != `{"site":"x","pages":1}` || (env.Meta != nil && env.Meta.RunID != "") {
		t.Fatalf("fast call = %s", env.JSON())
	}
	list := call(t, s, ToolAsk, `{"action":"runs.list"}`)
	if data(t, list)["count"] != 0.0 {
		t.Fatalf("a call answered within its wait left a run behind: %s", list.JSON())
	}
}

func TestWaitParam(t *testing.T) {
	s, so := newSlowServer(t, Options{})
	// _wait is taken out before validation: the operation's schema does not
	// allow it, and the call still runs.
	env := call(t, s, ToolAsk, `{"action":"fast.echo","params":{"pages":1,"site":"x","_wait":5}}`)
	if !env.OK || string(env.Data) != `{"site":"x","pages":1}` {
		t.Fatalf("_wait reached the operation: %s", env.JSON())
	}
	// _wait 0: a handle at once.
	handle := call(t, s, ToolAsk, `{"action":"slow.crawl","params":{"pages":1,"_wait":0}}`)
	runID(t, handle)
	close(so.release)
	// Over the cap: cut, with a warning.
	env = call(t, s, ToolAsk, `{"action":"fast.echo","params":{"pages":1,"_wait":100000}}`)
	if !env.OK || len(env.Warnings) != 1 || !strings.Contains(env.Warnings[0], "cut to 120 seconds") {
		t.Fatalf("clamped _wait = %s", env.JSON())
	}
	for _, bad := range []string{`-1`, `"soon"`, `{}`, `[1]`} {
		env = call(t, s, ToolAsk, `{"action":"fast.echo","params":{"pages":1,"_wait":`+bad+`}}`)
		if env.OK || env.Code != CodeInvalidParams || !strings.Contains(env.Error, "_wait") || env.Remedy.Tool != ToolAsk {
			t.Fatalf("_wait %s = %s", bad, env.JSON())
		}
	}
	// null is absent, as for the input's own fields.
	if env = call(t, s, ToolAsk, `{"action":"fast.echo","params":{"pages":1,"_wait":null}}`); !env.OK || string(env.Data) != `{"site":"","pages":1}` {
		t.Fatalf("_wait null = %s", env.JSON())
	}
	// A "_wait" inside a value is not the reserved field.
	env = call(t, s, ToolAsk, `{"action":"fast.echo","params":{"pages":1,"site":"\"_wait\""}}`)
	if !env.OK || !strings.Contains(string(env.Data), `_wait`) {
		t.Fatalf("a value naming _wait = %s", env.JSON())
	}
}

// TestWaitUntilDone is the CLI's mode: no handles, whatever the call asks.
func TestWaitUntilDone(t *testing.T) {
	s, so := newSlowServer(t, Options{Wait: WaitUntilDone})
	done := make(chan *Envelope)
	go func() {
		done <- call(t, s, ToolAsk, `{"action":"slow.crawl","params":{"pages":2,"site":"cli","_wait":0}}`)
	}()
	<-so.reported
	close(so.release)
	if env := <-done; !env.OK || string(env.Data) != `{"site":"cli","pages":2}` {
		t.Fatalf("blocking call = %s", env.JSON())
	}
}

// TestShutdownCancelAnswersAFailure cancels the call that started a run
// with ErrShutdown, as a transport does when the server stops past its
// deadline: the run dies with the process, so the call answers a failure,
// never a handle saying the run keeps going.
func TestShutdownCancelAnswersAFailure(t *testing.T) {
	s, so := newSlowServer(t, Options{})
	ctx, cancel := context.WithCancelCause(context.Background())
	answer := make(chan *Envelope)
	go func() {
		answer <- s.Call(ctx, ToolAsk, []byte(`{"action":"slow.crawl","params":{"pages":2,"site":"s","_wait":120}}`))
	}()
	<-so.reported
	cancel(ErrShutdown)
	env := <-answer
	close(so.release)
	if env.OK || env.Code != CodeTimeout || !strings.Contains(env.Error, "cancelled") {
		t.Fatalf("a call cut by the server's shutdown = %s", env.JSON())
	}
}

// TestCallerCancelDoesNotKillTheRun cancels the call that started a run
// (a client giving up): the call answers with the handle, progress so far
// included, and the run finishes.
func TestCallerCancelDoesNotKillTheRun(t *testing.T) {
	s, so := newSlowServer(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	answer := make(chan *Envelope)
	go func() {
		answer <- s.Call(ctx, ToolAsk, []byte(`{"action":"slow.crawl","params":{"pages":2,"site":"s","_wait":120}}`))
	}()
	<-so.reported
	<-so.reported
	cancel()
	handle := <-answer
	id := runID(t, handle)
	d := data(t, handle)
	if p := d["progress"].(map[string]any); p["done"] != 2.0 || !strings.Contains(d["note"].(string), "the call that started it ended") {
		t.Fatalf("handle after the caller left = %s", handle.JSON())
	}
	close(so.release)
	res := askRuns(t, context.Background(), s, "runs.await", id, "")
	if !res.OK || string(res.Data) != `{"site":"s","pages":2}` {
		t.Fatalf("await = %s", res.JSON())
	}
	select {
	case err := <-so.sawCancel:
		t.Fatalf("the handler saw %v: the caller's cancellation reached the run", err)
	default:
	}
}

func TestCancelThroughAsk(t *testing.T) {
	ctx := context.Background()
	t.Run("pending", func(t *testing.T) {
		s, so := newSlowServer(t, Options{Wait: time.Millisecond, Runs: runs.NewManager(runs.Options{MaxActive: 1})})
		first := runID(t, call(t, s, ToolAsk, `{"action":"slow.crawl","params":{"pages":1}}`))
		<-so.calls
		second := call(t, s, ToolAsk, `{"action":"slow.crawl","params":{"pages":1}}`)
		id := runID(t, second)
		if d := data(t, second); d["state"] != "pending" || !strings.Contains(d["note"].(string), "has not started") {
			t.Fatalf("queued run = %s", second.JSON())
		}
		if c := askRuns(t, ctx, s, "runs.cancel", id, ""); !c.OK || data(t, c)["run_id"] != id {
			t.Fatalf("cancel = %s", c.JSON())
		}
		res := askRuns(t, ctx, s, "runs.await", id, "")
		if res.OK || res.Code != CodeTimeout || !strings.Contains(res.Error, "nothing ran") {
			t.Fatalf("await of a run cancelled before it started = %s", res.JSON())
		}
		close(so.release)
		askRuns(t, ctx, s, "runs.await", first, "")
		if len(so.calls) != 0 {
			t.Fatal("the cancelled run's handler ran")
		}
	})
	t.Run("running", func(t *testing.T) {
		s, so := newSlowServer(t, Options{Wait: time.Millisecond})
		id := runID(t, call(t, s, ToolAsk, `{"action":"slow.crawl","params":{"pages":1}}`))
		<-so.reported
		c := askRuns(t, ctx, s, "runs.cancel", id, "")
		if err := <-so.sawCancel; err != context.Canceled {
			t.Fatalf("the handler's context ended with %v", err)
		}
		// The cancel answers once the run stopped (it waits a bounded
		// time for that); either way it must say what it knows.
		if d := data(t, c); !c.OK || !(d["state"] == "cancelled" && strings.Contains(d["note"].(string), "stopped") ||
			d["state"] == "running" && strings.Contains(d["note"].(string), "has not stopped yet")) {
			t.Fatalf("cancel = %s", c.JSON())
		}
		// The handler saw the cancellation; the run ends once it returns,
		// which the server's 1ms wait may not see: wait for the end.
		res := askRuns(t, ctx, s, "runs.await", id, `,"wait_seconds":60`)
		if res.OK || res.Code != CodeTimeout || !strings.Contains(res.Error, "runs.cancel") || res.Meta.RunID != id {
			t.Fatalf("await of a cancelled run = %s", res.JSON())
		}
	})
	t.Run("finished", func(t *testing.T) {
		s, so := newSlowServer(t, Options{Wait: time.Millisecond})
		id := runID(t, call(t, s, ToolAsk, `{"action":"slow.crawl","params":{"pages":1,"site":"f"}}`))
		close(so.release)
		// The server's own wait is 1 ms: wait for the end explicitly.
		askRuns(t, ctx, s, "runs.await", id, `,"wait_seconds":60`)
		c := askRuns(t, ctx, s, "runs.cancel", id, "")
		if d := data(t, c); !c.OK || d["state"] != "succeeded" || !strings.Contains(d["note"].(string), "nothing was cancelled") {
			t.Fatalf("cancel of a finished run = %s", c.JSON())
		}
		if res := askRuns(t, ctx, s, "runs.await", id, ""); string(res.Data) != `{"site":"f","pages":1}` {
			t.Fatalf("the result changed after a late cancel: %s", res.JSON())
		}
	})
	t.Run("a write", func(t *testing.T) {
		s, so := newSlowServer(t, Options{Wait: time.Millisecond, Writes: WritesAllow})
		id := runID(t, call(t, s, ToolAct, `{"action":"slow.reindex","params":{"pages":1}}`))
		<-so.reported
		c := askRuns(t, ctx, s, "runs.cancel", id, "")
		if n := data(t, c)["note"].(string); !strings.Contains(n, "partly taken effect") {
			t.Fatalf("cancelling a write must warn about partial effects: %s", c.JSON())
		}
	})
}

func TestRunsUnderReadOnlyPolicy(t *testing.T) {
	s, _ := newSlowServer(t, Options{Allow: []string{"fast.*"}})
	for _, id := range []string{"runs.get", "runs.await", "runs.cancel", "runs.list"} {
		f := call(t, s, ToolFind, `{"intent":"`+id+`"}`)
		cands := data(t, f)["candidates"].([]any)
		if len(cands) == 0 || cands[0].(map[string]any)["id"] != id {
			t.Fatalf("find %s = %s", id, f.JSON())
		}
		d := call(t, s, ToolDescribe, `{"action":"`+id+`"}`)
		if !d.OK || !strings.Contains(string(d.Data), `"run_id"`) && id != "runs.list" {
			t.Fatalf("describe %s = %s", id, d.JSON())
		}
	}
	ns := call(t, s, ToolDescribe, `{"params":{"namespace":"runs"}}`)
	if data(t, ns)["count"] != 4.0 {
		t.Fatalf("describe namespace runs = %s", ns.JSON())
	}
	if !strings.Contains(string(call(t, s, ToolDescribe, `{}`).Data), `"runs"`) {
		t.Fatal("the overview does not list the runs namespace")
	}
	// Under the default deny policy (and an allow list that does not name
	// them), every runs.* operation answers through ask, cancel included.
	env := call(t, s, ToolAsk, `{"action":"runs.cancel","params":{"run_id":"run_nope"}}`)
	if env.Code != CodeNotFound {
		t.Fatalf("runs.cancel under deny = %s", env.JSON())
	}
	env = call(t, s, ToolAsk, `{"action":"runs.list","params":{"state":"sleeping"}}`)
	if env.Code != CodeInvalidParams {
		t.Fatalf("a bad state = %s", env.JSON())
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Hour: "1h", 90 * time.Second: "1m30s", 20 * time.Second: "20s",
		2 * time.Minute: "2m", 250 * time.Millisecond: "250ms", 0: "0s", 26*time.Hour + time.Second: "26h0m1s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// TestRunsStayOutOfTheCatalogsRouting: intents about the catalog never
// get runs.* candidates (with the built-ins in the catalog's index, each
// of these did, "run" being near deploy, restart and call), while find
// still reaches them by id and within their namespace.
func TestRunsStayOutOfTheCatalogsRouting(t *testing.T) {
	reg := operations.NewRegistry()
	if err := helpdesk.New().Register(reg); err != nil {
		t.Fatal(err)
	}
	s, err := New(reg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"deploy the frontend to prod", "restart the production database", "cancel Bluefin's subscription",
		"what's waiting on the customer", "call Ethan Park on the phone", "what's the status of #17?"} {
		env := call(t, s, ToolFind, `{"intent":"`+q+`","params":{"limit":25}}`)
		if strings.Contains(string(env.Data), `"runs.`) {
			t.Errorf("find %q offers a built-in: %s", q, env.Data)
		}
	}
	top := func(input string) string {
		t.Helper()
		cands, _ := data(t, call(t, s, ToolFind, input))["candidates"].([]any)
		if len(cands) == 0 {
			return ""
		}
		return cands[0].(map[string]any)["id"].(string)
	}
	if got := top(`{"intent":"Runs.Await"}`); got != "runs.await" {
		t.Errorf("find by id = %q", got)
	}
	if got := top(`{"intent":"stop it","params":{"namespace":"runs"}}`); got != "runs.cancel" {
		t.Errorf("find within the runs namespace = %q", got)
	}
	env := call(t, s, ToolAsk, `{"action":"runs.awiat","params":{"run_id":"x"}}`)
	if env.Code != CodeUnknownAction || env.Remedy.Action != "runs.await" {
		t.Errorf("a misspelt built-in = %s", env.JSON())
	}
}

func TestReservedNamespace(t *testing.T) {
	r := operations.NewRegistry()
	operations.MustAdd(r, operations.Operation{ID: "runs.export", Summary: "x"}, func(context.Context, empty) (empty, error) { return empty{}, nil })
	_, err := New(r, Options{})
	if err == nil || !strings.Contains(err.Error(), `reserves`) || !strings.Contains(err.Error(), "runs.export") {
		t.Fatalf("New = %v, want a refusal naming the operation", err)
	}
}

func TestRunsListObeysTheBudget(t *testing.T) {
	s, so := newSlowServer(t, Options{Wait: time.Millisecond, MaxResultTokens: 300})
	defer close(so.release)
	for range 12 {
		runID(t, call(t, s, ToolAsk, `{"action":"slow.crawl","params":{"pages":1}}`))
	}
	env := call(t, s, ToolAsk, `{"action":"runs.list","params":{"limit":12}}`)
	views, _ := data(t, env)["runs"].([]any)
	if !env.OK || env.Meta == nil || !env.Meta.Truncated || len(views) == 0 || len(views) >= 12 || len(env.Warnings) != 1 {
		t.Fatalf("a list over the budget = %s", env.JSON())
	}
}

func FuzzTakeWait(f *testing.F) {
	for _, seed := range []string{`{"_wait":5,"a":1}`, `{"_wait":-1}`, `{"a":"_wait"}`, `{"_wait":null}`, `{"_wait":1e400}`, `{"_wait":"3"}`, `{}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, params string) {
		in := Input{Action: "x.y", Params: json.RawMessage(params)}
		out, ctx, bad := takeWait(context.Background(), ToolAsk, in)
		if bad != nil {
			if bad.Code != CodeInvalidParams || bad.Remedy == nil {
				t.Fatalf("refusal without code or remedy: %s", bad.JSON())
			}
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(out.Params, &m) == nil {
			if _, left := m[WaitParam]; left {
				t.Fatalf("_wait left in params: %s", out.Params)
			}
		}
		if w, ok := ctx.Value(waitKey{}).(callWait); ok && (w.d < 0 || w.d > MaxWait) {
			t.Fatalf("wait %v out of [0, MaxWait]", w.d)
		}
	})
}

func TestRunsPrincipalsIsolated(t *testing.T) {
	s, so := newSlowServer(t, Options{Wait: time.Millisecond})
	alice := WithCaller(context.Background(), "alice")
	bob := WithCaller(context.Background(), "bob")
	handle := s.Call(alice, ToolAsk, []byte(`{"action":"slow.crawl","params":{"pages":1}}`))
	id := runID(t, handle)
	const missing = "run_AAAAAAAAAAAAAAAAAAAAAA"
	for _, action := range []string{"runs.get", "runs.await", "runs.cancel"} {
		theirs := askRuns(t, bob, s, action, id, "")
		none := askRuns(t, bob, s, action, missing, "")
		theirs.Meta, none.Meta = nil, nil
		if theirs.Code != CodeNotFound || strings.ReplaceAll(string(theirs.JSON()), id, "ID") != strings.ReplaceAll(string(none.JSON()), missing, "ID") {
			t.Fatalf("%s by another principal:\n%s\nof a missing run:\n%s", action, theirs.JSON(), none.JSON())
		}
	}
	if l := s.Call(bob, ToolAsk, []byte(`{"action":"runs.list"}`)); data(t, l)["count"] != 0.0 {
		t.Fatalf("bob lists alice's runs: %s", l.JSON())
	}
	if d := data(t, askRuns(t, alice, s, "runs.get", id, "")); d["state"] != "running" {
		t.Fatalf("bob's cancel reached alice's run: %v", d)
	}
	close(so.release)
	if res := askRuns(t, alice, s, "runs.await", id, ""); !res.OK {
		t.Fatalf("alice's await = %s", res.JSON())
	}
}

func TestRunRetention(t *testing.T) {
	c := runstest.NewClock()
	s, so := newSlowServer(t, Options{Wait: time.Millisecond, Now: c.Now})
	id := runID(t, call(t, s, ToolAsk, `{"action":"slow.crawl","params":{"pages":1}}`))
	close(so.release)
	ctx := context.Background()
	// The run must be final before the clock moves: retention counts
	// from when it finished, and an await that only waits the server's
	// 1ms can return while the handler is still returning.
	if res := askRuns(t, ctx, s, "runs.await", id, `,"wait_seconds":60`); !res.OK || data(t, res)["pages"] != 1.0 {
		t.Fatalf("await = %s", res.JSON())
	}
	c.Add(runs.DefaultRetention - time.Second)
	if res := askRuns(t, ctx, s, "runs.await", id, ""); !res.OK {
		t.Fatalf("await a second before expiry = %s", res.JSON())
	}
	c.Add(time.Second)
	res := askRuns(t, ctx, s, "runs.await", id, "")
	if res.Code != CodeNotFound || !strings.Contains(res.Error, "kept for 1h") || res.Remedy.Action != "runs.list" {
		t.Fatalf("await after expiry = %s", res.JSON())
	}
}

// TestAwaitFromANewSession starts a slow call over MCP with a progress
// token, gives up on it and disconnects, then awaits the run from a new
// session with its own token: a run belongs to the server, and progress
// reaches whoever waits for it.
func TestAwaitFromANewSession(t *testing.T) {
	s, so := newSlowServer(t, Options{})
	ms := NewMCPServer(s, "test")
	connect := func(progress chan<- mcp.JSONRPCNotification) *client.Client {
		c, err := client.NewInProcessClient(ms)
		if err != nil {
			t.Fatal(err)
		}
		c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method == string(mcp.MethodNotificationProgress) {
				progress <- n
			}
		})
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}}); err != nil {
			t.Fatal(err)
		}
		return c
	}
	callWithToken := func(ctx context.Context, c *client.Client, token string, args map[string]any) (Envelope, error) {
		var req mcp.CallToolRequest
		req.Params.Name = ToolAsk
		req.Params.Arguments = args
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
		res, err := c.CallTool(ctx, req)
		var env Envelope
		if err == nil {
			b, _ := json.Marshal(res.StructuredContent)
			err = json.Unmarshal(b, &env)
		}
		return env, err
	}
	progressA := make(chan mcp.JSONRPCNotification, 100)
	a := connect(progressA)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for range 3 {
			<-so.reported
		}
		// Every page was reported; the call forwards what it sees while it
		// waits (the last report when it starts waiting, then each new
		// one), so the last page reaches the client. Then it gives up.
		for {
			f := (<-progressA).Params.AdditionalFields
			if f["progressToken"] != "tok-a" {
				t.Errorf("progress for another request: %+v", f)
			}
			if f["progress"] == 3.0 {
				break
			}
		}
		cancel()
	}()
	// The client gave up: whatever reaches it (the handle or its own
	// cancellation error) is beside the point.
	_, _ = callWithToken(ctx, a, "tok-a", map[string]any{"action": "slow.crawl", "params": map[string]any{"pages": 3, "site": "mcp", "_wait": 120}})
	a.Close()
	list, err := s.runs.List(context.Background(), callerOf(context.Background()), nil, 0)
	if err != nil || len(list) != 1 || list[0].State != runs.StateRunning {
		t.Fatalf("runs after the first session ended: %+v, %v", list, err)
	}
	id := list[0].ID

	progressB := make(chan mcp.JSONRPCNotification, 100)
	b := connect(progressB)
	defer b.Close()
	awaited := make(chan Envelope)
	go func() {
		env, err := callWithToken(context.Background(), b, "tok-b", map[string]any{"action": "runs.await", "params": map[string]any{"run_id": id, "wait_seconds": 120}})
		if err != nil {
			t.Error(err)
		}
		awaited <- env
	}()
	// The new session's await gets the last progress at once.
	n := <-progressB
	if f := n.Params.AdditionalFields; f["progressToken"] != "tok-b" || f["progress"] != 3.0 || f["total"] != 3.0 || f["message"] != "crawled page 3" {
		t.Fatalf("progress to the new session = %+v", f)
	}
	close(so.release)
	env := <-awaited
	var got crawlResult
	if !env.OK || json.Unmarshal(env.Data, &got) != nil || got != (crawlResult{Site: "mcp", Pages: 3}) || env.Meta.RunID != id {
		t.Fatalf("await from a new session = %+v", env)
	}
}

// TestManyConcurrentRunsThroughAsk starts 100 runs at once through ask,
// half of them handed back as handles: run it with -race.
func TestManyConcurrentRunsThroughAsk(t *testing.T) {
	s, so := newSlowServer(t, Options{Wait: time.Millisecond})
	const n = 100
	handles := make(chan *Envelope, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := WithCaller(context.Background(), fmt.Sprint("p", i%3))
			handles <- s.Call(ctx, ToolAsk, []byte(fmt.Sprintf(`{"action":"slow.crawl","params":{"pages":2,"site":"s%d"}}`, i)))
			s.Call(ctx, ToolAsk, []byte(`{"action":"runs.list","params":{"state":"running"}}`))
		}()
	}
	wg.Wait()
	close(handles)
	close(so.release)
	seen := map[string]bool{}
	for h := range handles {
		id := runID(t, h)
		if seen[id] {
			t.Fatalf("run id %s handed out twice", id)
		}
		seen[id] = true
	}
	for p := range 3 {
		ctx := WithCaller(context.Background(), fmt.Sprint("p", p))
		l := s.Call(ctx, ToolAsk, []byte(`{"action":"runs.list","params":{"limit":100}}`))
		for _, v := range data(t, l)["runs"].([]any) {
			id := v.(map[string]any)["run_id"].(string)
			// The runs were released above but may still be finishing:
			// wait for each well beyond the server's 1 ms default.
			if res := askRuns(t, ctx, s, "runs.await", id, `,"wait_seconds":10`); !res.OK || !strings.Contains(string(res.Data), `"pages":2`) {
				t.Fatalf("await %s = %s", id, res.JSON())
			}
			delete(seen, id)
		}
	}
	if len(seen) != 0 {
		t.Fatalf("%d runs were not listed to their principal", len(seen))
	}
}

// TestPlanRefIgnoresWait: _wait is how long to wait, not what to run, so a
// preview made with it is confirmed without it.
func TestPlanRefIgnoresWait(t *testing.T) {
	s, so := newSlowServer(t, Options{Writes: WritesConfirm})
	close(so.release)
	prev := call(t, s, ToolAct, `{"action":"slow.purge","params":{"pages":1,"_wait":0}}`)
	if prev.Code != CodeConfirmationRequired {
		t.Fatalf("preview = %s", prev.JSON())
	}
	ref := details(t, prev)["plan_ref"].(string)
	env := call(t, s, ToolAct, `{"action":"slow.purge","params":{"pages":1},"plan_ref":"`+ref+`"}`)
	if !env.OK || !strings.Contains(string(env.Data), `"pages":1`) {
		t.Fatalf("confirm = %s", env.JSON())
	}
}
