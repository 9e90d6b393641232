package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
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

const planStoreUsage = "keep the record of executed plan_refs and idempotency keys in FILE (bbolt; survives restarts; one process per file) or in Redis/Valkey at redis://HOST:PORT/DB (rediss:// for TLS; shared by replicas)"

// openPlanStore opens the store --plan-store names into f.planStore: a
// redis:// or rediss:// URL is Redis, anything without a scheme a bbolt
// file. An empty spec keeps the in-memory store. It logs why it failed and
// reports ok=false; close releases the store.
func (f *serverFlags) openPlanStore(ctx context.Context, spec string, logger *slog.Logger) (close func(), ok bool) {
	if spec == "" {
		if f.writes != string(intent.WritesDeny) && os.Getenv("INTENTSRV_PLAN_KEY") != "" {
			logger.Warn("plan_refs outlive this process (INTENTSRV_PLAN_KEY is set) but their at-most-once record does not: a restart would run a replayed plan_ref again; keep the record with --plan-store FILE or redis://HOST:PORT/DB")
		}
		return func() {}, true
	}
	scheme, _, hasScheme := strings.Cut(spec, "://")
	switch {
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
		logger.Error("cannot start: --plan-store takes a file path or a redis:// or rediss:// URL", "scheme", scheme)
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
