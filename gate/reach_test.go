package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/internal/synth"
	"github.com/intentsrv/intentsrv/operations"
)

// Operations with the same summary share one find answer on their path:
// the gate searches each distinct summary once, and the shared answer is
// the one find gives that summary.
func TestPathFinderSearchesEachSummaryOnce(t *testing.T) {
	reg := operations.NewRegistry()
	handler := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }
	for i := range 12 {
		summary := []string{"List invoices", "Get one invoice by id", "Search invoices"}[i%3]
		op := operations.Operation{ID: fmt.Sprintf("svc%d.invoices.op%d", i/3, i%3), Summary: summary, Handler: handler}
		if err := reg.Register(op); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := intent.New(reg, intent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pf := newPathFinder(srv)
	_, bad, paths, err := reachability(t.Context(), srv, pf)
	if err != nil || len(bad) > 0 {
		t.Fatalf("reachability: %v %v", err, bad)
	}
	if len(paths) != 12 {
		t.Fatalf("%d paths measured, want 12", len(paths))
	}
	if len(pf.answers) != 3 {
		t.Errorf("%d summaries searched, want 3 (one per distinct summary)", len(pf.answers))
	}
	for _, op := range reg.All() {
		q, _ := json.Marshal(map[string]string{"intent": op.Summary})
		want := srv.Call(t.Context(), intent.ToolFind, q)
		// The answers differ only in their elapsed_ms, whose digits vary.
		if got, n := pf.findBytes(t.Context(), op), len(want.JSON()); got < n-3 || got > n+3 {
			t.Errorf("%s: shared find answer is %d bytes, find's is %d", op.ID, got, n)
		}
	}
}

// forEach hands every index to exactly one call, uses more than one
// goroutine when GOMAXPROCS allows, and stops at a cancelled context.
func TestForEachCoversEveryIndexOnce(t *testing.T) {
	const n = 1000
	var calls [n]atomic.Int32
	var running, most atomic.Int32
	if err := forEach(t.Context(), n, func(i int) {
		now := running.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		calls[i].Add(1)
		time.Sleep(50 * time.Microsecond)
		running.Add(-1)
	}); err != nil {
		t.Fatal(err)
	}
	for i := range calls {
		if c := calls[i].Load(); c != 1 {
			t.Fatalf("index %d called %d times, want 1", i, c)
		}
	}
	if procs := runtime.GOMAXPROCS(0); procs > 1 && most.Load() < 2 {
		t.Errorf("at most %d call at a time with GOMAXPROCS %d: the work ran serially", most.Load(), procs)
	}
	if most.Load() > int32(runtime.GOMAXPROCS(0)) {
		t.Errorf("%d calls at a time, more than GOMAXPROCS %d", most.Load(), runtime.GOMAXPROCS(0))
	}

	ctx, cancel := context.WithCancel(t.Context())
	var after atomic.Int32
	err := forEach(ctx, n, func(i int) {
		if i == 10 {
			cancel()
		}
		after.Add(1)
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled forEach returned %v, want context.Canceled", err)
	}
	if after.Load() == n {
		t.Errorf("cancelled forEach still made all %d calls", n)
	}
}

// The report does not depend on how many cores run the checks: one core
// and all cores give the same unreachable list, path sizes and worst path.
func TestReachabilityIsDeterministicAcrossCores(t *testing.T) {
	reg, err := synth.Registry(300, 1)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm})
	if err != nil {
		t.Fatal(err)
	}
	run := func(procs int) (string, []Unreachable, *PathReport) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		pf := newPathFinder(srv)
		_, bad, paths, err := reachability(t.Context(), srv, pf)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range paths {
			ids = append(ids, p.op.ID)
		}
		pr, err := pathReport(t.Context(), pf, 0, EncodingMax, paths)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(ids, ","), bad, pr
	}
	ids1, bad1, pr1 := run(1)
	ids4, bad4, pr4 := run(4)
	if ids1 != ids4 {
		t.Error("operations' paths come back in a different order on more cores")
	}
	if !slices.Equal(bad1, bad4) {
		t.Errorf("unreachable differs: %v vs %v", bad1, bad4)
	}
	if pr1 == nil || pr4 == nil || pr1.WorstID != pr4.WorstID || pr1.WorstTokens != pr4.WorstTokens || pr1.Sampled != pr4.Sampled {
		t.Errorf("path report differs: %+v vs %+v", pr1, pr4)
	}
}

