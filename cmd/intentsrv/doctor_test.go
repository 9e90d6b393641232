package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestDoctor(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		want     []string // "status check" pairs that must appear, in order
	}{
		{name: "embedded default", args: nil, env: map[string]string{"INTENTSRV_PLAN_KEY": "k"}, wantCode: exitOK,
			want: []string{"ok config", "ok sources", "ok writes", "ok env", "ok gate"}},
		{name: "plan key unset warns", args: nil, env: map[string]string{"INTENTSRV_PLAN_KEY": ""}, wantCode: exitOK,
			want: []string{"ok config", "warn env", "ok gate"}},
		{name: "bad configuration fails and skips the rest", args: []string{"--writes", "maybe"}, wantCode: exitFail,
			want: []string{"fail config", "skip sources", "skip writes", "skip gate"}},
		{name: "everything denied leaves a source empty", args: []string{"--deny", "*"}, wantCode: exitOK,
			want: []string{"ok config", "warn sources"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			if v, ok := tt.env["INTENTSRV_PLAN_KEY"]; ok && v == "" {
				unsetenv(t, "INTENTSRV_PLAN_KEY")
			}
			code, out, errOut := runIntentsrv(t, append([]string{"doctor", "--json"}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.wantCode, out, errOut)
			}
			var r struct {
				Passed bool      `json:"passed"`
				Checks []finding `json:"checks"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			var got []string
			for _, c := range r.Checks {
				got = append(got, c.Status+" "+c.Check)
			}
			i := 0
			for _, g := range got {
				if i < len(tt.want) && g == tt.want[i] {
					i++
				}
			}
			if i < len(tt.want) {
				t.Errorf("findings %q lack %q in order", got, tt.want)
			}
			if r.Passed != (tt.wantCode == exitOK) {
				t.Errorf("passed = %v with exit %d", r.Passed, code)
			}
		})
	}
}

func TestDoctorText(t *testing.T) {
	t.Setenv("INTENTSRV_PLAN_KEY", "secret-value")
	code, out, _ := runIntentsrv(t, "doctor")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(doctorChecks()) {
		t.Errorf("%d lines for %d checks:\n%s", len(lines), len(doctorChecks()), out)
	}
	if strings.Contains(out, "secret-value") {
		t.Error("doctor printed an environment variable's value")
	}
	if !strings.Contains(out, "go: 81 operations, 37 visible") {
		t.Errorf("no per-source count:\n%s", out)
	}
}

// unsetenv removes a variable for the test's duration (t.Setenv first, so
// it is restored afterwards).
func unsetenv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "")
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}
