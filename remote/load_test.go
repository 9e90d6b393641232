package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/intentsrv/intentsrv/intent"
)

// loadSize is the load test's clients × calls per client: small by
// default, so CI stays quick under the race detector; the full run is
//
//	INTENTSRV_LOAD=64x500 go test -race -run TestLoadMixedCalls -timeout 30m ./remote
func loadSize(t *testing.T) (clients, calls int) {
	v := os.Getenv("INTENTSRV_LOAD")
	if v == "" {
		return 16, 30
	}
	if _, err := fmt.Sscanf(v, "%dx%d", &clients, &calls); err != nil || clients < 1 || calls < 1 {
		t.Fatalf("INTENTSRV_LOAD=%q: want CLIENTSxCALLS, e.g. 64x500", v)
	}
	return clients, calls
}

// loadPrincipals are the keys the load clients share round-robin.
var loadPrincipals = []string{"load-a", "load-b", "load-c", "load-d"}

func loadKey(principal string) string { return principal + "-key-0123456789abcdef" }

// loadCall is one call of the mix: an intent verb and its condensed input.
type loadCall struct {
	verb string
	args map[string]any
}

var loadMix = []loadCall{
	{intent.ToolFind, map[string]any{"intent": benchIntent}},
	{intent.ToolDescribe, map[string]any{"action": loadOp}},
	{intent.ToolAsk, map[string]any{"action": loadOp, "params": map[string]any{"ticket_id": 42}}},
}

// loadCaller calls one verb with its input and fails on anything but an
// ok envelope.
type loadCaller func(ctx context.Context, c loadCall) error

// mcpLoadCaller is an initialized MCP client session of key; the test's
// cleanup closes it.
func mcpLoadCaller(t *testing.T, url, key string) loadCaller {
	c := dialMCP(t, url+PathMCP, map[string]string{"Authorization": "Bearer " + key})
	return func(ctx context.Context, call loadCall) error {
		res, err := c.CallTool(ctx, toolRequest(call.verb, call.args))
		if err != nil {
			return fmt.Errorf("mcp %s: %w", call.verb, err)
		}
		if env := resultEnvelope(res, nil); !env.OK || res.IsError {
			return fmt.Errorf("mcp %s: %s %s", call.verb, env.Code, env.Error)
		}
		return nil
	}
}

// restLoadCaller calls the REST twin with key over its own connections;
// the test's cleanup closes them.
func restLoadCaller(t *testing.T, url, key string) loadCaller {
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	return func(ctx context.Context, call loadCall) error {
		body, _ := json.Marshal(call.args)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+PathREST+call.verb, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Errorf("rest %s: %w", call.verb, err)
		}
		defer resp.Body.Close()
		var env intent.Envelope
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != http.StatusOK || !env.OK {
			return fmt.Errorf("rest %s: status %d, %v, %s %s", call.verb, resp.StatusCode, err, env.Code, env.Error)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
}

// heapAfterGC is the live heap once garbage is collected.
func heapAfterGC() uint64 {
	var m runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// loadHeapSlack is how much the live heap may grow over a load run: room
// for pools and caches that settle after the warm-up, far below what one
// leaked byte buffer per call would add over 32,000 calls.
const loadHeapSlack = 4 << 20

// TestLoadMixedCalls runs clients × calls of find, describe and ask over
// HTTP (three MCP sessions for each REST client, four principals) against
// Serve on loopback, behind keys and the concurrency cap. Every call must
// succeed; afterwards no goroutine of the run may be left and the live
// heap must be where it was before the run. See loadSize for the full
// 64×500 run.
func TestLoadMixedCalls(t *testing.T) {
	clients, calls := loadSize(t)
	before := goleak.IgnoreCurrent()
	// The run is a subtest so that its cleanups (clients, connections)
	// have run when the leak check below looks.
	t.Run(fmt.Sprintf("%dx%d", clients, calls), func(t *testing.T) { runLoad(t, clients, calls) })
	goleak.VerifyNone(t, before, idleHandlerWorkers)
}

func runLoad(t *testing.T, clients, calls int) {
	keys := &Keys{}
	for _, p := range loadPrincipals {
		if err := keys.add(p, loadKey(p), "test"); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Config{Keys: keys, Version: "load", MaxConcurrentCalls: (clients + len(loadPrincipals) - 1) / len(loadPrincipals)})
	if err != nil {
		t.Fatal(err)
	}
	s.SetIntent(helpdeskServer(t))
	url, shutdown, served := serving(t, s)
	// Cleanups run last first: clients close, then the server shuts down.
	t.Cleanup(func() {
		shutdown()
		if err := <-served; err != nil {
			t.Errorf("shutdown after the load: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})

	callers := make([]loadCaller, clients)
	for i := range callers {
		key := loadKey(loadPrincipals[i%len(loadPrincipals)])
		if i%4 == 3 {
			callers[i] = restLoadCaller(t, url, key)
		} else {
			callers[i] = mcpLoadCaller(t, url, key)
		}
	}
	// Warm-up: one call of each kind per client, so lazily built state
	// (sessions, indexes, pools) is in the baseline.
	for _, call := range callers {
		for _, c := range loadMix {
			if err := call(context.Background(), c); err != nil {
				t.Fatal(err)
			}
		}
	}
	heapBefore := heapAfterGC()

	errs := make(chan error, clients*calls)
	var wg sync.WaitGroup
	start := time.Now()
	for ci, call := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				if err := call(ctx, loadMix[(ci+i)%len(loadMix)]); err != nil {
					errs <- err
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	failed := 0
	for err := range errs {
		if failed++; failed <= 10 {
			t.Error(err)
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d calls failed", failed, clients*calls)
	}
	heapAfter := heapAfterGC()
	t.Logf("%d clients × %d calls: %.0f calls/s; live heap %d KiB before, %d KiB after",
		clients, calls, float64(clients*calls)/elapsed.Seconds(), heapBefore>>10, heapAfter>>10)
	if heapAfter > heapBefore+loadHeapSlack {
		t.Errorf("live heap grew from %d KiB to %d KiB over the run", heapBefore>>10, heapAfter>>10)
	}
}
