package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
)

// TestRunFlags: serve waits --wait (20 s by default) before handing out a
// run handle; the CLI verbs wait until done, since a run cannot outlive
// the command; a wait or retention that is not positive is refused.
func TestRunFlags(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	build := func(block bool, args ...string) (*intent.Server, error) {
		t.Helper()
		var f serverFlags
		fs := newFlagSet("serve", "serve", io.Discard)
		f.register(fs)
		if _, _, ok := parseFlags(fs, args); !ok {
			t.Fatalf("flags %q do not parse", args)
		}
		f.blockCalls = block
		srv, _, err := f.build(context.Background(), log)
		return srv, err
	}
	for _, tc := range []struct {
		block bool
		args  []string
		want  time.Duration
	}{
		{false, nil, intent.DefaultWait},
		{false, []string{"--wait", "3s"}, 3 * time.Second},
		{true, []string{"--wait", "3s"}, intent.WaitUntilDone},
	} {
		srv, err := build(tc.block, tc.args...)
		if err != nil {
			t.Fatalf("block=%v %q: %v", tc.block, tc.args, err)
		}
		if got := srv.Options().Wait; got != tc.want {
			t.Fatalf("block=%v %q: wait %v, want %v", tc.block, tc.args, got, tc.want)
		}
	}
	for _, args := range [][]string{{"--wait", "0s"}, {"--run-retention", "-1m"}} {
		if _, err := build(false, args...); err == nil || !strings.Contains(err.Error(), "must be positive") {
			t.Fatalf("%q: err = %v", args, err)
		}
	}
	if _, err := build(false, "--max-runs", "0"); err == nil || !strings.Contains(err.Error(), "--max-runs must be at least 1") {
		t.Fatalf("--max-runs 0: err = %v", err)
	}
	srv, err := build(false, "--run-retention", "5m")
	if err != nil || srv.Options().Runs.Retention() != 5*time.Minute {
		t.Fatalf("--run-retention 5m: %v", err)
	}
}
