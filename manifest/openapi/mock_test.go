package openapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMockResponsesValidate checks that every mock answer of every test
// spec validates against the operation's output schema.
func TestMockResponsesValidate(t *testing.T) {
	var names []string
	for _, pat := range []string{"*.yaml", "*.yml", "*.json"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "openapi", pat))
		for _, p := range m {
			names = append(names, filepath.Base(p))
		}
	}
	if len(names) < 5 {
		t.Fatalf("test specs: %v", names)
	}
	for _, name := range names {
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
		`{"type":"string","minLength":40,"pattern":"^[a-f0-9]+$"}`,
		`{"type":"string","minLength":3,"maxLength":3,"pattern":"^(ab|[xyz]{3})$"}`,
		`{"type":"string","minLength":5,"pattern":"id-"}`,
		`{"type":"integer","minimum":10,"maximum":20,"multipleOf":5}`,
		`{"type":"integer","minimum":10,"multipleOf":7}`,
		`{"type":"integer","exclusiveMinimum":5,"multipleOf":7}`,
		`{"type":"integer","minimum":1,"multipleOf":4,"allOf":[{"multipleOf":6}]}`,
		`{"type":"number","minimum":0.3,"maximum":0.9,"multipleOf":0.25}`,
		`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":2}`,
		`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":0.5}`,
		`{"type":"array","minItems":3,"uniqueItems":true,"items":{"type":"string"}}`,
		`{"type":"array","minItems":3,"uniqueItems":true,"items":{"type":"integer","maximum":2}}`,
		`{"type":"array","minItems":2,"uniqueItems":true,"items":{"enum":["a","b","c"]}}`,
		`{"type":"array","prefixItems":[{"type":"integer"},{"const":"x"}],"minItems":2,"items":false}`,
		`{"type":"object","required":["a","b"],"properties":{"a":{"enum":["x","y"]},"b":{"const":3}}}`,
		`{"type":"object","properties":{"n":{"type":"integer","examples":["ten"]}},"required":["n"]}`,
		`{"type":"object","minProperties":2,"additionalProperties":{"type":"string","maxLength":5}}`,
		`{"type":"object","minProperties":1,"additionalProperties":false,"patternProperties":{"^x-[a-z]+$":{"type":"integer"}}}`,
		`{"type":"object","required":["v"],"properties":{"v":{"type":"integer"}},"dependentRequired":{"v":["w"]}}`,
		`{"oneOf":[{"type":"boolean"},{"type":"string"}]}`,
		`{"oneOf":[{"type":"integer"},{"type":"number"}]}`,
		`{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","required":["a"],"properties":{"a":{"type":"string"}},"additionalProperties":false}]}`,
		`{"oneOf":[{"type":"string"},{"type":"string","maxLength":3}]}`,
		`{"anyOf":[{"type":"string","maxLength":2,"minLength":3},{"type":"integer"}]}`,
		`{"allOf":[{"type":"object","required":["id"],"properties":{"id":{"type":"integer","minimum":3}}},{"properties":{"id":{"multipleOf":5}}}]}`,
		`{"type":"integer","not":{"const":1}}`,
		`{"type":"object","properties":{"k":{"type":"string"}},"if":{"required":["k"]},"then":{"properties":{"k":{"maxLength":2}}}}`,
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

// TestMockTrickyValues checks the answers a user sees for the edge cases
// of testdata/openapi/mock-tricky.yaml: multiples rounded up into the
// bounds, patterned strings of the asked length, filler properties from
// additionalProperties, examples of the wrong type ignored.
func TestMockTrickyValues(t *testing.T) {
	cat, err := Parse("m", readTestdata(t, "mock-tricky.yaml"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	answer := func(id string) map[string]any {
		t.Helper()
		var v map[string]any
		if err := json.Unmarshal(MockResponse(opByID(t, cat, id)), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	nums := answer("m.numbers.get")
	for k, want := range map[string]float64{"week": 14, "after_five": 7, "price": 0.75, "small": -4} {
		if nums[k] != want {
			t.Errorf("numbers %s = %v, want %v", k, nums[k], want)
		}
	}
	if r, _ := nums["ratio"].(float64); r <= 0 || r >= 1 {
		t.Errorf("ratio = %v, want in (0, 1)", nums["ratio"])
	}
	commit := answer("m.commits.get")
	sha, _ := commit["sha"].(string)
	if len(sha) != 40 || strings.Trim(sha, "0123456789abcdef") != "" {
		t.Errorf("sha = %q, want 40 hex digits", sha)
	}
	if code := commit["code"]; code != "AB-012" {
		t.Errorf("code = %v", code)
	}
	labels := answer("m.labels.list")
	if len(labels) < 2 {
		t.Errorf("labels = %v, want 2 properties", labels)
	}
	for k, v := range labels {
		if s, ok := v.(string); !ok || len(s) > 5 {
			t.Errorf("label %s = %v, want a string of at most 5 characters", k, v)
		}
	}
	counts := answer("m.counts.get")
	if counts["total"] != 1.0 || counts["open"] != 2.0 {
		t.Errorf("counts = %v, want total 1 (the example \"ten\" is no integer) and open 2 (the first valid example)", counts)
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

// TestMockResponsesValidateSpec checks every mock answer of the spec named
// by INTENTSRV_MOCK_SPEC (a large real document such as GitHub's; skipped
// when unset) against its operation's output schema.
func TestMockResponsesValidateSpec(t *testing.T) {
	path := os.Getenv("INTENTSRV_MOCK_SPEC")
	if path == "" {
		t.Skip("set INTENTSRV_MOCK_SPEC to a spec file")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Parse("api", data, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad, size := 0, 0
	for i := range cat.Ops {
		op := &cat.Ops[i]
		got := MockResponse(op)
		size += len(got)
		if len(op.Output) == 0 {
			continue
		}
		if v := compileOutput(op.Output); v != nil && !validates(v, got) {
			bad++
			t.Errorf("%s: mock does not validate: %.300s", op.ID, got)
		}
	}
	t.Logf("%d operations, %d invalid mock answers, %d bytes in all", len(cat.Ops), bad, size)
}
