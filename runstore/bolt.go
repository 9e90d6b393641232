// Package runstore holds the runs.Store implementations beyond the
// in-memory one of package runs. Bolt keeps runs in an embedded on-disk
// database (bbolt): finished results survive a restart, and runs the
// previous process left running are marked interrupted when it opens.
// Redis keeps them in a Redis or Valkey server that replicas share: any
// replica reads, awaits, lists and cancels any run of the same principal.
package runstore

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/intentsrv/intentsrv/runs"
)

// boltBucket holds one key per run: the SHA-256 of its principal (16
// bytes), then its id; the value is the record's JSON. The principal
// prefix makes Load a direct read and List a prefix scan of one caller's
// runs.
var boltBucket = []byte("runs")

// sweepEvery is how often Save also deletes expired records.
const sweepEvery = time.Minute

// ErrLocked is returned by OpenBolt when another process holds the file.
var ErrLocked = errors.New("the run store file is in use by another process")

// BoltOptions configure a Bolt store.
type BoltOptions struct {
	// MaxResultBytes and MaxRecords cap what is retained exactly as
	// runs.MemoryOptions does: past a cap, the oldest finished runs lose
	// their result (ResultDropped), then their record. Zero means the
	// runs package defaults.
	MaxResultBytes int
	MaxRecords     int
	// Retention is how long a run marked interrupted at open stays
	// readable. Zero means runs.DefaultRetention.
	Retention time.Duration
	// LockWait is how long OpenBolt waits for another process to release
	// the file. Zero means a second.
	LockWait time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Bolt is a runs.Store in a bbolt file. Each Save is one transaction,
// synced to disk before it returns. It is safe for concurrent use; one
// process at a time may open the file.
type Bolt struct {
	db   *bolt.DB
	opts BoltOptions

	mu          sync.Mutex // serialises Saves' bookkeeping
	resultBytes int
	records     int
	nextSweep   time.Time
	interrupted int
}

// OpenBolt opens (creating it, mode 0600) the run store at path. Every
// record it finds pending or running was left by a process that ended
// before its run did: it is marked runs.StateInterrupted, finished now,
// kept for the retention period. It waits up to LockWait for another
// process to release the file, then returns an error wrapping ErrLocked.
func OpenBolt(path string, o BoltOptions) (*Bolt, error) {
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = runs.DefaultMaxResultBytes
	}
	if o.MaxRecords <= 0 {
		o.MaxRecords = runs.DefaultMaxRecords
	}
	if o.Retention <= 0 {
		o.Retention = runs.DefaultRetention
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.LockWait <= 0 {
		o.LockWait = time.Second
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.LockWait})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("run store %s: %w; give each intentsrv process its own file", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("run store %s: %w", path, err)
	}
	b := &Bolt{db: db, opts: o}
	if err := db.Update(b.recover); err != nil {
		db.Close()
		return nil, fmt.Errorf("run store %s: %w", path, err)
	}
	return b, nil
}

// recover creates the bucket, drops expired and unreadable records, marks
// unfinished ones interrupted and counts what is retained.
func (b *Bolt) recover(tx *bolt.Tx) error {
	bk, err := tx.CreateBucketIfNotExists(boltBucket)
	if err != nil {
		return err
	}
	now := b.opts.Now()
	var dead [][]byte
	fixed := map[string][]byte{}
	err = bk.ForEach(func(k, v []byte) error {
		var rec runs.Record
		if json.Unmarshal(v, &rec) != nil || !now.Before(rec.ExpiresAt) {
			dead = append(dead, slices.Clone(k))
			return nil
		}
		if !rec.State.Finished() {
			rec.State = runs.StateInterrupted
			rec.FinishedAt = now
			rec.ExpiresAt = now.Add(b.opts.Retention)
			raw, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			fixed[string(k)] = raw
			b.interrupted++
		}
		b.records++
		b.resultBytes += len(rec.Result)
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range dead {
		if err := bk.Delete(k); err != nil {
			return err
		}
	}
	for k, v := range fixed {
		if err := bk.Put([]byte(k), v); err != nil {
			return err
		}
	}
	return nil
}

// Interrupted is how many runs OpenBolt marked interrupted.
func (b *Bolt) Interrupted() int { return b.interrupted }

// Close releases the file.
func (b *Bolt) Close() error { return b.db.Close() }

func principalPrefix(principal string) []byte {
	sum := sha256.Sum256([]byte(principal))
	return sum[:16]
}

func boltKey(principal, id string) []byte {
	return append(principalPrefix(principal), id...)
}

// Save implements runs.Store.
func (b *Bolt) Save(ctx context.Context, rec runs.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(rec.Result) > b.opts.MaxResultBytes {
		rec.Result, rec.ResultDropped = nil, true
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	now := b.opts.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltBucket)
		key := boltKey(rec.Principal, rec.ID)
		if old := bk.Get(key); old != nil {
			var prev runs.Record
			if json.Unmarshal(old, &prev) == nil {
				b.resultBytes -= len(prev.Result)
			}
			b.records--
		}
		if err := bk.Put(key, raw); err != nil {
			return err
		}
		b.records++
		b.resultBytes += len(rec.Result)
		if !now.Before(b.nextSweep) {
			b.nextSweep = now.Add(sweepEvery)
			if err := b.sweep(bk, now); err != nil {
				return err
			}
		}
		if b.resultBytes > b.opts.MaxResultBytes || b.records > b.opts.MaxRecords {
			return b.trim(bk)
		}
		return nil
	})
}

