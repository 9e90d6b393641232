package runs

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// Store keeps run records. Implementations must be safe for concurrent
// use. A Manager saves a run's record when the run is handed over
// (Run.Detach), when it reports progress (at most once a second) and when
// it finishes; it reads records for runs it is not executing itself.
//
// The in-memory store serves one process. A durable store (a file
// database) lets finished results survive a restart and must mark the
// running records it finds at start-up StateInterrupted; a shared store
// (Redis/Valkey) lets any replica read, await and list a run. Both
// implement this interface; neither needs more from the Manager.
type Store interface {
	// Save writes rec, replacing the record with the same ID.
	Save(ctx context.Context, rec Record) error
	// Load returns the record id owned by principal. It returns
	// ErrUnknownRun when there is none, when it expired, and when it is
	// another principal's.
	Load(ctx context.Context, principal, id string) (Record, error)
	// List returns principal's unexpired records, newest first, keeping
	// those whose state is in states (all when states is empty), at most
	// limit of them (all when limit <= 0).
	List(ctx context.Context, principal string, states []State, limit int) ([]Record, error)
}

// Defaults of MemoryOptions.
const (
	DefaultMaxResultBytes = 64 << 20
	DefaultMaxRecords     = 10000
)

// MemoryOptions configure a MemoryStore.
type MemoryOptions struct {
	// MaxResultBytes caps the bytes of results kept. Past it, the results
	// of the oldest finished runs are dropped (their records stay, marked
	// ResultDropped) until the total is under nine tenths of the cap.
	// Zero means DefaultMaxResultBytes.
	MaxResultBytes int
	// MaxRecords caps the records kept. Past it, the oldest finished
	// records are forgotten until nine tenths of the cap remain. Zero
	// means DefaultMaxRecords.
	MaxRecords int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// MemoryStore is a Store in this process's memory. Expired records are
// never returned, and are swept at most every minute.
type MemoryStore struct {
	opts MemoryOptions

	mu          sync.Mutex
	recs        map[string]*Record
	resultBytes int
	nextSweep   time.Time
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(o MemoryOptions) *MemoryStore {
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.MaxRecords <= 0 {
		o.MaxRecords = DefaultMaxRecords
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &MemoryStore{opts: o, recs: map[string]*Record{}}
}

// Save implements Store.
func (m *MemoryStore) Save(_ context.Context, rec Record) error {
	now := m.opts.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	if old, ok := m.recs[rec.ID]; ok {
		m.resultBytes -= len(old.Result)
	}
	if len(rec.Result) > m.opts.MaxResultBytes {
		rec.Result, rec.ResultDropped = nil, true
	}
	m.recs[rec.ID] = &rec
	m.resultBytes += len(rec.Result)
	if m.resultBytes > m.opts.MaxResultBytes {
		m.dropOldest(func(r *Record) bool {
			if m.resultBytes <= m.opts.MaxResultBytes*9/10 {
				return false
			}
			m.resultBytes -= len(r.Result)
			r.Result, r.ResultDropped = nil, true
			return true
		})
	}
	if len(m.recs) > m.opts.MaxRecords {
		m.dropOldest(func(r *Record) bool {
			if len(m.recs) <= m.opts.MaxRecords*9/10 {
				return false
			}
			m.resultBytes -= len(r.Result)
			delete(m.recs, r.ID)
			return true
		})
	}
	return nil
}

// dropOldest calls drop on finished records, oldest first, until it
// returns false. Caps are rarely reached and then cut well below, so the
// sort is paid seldom.
func (m *MemoryStore) dropOldest(drop func(*Record) bool) {
	var done []*Record
	for _, r := range m.recs {
		if r.State.Finished() {
			done = append(done, r)
		}
	}
	// Ties (a coarse clock) go by id, so which records go does not
	// depend on map order.
	slices.SortFunc(done, func(a, b *Record) int {
		return cmp.Or(a.FinishedAt.Compare(b.FinishedAt), strings.Compare(a.ID, b.ID))
	})
	for _, r := range done {
		if !drop(r) {
			return
		}
	}
}

// sweep forgets expired records, at most once a minute.
func (m *MemoryStore) sweep(now time.Time) {
	if now.Before(m.nextSweep) {
		return
	}
	m.nextSweep = now.Add(time.Minute)
	for id, r := range m.recs {
		if !now.Before(r.ExpiresAt) {
			m.resultBytes -= len(r.Result)
			delete(m.recs, id)
		}
	}
}

// Load implements Store.
func (m *MemoryStore) Load(_ context.Context, principal, id string) (Record, error) {
	now := m.opts.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.recs[id]
	if !ok || r.Principal != principal || !now.Before(r.ExpiresAt) {
		return Record{}, ErrUnknownRun
	}
	return *r, nil
}

// List implements Store.
func (m *MemoryStore) List(_ context.Context, principal string, states []State, limit int) ([]Record, error) {
	now := m.opts.Now()
	m.mu.Lock()
	var out []Record
	for _, r := range m.recs {
		if r.Principal == principal && now.Before(r.ExpiresAt) && (len(states) == 0 || slices.Contains(states, r.State)) {
			out = append(out, *r)
		}
	}
	m.mu.Unlock()
	sortNewestFirst(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func sortNewestFirst(recs []Record) {
	slices.SortFunc(recs, func(a, b Record) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
}

// CancelRelay is implemented by a Store that several processes share, so
// that a cancel asked of one process reaches the process executing the
// run. A Manager whose store implements it watches each run it hands over
// (OnCancel) and, asked to cancel a run it does not execute, relays the
// request (RequestCancel) instead of answering ErrElsewhere.
type CancelRelay interface {
	// RequestCancel asks whichever process executes principal's run id to
	// cancel it. It returns ErrUnknownRun as Load does.
	RequestCancel(ctx context.Context, principal, id string) error
	// OnCancel calls cancel (at most once, from any goroutine) when a
	// cancellation of run id is requested, until stop is called.
	OnCancel(id string, cancel func()) (stop func())
}
