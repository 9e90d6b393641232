package router

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/internal/synth"
	"github.com/intentsrv/intentsrv/internal/vecfile"
	"github.com/intentsrv/intentsrv/operations"
)

func synthOps(n int) []*operations.Operation {
	gen := synth.Operations(n, 1)
	ops := make([]*operations.Operation, len(gen))
	for i := range gen {
		ops[i] = &gen[i]
	}
	return ops
}

// benchQueries are natural-language paraphrases built from random
// operations: their summary with the verb swapped for a user verb, plus the
// service name half the time.
func benchQueries(ops []*operations.Operation, n int) []string {
	rng := rand.New(rand.NewPCG(9, 9))
	verbs := []string{"show me", "please list", "I need to", "can you", "delete", "kill", "what are the", "create a new", "find"}
	qs := make([]string, n)
	for i := range qs {
		op := ops[rng.IntN(len(ops))]
		q := verbs[rng.IntN(len(verbs))] + " " + op.Summary
		if rng.IntN(2) == 0 {
			q += " in " + op.ID[:len(op.Namespace)]
		}
		qs[i] = q
	}
	return qs
}

// benchOptions are the options of the search benchmarks:
// ROUTER_BENCH_ABLATE (comma-separated Ablations) switches parts off, to
// measure what each costs.
func benchOptions() Options {
	var o Options
	if a := os.Getenv("ROUTER_BENCH_ABLATE"); a != "" {
		o.Ablate = strings.Split(a, ",")
	}
	return o
}

func benchSearch(b *testing.B, n int) {
	ops := synthOps(n)
	r := New(ops, benchOptions())
	qs := benchQueries(ops, 512)
	b.ReportAllocs()
	b.ResetTimer()
	loopWithPercentiles(b, func(i int) { r.Search(qs[i%len(qs)], Filter{}, 10) })
}

// loopWithPercentiles runs fn in b.Loop, timing each call, and reports the
// median and 99th percentile latency next to the mean (ns/op).
func loopWithPercentiles(b *testing.B, fn func(i int)) {
	lat := make([]time.Duration, 0, 1<<16)
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		fn(i)
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(t0))
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
	}
}

// benchFiltered is benchSearch with the filter a server passes: keep,
// as a mask (Filter.Only).
func benchFiltered(b *testing.B, n int, keep func(*operations.Operation) bool) {
	ops := synthOps(n)
	r := New(ops, benchOptions())
	qs := benchQueries(ops, 512)
	f := Filter{Only: r.Mask(keep)}
	b.ReportAllocs()
	b.ResetTimer()
	loopWithPercentiles(b, func(i int) { r.Search(qs[i%len(qs)], f, 10) })
}

// isRead and notWrite are the filters of intent-only ask (the visible
// reads) and of a read-only server's find (the operations not hidden).
func isRead(op *operations.Operation) bool   { return op.Kind == operations.KindRead }
func notWrite(op *operations.Operation) bool { return !op.Kind.IsWrite() }

// BenchmarkAsk* search as intent-only ask does, among reads: a run
// decided there is checked against the whole catalog (checkHidden), a
// second search for those requests. BenchmarkFindReadOnly* search as find
// does on a read-only server, whose index holds the writes it hides.
func BenchmarkAsk2500(b *testing.B)          { benchFiltered(b, 2500, isRead) }
func BenchmarkAsk100k(b *testing.B)          { benchFiltered(b, 100_000, isRead) }
func BenchmarkFindReadOnly2500(b *testing.B) { benchFiltered(b, 2500, notWrite) }
func BenchmarkFindReadOnly100k(b *testing.B) { benchFiltered(b, 100_000, notWrite) }

func BenchmarkSearch2500(b *testing.B) { benchSearch(b, 2500) }
func BenchmarkSearch10k(b *testing.B)  { benchSearch(b, 10_000) }
func BenchmarkSearch100k(b *testing.B) { benchSearch(b, 100_000) }
func BenchmarkSearchExact(b *testing.B) {
	ops := synthOps(100_000)
	r := New(ops, Options{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Search(ops[i%len(ops)].ID, Filter{}, 10)
	}
}

// BenchmarkAddress100k is a request that gives an HTTP path ("GET
// /v1/..."), answered by the address stage over 100,000 operations.
func BenchmarkAddress100k(b *testing.B) {
	ops := synthOps(100_000)
	r := New(ops, Options{})
	var qs []string
	for _, op := range ops[:1000] {
		if op.HTTP != nil {
			qs = append(qs, op.HTTP.Method+" "+op.HTTP.Path)
		}
	}
	if len(qs) == 0 {
		b.Skip("the generated operations have no HTTP paths")
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Search(qs[i%len(qs)], Filter{}, 10)
	}
}

func BenchmarkSuggest100k(b *testing.B) {
	ops := synthOps(100_000)
	r := New(ops, Options{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id := ops[i%len(ops)].ID
		r.Suggest(id[:len(id)-2]+"xx", Filter{}, 5)
	}
}

var sink *Router

// BenchmarkBuild100k reports the time and the retained heap of an index
// over 100,000 generated operations.
func BenchmarkBuild100k(b *testing.B) {
	ops := synthOps(100_000)
	b.ReportAllocs()
	for b.Loop() {
		sink = New(ops, Options{})
	}
	b.StopTimer()
	sink = nil
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sink = New(ops, Options{})
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-retained")
	sink = nil
}

// BenchmarkSearchDevSets measures latency on the real dev sets when
// ROUTER_DEVSETS is set.
func BenchmarkSearchDevSets(b *testing.B) {
	dir := os.Getenv("ROUTER_DEVSETS")
	if dir == "" {
		b.Skip("ROUTER_DEVSETS not set")
	}
	for _, set := range []string{"stabletoolbench", "seal_tools"} {
		ops, _, err := LoadTools(filepath.Join(dir, set, "tools.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		qs, err := LoadQueries(filepath.Join(dir, set, "queries.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		r := New(ops, Options{})
		b.Run(fmt.Sprintf("%s-%d", set, len(ops)), func(b *testing.B) {
			b.ReportAllocs()
			loopWithPercentiles(b, func(i int) { r.Search(qs[i%len(qs)].Query, Filter{}, 10) })
		})
	}
}

// BenchmarkBuild2500 reports the time of an index over 2,500 generated
// operations (a large single API).
func BenchmarkBuild2500(b *testing.B) {
	ops := synthOps(2500)
	b.ReportAllocs()
	for b.Loop() {
		sink = New(ops, Options{})
	}
	sink = nil
}

// BenchmarkLoadVectors measures decoding the embedded word vectors, which a
// process does once, at its first router.
func BenchmarkLoadVectors(b *testing.B) {
	for b.Loop() {
		if _, err := vecfile.Read(vectorsFile); err != nil {
			b.Fatal(err)
		}
	}
}
