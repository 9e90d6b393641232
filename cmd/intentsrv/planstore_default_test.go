package main

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
)

// TestE2EDefaultPlanStoreOneProcessPerKey starts two real servers with the
// same plan key, writes enabled and no --plan-store: the second would
// accept plan_refs the first ran, so it refuses to start and names the
// fixes. A server with another key, or with writes denied, starts beside
// the first.
func TestE2EDefaultPlanStoreOneProcessPerKey(t *testing.T) {
	cache := t.TempDir()
	keyA := "INTENTSRV_PLAN_KEY=" + strings.Repeat("shared-plan-key-", 3)
	keyB := "INTENTSRV_PLAN_KEY=" + strings.Repeat("other-plan-key-", 3)
	startHTTPServerEnv(t, []string{keyA, "XDG_CACHE_HOME=" + cache}, "--writes", "confirm")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a second server that starts would serve forever
	defer cancel()
	second := exec.CommandContext(ctx, intentsrvBinary(t), "serve", "--http", "127.0.0.1:0", "--writes", "allow")
	second.Env = cleanEnv(keyA, "XDG_CACHE_HOME="+cache)
	var stderr bytes.Buffer
	second.Stderr = &stderr
	err := second.Run()
	if code := second.ProcessState.ExitCode(); code != exitUsage {
		t.Fatalf("second process with the same key: exit %d (%v), want %d\n%s", code, err, exitUsage, stderr.String())
	}
	for _, want := range []string{"same INTENTSRV_PLAN_KEY", "--plan-store redis://", "its own INTENTSRV_PLAN_KEY"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("refusal does not say %q:\n%s", want, stderr.String())
		}
	}

	startHTTPServerEnv(t, []string{keyB, "XDG_CACHE_HOME=" + cache}, "--writes", "confirm")
	startHTTPServerEnv(t, []string{keyA, "XDG_CACHE_HOME=" + cache}) // read-only: no plan runs
	files, _ := filepath.Glob(filepath.Join(cache, "intentsrv", "plans-*.db"))
	if len(files) != 2 {
		t.Fatalf("default store files %q, want one per key", files)
	}
	for _, f := range files {
		if strings.Contains(f, "shared-plan-key") || strings.Contains(f, "other-plan-key") {
			t.Fatalf("the default store's name reveals the key: %s", f)
		}
	}
}

// TestServeIdempotencyTTLFlag checks that --idempotency-ttl reaches the
// server and that a useless value is refused before serving.
func TestServeIdempotencyTTLFlag(t *testing.T) {
	var f serverFlags
	fs := newFlagSet("serve", "serve [flags]", io.Discard)
	f.register(fs)
	f.registerStore(fs)
	if err := fs.Parse([]string{"--idempotency-ttl", "90m"}); err != nil {
		t.Fatal(err)
	}
	srv, _, err := f.build(context.Background(), f.logger(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Options().IdempotencyTTL; got != 90*time.Minute {
		t.Fatalf("IdempotencyTTL = %s, want 90m", got)
	}
	var cli serverFlags // commands without the flag keep the library default
	cli.register(newFlagSet("act", "act", io.Discard))
	if srv, _, err := cli.build(context.Background(), cli.logger(io.Discard)); err != nil || srv.Options().IdempotencyTTL != intent.DefaultIdempotencyTTL {
		t.Fatalf("without the flag: %v, %v", err, srv)
	}

	for _, bad := range []string{"0s", "-1h", "500ms"} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve", "--idempotency-ttl", bad}, strings.NewReader(""), io.Discard, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "--idempotency-ttl must be at least 1s") {
			t.Fatalf("--idempotency-ttl %s: exit %d\n%s", bad, code, stderr.String())
		}
	}
}

// TestServeDefaultPlanStoreNeedsAPlace refuses to serve writes with a
// fixed plan key when the default store has nowhere to live, rather than
// falling back to memory, and names the explicit choices.
func TestServeDefaultPlanStoreNeedsAPlace(t *testing.T) {
	t.Setenv("INTENTSRV_PLAN_KEY", strings.Repeat("k", 32))
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"serve", "--writes", "confirm"}, strings.NewReader(""), io.Discard, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--plan-store FILE, redis://HOST:PORT/DB or memory") {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	stderr.Reset()
	code = run(context.Background(), []string{"serve", "--writes", "confirm", "--plan-store", "memory"}, strings.NewReader(""), io.Discard, &stderr)
	if code != exitOK || !strings.Contains(stderr.String(), "a restart would run a replayed plan_ref again") {
		t.Fatalf("explicit memory store: exit %d\n%s", code, stderr.String())
	}
}
