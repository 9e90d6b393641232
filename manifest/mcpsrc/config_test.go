package mcpsrc

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestParseJSONHostShapes(t *testing.T) {
	for _, c := range []struct{ name, doc string }{
		{"claude desktop / claude code / cursor", `{"mcpServers": {"gh": {"command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": "${GH}"}}}}`},
		{"vs code", `{"inputs": [], "servers": {"gh": {"type": "stdio", "command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": "${env:GH}"}}}}`},
		{"host extras ignored", `{"mcpServers": {"gh": {"command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": "${GH}"}, "alwaysAllow": ["x"], "autoApprove": []}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseJSON([]byte(c.doc), "", env(map[string]string{"GH": "secret"}))
			if err != nil {
				t.Fatal(err)
			}
			want := Server{Name: "gh", Command: "npx", Args: []string{"-y", "srv"}, Env: map[string]string{"TOKEN": "secret"}, Type: got[0].Type}
			if len(got) != 1 || !reflect.DeepEqual(got[0], want) || got[0].Transport() != TransportStdio {
				t.Fatalf("got %+v", got)
			}
		})
	}
}

func TestParseJSONRemoteAndDisabled(t *testing.T) {
	doc := `{"mcpServers": {
	  "remote": {"url": "https://${HOST:-example.com}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
	  "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
	  "off": {"command": "nothing", "env": {"X": "${UNSET}"}, "disabled": true}}}`
	got, err := ParseJSON([]byte(doc), "", env(map[string]string{"TOKEN": "t0k"}))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Server{}
	for _, s := range got {
		byName[s.Name] = s
	}
	if r := byName["remote"]; r.URL != "https://example.com/mcp" || r.Headers["Authorization"] != "Bearer t0k" || r.Transport() != TransportStreamable {
		t.Errorf("remote: %+v", r)
	}
	if l := byName["legacy"]; l.Transport() != TransportSSE {
		t.Errorf("legacy: %+v", l)
	}
	// A disabled entry is not expanded: its unset variable is no error.
	if o := byName["off"]; !o.Disabled {
		t.Errorf("off: %+v", o)
	}
}

func TestConfigErrorsHaveCodes(t *testing.T) {
	for _, c := range []struct{ doc, code, says string }{
		{`{"mcpServers": `, CodeConfigInvalid, "line 1"},
		{`{"tools": {}}`, CodeConfigEmpty, "mcpServers"},
		{`{"mcpServers": []}`, CodeConfigInvalid, "object"},
		{`{"mcpServers": {"a": {"args": ["x"]}}}`, CodeServerInvalid, "neither command nor url"},
		{`{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`, CodeServerInvalid, "both"},
		{`{"mcpServers": {"a": {"command": 5}}}`, CodeServerInvalid, "does not decode"},
		{`{"mcpServers": {"a": {"url": "ftp://h/x"}}}`, CodeServerInvalid, "http(s)"},
		{`{"mcpServers": {"a": {"url": "https://h/mcp", "headers": {"X-Team": "a", "x-team": "b"}}}}`, CodeServerInvalid, "same header"},
		{`{"mcpServers": {"a": {"command": "x", "type": "websocket"}}}`, CodeServerInvalid, "type"},
		{`{"mcpServers": {"a": {"command": "x", "env": {"K": "${NOPE}"}}}}`, CodeVariableUnset, "NOPE"},
		{`{"mcpServers": {"a": {"command": "x", "args": ["${input:token}"]}}}`, CodeVariableUnknown, "input:token"},
		{`{"mcpServers": {"a": {"command": "x", "args": ["${oops"]}}}`, CodeServerInvalid, "closing"},
		{`{"mcpServers": {"My-Server": {"command": "x"}, "my server": {"command": "y"}}}`, CodeServerDuplicate, "my_server"},
		{`{"mcpServers": {"!!!": {"command": "x"}}}`, CodeServerInvalid, "no letter"},
	} {
		_, err := ParseJSON([]byte(c.doc), "", env(nil))
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Code != c.code || !strings.Contains(err.Error(), c.says) || ce.Fix == "" {
			t.Errorf("%s: got %v; want code %s mentioning %q, with a fix", c.doc, err, c.code, c.says)
		}
	}
}

// TestConfigErrorsNameTheFirstInOrder: a file with several bad entries,
// or a server with several unset variables, is reported the same way on
// every load: the first by name, not whichever a map gave first.
func TestConfigErrorsNameTheFirstInOrder(t *testing.T) {
	for doc, says := range map[string]string{
		`{"mcpServers": {"b": {"command": 5}, "a": {"command": 6}, "c": {"command": 7}}}`:                        `"a"`,
		`{"mcpServers": {"a": {"command": "x", "env": {"K3": "${NOPE3}", "K1": "${NOPE1}", "K2": "${NOPE2}"}}}}`: "NOPE1",
	} {
		for range 20 {
			_, err := ParseJSON([]byte(doc), "", env(nil))
			if err == nil || !strings.Contains(err.Error(), says) {
				t.Fatalf("%s: got %v; want the error about %s", doc, err, says)
			}
		}
	}
}

func TestLoadFileResolvesPaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".cursor")
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"fs": {"command": "srv", "args": ["${workspaceFolder}"], "cwd": "sub"}}}`), 0o600)
	got, err := LoadFile(path, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Args[0] != filepath.Dir(dir) || got[0].Cwd != filepath.Join(dir, "sub") || got[0].Origin != path {
		t.Fatalf("got %+v", got[0])
	}
	_, err = LoadFile(filepath.Join(dir, "missing.json"), nil)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Code != CodeConfigUnreadable {
		t.Fatalf("missing file: %v", err)
	}
}

func TestCheckDoesNotMutateItsInput(t *testing.T) {
	in := []Server{{Name: "a", Command: "x", Args: []string{"${A}"}, Env: map[string]string{"K": "${A}"}}}
	if _, err := Check(in, "", env(map[string]string{"A": "1"})); err != nil {
		t.Fatal(err)
	}
	if in[0].Args[0] != "${A}" || in[0].Env["K"] != "${A}" {
		t.Fatalf("input changed: %+v", in[0])
	}
}

func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["${A:-b}"]}}}`))
	f.Add([]byte(`{"servers": {"b": {"url": "https://h/${env:A}"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseJSON(data, "", env(map[string]string{"A": "1"}))
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Code == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		for _, s := range got {
			if !s.Disabled && Segment(s.ID()) == "" && s.Namespace == "" {
				t.Fatalf("server %q has no namespace", s.Name)
			}
		}
	})
}
