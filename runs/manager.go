package runs

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
)

// Outcome is what a run's work returns: a value to hand back (encoded as
// JSON when the run is kept) and whether it is a failure.
type Outcome struct {
	Failed bool
	Value  any
}

// Work is the body of a run. It must honour ctx: cancellation (Cancel,
// Close) is delivered through it.
type Work func(ctx context.Context) Outcome

// Defaults of Options.
const (
	DefaultRetention  = time.Hour
	DefaultCancelWait = 2 * time.Second
	// progressSaveEvery bounds how often progress reaches the store; the
	// process that executes a run always has the latest in memory.
	progressSaveEvery = time.Second
	// maxMessageRunes caps a progress message.
	maxMessageRunes = 200
	// pollEvery is how often Await rereads a run that another process
	// executes.
	pollEvery = 250 * time.Millisecond
)

// ErrElsewhere is returned by Cancel for a run that is not finished and
// not executing in this process: another replica sharing the store runs
// it, or the process that ran it ended before a durable store marked it
// interrupted. This Manager cannot reach its context.
var ErrElsewhere = errors.New("the run is not executing in this process")

// Options configure a Manager. The zero value is usable.
type Options struct {
	// Store keeps records of handed-over runs; nil means a MemoryStore
	// with default caps and the Manager's clock.
	Store Store
	// Retention is how long a finished run stays readable. Zero means
	// DefaultRetention.
	Retention time.Duration
	// MaxActive caps the runs whose work executes at once; others wait in
	// StatePending, and may be cancelled before their work starts. Zero
	// means no cap.
	MaxActive int
	// MaxRuns caps the runs of this process that are not finished, pending
	// or executing, handed over or still awaited by their call: TryStart
	// refuses one more with a *FullError. Zero means no cap.
	MaxRuns int
	// CancelWait is how long Cancel waits for a run's work to return, so
	// that its answer can say the run stopped. Zero means
	// DefaultCancelWait.
	CancelWait time.Duration
	// Now is the clock; nil means time.Now. It stamps and expires
	// records; waiting always uses real time.
	Now func() time.Time
	// Logger receives store failures; nil discards them.
	Logger *slog.Logger
}

// Manager starts runs and answers for the ones handed over to it. It is
// safe for concurrent use.
type Manager struct {
	opts  Options
	store Store
	slots chan struct{} // nil when MaxActive is 0

	mu      sync.Mutex
	live    map[string]*Run // handed-over runs still executing in this process
	running int             // runs not finished, handed over or not (MaxRuns)
	closed  bool            // Close was called: runs handed over later end at once
}

// FullError is TryStart's refusal: the process already has Options.MaxRuns
// runs that are not finished.
type FullError struct {
	Max int
}

func (e *FullError) Error() string {
	return fmt.Sprintf("%d runs are already under way in this process, its most", e.Max)
}