// An unreachable operation fails the gate however many cores check the
// catalog: in a generated catalog of several hundred operations, a read
// whose schema does not compile (registered deferred, as a cache would)
// fails ask, and writes whose preview fails fail act, wherever they sit
// among the workers' shares; every other operation passes.
func TestUnreachableFoundOnEveryCore(t *testing.T) {
	ops := synth.Operations(600, 1)
	broken := map[string]string{} // id → the check that must fail
	for i := range ops {
		op := &ops[i]
		switch {
		case i%97 == 5 && op.Kind.IsWrite():
			// No required params, so the probe's {} gets to the preview.
			op.Input = json.RawMessage(`{"type":"object"}`)
			op.Preview = func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("preview backend down") }
			broken[op.ID] = CheckAct
		case i%131 == 7 && !op.Kind.IsWrite():
			op.Input = json.RawMessage(`{"type":"object","properties":{"x":{"type":"no such type"}}}`)
			broken[op.ID] = CheckAsk
		}
	}
	if len(broken) < 6 {
		t.Fatalf("only %d operations broken; the test needs several", len(broken))
	}
	reg := operations.NewRegistry()
	if err := reg.RegisterAll(ops, operations.RegisterOptions{DeferCompile: true}); err != nil {
		t.Fatal(err)
	}
	srv, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm})
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			r, err := Run(t.Context(), srv, Budgets{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed() {
				t.Fatal("the gate passed a catalog with unreachable operations")
			}
			expectUnreachable(t, r, broken)
			if n := len(r.Breaches); n != len(broken) {
				t.Errorf("%d breaches, want one per broken operation (%d): %v", n, len(broken), r.Breaches)
			}
		})
	}
}

// Probing operations grouped by input schema finds every operation whose
// schema does not compile when many operations share it, and one whose
// broken schema it shares with nobody, with the registry keeping as few
// compiled schemas as one, on one core or several; operations sharing a
// good schema with them, or sorting next to them, still pass.
func TestBrokenSharedSchemasFound(t *testing.T) {
	ops := synth.Operations(400, 1)
	sharedBad := json.RawMessage(`{"type":"object","properties":{"x":{"type":"no such type"}}}`)
	loneBad := json.RawMessage(`{"type":"object","properties":{"y":{"minimum":"zero"}}}`)
	broken := map[string]string{} // id → the check that must fail
	check := func(op *operations.Operation) string {
		if op.Kind.IsWrite() {
			return CheckAct
		}
		return CheckAsk
	}
	for i := range ops {
		op := &ops[i]
		switch {
		case i%23 == 4:
			op.Input = sharedBad
			broken[op.ID] = check(op)
		case i == 211:
			op.Input = loneBad
			broken[op.ID] = check(op)
		}
	}
	if len(broken) < 10 {
		t.Fatalf("only %d operations broken; the test needs several sharing a schema", len(broken))
	}
	for _, limit := range []int{1, 3} {
		reg := operations.NewRegistry()
		reg.LimitCompiledSchemas(limit)
		if err := reg.RegisterAll(ops, operations.RegisterOptions{DeferCompile: true}); err != nil {
			t.Fatal(err)
		}
		srv, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm})
		if err != nil {
			t.Fatal(err)
		}
		for _, procs := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("limit=%d/GOMAXPROCS=%d", limit, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				r, err := Run(t.Context(), srv, Budgets{})
				if err != nil {
					t.Fatal(err)
				}
				expectUnreachable(t, r, broken)
				if r.Operations != len(ops) {
					t.Errorf("%d operations checked, want %d", r.Operations, len(ops))
				}
			})
		}
	}
}

// The probe order puts operations with the same input schema next to each
// other, and is otherwise by id, whatever order they come in.
func TestProbeOrderGroupsSchemas(t *testing.T) {
	a, b := json.RawMessage(`{"type":"object","properties":{"a":{}}}`), json.RawMessage(`{"type":"object","properties":{"b":{}}}`)
	ops := []*operations.Operation{
		{ID: "s.z", Input: a}, {ID: "s.y", Input: b}, {ID: "s.x", Input: append(json.RawMessage(nil), a...)},
		{ID: "s.w", Input: b}, {ID: "s.v", Input: a},
	}
	var got []string
	for _, i := range probeOrder(ops) {
		got = append(got, ops[i].ID)
	}
	if want := []string{"s.v", "s.x", "s.z", "s.w", "s.y"}; !slices.Equal(got, want) {
		t.Errorf("probe order %v, want %v", got, want)
	}
}

// expectUnreachable checks that r reports exactly the operations of broken
// unreachable, each by the check broken names.
func expectUnreachable(t *testing.T, r *Report, broken map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, u := range r.Unreachable {
		got[u.ID] = u.Check
	}
	for id, check := range broken {
		if got[id] != check {
			t.Errorf("%s: unreachable by %q, want %q", id, got[id], check)
		}
	}
	for id, check := range got {
		if broken[id] == "" {
			t.Errorf("%s reported unreachable by %s, but nothing is wrong with it", id, check)
		}
	}
}
