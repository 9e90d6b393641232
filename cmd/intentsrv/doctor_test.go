package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
		{name: "embedded default", args: nil, env: map[string]string{"INTENTSRV_PLAN_KEY": "k-0123456789abcdef0123456789abcdef"}, wantCode: exitOK,
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
	t.Setenv("INTENTSRV_PLAN_KEY", "secret-value-0123456789abcdef0123456789")
	code, out, _ := runIntentsrv(t, "doctor")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(doctorChecks()) {
		t.Errorf("%d lines for %d checks:\n%s", len(lines), len(doctorChecks()), out)
	}
	if strings.Contains(out, "secret-value-0123") {
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

// TestDoctorAuthAndNetwork: doctor names the credential variables a spec's
// security schemes need (set or unset, never their values), and with
// --check-network probes each base URL.
func TestDoctorAuthAndNetwork(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }))
	defer up.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	spec := "tracker=../../testdata/openapi/tracker.yaml"
	cache := []string{"--openapi-cache", "off"}

	t.Setenv("TRACKER_TOKEN", "")
	t.Setenv("TRACKER_API_KEY", "")
	_, out, _ := runIntentsrv(t, append([]string{"doctor", "--openapi", spec}, cache...)...)
	if !strings.Contains(out, "warn  auth") || !strings.Contains(out, "TRACKER_TOKEN (bearerAuth)") || !strings.Contains(out, "skip  network") {
		t.Fatalf("unset credentials should warn and name the variable:\n%s", out)
	}
	t.Setenv("TRACKER_TOKEN", "s3cret-value")
	t.Setenv("TRACKER_API_KEY", "another-s3cret")
	_, out, _ = runIntentsrv(t, append([]string{"doctor", "--openapi", spec, "--base-url", up.URL, "--check-network"}, cache...)...)
	if !strings.Contains(out, "ok    auth     tracker: TRACKER_API_KEY, TRACKER_TOKEN set") || !strings.Contains(out, "ok    network") {
		t.Fatalf("want auth and network ok:\n%s", out)
	}
	if strings.Contains(out, "s3cret") {
		t.Fatalf("doctor printed a credential:\n%s", out)
	}
	code, out, _ := runIntentsrv(t, append([]string{"doctor", "--openapi", spec, "--base-url", closedURL, "--check-network"}, cache...)...)
	if code != exitFail || !strings.Contains(out, "fail  network") {
		t.Fatalf("an unreachable base URL should fail (exit %d):\n%s", code, out)
	}
}

// TestDoctorRelativeServer: a spec whose only server is relative has
// nowhere to send requests; doctor says so without touching the network.
func TestDoctorRelativeServer(t *testing.T) {
	spec, err := os.ReadFile("../../testdata/openapi/tracker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rel := strings.Replace(string(spec), "https://tracker.example/api/v1", "/api/v1", 1)
	path := filepath.Join(t.TempDir(), "tracker.yaml")
	if err := os.WriteFile(path, []byte(rel), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runIntentsrv(t, "doctor", "--openapi", "tracker="+path, "--openapi-cache", "off")
	if code != exitFail || !strings.Contains(out, "fail  network  tracker: no absolute base URL") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if code, out, _ := runIntentsrv(t, "doctor", "--openapi", "tracker="+path, "--openapi-cache", "off", "--base-url", "http://127.0.0.1:9"); strings.Contains(out, "no absolute base URL") {
		t.Fatalf("--base-url should satisfy the check (exit %d):\n%s", code, out)
	}
}

// TestDoctorListsKindOverrides: an operator's overlay may serve a DELETE as
// a read; doctor names every such override, and has nothing to say
// without one.
func TestDoctorListsKindOverrides(t *testing.T) {
	spec := "tracker=../../testdata/openapi/tracker.yaml"
	ov := writeFile(t, t.TempDir(), "lower.overlay.yaml", "rules:\n  - match: tracker.projects.delete\n    kind: read\n")
	_, out, _ := runIntentsrv(t, "doctor", "--openapi", spec, "--openapi-cache", "off")
	if !strings.Contains(out, "ok    kinds") {
		t.Fatalf("no override, no warning:\n%s", out)
	}
	_, out, _ = runIntentsrv(t, "doctor", "--openapi", spec, "--openapi-cache", "off", "--overlay", ov)
	if !strings.Contains(out, "warn  kinds") || !strings.Contains(out, "tracker.projects.delete: DELETE") || !strings.Contains(out, "served as read") {
		t.Fatalf("a DELETE served as a read should be listed:\n%s", out)
	}
	// A POST named for a removal is destructive; served as a plain write,
	// it is an override too, and doctor says why.
	dir := t.TempDir()
	rpc := writeFile(t, dir, "store.yaml", `openapi: 3.0.3
info: {title: store, version: "1"}
servers: [{url: "https://store.example"}]
paths:
  /:
    post:
      operationId: DeleteBucket
      summary: Deletes a bucket
      responses: {"200": {description: ok}}
`)
	ov = writeFile(t, dir, "write.overlay.yaml", "rules:\n  - match: store.api.delete_bucket\n    kind: write\n")
	_, out, _ = runIntentsrv(t, "doctor", "--openapi", "store="+rpc, "--openapi-cache", "off")
	if !strings.Contains(out, "ok    kinds") {
		t.Fatalf("no override, no warning:\n%s", out)
	}
	_, out, _ = runIntentsrv(t, "doctor", "--openapi", "store="+rpc, "--openapi-cache", "off", "--overlay", ov)
	if !strings.Contains(out, "store.api.delete_bucket: POST / is served as write by an operator overlay; it is named for a removal, which makes it destructive") {
		t.Fatalf("a POST DeleteBucket served as a write should be listed:\n%s", out)
	}
}

// TestDoctorListsTextPolicyRefusals: an operation refused because a
// required name reads as an instruction is named by doctor, with the way
// forward; a clean spec has nothing to report.
func TestDoctorListsTextPolicyRefusals(t *testing.T) {
	_, out, _ := runIntentsrv(t, "doctor", "--openapi", "tracker=../../testdata/openapi/tracker.yaml", "--openapi-cache", "off")
	if !strings.Contains(out, "ok    text") {
		t.Fatalf("a clean spec should pass the text check:\n%s", out)
	}
	_, out, _ = runIntentsrv(t, "doctor", "--openapi", "shop=../../testdata/hostile/names-and-mock.yaml", "--openapi-cache", "off")
	if !strings.Contains(out, "warn  text     shop: GET /widgets/search: refused") || !strings.Contains(out, "--deny") {
		t.Fatalf("a refused operation should be listed:\n%s", out)
	}
	if !strings.Contains(out, "dropped") {
		t.Fatalf("dropped names should be counted:\n%s", out)
	}
}

// A plan key too short to sign with is refused with a way forward, at
// start-up rather than at the first preview.
func TestShortPlanKeyIsRefusedAtStart(t *testing.T) {
	t.Setenv("INTENTSRV_PLAN_KEY", "short")
	code, out, errOut := runIntentsrv(t, "doctor")
	if code == exitOK || !strings.Contains(out+errOut, "at least 32") {
		t.Fatalf("exit %d; want a failure naming the minimum length:\n%s\n%s", code, out, errOut)
	}
}
