//go:build linux

package mcpsrc

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/internal/testupstream"
	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/runs"
)

// upstreamOnEveryTransport starts the Go test upstream as a child over
// stdio and in process over streamable HTTP and SSE, each named after its
// transport, with cancelFile as the steps tool's witness of cancellation.
func upstreamOnEveryTransport(t *testing.T, cancelFile string) *operations.Registry {
	t.Helper()
	t.Setenv(testupstream.EnvCancelFile, cancelFile) // for the in-process servers
	stream := httptest.NewServer(server.NewStreamableHTTPServer(testupstream.New()))
	t.Cleanup(stream.Close)
	sse := server.NewSSEServer(testupstream.New())
	sseTS := httptest.NewServer(sse)
	t.Cleanup(sseTS.Close)
	server.WithBaseURL(sseTS.URL)(sse)
	remote, err := ParseJSON([]byte(`{"mcpServers": {
	  "stream": {"url": "`+stream.URL+`/mcp"},
	  "sse": {"type": "sse", "url": "`+sseTS.URL+`/sse"}}}`), "", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	servers := append(remote, testServer(t, "stdio", "serve", testupstream.EnvCancelFile, cancelFile))
	checked, err := Check(servers, "", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	reg := operations.NewRegistry()
	f := Start(context.Background(), reg, checked, Options{StartTimeout: 20 * time.Second})
	t.Cleanup(func() { f.Close() })
	for _, name := range []string{"stdio", "stream", "sse"} {
		if st := statusOf(f, name); st.State != StateReady {
			t.Fatalf("%s: %+v", name, st)
		}
	}
	return reg
}

// callWork is run work that calls op on reg with args.
func callWork(reg *operations.Registry, op, args string) runs.Work {
	return func(ctx context.Context) runs.Outcome {
		out, err := reg.Call(ctx, op, json.RawMessage(args))
		if err != nil {
			return runs.Outcome{Failed: true, Value: err.Error()}
		}
		return runs.Outcome{Value: json.RawMessage(out)}
	}
}

// The upstream's notifications/progress for a call made inside a run are
// recorded on the run and reach whoever waits on it, in order, on every
// transport.
func TestUpstreamProgressReachesTheRun(t *testing.T) {
	reg := upstreamOnEveryTransport(t, filepath.Join(t.TempDir(), "cancelled"))
	m := runs.NewManager(runs.Options{})
	for _, name := range []string{"stdio", "stream", "sse"} {
		t.Run(name, func(t *testing.T) {
			run := m.Start(context.Background(), "p", name+".steps", callWork(reg, name+".steps", `{"count":4,"step_ms":30}`))
			var mu sync.Mutex
			var seen []runs.Progress
			out, done := run.Wait(context.Background(), time.Minute, func(p runs.Progress) {
				mu.Lock()
				seen = append(seen, p)
				mu.Unlock()
			})
			if !done || out.Failed || !strings.Contains(string(out.Value.(json.RawMessage)), "did 4 steps") {
				t.Fatalf("outcome %v %+v", done, out)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != 4 {
				t.Fatalf("progress seen %+v, want 4 reports", seen)
			}
			for i, p := range seen {
				if p.Done != float64(i+1) || p.Total != 4 || p.Message != "working on step "+string(rune('1'+i)) {
					t.Fatalf("report %d = %+v", i, p)
				}
			}
			if p := run.Record().Progress; p == nil || p.Done != 4 {
				t.Fatalf("the run's record keeps %+v, want the last report", p)
			}
		})
	}
	// Outside a run no progress token is sent, and nothing is reported.
	out, err := reg.Call(context.Background(), "stdio.steps", json.RawMessage(`{"count":2,"step_ms":1}`))
	if err != nil || !strings.Contains(string(out), "did 2 steps") {
		t.Fatalf("call outside a run: %s, %v", out, err)
	}
}

// Cancelling a run that waits on an upstream tool stops the tool itself,
// on every transport: the witness file gets a line per cancelled call.
func TestUpstreamCancelReachesTheTool(t *testing.T) {
	witness := filepath.Join(t.TempDir(), "cancelled")
	reg := upstreamOnEveryTransport(t, witness)
	m := runs.NewManager(runs.Options{})
	for i, name := range []string{"stdio", "stream", "sse"} {
		t.Run(name, func(t *testing.T) {
			run := m.Start(context.Background(), "p", name+".steps", callWork(reg, name+".steps", `{"count":100000,"step_ms":20}`))
			// Wait for the first progress report: the tool is running.
			started, stop := context.WithCancel(context.Background())
			if _, done := run.Wait(started, 30*time.Second, func(runs.Progress) { stop() }); done || started.Err() == nil {
				t.Fatal("the endless call ended, or reported no progress within 30s")
			}
			rec, _, _ := run.Detach()
			got, err := m.Cancel(context.Background(), "p", rec.ID)
			if err != nil || got.State != runs.StateCancelled {
				t.Fatalf("cancel: %+v, %v", got, err)
			}
			deadline := time.Now().Add(20 * time.Second) // a liveness bound, not a speed claim
			for {
				b, _ := os.ReadFile(witness)
				if strings.Count(string(b), "cancelled after") == i+1 {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("the cancellation never reached the %s upstream's tool (witness: %q)", name, b)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
