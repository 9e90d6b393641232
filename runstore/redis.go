package runstore

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/intentsrv/intentsrv/internal/redisconn"
	"github.com/intentsrv/intentsrv/runs"
)

// DefaultRedisPrefix namespaces every key the Redis run store writes.
const DefaultRedisPrefix = "intentsrv:"

// DefaultLease is how long a replica's claim on a run it executes lasts
// without renewal (RedisOptions.Lease).
const DefaultLease = 15 * time.Second

// RedisOptions configure a Redis store.
type RedisOptions struct {
	// MaxResultBytes caps one retained result; a larger one is dropped
	// (ResultDropped). Zero means runs.DefaultMaxResultBytes. The total is
	// bounded by retention (every key expires) and by the server's own
	// maxmemory.
	MaxResultBytes int
	// Now is the clock; nil means time.Now. Keys live for the time left
	// until the record's ExpiresAt by this clock.
	Now func() time.Time
	// Logger receives pub/sub and heartbeat failures; nil discards them.
	Logger *slog.Logger
	// Lease is how long the claim of the replica executing a run lasts
	// unless renewed; the replica renews the claims of its runs every
	// third of it. A run whose claim lapsed is marked interrupted by the
	// next replica that reads it. Zero means DefaultLease.
	Lease time.Duration
	// Retention is how long a run marked interrupted so stays readable.
	// Zero means runs.DefaultRetention.
	Retention time.Duration
}

// Redis is a runs.Store and runs.CancelRelay in a Redis or Valkey server
// that replicas share. A record is one key holding its JSON, expiring
// with the record; each principal has a sorted set of its run ids (by
// start time) for List, expiring with its last record. A cancel asked of
// any replica is published on one channel; the replica executing the run
// receives it and cancels the run's context.
//
// A replica that executes a run holds a lease on it, a key that expires
// after RedisOptions.Lease unless the replica renews it (every third of
// the lease, for every run it executes). A replica that dies stops
// renewing: once the lease lapses, the next replica that reads the run
// (Load, List, and so Await's polls) marks it interrupted, finished then,
// as a durable store marks the runs of a process that stopped. A replica
// that was only stalled past its lease renews it when it resumes, and its
// run's outcome replaces the mark when the run ends.
type Redis struct {
	client *redis.Client
	prefix string
	where  string
	opts   RedisOptions
	pubsub *redis.PubSub

	mu       sync.Mutex
	watchers map[string]func() // the runs this process executes, by id
	done     chan struct{}
	closing  atomic.Bool
	stopBeat chan struct{} // closed by Close: the heartbeat ends
	beatDone chan struct{}
}

// saveScript writes the record KEYS[1] = ARGV[1] for ARGV[2] ms, adds
// ARGV[4] to the principal's index KEYS[2] with score ARGV[3], and keeps
// the index alive at least as long as the record. It sets the run's lease
// KEYS[3] for ARGV[5] ms, or deletes it when ARGV[5] is 0 (a final record).
var saveScript = redis.NewScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
local ttl = redis.call('PTTL', KEYS[2])
if ttl < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
if tonumber(ARGV[5]) > 0 then redis.call('SET', KEYS[3], '1', 'PX', ARGV[5]) else redis.call('DEL', KEYS[3]) end
return 1
`)

// interruptScript replaces the record KEYS[1] by ARGV[2] for ARGV[3] ms
// when its lease KEYS[2] has lapsed and the record is still ARGV[1], the
// unfinished one read; it keeps the principal's index KEYS[3] alive as
// long. It returns 1 when it replaced the record.
var interruptScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
local ttl = redis.call('PTTL', KEYS[3])
if ttl < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[3], ARGV[3]) end
return 1
`)

// OpenRedis connects to the server named by rawURL,
// redis://[USER:PASSWORD@]HOST:PORT[/DB] or rediss:// for TLS, with an
// optional query parameter prefix (default DefaultRedisPrefix). It checks
// that the server answers and subscribes to the cancel channel before
// returning.
func OpenRedis(ctx context.Context, rawURL string, o RedisOptions) (*Redis, error) {
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = runs.DefaultMaxResultBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Retention <= 0 {
		o.Retention = runs.DefaultRetention
	}
	conn, err := redisconn.Open(ctx, rawURL, "run store", DefaultRedisPrefix)
	if err != nil {
		return nil, err
	}
	r := &Redis{client: conn.Client, prefix: conn.Prefix, where: conn.Where,
		opts: o, watchers: map[string]func(){}, done: make(chan struct{}),
		stopBeat: make(chan struct{}), beatDone: make(chan struct{})}
	r.pubsub = r.client.Subscribe(ctx, r.cancelChannel())
	if _, err := r.pubsub.Receive(ctx); err != nil { // the subscription's confirmation
		r.pubsub.Close()
		r.client.Close()
		return nil, r.unavailable(err)
	}
	go r.relayCancels()
	go r.heartbeat()
	return r, nil
}

