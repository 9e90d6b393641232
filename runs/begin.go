package runs

import (
	"context"
	"time"
)

// Begin starts a run whose work the caller executes on a goroutine of its
// choosing, instead of the one Start launches: a caller that runs most
// work on goroutines it keeps warm saves a goroutine and a handoff per
// call. It returns the run, the context the work must run under (carrying
// the run, so Report and cancellation reach the work, as under Start), and
// ok true; the caller must then call End exactly once. The context also
// ends timeout after Begin, when timeout is positive: one context serves
// as the run's and as the work's deadline. When MaxActive runs execute
// already, or Options.MaxRuns are not finished, Begin returns ok false and
// starts nothing: the caller uses TryStart, whose run waits in
// StatePending for a slot, or which refuses past MaxRuns. A run from Begin
// counts towards MaxRuns until End.
func (m *Manager) Begin(parent context.Context, principal, operation string, timeout time.Duration) (r *Run, ctx context.Context, ok bool) {
	if m.slots != nil {
		select {
		case m.slots <- struct{}{}:
		default:
			return nil, nil, false
		}
	}
	m.mu.Lock()
	if m.opts.MaxRuns > 0 && m.running >= m.opts.MaxRuns {
		m.mu.Unlock()
		if m.slots != nil {
			<-m.slots
		}
		return nil, nil, false
	}
	m.running++
	m.mu.Unlock()
	ctx, cancel := context.WithoutCancel(parent), context.CancelFunc(nil)
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	r = &Run{
		m: m, principal: principal, operation: operation,
		started: m.opts.Now(), cancel: cancel, done: make(chan struct{}),
		state: StateRunning,
	}
	return r, context.WithValue(ctx, runKey{}, r), true
}

// End makes a run started with Begin final with out, as Start's work
// returning out would: a run whose cancellation was requested ends
// cancelled unless out succeeded. It releases the run's slot and cancels
// its context. End must be called once per Begin, and never for a run
// from Start.
func (r *Run) End(out Outcome) {
	defer r.cancel()
	if r.m.slots != nil {
		defer func() { <-r.m.slots }()
	}
	r.finish(out, true)
}
