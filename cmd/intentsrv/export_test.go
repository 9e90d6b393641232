package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var updateExport = flag.Bool("update-export", false, "rewrite the export goldens in testdata/gate/export")

var hostLegal = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// exportedNames pulls the tool names out of an export in any format.
func exportedNames(t *testing.T, format string, out []byte) []string {
	t.Helper()
	var names []string
	switch format {
	case formatMCP:
		var l struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(out, &l); err != nil {
			t.Fatalf("not a tools/list result: %v", err)
		}
		for _, tool := range l.Tools {
			if len(tool.InputSchema) == 0 {
				t.Errorf("%s has no inputSchema", tool.Name)
			}
			names = append(names, tool.Name)
		}
	case formatOpenAI:
		var tools []openAITool
		if err := json.Unmarshal(out, &tools); err != nil {
			t.Fatalf("not an OpenAI tools array: %v", err)
		}
		for _, tool := range tools {
			if tool.Type != "function" || len(tool.Function.Parameters) == 0 {
				t.Errorf("%+v is not a function tool with parameters", tool)
			}
			names = append(names, tool.Function.Name)
		}
	case formatAnthropic:
		var tools []anthropicTool
		if err := json.Unmarshal(out, &tools); err != nil {
			t.Fatalf("not an Anthropic tools array: %v", err)
		}
		for _, tool := range tools {
			if tool.Type == "" && len(tool.InputSchema) == 0 {
				t.Errorf("%s has no input_schema", tool.Name)
			}
			names = append(names, tool.Name)
		}
	}
	return names
}

func TestExport(t *testing.T) {
	tests := []struct {
		format    string
		flat      bool
		writes    string
		wantTools int
		golden    string
	}{
		{format: formatMCP, writes: "deny", wantTools: 3, golden: "mcp.json"},
		{format: formatOpenAI, writes: "confirm", wantTools: 4, golden: "openai.json"},
		{format: formatAnthropic, writes: "confirm", wantTools: 4, golden: "anthropic.json"},
		{format: formatMCP, flat: true, writes: "deny", wantTools: 37},
		{format: formatOpenAI, flat: true, writes: "confirm", wantTools: 81},
		{format: formatAnthropic, flat: true, writes: "allow", wantTools: 81},
	}
	for _, tt := range tests {
		name := tt.format
		if tt.flat {
			name += "-flat"
		}
		t.Run(name, func(t *testing.T) {
			args := []string{"export", "--format", tt.format, "--writes", tt.writes}
			if tt.flat {
				args = append(args, "--flat")
			}
			code, out, errOut := runIntentsrv(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			names := exportedNames(t, tt.format, []byte(out))
			if len(names) != tt.wantTools {
				t.Errorf("%d tools, want %d", len(names), tt.wantTools)
			}
			seen := map[string]bool{}
			for _, n := range names {
				if !hostLegal.MatchString(n) || seen[n] {
					t.Errorf("tool name %q is not host-legal or not unique", n)
				}
				seen[n] = true
			}
			if tt.golden == "" {
				return
			}
			path := filepath.Join("..", "..", "testdata", "gate", "export", tt.golden)
			if *updateExport {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/intentsrv -run TestExport -update-export)", err)
			}
			if !bytes.Equal([]byte(out), want) {
				t.Errorf("export changed; if deliberate, run go test ./cmd/intentsrv -run TestExport -update-export\ngot:\n%s", out)
			}
		})
	}
}

func TestExportDefer(t *testing.T) {
	code, out, errOut := runIntentsrv(t, "export", "--format", "anthropic", "--flat", "--defer")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var tools []anthropicTool
	if err := json.Unmarshal([]byte(out), &tools); err != nil {
		t.Fatal(err)
	}
	if tools[0].Type != anthropicToolSearch.Type || tools[0].Name != anthropicToolSearch.Name {
		t.Errorf("first tool = %+v, want the tool search tool", tools[0])
	}
	for _, tool := range tools[1:] {
		if !tool.DeferLoading {
			t.Errorf("%s is not deferred", tool.Name)
		}
	}
	if len(tools) != 38 {
		t.Errorf("%d tools, want the search tool and 37 operations", len(tools))
	}
}

func TestExportToFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.json")
	code, out, errOut := runIntentsrv(t, "export", "--format", "openai", "-o", path)
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, out, errOut)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if names := exportedNames(t, formatOpenAI, raw); len(names) != 3 {
		t.Errorf("file holds %v", names)
	}
}

func TestExportUsage(t *testing.T) {
	tests := [][]string{
		{"export", "--format", "gemini"},
		{"export", "--format", "anthropic", "--defer"},
		{"export", "--format", "openai", "--flat", "--defer"},
		{"export", "stray"},
	}
	for _, args := range tests {
		if code, _, _ := runIntentsrv(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
