package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/runs"
	"github.com/intentsrv/intentsrv/runstore"
)

// runStoreMemory is the --run-store value that keeps runs in memory only.
const runStoreMemory = "memory"

const runStoreUsage = "where run handles' records live: FILE (bbolt; finished results survive a restart, runs cut by one read interrupted; one process per file), redis://HOST:PORT/DB (rediss:// for TLS; replicas share runs), or memory (lost on exit). Default: runs.db in the user cache dir's intentsrv folder"

// defaultRunStorePath is where runs are kept when --run-store is not
// given: intentsrv/runs.db under os.UserCacheDir, or "" when the platform
// has none.
func defaultRunStorePath() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "intentsrv", "runs.db")
}

// openRunStore opens the store --run-store names into f.runStore: a
// redis:// or rediss:// URL is Redis, "memory" the in-memory store,
// anything else without a scheme a bbolt file. An empty spec is the
// default file; when that cannot be used (no cache dir, or another
// intentsrv process holds it) runs stay in memory with a warning, since
// the operator asked for nothing in particular. A store named explicitly
// that cannot be opened stops the start. It logs why it failed and
// reports ok=false; close releases the store.
func (f *serverFlags) openRunStore(ctx context.Context, spec string, logger *slog.Logger) (close func(), ok bool) {
	noop := func() {}
	scheme, _, hasScheme := strings.Cut(spec, "://")
	switch {
	case spec == runStoreMemory:
		logger.Info("run store", "store", "memory (runs are lost on exit)")
		return noop, true
	case scheme == "redis" || scheme == "rediss":
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		store, err := runstore.OpenRedis(ctx, spec, runstore.RedisOptions{Logger: logger, Retention: f.runRetention})
		if err != nil {
			logger.Error("cannot start: the run store does not answer; start it or fix --run-store", "err", err)
			return nil, false
		}
		logger.Info("run store", "store", store.String())
		f.runStore = store
		return func() { store.Close() }, true
	case hasScheme:
		logger.Error("cannot start: --run-store takes a file path, a redis:// or rediss:// URL, or memory", "scheme", scheme)
		return nil, false
	}
	explicit := spec != ""
	lockWait := time.Second
	if !explicit {
		spec = defaultRunStorePath()
		lockWait = 100 * time.Millisecond // another server holds it: fall back quickly
		if spec == "" {
			logger.Warn("run handles are kept in memory only: this platform has no user cache dir; keep them with --run-store FILE")
			return noop, true
		}
		if err := os.MkdirAll(filepath.Dir(spec), 0o700); err != nil {
			logger.Warn("run handles are kept in memory only: the default run store's folder cannot be created; keep them with --run-store FILE", "err", err)
			return noop, true
		}
	}
	store, err := runstore.OpenBolt(spec, runstore.BoltOptions{Retention: f.runRetention, LockWait: lockWait})
	switch {
	case err != nil && !explicit && errors.Is(err, runstore.ErrLocked):
		logger.Warn("run handles are kept in memory only: another intentsrv process holds the default run store; give each server its own --run-store FILE", "file", spec)
		return noop, true
	case err != nil:
		logger.Error("cannot start: fix --run-store", "err", err)
		return nil, false
	}
	if n := store.Interrupted(); n > 0 {
		logger.Warn("runs were interrupted when the previous process stopped; they read state interrupted (writes among them may have partly taken effect)", "runs", n, "file", spec)
	}
	logger.Info("run store", "file", spec)
	f.runStore = store
	return func() { store.Close() }, true
}

// defaultMaxRuns is --max-runs' default: far above what one agent keeps
// going, low enough that a runaway loop of slow calls cannot pile up
// goroutines and upstream requests without bound.
const defaultMaxRuns = 1000

// runsShutdownWait bounds how long a shutting-down server waits for its
// runs' work to stop before it saves them interrupted as they stand.
const runsShutdownWait = 5 * time.Second

// newRuns returns the run manager the flags describe and keeps it for
// closeRuns.
func (f *serverFlags) newRuns(log *slog.Logger) *runs.Manager {
	f.runs = runs.NewManager(runs.Options{Store: f.runStore, Retention: f.runRetention, MaxRuns: f.maxRuns, Logger: log})
	return f.runs
}

// closeRuns ends the runs still executing, as the server shuts down: their
// work is cancelled and their records saved interrupted (or with the
// result of work that finished anyway) before the run store closes.
func (f *serverFlags) closeRuns(log *slog.Logger) {
	if f.runs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), runsShutdownWait)
	defer cancel()
	ended, stuck := f.runs.Close(ctx)
	switch {
	case stuck > 0:
		log.Warn("runs were cut by the shutdown; some did not stop in time and were saved interrupted as they stood", "ended", ended, "stuck", stuck, "waited", runsShutdownWait)
	case ended > 0:
		log.Info("runs were cut by the shutdown and saved", "runs", ended)
	}
}
