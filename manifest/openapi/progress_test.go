package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/runs"
)

// exportServer streams an export of chunks pieces of chunk bytes, pausing
// pause before each, announcing its length when announce is set.
func exportServer(chunks, chunk int, pause time.Duration, announce bool) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		// The JSON is a string of chunks*chunk bytes, quotes included.
		if announce {
			w.Header().Set("Content-Length", fmt.Sprint(chunks*chunk))
		}
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		for i := range chunks {
			time.Sleep(pause)
			piece := strings.Repeat("x", chunk)
			switch {
			case chunks == 1:
				piece = `"` + piece[2:] + `"`
			case i == 0:
				piece = `"` + piece[1:]
			case i == chunks-1:
				piece = piece[1:] + `"`
			}
			w.Write([]byte(piece))
			w.(http.Flusher).Flush()
		}
	}))
}

// exportOps binds a one-operation spec to base and returns the registry
// and the operation's id.
func exportOps(t testing.TB, base string) (*operations.Registry, string) {
	t.Helper()
	cat, err := Parse("exports", []byte(`{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{"/exports/{id}":{"get":{"operationId":"exports.get",
	  "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],"responses":{"200":{"description":"ok"}}}}}}`), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := operations.NewRegistry()
	for _, op := range cat.Operations(BindOptions{BaseURL: base}) {
		reg.MustRegister(op)
	}
	if reg.Len() != 1 {
		t.Fatalf("%d operations", reg.Len())
	}
	return reg, reg.All()[0].ID
}

// A long HTTP call made inside a run shows movement: sent, the status
// received, bytes of the body read (of Content-Length when announced),
// the body read; every report is in bytes and never goes backwards.
func TestHTTPCallReportsProgress(t *testing.T) {
	for _, announce := range []bool{true, false} {
		t.Run(fmt.Sprintf("announced=%v", announce), func(t *testing.T) {
			const chunks, chunk = 4, 4096
			srv := exportServer(chunks, chunk, 300*time.Millisecond, announce) // pauses longer than progressEvery
			defer srv.Close()
			reg, id := exportOps(t, srv.URL)
			m := runs.NewManager(runs.Options{})
			run := m.Start(context.Background(), "p", id, func(ctx context.Context) runs.Outcome {
				out, err := reg.Call(ctx, id, json.RawMessage(`{"id":7}`))
				if err != nil {
					return runs.Outcome{Failed: true, Value: err.Error()}
				}
				return runs.Outcome{Value: len(out)}
			})
			var mu sync.Mutex
			var seen []runs.Progress
			out, done := run.Wait(context.Background(), time.Minute, func(p runs.Progress) {
				mu.Lock()
				seen = append(seen, p)
				mu.Unlock()
			})
			if !done || out.Failed {
				t.Fatalf("outcome %v %+v", done, out)
			}
			mu.Lock()
			defer mu.Unlock()
			var total float64
			if announce {
				total = chunks * chunk
			}
			// Progress is the latest report: a listener that attaches
			// after the request went out may never see "request sent",
			// but it sees the status before any byte of the body.
			if len(seen) < 3 {
				t.Fatalf("reports %v: want (sent,) status, at least one mid-body, read", seen)
			}
			first, last := seen[0], seen[len(seen)-1]
			status := first
			if strings.HasPrefix(first.Message, "GET /exports/{id}: request sent") {
				if first.Done != 0 {
					t.Fatalf("first report %+v", first)
				}
				status = seen[1]
			}
			if status.Done != 0 || status.Total != total || !strings.Contains(status.Message, "status 200") {
				t.Fatalf("report of the status %+v (reports %v)", status, seen)
			}
			if last.Done != chunks*chunk || last.Total != total || !strings.HasSuffix(last.Message, "response body read") {
				t.Fatalf("last report %+v", last)
			}
			var mid bool
			for i, p := range seen {
				if p.Unit != runs.UnitBytes || (i > 0 && p.Done < seen[i-1].Done) {
					t.Fatalf("report %d = %+v after %+v", i, p, seen[max(i-1, 0)])
				}
				mid = mid || (p.Done > 0 && p.Done < chunks*chunk)
			}
			if !mid {
				t.Fatalf("no report while the body was read: %v", seen)
			}
			if announce && !strings.Contains(last.String(), "16.4 kB of 16.4 kB") {
				t.Fatalf("last report in words: %q", last.String())
			}
		})
	}
	// Outside a run, the same call reports nothing and still works.
	srv := exportServer(1, 10, 0, true)
	defer srv.Close()
	reg, id := exportOps(t, srv.URL)
	if out, err := call(t, reg, id, `{"id":1}`); err != nil || !strings.Contains(string(out), "xxxxxxxx") {
		t.Fatalf("call outside a run: %s, %v", out, err)
	}
}

// BenchmarkHTTPProgress times one call of an operation whose answer is a
// 1 MB JSON string, outside a run (no progress) and inside one (phases and
// body bytes reported, a waiter listening), alternating call by call; it
// reports each median and their ratio.
func BenchmarkHTTPProgress(b *testing.B) {
	body := `"` + strings.Repeat("x", 1<<20-2) + `"`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	defer srv.Close()
	reg, id := exportOps(b, srv.URL)
	m := runs.NewManager(runs.Options{})
	args := json.RawMessage(`{"id":1}`)
	plain := func() time.Duration {
		t0 := time.Now()
		if _, err := reg.Call(context.Background(), id, args); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	reports := 0
	inRun := func() time.Duration {
		t0 := time.Now()
		r := m.Start(context.Background(), "p", id, func(ctx context.Context) runs.Outcome {
			_, err := reg.Call(ctx, id, args)
			return runs.Outcome{Failed: err != nil}
		})
		if out, done := r.Wait(context.Background(), time.Minute, func(runs.Progress) { reports++ }); !done || out.Failed {
			b.Fatal("the call in a run failed")
		}
		return time.Since(t0)
	}
	var pl, rl []time.Duration
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			pl, rl = append(pl, plain()), append(rl, inRun())
		} else {
			rl, pl = append(rl, inRun()), append(pl, plain())
		}
	}
	if reports == 0 {
		b.Fatal("no progress was reported inside the run")
	}
	slices.Sort(pl)
	slices.Sort(rl)
	mp, mr := pl[len(pl)/2], rl[len(rl)/2]
	b.ReportMetric(float64(mp.Nanoseconds()), "ns-median/plain")
	b.ReportMetric(float64(mr.Nanoseconds()), "ns-median/in-run")
	b.ReportMetric(float64(mr)/float64(mp), "ratio")
}
