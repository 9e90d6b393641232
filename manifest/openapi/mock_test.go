package openapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestMockResponsesValidate checks that every mock answer of every test
// spec validates against the operation's output schema.
func TestMockResponsesValidate(t *testing.T) {
	for _, name := range []string{"tracker.yaml", "petstore-swagger2.json", "deep-3.1.yaml", "hostile.yaml"} {
		cat, err := Parse("m", readTestdata(t, name), ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range cat.Ops {
			op := &cat.Ops[i]
			got := MockResponse(op)
			if !json.Valid(got) {
				t.Fatalf("%s %s: invalid JSON %s", name, op.ID, got)
			}
			if len(op.Output) == 0 {
				continue
			}
			v := compileOutput(op.Output)
			if v == nil {
				t.Fatalf("%s %s: output schema does not compile", name, op.ID)
			}
			if !validates(v, got) {
				t.Errorf("%s %s: mock %s does not validate against %s", name, op.ID, got, op.Output)
			}
		}
	}
}

func TestMockUsesSpecExample(t *testing.T) {
	cat := parseTracker(t)
	reg, _ := trackerOps(t, "", BindOptions{Mock: true})
	out, err := reg.Call(context.Background(), "tracker.projects.list", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := string(opByID(t, cat, "tracker.projects.list").Example); string(out) != want {
		t.Errorf("mock = %s, want the spec example %s", out, want)
	}
	op, _ := reg.Get("tracker.projects.delete")
	if op.OpenWorld {
		t.Error("mock operations must not claim to reach the network")
	}
}

func TestMockGeneratorKeywords(t *testing.T) {
	tests := []string{
		`{"type":"string","format":"date-time"}`,
		`{"type":"string","minLength":12,"maxLength":14}`,
		`{"type":"string","pattern":"^[0-9]+$"}`,
		`{"type":"integer","minimum":10,"maximum":20,"multipleOf":5}`,
		`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":2}`,
		`{"type":"array","minItems":3,"uniqueItems":true,"items":{"type":"string"}}`,
		`{"type":"object","required":["a","b"],"properties":{"a":{"enum":["x","y"]},"b":{"const":3}}}`,
		`{"oneOf":[{"type":"boolean"},{"type":"string"}]}`,
		`{"type":["null","integer"]}`,
		`{"type":"object","minProperties":2}`,
	}
	for _, s := range tests {
		op := &Op{Output: json.RawMessage(s)}
		got := MockResponse(op)
		if !validates(compileOutput(op.Output), got) {
			t.Errorf("schema %s: mock %s does not validate", s, got)
		}
	}
}

// TestCacheRoundTripAndCorruption checks that Load writes a cache entry,
// reads it back identically, and rebuilds when the entry is corrupt.
func TestCacheRoundTripAndCorruption(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join("..", "..", "testdata", "openapi", "tracker.yaml")
	ctx := context.Background()
	first, err := Load(ctx, LoadOptions{Name: "tracker", Location: spec, CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "tracker-*"+cacheExt))
	if len(entries) != 1 {
		t.Fatalf("cache entries: %v", entries)
	}
	second, err := Load(ctx, LoadOptions{Name: "tracker", Location: spec, CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(second)
	if string(a) != string(b) {
		t.Fatal("cached catalog differs from the parsed one")
	}
	for _, corrupt := range []string{"{not json", `{"key":"other","sum":"x","catalog":{}}`, ""} {
		if err := os.WriteFile(entries[0], []byte(corrupt), 0o600); err != nil {
			t.Fatal(err)
		}
		again, err := Load(ctx, LoadOptions{Name: "tracker", Location: spec, CacheDir: dir})
		if err != nil {
			t.Fatalf("corrupt cache %q: %v", corrupt, err)
		}
		c, _ := json.Marshal(again)
		if string(c) != string(a) {
			t.Fatalf("corrupt cache %q was trusted", corrupt)
		}
	}
	// A tampered catalog body fails the checksum.
	raw, _ := os.ReadFile(entries[0])
	tampered := []byte(string(raw[:len(raw)-200]) + string(raw[len(raw)-200:]))
	for i := range tampered {
		if tampered[i] == 'P' { // "Project"/"PATCH" somewhere in the body
			tampered[i] = 'Q'
			break
		}
	}
	os.WriteFile(entries[0], tampered, 0o600)
	again, err := Load(ctx, LoadOptions{Name: "tracker", Location: spec, CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := json.Marshal(again)
	if string(c) != string(a) {
		t.Fatal("tampered cache was trusted")
	}
}

func BenchmarkParse(b *testing.B) {
	path := os.Getenv("INTENTSRV_BENCH_SPEC")
	if path == "" {
		path = filepath.Join("..", "..", "testdata", "openapi", "tracker.yaml")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("bench", data, ParseOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