// sweep deletes expired records.
func (b *Bolt) sweep(bk *bolt.Bucket, now time.Time) error {
	c := bk.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var rec runs.Record
		if json.Unmarshal(v, &rec) == nil && now.Before(rec.ExpiresAt) {
			continue
		}
		b.records--
		b.resultBytes -= len(rec.Result)
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// trim applies the caps as runs.MemoryStore does: oldest finished first,
// results dropped until nine tenths of the byte cap remain, then records
// forgotten until nine tenths of the record cap remain.
func (b *Bolt) trim(bk *bolt.Bucket) error {
	type entry struct {
		key []byte
		rec runs.Record
	}
	var done []entry
	err := bk.ForEach(func(k, v []byte) error {
		var rec runs.Record
		if json.Unmarshal(v, &rec) == nil && rec.State.Finished() {
			done = append(done, entry{slices.Clone(k), rec})
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(done, func(a, b entry) int { return a.rec.FinishedAt.Compare(b.rec.FinishedAt) })
	if b.resultBytes > b.opts.MaxResultBytes {
		for i := range done {
			if b.resultBytes <= b.opts.MaxResultBytes*9/10 {
				break
			}
			e := &done[i]
			if e.rec.Result == nil {
				continue
			}
			b.resultBytes -= len(e.rec.Result)
			e.rec.Result, e.rec.ResultDropped = nil, true
			raw, err := json.Marshal(e.rec)
			if err != nil {
				return err
			}
			if err := bk.Put(e.key, raw); err != nil {
				return err
			}
		}
	}
	if b.records > b.opts.MaxRecords {
		for _, e := range done {
			if b.records <= b.opts.MaxRecords*9/10 {
				break
			}
			b.records--
			b.resultBytes -= len(e.rec.Result)
			if err := bk.Delete(e.key); err != nil {
				return err
			}
		}
	}
	return nil
}

// Load implements runs.Store.
func (b *Bolt) Load(ctx context.Context, principal, id string) (runs.Record, error) {
	if err := ctx.Err(); err != nil {
		return runs.Record{}, err
	}
	var rec runs.Record
	found := false
	err := b.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(boltBucket).Get(boltKey(principal, id))
		if v == nil {
			return nil
		}
		found = true
		return json.Unmarshal(v, &rec)
	})
	if err != nil {
		return runs.Record{}, fmt.Errorf("run store: record %s: %w", id, err)
	}
	if !found || rec.Principal != principal || !b.opts.Now().Before(rec.ExpiresAt) {
		return runs.Record{}, runs.ErrUnknownRun
	}
	return rec, nil
}

// List implements runs.Store.
func (b *Bolt) List(ctx context.Context, principal string, states []runs.State, limit int) ([]runs.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := b.opts.Now()
	prefix := principalPrefix(principal)
	var out []runs.Record
	err := b.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(boltBucket).Cursor()
		for k, v := c.Seek(prefix); k != nil && len(k) >= len(prefix) && string(k[:len(prefix)]) == string(prefix); k, v = c.Next() {
			var rec runs.Record
			if err := json.Unmarshal(v, &rec); err != nil {
				continue // unreadable: dropped at the next open
			}
			if rec.Principal == principal && now.Before(rec.ExpiresAt) && (len(states) == 0 || slices.Contains(states, rec.State)) {
				out = append(out, rec)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortNewestFirst(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func sortNewestFirst(recs []runs.Record) {
	slices.SortFunc(recs, func(a, b runs.Record) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
}
