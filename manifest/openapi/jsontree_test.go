package openapi

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

var jsonTreeCases = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `12.5e-3`, `1E+2`, `-1.0`,
	` {"a" : [1, 2.5, "x", null, true, false, {"b": {}}], "c": "d"} `,
	`{"dup": 1, "dup": 2}`,
	`"escapes: \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \u2028"`,
	`"plain utf-8: héllo — ✓"`,
	"\"invalid utf-8: \xff\xfe end\"",
	"\"lone surrogate \\ud800 end\"",
	`{"html": "<a href=\"x\">&amp;</a>"}`,
	`[[[[[]]]]]`,
	// Errors.
	``, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `1e+`,
	`tru`, `nul`, `"unterminated`, "\"ctl \x01 char\"", `"bad escape \x"`, `"\u12"`, `{} {}`, `[1 2]`,
	`+1`, `NaN`, `"a" "b"`,
}

// TestDecodeJSONTreeMatchesEncodingJSON checks the hand-written decoder
// against encoding/json with UseNumber: same tree, and an error exactly
// when encoding/json fails.
func TestDecodeJSONTreeMatchesEncodingJSON(t *testing.T) {
	for _, c := range jsonTreeCases {
		checkDecodeJSONTree(t, []byte(c))
	}
}

func FuzzDecodeJSONTree(f *testing.F) {
	for _, c := range jsonTreeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecodeJSONTree(t, data) })
}

func checkDecodeJSONTree(t *testing.T, data []byte) {
	t.Helper()
	valid := json.Valid(data)
	got, err := decodeJSONTree(data)
	if (err == nil) != valid {
		t.Fatalf("%q: err = %v, json.Valid = %v", data, err, valid)
	}
	if err != nil {
		return
	}
	var want any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: got %#v, want %#v", data, got, want)
	}
	// appendJSON re-encodes the tree exactly as json.Marshal does.
	gotJSON, err := appendJSON(nil, got)
	wantJSON, wantErr := json.Marshal(want)
	if (err != nil) != (wantErr != nil) || !bytes.Equal(gotJSON, wantJSON) {
		t.Fatalf("%q: appendJSON = %s (%v), json.Marshal = %s (%v)", data, gotJSON, err, wantJSON, wantErr)
	}
}

func TestAppendJSONMatchesMarshal(t *testing.T) {
	values := []any{
		nil, map[string]any(nil), []any(nil), map[string]any{}, []any{},
		json.Number("1.50"), json.Number(""), json.Number("x"),
		map[string]any{"z": 1, "a": []any{"<", "é", "\u2028", "\x00", "\xff"}, "m": map[string]any{"k": true}},
		3.25, 7, []string{"a"},
	}
	for _, v := range values {
		got, err := appendJSON(nil, v)
		want, wantErr := json.Marshal(v)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Errorf("%#v: appendJSON = %s (%v), json.Marshal = %s (%v)", v, got, err, want, wantErr)
		}
	}
}

// TestDecodeJSONTreeOnBenchSpec compares both decoders and both encoders
// on a real spec (INTENTSRV_BENCH_SPEC, as scripts/bench-openapi.sh
// installs them); skipped without one.
func TestDecodeJSONTreeOnBenchSpec(t *testing.T) {
	path := os.Getenv("INTENTSRV_BENCH_SPEC")
	if path == "" {
		t.Skip("set INTENTSRV_BENCH_SPEC to a JSON spec")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkDecodeJSONTree(t, data)
}