// NewManager returns a Manager.
func NewManager(o Options) *Manager {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.CancelWait <= 0 {
		o.CancelWait = DefaultCancelWait
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Store == nil {
		o.Store = NewMemoryStore(MemoryOptions{Now: o.Now})
	}
	m := &Manager{opts: o, store: o.Store, live: map[string]*Run{}}
	if o.MaxActive > 0 {
		m.slots = make(chan struct{}, o.MaxActive)
	}
	return m
}

// Retention returns how long finished runs stay readable.
func (m *Manager) Retention() time.Duration { return m.opts.Retention }

// Run is one started run. Its starter waits on it (Wait) and, when the
// outcome is not ready in time, hands it over (Detach); from then on its
// principal reaches it by id through the Manager.
type Run struct {
	m         *Manager
	principal string
	operation string
	started   time.Time
	cancel    context.CancelFunc
	done      chan struct{} // closed once the run is final

	mu              sync.Mutex
	id              string // set by Detach: a run answered in time needs none
	state           State
	progress        *Progress
	cancelRequested bool
	detached        bool
	outcome         Outcome
	result          json.RawMessage // the outcome encoded, once final and detached
	finishedAt      time.Time
	lastSave        time.Time
	listeners       map[int]func(Progress)
	nextListener    int
	stopRelay       func() // ends the CancelRelay watch, when the store relays
	interrupted     bool   // cut by Manager.Close
	abandoned       bool   // saved interrupted by Close, which gave up waiting
}

type runKey struct{}

// Start begins work as a run of operation for principal. The work's
// context keeps parent's values but not its cancellation or deadline: the
// run belongs to the server, not to the request that started it. Only
// Cancel (or Close) cancels it.
//
// Start never refuses; TryStart honours Options.MaxRuns.
func (m *Manager) Start(parent context.Context, principal, operation string, work Work) *Run {
	m.mu.Lock()
	m.running++
	m.mu.Unlock()
	return m.start(parent, principal, operation, work)
}

// TryStart is Start, unless the process already has Options.MaxRuns runs
// that are not finished: then nothing starts and it returns a *FullError.
func (m *Manager) TryStart(parent context.Context, principal, operation string, work Work) (*Run, error) {
	m.mu.Lock()
	if m.opts.MaxRuns > 0 && m.running >= m.opts.MaxRuns {
		m.mu.Unlock()
		return nil, &FullError{Max: m.opts.MaxRuns}
	}
	m.running++
	m.mu.Unlock()
	return m.start(parent, principal, operation, work), nil
}

func (m *Manager) start(parent context.Context, principal, operation string, work Work) *Run {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	r := &Run{
		m: m, principal: principal, operation: operation,
		started: m.opts.Now(), cancel: cancel, done: make(chan struct{}),
		state: StateRunning,
	}
	if m.slots != nil {
		r.state = StatePending
	}
	go r.execute(context.WithValue(ctx, runKey{}, r), work)
	return r
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "run_" + base64.RawURLEncoding.EncodeToString(b)
}

func (r *Run) execute(ctx context.Context, work Work) {
	defer r.cancel()
	if r.m.slots != nil {
		select {
		case r.m.slots <- struct{}{}:
			defer func() { <-r.m.slots }()
		case <-ctx.Done():
			r.finish(Outcome{Failed: true}, false)
			return
		}
	}
	r.mu.Lock()
	if r.cancelRequested {
		r.mu.Unlock()
		r.finish(Outcome{Failed: true}, false)
		return
	}
	r.state = StateRunning
	r.mu.Unlock()
	out := Outcome{Failed: true}
	func() {
		defer func() {
			if p := recover(); p != nil {
				r.m.opts.Logger.Error("run work panicked", "operation", r.operation, "panic", fmt.Sprint(p))
			}
		}()
		out = work(ctx)
	}()
	r.finish(out, true)
}

// finish makes the run final. A run whose cancellation was requested ends
// cancelled unless its work succeeded anyway; one that never ran is
// cancelled; one cut by Close ends interrupted unless it succeeded.
func (r *Run) finish(out Outcome, ran bool) {
	now := r.m.opts.Now()
	r.m.mu.Lock()
	r.m.running--
	r.m.mu.Unlock()
	r.mu.Lock()
	switch {
	case r.interrupted && (!ran || out.Failed):
		r.state = StateInterrupted
	case !ran || (r.cancelRequested && out.Failed):
		r.state = StateCancelled
	case out.Failed:
		r.state = StateFailed
	default:
		r.state = StateSucceeded
	}
	r.outcome = out
	r.finishedAt = now
	detached := r.detached
	if detached {
		if ran && out.Value != nil {
			b, err := json.Marshal(out.Value)
			if err != nil {
				r.m.opts.Logger.Error("run outcome does not encode", "operation", r.operation, "err", err)
				r.state = StateFailed
			} else {
				r.result = b
			}
		}
		if !r.abandoned {
			r.saveLocked()
		}
		if r.stopRelay != nil {
			r.stopRelay()
		}
		// Out of the live set before done closes: whoever sees the run
		// final reads it from the store from then on, where it expires.
		r.m.mu.Lock()
		delete(r.m.live, r.id)
		r.m.mu.Unlock()
	}
	r.mu.Unlock()
	close(r.done)
}

// ID returns the run id, empty until the run is handed over.
func (r *Run) ID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.id
}

// Wait blocks until the run is final, d has passed or ctx is done, and
// reports the outcome when the run is final. While it waits, notify (when
// not nil) receives every progress report, starting with the last one, and
// none after Wait returns. notify runs in the reporting goroutine with the
// run locked: it must not block or call back into the run.
func (r *Run) Wait(ctx context.Context, d time.Duration, notify func(Progress)) (Outcome, bool) {
	select {
	case <-r.done:
		return r.outcome, true
	default:
	}
	if notify != nil {
		defer r.unlisten(r.listen(notify))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.done:
		return r.outcome, true
	case <-t.C:
	case <-ctx.Done():
	}
	return Outcome{}, false
}