// String names the server (address and database, no credentials).
func (r *Redis) String() string { return "redis " + r.where }

// Close ends the subscription and the heartbeat (the leases of runs still
// executing here lapse after RedisOptions.Lease) and closes the
// connections.
func (r *Redis) Close() error {
	r.closing.Store(true)
	close(r.stopBeat)
	<-r.beatDone
	err := r.pubsub.Close()
	<-r.done
	return errors.Join(err, r.client.Close())
}

func (r *Redis) unavailable(err error) error {
	return fmt.Errorf("redis run store at %s is unavailable: %w", r.where, err)
}

func (r *Redis) recordKey(id string) string { return r.prefix + "run:" + id }
func (r *Redis) indexKey(principal string) string {
	return r.prefix + "runs:" + hex.EncodeToString(principalPrefix(principal))
}
func (r *Redis) cancelChannel() string     { return r.prefix + "run-cancel" }
func (r *Redis) leaseKey(id string) string { return r.prefix + "run-lease:" + id }

// ttl is the time left until t by the store's clock, at least a
// millisecond so a record is never written already expired.
func (r *Redis) ttl(t time.Time) time.Duration {
	return max(t.Sub(r.opts.Now()), time.Millisecond)
}

// Save implements runs.Store.
func (r *Redis) Save(ctx context.Context, rec runs.Record) error {
	if len(rec.Result) > r.opts.MaxResultBytes {
		rec.Result, rec.ResultDropped = nil, true
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	ttl := r.ttl(rec.ExpiresAt).Milliseconds()
	var lease int64
	if !rec.State.Finished() {
		lease = r.opts.Lease.Milliseconds()
	}
	err = saveScript.Run(ctx, r.client, []string{r.recordKey(rec.ID), r.indexKey(rec.Principal), r.leaseKey(rec.ID)},
		raw, max(ttl, 1), rec.StartedAt.UnixMilli(), rec.ID, lease).Err()
	if err != nil {
		return r.unavailable(err)
	}
	return nil
}

// decode reads a stored record, and reports whether principal may see it now.
func (r *Redis) decode(raw []byte, principal string) (runs.Record, bool, error) {
	var rec runs.Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return rec, false, fmt.Errorf("run record in %s: %w", r.where, err)
	}
	return rec, rec.Principal == principal && r.opts.Now().Before(rec.ExpiresAt), nil
}

// Load implements runs.Store.
func (r *Redis) Load(ctx context.Context, principal, id string) (runs.Record, error) {
	raw, err := r.client.Get(ctx, r.recordKey(id)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return runs.Record{}, runs.ErrUnknownRun
	case err != nil:
		return runs.Record{}, r.unavailable(err)
	}
	rec, visible, err := r.decode(raw, principal)
	if err != nil {
		return runs.Record{}, err
	}
	if !visible {
		return runs.Record{}, runs.ErrUnknownRun
	}
	return r.checkLease(ctx, raw, rec)
}

