package intent

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// BenchmarkAskPaths runs the same fast ask through today's direct path
// (WaitUntilDone: the handler in its guard goroutine) and through the
// wait-or-handle path (a run on a server-owned context, waited for), side
// by side: the overhead runs add to a call that ends within its wait.
func BenchmarkAskPaths(b *testing.B) {
	raw := []byte(`{"action":"notes.get","params":{"id":3}}`)
	for _, tc := range []struct {
		name string
		wait time.Duration
	}{{"direct", WaitUntilDone}, {"wait-or-handle", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			s, _ := newTestServer(b, Options{Wait: tc.wait})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				env := s.Call(ctx, ToolAsk, raw)
				if !env.OK {
					b.Fatal(string(env.JSON()))
				}
				_ = env.JSON()
			}
		})
	}
}

// BenchmarkAskPathsInterleaved times the two paths call by call,
// alternating, so a loaded machine slows both alike; it reports each
// path's median and their ratio.
func BenchmarkAskPathsInterleaved(b *testing.B) {
	raw := []byte(`{"action":"notes.get","params":{"id":3}}`)
	direct, _ := newTestServer(b, Options{Wait: WaitUntilDone})
	waiting, _ := newTestServer(b, Options{})
	ctx := context.Background()
	var dl, wl []time.Duration
	timed := func(s *Server) time.Duration {
		t0 := time.Now()
		env := s.Call(ctx, ToolAsk, raw)
		_ = env.JSON()
		d := time.Since(t0)
		if !env.OK {
			b.Fatal(string(env.JSON()))
		}
		return d
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			dl = append(dl, timed(direct))
			wl = append(wl, timed(waiting))
		} else {
			wl = append(wl, timed(waiting))
			dl = append(dl, timed(direct))
		}
	}
	slices.Sort(dl)
	slices.Sort(wl)
	md, mw := dl[len(dl)/2], wl[len(wl)/2]
	b.ReportMetric(float64(md.Nanoseconds()), "ns-median/direct")
	b.ReportMetric(float64(mw.Nanoseconds()), "ns-median/wait")
	b.ReportMetric(float64(mw)/float64(md), "ratio")
}

// BenchmarkCancelToHandler measures the time from an agent's runs.cancel
// call to the Go handler of the run seeing its context end, and reports
// the median and 90th percentile over the iterations.
func BenchmarkCancelToHandler(b *testing.B) {
	r := operations.NewRegistry()
	started := make(chan struct{})
	seen := make(chan time.Time)
	operations.MustAdd(r, operations.Operation{ID: "slow.wait", Summary: "Wait until cancelled"},
		func(ctx context.Context, _ empty) (empty, error) {
			started <- struct{}{}
			<-ctx.Done()
			seen <- time.Now()
			return empty{}, ctx.Err()
		})
	s, err := New(r, Options{Timeout: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var lat []time.Duration
	for b.Loop() {
		h := s.Call(ctx, ToolAsk, []byte(`{"action":"slow.wait","params":{"_wait":0}}`))
		<-started
		t0 := time.Now()
		go s.Call(ctx, ToolAsk, []byte(`{"action":"runs.cancel","params":{"run_id":"`+h.Meta.RunID+`"}}`))
		lat = append(lat, (<-seen).Sub(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "ns-median/cancel")
	b.ReportMetric(float64(lat[len(lat)*9/10].Nanoseconds()), "ns-p90/cancel")
}