// Detach hands the run over to the Manager: it is saved and its
// principal can reach it by id until the retention period after it
// finishes. When the run is already final, nothing is kept and Detach
// returns its outcome with finished true instead. Detaching twice returns
// the same run.
func (r *Run) Detach() (rec Record, out Outcome, finished bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.detached {
		return r.recordLocked(), r.outcome, r.state.Finished()
	}
	if r.state.Finished() {
		return Record{}, r.outcome, true
	}
	r.detached = true
	r.id = newID()
	r.m.mu.Lock()
	r.m.live[r.id] = r
	closed := r.m.closed
	r.m.mu.Unlock()
	if relay, ok := r.m.store.(CancelRelay); ok {
		r.stopRelay = relay.OnCancel(r.id, r.requestCancel)
	}
	if closed {
		// Handed over after Close: the server is going away, so the run
		// ends now, interrupted, rather than outlive the store.
		r.interrupted = true
		r.cancel()
	}
	return r.saveLocked(), Outcome{}, false
}

// listen adds fn to the run's listeners and hands it the last progress.
// Listeners are called with the run locked, so none is called once
// unlisten returned: a waiter that answered sends no more progress.
func (r *Run) listen(fn func(Progress)) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.listeners == nil {
		r.listeners = map[int]func(Progress){}
	}
	r.nextListener++
	r.listeners[r.nextListener] = fn
	if r.progress != nil {
		fn(*r.progress)
	}
	return r.nextListener
}

func (r *Run) unlisten(id int) {
	r.mu.Lock()
	delete(r.listeners, id)
	r.mu.Unlock()
}

// Record returns a snapshot of the run.
func (r *Run) Record() Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recordLocked()
}

func (r *Run) recordLocked() Record {
	rec := Record{
		ID: r.id, Principal: r.principal, Operation: r.operation, State: r.state,
		StartedAt: r.started, FinishedAt: r.finishedAt, CancelRequested: r.cancelRequested,
		Result: r.result,
	}
	if r.progress != nil {
		p := *r.progress
		rec.Progress = &p
	}
	if r.state.Finished() {
		rec.ExpiresAt = r.finishedAt.Add(r.m.opts.Retention)
	} else {
		rec.ExpiresAt = r.m.opts.Now().Add(r.m.opts.Retention)
	}
	return rec
}

// saveLocked writes the run's record to the store. A store failure is
// logged: this process still answers for the run from memory.
func (r *Run) saveLocked() Record {
	rec := r.recordLocked()
	r.lastSave = r.m.opts.Now()
	if err := r.m.store.Save(context.Background(), rec); err != nil {
		r.m.opts.Logger.Error("run store failed", "run", r.id, "state", rec.State, "err", err)
	}
	return rec
}

// Report records progress on the run ctx belongs to, forwards it to every
// caller waiting on the run, and reports whether ctx belongs to a run.
// done counts work done out of total (zero when unknown); message says what
// is happening in a few words (longer messages are cut to 200
// characters: they travel in every handle). Outside a run (a call that
// blocks until it ends, a handler called directly) it does nothing and
// returns false.
func Report(ctx context.Context, done, total float64, message string) bool {
	return ReportProgress(ctx, Progress{Done: done, Total: total, Message: message})
}

// ReportProgress is Report with the progress's unit (Progress.Unit) stated.
func ReportProgress(ctx context.Context, p Progress) bool {
	r, ok := ctx.Value(runKey{}).(*Run)
	if !ok {
		return false
	}
	if n := maxMessageRunes; utf8.RuneCountInString(p.Message) > n {
		p.Message = string([]rune(p.Message)[:n-1]) + "…"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress = &p
	for _, fn := range r.listeners {
		fn(p)
	}
	if r.detached && !r.state.Finished() && r.m.opts.Now().Sub(r.lastSave) >= progressSaveEvery {
		r.saveLocked()
	}
	return true
}

// Reporting reports whether ctx belongs to a run, so that Report records
// what is reported under it. A source that must ask for progress (an
// upstream MCP server, which sends it only when the call carries a progress
// token) asks only then.
func Reporting(ctx context.Context) bool {
	_, ok := ctx.Value(runKey{}).(*Run)
	return ok
}

// liveRun returns the handed-over run id when this process executes it
// and principal owns it.
func (m *Manager) liveRun(principal, id string) *Run {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.live[id]; ok && r.principal == principal {
		return r
	}
	return nil
}

// Get returns principal's run id: ErrUnknownRun when there is none, it
// expired, or it is another principal's.
func (m *Manager) Get(ctx context.Context, principal, id string) (Record, error) {
	if r := m.liveRun(principal, id); r != nil {
		return r.Record(), nil
	}
	return m.store.Load(ctx, principal, id)
}

// Await waits up to d for principal's run id to finish and returns its
// record, final or not. While it waits, notify (when not nil) receives the
// run's progress reports, as for Run.Wait. A run executed by another process sharing the
// store is reread from the store every 250 ms.
func (m *Manager) Await(ctx context.Context, principal, id string, d time.Duration, notify func(Progress)) (Record, error) {
	if r := m.liveRun(principal, id); r != nil {
		r.Wait(ctx, d, notify)
		return r.Record(), nil
	}
	rec, err := m.store.Load(ctx, principal, id)
	if err != nil || rec.State.Finished() {
		return rec, err
	}
	deadline := time.Now().Add(d)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return rec, nil
		}
		t.Reset(min(pollEvery, left))
		select {
		case <-ctx.Done():
			return rec, nil
		case <-t.C:
		}
		if r := m.liveRun(principal, id); r != nil {
			// Handed over to this process meanwhile (cannot happen with
			// one store per process, but costs nothing to honour).
			r.Wait(ctx, time.Until(deadline), notify)
			return r.Record(), nil
		}
		next, err := m.store.Load(ctx, principal, id)
		if err != nil {
			return rec, err
		}
		rec = next
		if rec.State.Finished() {
			return rec, nil
		}
	}
}

