package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestCacheRecordsCompiledSchemas checks the cache's record of compiled
// input schemas: nothing is known after a parse, RecordCompiled persists
// what registered, a reload reports exactly those, and a copied schema or a
// rewritten entry is never reported.
func TestCacheRecordsCompiledSchemas(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join("..", "..", "testdata", "openapi", "tracker.yaml")
	ctx := context.Background()
	load := func() *Catalog {
		t.Helper()
		cat, err := Load(ctx, LoadOptions{Name: "tracker", Location: spec, CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return cat
	}
	first := load()
	ops := first.Operations(BindOptions{Mock: true})
	for _, op := range ops {
		if first.Compiled(op.Input) {
			t.Fatalf("%s: a just-parsed schema is reported compiled", op.ID)
		}
	}
	if err := first.RecordCompiled(ops[:1]); err != nil {
		t.Fatal(err)
	}
	second := load()
	ops2 := second.Operations(BindOptions{Mock: true})
	for i, op := range ops2 {
		if got := second.Compiled(op.Input); got != (i == 0) {
			t.Errorf("%s: Compiled = %v after recording only the first op", op.ID, got)
		}
	}
	if second.Compiled(bytes.Clone(ops2[0].Input)) {
		t.Error("a copy of a recorded schema is reported compiled")
	}
	if err := second.RecordCompiled(ops2); err != nil {
		t.Fatal(err)
	}
	third := load()
	for _, op := range third.Operations(BindOptions{}) {
		if !third.Compiled(op.Input) {
			t.Errorf("%s: not recorded", op.ID)
		}
	}
	a, _ := json.Marshal(first)
	c, _ := json.Marshal(third)
	if !bytes.Equal(a, c) {
		t.Error("recording changed the cached catalog")
	}
	// Truncating the entry (the record is at its end) makes it corrupt.
	entries, _ := filepath.Glob(filepath.Join(dir, "tracker-*"+cacheExt))
	raw, _ := os.ReadFile(entries[0])
	os.WriteFile(entries[0], raw[:len(raw)-1], 0o600)
	fourth := load()
	for _, op := range fourth.Operations(BindOptions{}) {
		if fourth.Compiled(op.Input) {
			t.Fatalf("%s: reported compiled from a corrupt entry", op.ID)
		}
	}
}

// TestParseDeterministic checks that parsing the same spec twice gives the
// same bytes (definition hoisting used to follow map order).
func TestParseDeterministic(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "openapi", "tracker.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	for i := 0; i < 5; i++ {
		cat, err := Parse("tracker", data, ParseOptions{InputDepth: 2, OutputDepth: 2})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(cat)
		if i == 0 {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatal("two parses of one spec differ")
		}
	}
}
