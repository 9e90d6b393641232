// Package planstore holds implementations of intent.PlanStore and
// intent.IdempotencyStore, the records that make each plan_ref and each
// idempotency key execute at most once, beyond the in-memory one of package
// intent. Bolt keeps them in an embedded on-disk database (bbolt), so they
// survive restarts of one process; Redis keeps them in a Redis or Valkey
// server shared by replicas.
package planstore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/intentsrv/intentsrv/intent"
)

// bucket holds one key per consumed plan_ref; the value is its expiry in
// Unix seconds, big-endian. idemBucket holds one key per idempotency key
// digest; the value is the expiry (as in bucket) followed by the record's
// JSON.
var (
	bucket     = []byte("plan_refs")
	idemBucket = []byte("idempotency")
)

// sweepEvery is how often Consume also deletes expired records.
const sweepEvery = time.Minute

// Bolt is an intent.PlanStore in a bbolt file. Each Consume is one
// read-write transaction, committed (and synced to disk) before the plan
// runs, so a plan_ref consumed before a crash or a restart stays consumed.
// Records are deleted once expired: an expired plan_ref is refused anyway.
// It is safe for concurrent use; one process at a time may open the file.
type Bolt struct {
	db  *bolt.DB
	now func() time.Time

	mu        sync.Mutex
	lastSweep time.Time
}

// ErrLocked is returned by OpenBolt when another process holds the file.
var ErrLocked = errors.New("the plan store file is in use by another process")

// OpenBolt opens (creating it, mode 0600) the plan store at path. now is
// the clock; nil means time.Now. It waits up to a second for another
// process to release the file, then returns an error wrapping ErrLocked.
func OpenBolt(path string, now func() time.Time) (*Bolt, error) {
	if now == nil {
		now = time.Now
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("plan store %s: %w; give each intentsrv process its own file", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("plan store %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucket, idemBucket} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("plan store %s: %w", path, err)
	}
	return &Bolt{db: db, now: now}, nil
}

// Close releases the file.
func (b *Bolt) Close() error { return b.db.Close() }

// Consume implements intent.PlanStore: it records ref until expires, or
// returns intent.ErrPlanUsed when ref is recorded already.
func (b *Bolt) Consume(ctx context.Context, ref string, expires time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := b.now()
	sweep := b.dueForSweep(now)
	return b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucket)
		if v := bk.Get([]byte(ref)); len(v) == 8 && now.Unix() < int64(binary.BigEndian.Uint64(v)) {
			return intent.ErrPlanUsed
		}
		if sweep {
			if err := sweepAll(tx, now); err != nil {
				return err
			}
		}
		var exp [8]byte
		binary.BigEndian.PutUint64(exp[:], uint64(expires.Unix()))
		return bk.Put([]byte(ref), exp[:])
	})
}

func (b *Bolt) dueForSweep(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Sub(b.lastSweep) < sweepEvery {
		return false
	}
	b.lastSweep = now
	return true
}

// sweepAll removes the expired records of every bucket.
func sweepAll(tx *bolt.Tx, now time.Time) error {
	for _, name := range [][]byte{bucket, idemBucket} {
		if err := deleteExpired(tx.Bucket(name), now); err != nil {
			return err
		}
	}
	return nil
}

// deleteExpired removes the records whose expiry has passed.
func deleteExpired(bk *bolt.Bucket, now time.Time) error {
	var dead [][]byte
	err := bk.ForEach(func(k, v []byte) error {
		if len(v) < 8 || now.Unix() >= int64(binary.BigEndian.Uint64(v)) {
			dead = append(dead, append([]byte(nil), k...))
		}
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
	return nil
}

// ClaimIdempotency implements intent.IdempotencyStore.
func (b *Bolt) ClaimIdempotency(ctx context.Context, key string, rec intent.IdempotencyRecord, lease time.Time) (existing intent.IdempotencyRecord, claimed bool, err error) {
	if err := ctx.Err(); err != nil {
		return existing, false, err
	}
	now := b.now()
	sweep := b.dueForSweep(now)
	err = b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(idemBucket)
		if v := bk.Get([]byte(key)); len(v) > 8 && now.Unix() < int64(binary.BigEndian.Uint64(v)) {
			if err := json.Unmarshal(v[8:], &existing); err != nil {
				return fmt.Errorf("idempotency record %s: %w", key, err)
			}
			return nil
		}
		if sweep {
			if err := sweepAll(tx, now); err != nil {
				return err
			}
		}
		claimed = true
		return putRecord(bk, key, rec, lease)
	})
	return existing, claimed, err
}

// CompleteIdempotency implements intent.IdempotencyStore.
func (b *Bolt) CompleteIdempotency(_ context.Context, key string, rec intent.IdempotencyRecord, expires time.Time) error {
	return b.db.Update(func(tx *bolt.Tx) error {
		return putRecord(tx.Bucket(idemBucket), key, rec, expires)
	})
}

// ReleaseIdempotency implements intent.IdempotencyStore.
func (b *Bolt) ReleaseIdempotency(_ context.Context, key string, rec intent.IdempotencyRecord) error {
	return b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(idemBucket)
		v := bk.Get([]byte(key))
		var held intent.IdempotencyRecord
		if len(v) <= 8 || json.Unmarshal(v[8:], &held) != nil || held.Done || held.Call != rec.Call {
			return nil
		}
		return bk.Delete([]byte(key))
	})
}

func putRecord(bk *bolt.Bucket, key string, rec intent.IdempotencyRecord, expires time.Time) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	v := make([]byte, 8, 8+len(raw))
	binary.BigEndian.PutUint64(v, uint64(expires.Unix()))
	return bk.Put([]byte(key), append(v, raw...))
}

// Len is the number of records, expired ones included until swept.
func (b *Bolt) Len() (int, error) {
	n := 0
	err := b.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucket).Stats().KeyN
		return nil
	})
	return n, err
}
