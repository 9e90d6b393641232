package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runIntentsrv runs the CLI in-process and returns its exit code, stdout
// and stderr.
func runIntentsrv(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestGateCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string // substrings of stdout
		wantErr  string   // substring of stderr
	}{
		{name: "embedded default passes", args: []string{"gate"}, wantCode: exitOK,
			wantOut: []string{"find", "describe", "ask", "tools/list", "o200k_base", "cl100k_base", "37 of 37 operations reachable", "PASS"}},
		{name: "writes on lists act and checks writes", args: []string{"gate", "--writes", "confirm"}, wantCode: exitOK,
			wantOut: []string{"act", "81 of 81 operations reachable"}},
		{name: "tight listing budget breaches", args: []string{"gate", "--max-list-tokens", "100"}, wantCode: exitFail,
			wantOut: []string{"BREACH list_tokens", "FAIL: 1 breach(es)"}},
		{name: "tool count budget breaches", args: []string{"gate", "--max-tools", "2", "--skip-reachability"}, wantCode: exitFail,
			wantOut: []string{"BREACH tool_count", "reachability: not checked"}},
		{name: "long host server name breaches", args: []string{"gate", "--host-server-name", strings.Repeat("x", 50), "--skip-reachability"}, wantCode: exitFail,
			wantOut: []string{"BREACH host_prefix"}},
		{name: "flat comparison", args: []string{"gate", "--compare-flat", "--skip-reachability"}, wantCode: exitOK,
			wantOut: []string{"flat listing (one tool per operation): 37 tools", "x the intent listing"}},
		{name: "generated catalog", args: []string{"gate", "--synth", "300", "--writes", "allow"}, wantCode: exitOK,
			wantOut: []string{"300 of 300 operations reachable"}},
		{name: "generated catalog, listing only", args: []string{"gate", "--synth", "300", "--skip-reachability"}, wantCode: exitOK,
			wantOut: []string{"tools/list", "reachability: not checked", "PASS"}},
		{name: "bad encoding", args: []string{"gate", "--encoding", "p50k_base"}, wantCode: exitUsage, wantErr: "p50k_base"},
		{name: "bad write policy", args: []string{"gate", "--writes", "sometimes"}, wantCode: exitUsage, wantErr: "sometimes"},
		{name: "stray argument", args: []string{"gate", "extra"}, wantCode: exitUsage, wantErr: "unexpected arguments"},
		{name: "write-baseline needs a file", args: []string{"gate", "--write-baseline"}, wantCode: exitUsage, wantErr: "--baseline FILE"},
		{name: "missing baseline", args: []string{"gate", "--baseline", filepath.Join(t.TempDir(), "none.json")}, wantCode: exitUsage, wantErr: "--write-baseline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runIntentsrv(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantErr, errOut)
			}
		})
	}
}

func TestGateJSON(t *testing.T) {
	code, out, errOut := runIntentsrv(t, "gate", "--json", "--writes", "confirm", "--compare-flat")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Passed bool `json:"passed"`
		Tools  []struct {
			Name   string         `json:"name"`
			Tokens map[string]int `json:"tokens"`
			Lines  int            `json:"lines"`
		} `json:"tools"`
		List struct {
			Tokens   map[string]int `json:"tokens"`
			Enforced int            `json:"enforced"`
		} `json:"list"`
		Operations  int   `json:"operations"`
		Unreachable []any `json:"unreachable"`
		Breaches    []any `json:"breaches"`
		Flat        struct {
			Tools int     `json:"tools"`
			Ratio float64 `json:"ratio"`
		} `json:"flat"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !r.Passed || len(r.Tools) != 4 || r.Operations != 81 || r.Unreachable == nil || r.Breaches == nil {
		t.Errorf("report = %+v", r)
	}
	if r.List.Tokens["o200k_base"] == 0 || r.List.Tokens["cl100k_base"] == 0 ||
		r.List.Enforced != max(r.List.Tokens["o200k_base"], r.List.Tokens["cl100k_base"]) {
		t.Errorf("list tokens = %+v", r.List)
	}
	if r.Flat.Tools != 81 || r.Flat.Ratio <= 1 {
		t.Errorf("flat = %+v", r.Flat)
	}
}

func TestGateBaseline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gate-baseline.json")
	if code, _, errOut := runIntentsrv(t, "gate", "--baseline", path, "--write-baseline", "--skip-reachability"); code != exitOK {
		t.Fatalf("write baseline: exit %d: %s", code, errOut)
	}
	steps := []struct {
		args     []string
		wantCode int
		wantOut  string
	}{
		{[]string{"--skip-reachability"}, exitOK, `tools/list +(\d+) -> +\d+ +\+0\.0%`},
		// Enabling writes adds act: the listing grows by more than 10%.
		{[]string{"--skip-reachability", "--writes", "confirm"}, exitFail, "BREACH growth: tools/list grew"},
		{[]string{"--skip-reachability", "--writes", "confirm", "--max-growth", "50"}, exitOK, `act +new`},
	}
	for _, s := range steps {
		code, out, errOut := runIntentsrv(t, append([]string{"gate", "--baseline", path}, s.args...)...)
		if code != s.wantCode || !regexp.MustCompile(s.wantOut).MatchString(out) {
			t.Errorf("%v: exit %d (want %d), stdout does not match %q?\n%s%s", s.args, code, s.wantCode, s.wantOut, out, errOut)
		}
	}
}

// TestGateBudgetsFromConfig: the config file's gate section sets budgets,
// and a flag on the command line wins over it.
func TestGateBudgetsFromConfig(t *testing.T) {
	spec, err := filepath.Abs("../../testdata/openapi/tracker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "intentsrv.yaml")
	body := "sources:\n  - name: tracker\n    openapi: " + spec + "\n    mock: true\ngate:\n  max_tools: 2\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	if code := run(context.Background(), []string{"gate", "--config", cfg, "--openapi-cache", "off"}, nil, &out, &errOut); code != exitFail {
		t.Fatalf("config budget of 2 tools: exit %d, want 1\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "the budget is 2") {
		t.Fatalf("report does not name the config budget:\n%s", out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"gate", "--config", cfg, "--openapi-cache", "off", "--max-tools", "4"}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("flag should win over config: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