// checkLease returns rec, read as raw, or, when rec is unfinished and the
// lease of the replica executing it has lapsed, rec marked interrupted
// (and saved so). When the record changed meanwhile, it is read again.
func (r *Redis) checkLease(ctx context.Context, raw []byte, rec runs.Record) (runs.Record, error) {
	if rec.State.Finished() {
		return rec, nil
	}
	held, err := r.client.Exists(ctx, r.leaseKey(rec.ID)).Result()
	if err != nil {
		return runs.Record{}, r.unavailable(err)
	}
	if held == 1 {
		return rec, nil
	}
	cut := rec
	now := r.opts.Now()
	cut.State, cut.FinishedAt, cut.ExpiresAt = runs.StateInterrupted, now, now.Add(r.opts.Retention)
	next, err := json.Marshal(cut)
	if err != nil {
		return runs.Record{}, err
	}
	done, err := interruptScript.Run(ctx, r.client, []string{r.recordKey(rec.ID), r.leaseKey(rec.ID), r.indexKey(rec.Principal)},
		raw, next, r.ttl(cut.ExpiresAt).Milliseconds()).Int()
	if err != nil {
		return runs.Record{}, r.unavailable(err)
	}
	if done == 1 {
		r.opts.Logger.Warn("run store: a run's replica stopped renewing its lease; the run is marked interrupted", "run", rec.ID, "operation", rec.Operation, "lease", r.opts.Lease)
		return cut, nil
	}
	// Saved meanwhile (by its replica, or marked by another): read it again.
	again, err := r.client.Get(ctx, r.recordKey(rec.ID)).Bytes()
	if err != nil {
		return runs.Record{}, r.unavailable(err)
	}
	var fresh runs.Record
	if err := json.Unmarshal(again, &fresh); err != nil {
		return runs.Record{}, fmt.Errorf("run record in %s: %w", r.where, err)
	}
	return fresh, nil
}

// heartbeat renews, every third of the lease, the leases of the runs this
// process executes (those it watches for cancels), until Close.
func (r *Redis) heartbeat() {
	defer close(r.beatDone)
	t := time.NewTicker(r.opts.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-r.stopBeat:
			return
		case <-t.C:
		}
		r.mu.Lock()
		ids := make([]string, 0, len(r.watchers))
		for id := range r.watchers {
			ids = append(ids, id)
		}
		r.mu.Unlock()
		if len(ids) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), r.opts.Lease/3)
		pipe := r.client.Pipeline()
		for _, id := range ids {
			pipe.Set(ctx, r.leaseKey(id), "1", r.opts.Lease)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			r.opts.Logger.Warn("run store: renewing the leases of this process's runs failed; other replicas mark them interrupted once the leases lapse", "store", r.String(), "runs", len(ids), "err", err)
		}
		cancel()
	}
}

// List implements runs.Store. Ids whose record expired are removed from
// the index as they are met.
func (r *Redis) List(ctx context.Context, principal string, states []runs.State, limit int) ([]runs.Record, error) {
	index := r.indexKey(principal)
	ids, err := r.client.ZRange(ctx, index, 0, -1).Result()
	if err != nil {
		return nil, r.unavailable(err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = r.recordKey(id)
	}
	vals, err := r.client.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, r.unavailable(err)
	}
	var out []runs.Record
	var gone []any
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			gone = append(gone, ids[i])
			continue
		}
		rec, visible, err := r.decode([]byte(s), principal)
		if err != nil || !visible {
			continue
		}
		if rec, err = r.checkLease(ctx, []byte(s), rec); err != nil {
			return nil, err
		}
		if len(states) == 0 || slices.Contains(states, rec.State) {
			out = append(out, rec)
		}
	}
	if len(gone) > 0 {
		if err := r.client.ZRem(ctx, index, gone...).Err(); err != nil {
			return nil, r.unavailable(err)
		}
	}
	sortNewestFirst(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// RequestCancel implements runs.CancelRelay: it publishes the run id on
// the cancel channel, which every replica hears.
func (r *Redis) RequestCancel(ctx context.Context, principal, id string) error {
	if _, err := r.Load(ctx, principal, id); err != nil {
		return err
	}
	if err := r.client.Publish(ctx, r.cancelChannel(), id).Err(); err != nil {
		return r.unavailable(err)
	}
	return nil
}

// OnCancel implements runs.CancelRelay.
func (r *Redis) OnCancel(id string, cancel func()) (stop func()) {
	r.mu.Lock()
	r.watchers[id] = cancel
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.watchers, id)
		r.mu.Unlock()
	}
}

// relayCancels hands each published run id to its watcher in this
// process, if any. The watcher is called without the lock held, so it may
// stop its own watch.
func (r *Redis) relayCancels() {
	defer close(r.done)
	for {
		msg, err := r.pubsub.ReceiveMessage(context.Background())
		if err != nil {
			if r.closing.Load() || errors.Is(err, redis.ErrClosed) {
				return
			}
			r.opts.Logger.Warn("run store: the cancel channel failed; retrying", "store", r.String(), "err", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		r.mu.Lock()
		fn := r.watchers[msg.Payload]
		r.mu.Unlock()
		if fn != nil {
			fn()
		}
	}
}