// Cancel cancels principal's run id: a pending run ends without its work
// starting; a running one has its work's context cancelled, and Cancel
// waits up to Options.CancelWait for the work to return. A finished run is
// left as it is. A run another process executes is cancelled through the
// store when it is a CancelRelay (waiting as long for the other process to
// save the outcome); otherwise Cancel returns ErrElsewhere. It returns the
// run's record after the attempt, or ErrUnknownRun.
func (m *Manager) Cancel(ctx context.Context, principal, id string) (Record, error) {
	r := m.liveRun(principal, id)
	if r == nil {
		rec, err := m.store.Load(ctx, principal, id)
		if err != nil || rec.State.Finished() {
			return rec, err
		}
		relay, ok := m.store.(CancelRelay)
		if !ok {
			return rec, ErrElsewhere
		}
		if err := relay.RequestCancel(ctx, principal, id); err != nil {
			return rec, err
		}
		// The executing process cancels and saves the final record: wait
		// for it as for a run of this process.
		return m.Await(ctx, principal, id, m.opts.CancelWait, nil)
	}
	r.requestCancel()
	t := time.NewTimer(m.opts.CancelWait)
	defer t.Stop()
	select {
	case <-r.done:
	case <-t.C:
	case <-ctx.Done():
	}
	return r.Record(), nil
}

// requestCancel marks the run cancel-requested (unless final) and cancels
// its work's context.
func (r *Run) requestCancel() {
	r.mu.Lock()
	if !r.state.Finished() {
		r.cancelRequested = true
	}
	r.mu.Unlock()
	r.cancel()
}

// List returns principal's runs, newest first, keeping those whose state
// is in states (all when empty), at most limit (all when limit <= 0).
func (m *Manager) List(ctx context.Context, principal string, states []State, limit int) ([]Record, error) {
	stored, err := m.store.List(ctx, principal, nil, 0)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]Record, len(stored))
	for _, rec := range stored {
		byID[rec.ID] = rec
	}
	m.mu.Lock()
	var live []*Run
	for _, r := range m.live {
		if r.principal == principal {
			live = append(live, r)
		}
	}
	m.mu.Unlock()
	for _, r := range live {
		byID[r.id] = r.Record() // fresher than the store's copy
	}
	out := make([]Record, 0, len(byID))
	for _, rec := range byID {
		if len(states) == 0 || slices.Contains(states, rec.State) {
			out = append(out, rec)
		}
	}
	sortNewestFirst(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Close ends the handed-over runs still executing in this process, as a
// server does when it shuts down, and returns once each has its final
// record saved, or when ctx is done. Each run's work has its context
// cancelled; a run whose work then fails (as cancelled work does) ends
// StateInterrupted: the server cut it, and what it did is unknown. One
// whose work succeeds anyway keeps its result. A run whose work has not
// returned when ctx is done is saved interrupted as it stands, and Close
// counts it in stuck; its work is left to end with the process. A run
// handed over after Close ends at once, interrupted. Close the store only
// after Close returned.
func (m *Manager) Close(ctx context.Context) (ended, stuck int) {
	m.mu.Lock()
	m.closed = true
	live := make([]*Run, 0, len(m.live))
	for _, r := range m.live {
		live = append(live, r)
	}
	m.mu.Unlock()
	for _, r := range live {
		r.mu.Lock()
		if !r.state.Finished() {
			r.interrupted = true
		}
		r.mu.Unlock()
		r.cancel()
	}
	for _, r := range live {
		select {
		case <-r.done:
			ended++
			continue
		case <-ctx.Done():
		}
		r.mu.Lock()
		if r.state.Finished() {
			ended++
		} else {
			r.state, r.finishedAt, r.abandoned = StateInterrupted, r.m.opts.Now(), true
			r.saveLocked()
			stuck++
		}
		r.mu.Unlock()
	}
	return ended, stuck
}
