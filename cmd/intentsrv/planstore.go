package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/planstore"
)

// filePlanStore is the CLI's PlanStore: each "intentsrv act" is its own
// process, so the record of executed plan_refs lives in a file beside the
// CLI's plan key, guarded by an exclusive lock. Lines are "REF EXPIRY".
type filePlanStore struct {
	path string
	now  func() time.Time
}

// Consume implements intent.PlanStore.
func (f *filePlanStore) Consume(_ context.Context, ref string, expires time.Time) error {
	file, err := os.OpenFile(f.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open plan record: %w", err)
	}
	defer file.Close()
	if err := syscall.Flock(int(file.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock plan record: %w", err)
	}
	defer syscall.Flock(int(file.Fd()), syscall.LOCK_UN)

	now := f.now()
	var keep []string
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		r, exp, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		sec, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || now.After(time.Unix(sec, 0)) {
			continue // expired or garbled: forget it
		}
		if r == ref {
			return intent.ErrPlanUsed
		}
		keep = append(keep, sc.Text())
	}
	keep = append(keep, ref+" "+strconv.FormatInt(expires.Unix(), 10))
	if err := file.Truncate(0); err != nil {
		return fmt.Errorf("rewrite plan record: %w", err)
	}
	if _, err := file.WriteAt([]byte(strings.Join(keep, "\n")+"\n"), 0); err != nil {
		return fmt.Errorf("rewrite plan record: %w", err)
	}
	return file.Sync()
}

const planStoreUsage = "keep the record of executed plan_refs and idempotency keys in FILE (bbolt; survives restarts; one process per file), in Redis/Valkey at redis://HOST:PORT/DB (rediss:// for TLS; shared by replicas), or in memory (forgotten on exit). Default: memory, but a file in the user's cache directory when writes are enabled and INTENTSRV_PLAN_KEY is set"

// planStoreMemory is the --plan-store value that keeps the record in
// memory even when plan_refs outlive the process: an explicit opt-out.
const planStoreMemory = "memory"

// registerStore adds serve's flags for the plan store: --plan-store and
// --idempotency-ttl.
func (f *serverFlags) registerStore(fs *flag.FlagSet) {
	fs.StringVar(&f.storeSpec, "plan-store", "", planStoreUsage)
	fs.DurationVar(&f.idempotencyTTL, "idempotency-ttl", intent.DefaultIdempotencyTTL, "how long act keeps the outcome of a call with an idempotency_key, so a retry with the key gets it instead of running again (at least 1s)")
}

// openPlanStore opens the store --plan-store names into f.planStore: a
// redis:// or rediss:// URL is Redis, "memory" the in-memory store, anything
// else without a scheme a bbolt file. An empty spec picks the default (see
// defaultPlanStore). It logs why it failed and reports ok=false; close
// releases the store.
func (f *serverFlags) openPlanStore(ctx context.Context, logger *slog.Logger) (close func(), ok bool) {
	if f.idempotencyTTL < time.Second {
		logger.Error("cannot start: --idempotency-ttl must be at least 1s, e.g. 24h", "got", f.idempotencyTTL)
		return nil, false
	}
	spec := f.storeSpec
	scheme, _, hasScheme := strings.Cut(spec, "://")
	switch {
	case spec == "":
		return f.defaultPlanStore(logger)
	case spec == planStoreMemory:
		if f.writes != string(intent.WritesDeny) && os.Getenv("INTENTSRV_PLAN_KEY") != "" {
			logger.Warn("plan store in memory (--plan-store memory) while plan_refs outlive this process (INTENTSRV_PLAN_KEY is set): a restart would run a replayed plan_ref again")
		}
		return func() {}, true
	case scheme == "redis" || scheme == "rediss":
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		store, err := planstore.OpenRedis(ctx, spec)
		if err != nil {
			logger.Error("cannot start: the plan store does not answer; start it or fix --plan-store", "err", err)
			return nil, false
		}
		logger.Info("plan store", "store", store.String())
		f.planStore = store
		return func() { store.Close() }, true
	case hasScheme:
		logger.Error("cannot start: --plan-store takes a file path, a redis:// or rediss:// URL, or memory", "scheme", scheme)
		return nil, false
	}
	store, err := planstore.OpenBolt(spec, nil)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return nil, false
	}
	logger.Info("plan store", "file", spec)
	f.planStore = store
	return func() { store.Close() }, true
}

// defaultPlanStore picks the store when --plan-store is not given. Unless
// writes are enabled and INTENTSRV_PLAN_KEY is set, a plan_ref cannot
// outlive the process that signed it, so memory keeps it at most once.
// Otherwise a restart would accept a replayed plan_ref, so the record goes
// to a bbolt file in the user's cache directory, named by a digest of the
// key: processes with different keys never share a file, and a second
// process with the same key finds the file locked and is refused, since
// without a shared store the two could each run the same plan_ref once.
func (f *serverFlags) defaultPlanStore(logger *slog.Logger) (close func(), ok bool) {
	key := os.Getenv("INTENTSRV_PLAN_KEY")
	if f.writes == string(intent.WritesDeny) || key == "" {
		return func() {}, true
	}
	path, err := defaultPlanStorePath(key)
	if err != nil {
		logger.Error("cannot start: INTENTSRV_PLAN_KEY lets plan_refs outlive this process, and the default plan store that keeps them at most once has no place on disk; choose one with --plan-store FILE, redis://HOST:PORT/DB or memory",
			"err", err)
		return nil, false
	}
	store, err := planstore.OpenBolt(path, nil)
	if errors.Is(err, planstore.ErrLocked) {
		logger.Error("cannot start: another intentsrv process with the same INTENTSRV_PLAN_KEY holds the default plan store, and each would accept a plan_ref the other ran; share one store between them with --plan-store redis://HOST:PORT/DB, or give each process its own INTENTSRV_PLAN_KEY",
			"file", path)
		return nil, false
	}
	if err != nil {
		logger.Error("cannot start: the default plan store does not open; fix it or choose one with --plan-store FILE, redis://HOST:PORT/DB or memory", "err", err)
		return nil, false
	}
	logger.Info("plan store", "file", path, "default", true)
	f.planStore = store
	return func() { store.Close() }, true
}

// defaultPlanStorePath is the default store's file for a plan key:
// intentsrv/plans-DIGEST.db under the user's cache directory (created,
// mode 0700), DIGEST a SHA-256 of the key, so the name reveals nothing of
// the key.
func defaultPlanStorePath(key string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "intentsrv")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte("intentsrv-plan-store-v1:" + key))
	return filepath.Join(dir, "plans-"+hex.EncodeToString(sum[:12])+".db"), nil
}
