package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/runstore"
)

// TestOpenRunStore: no flag is the bbolt file under the user cache dir
// (here the tests' temporary one); a second server on the default file
// falls back to memory and warns, while an explicit file held by another
// process, or an unknown scheme, stops the start; memory keeps nothing.
func TestOpenRunStore(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx := context.Background()
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, nil))
	open := func(spec string) (*serverFlags, func(), bool) {
		f := &serverFlags{runRetention: 1}
		closeFn, ok := f.openRunStore(ctx, spec, log)
		return f, closeFn, ok
	}

	first, closeFirst, ok := open("")
	if !ok {
		t.Fatal("the default run store does not open")
	}
	defer closeFirst()
	if _, isBolt := first.runStore.(*runstore.Bolt); !isBolt {
		t.Fatalf("default store = %T, want the bbolt file", first.runStore)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "intentsrv", "runs.db")); err != nil {
		t.Fatalf("default file: %v", err)
	}
	second, _, ok := open("")
	if !ok || second.runStore != nil || !strings.Contains(logs.String(), "another intentsrv process holds the default run store") {
		t.Fatalf("a second server on the default file: ok=%v store=%T logs:\n%s", ok, second.runStore, logs.String())
	}
	if _, _, ok := open(defaultRunStorePath()); ok {
		t.Fatal("an explicit file held by another process must stop the start")
	}
	if f, _, ok := open("memory"); !ok || f.runStore != nil {
		t.Fatalf("memory: ok=%v store=%T", ok, f.runStore)
	}
	if _, _, ok := open("postgres://x"); ok {
		t.Fatal("an unknown scheme must stop the start")
	}
}
