package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/internal/redistest"
)

// countingUpstream is the tracker API on loopback: it counts the DELETEs
// that reach it, the side effect at-most-once is about.
func countingUpstream(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var deletes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deletes.Add(1)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &deletes
}

// startReplica is one intentsrv serve --http process on the tracker spec,
// confirming destructive calls, with the shared plan key and store, and
// extra flags.
func startReplica(t *testing.T, upstream, store string, extra ...string) string {
	t.Helper()
	spec, err := filepath.Abs(filepath.Join("..", "..", "testdata", "openapi", "tracker.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base, _, _ := startHTTPServerEnv(t,
		[]string{"INTENTSRV_PLAN_KEY=" + strings.Repeat("replica-plan-key-", 3), "TRACKER_TOKEN=e2e"},
		append([]string{"--openapi", "tracker=" + spec, "--base-url", upstream, "--openapi-cache", "off",
			"--writes", "confirm", "--plan-store", store, "--rate", "0"}, extra...)...)
	return base
}

// previewRef asks base for a preview of call and returns its plan_ref.
func previewRef(t *testing.T, base string, call map[string]any) string {
	t.Helper()
	env := restAct(t, base, call)
	var d struct {
		PlanRef string `json:"plan_ref"`
	}
	if json.Unmarshal(env.Details, &d); env.Code != "confirmation_required" || d.PlanRef == "" {
		t.Fatalf("no preview: %+v", env)
	}
	return d.PlanRef
}

func with(call map[string]any, kv ...string) map[string]any {
	out := map[string]any{}
	for k, v := range call {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func deleteProject(id string) map[string]any {
	return map[string]any{"action": "tracker.projects.delete", "params": map[string]any{"projectId": id}}
}

// TestE2ERedisReplicasRunAPlanRefOnce runs two intentsrv processes against
// one real redis-server: a plan_ref previewed on A and sent to both at once
// reaches the upstream exactly once; with Redis killed, a confirmation
// says upstream_unavailable and nothing reaches the upstream; once Redis is
// back, the same confirmation runs, once. A's audit log records the
// confirmation refused while Redis was down as refused, not failed.
func TestE2ERedisReplicasRunAPlanRefOnce(t *testing.T) {
	rds := redistest.Start(t)
	upstream, deletes := countingUpstream(t)
	auditA := filepath.Join(t.TempDir(), "audit.jsonl")
	a := startReplica(t, upstream, rds.URL(), "--audit-log", auditA)
	b := startReplica(t, upstream, rds.URL())

	for round := 0; round < 3; round++ {
		before := deletes.Load()
		confirm := with(deleteProject("prj_race"), "plan_ref", previewRef(t, a, deleteProject("prj_race")))
		var wg sync.WaitGroup
		var ran, refused atomic.Int64
		start := make(chan struct{})
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				env, err := postAct([]string{a, b}[i%2], confirm)
				switch {
				case err != nil:
					t.Error(err)
				case env.OK:
					ran.Add(1)
				case env.Code == "plan_invalid":
					refused.Add(1)
				default:
					t.Errorf("confirm: %+v", env)
				}
			}()
		}
		close(start)
		wg.Wait()
		if ran.Load() != 1 || refused.Load() != 7 || deletes.Load()-before != 1 {
			t.Fatalf("round %d: %d ran, %d refused, %d DELETEs reached the upstream; want 1, 7, 1", round, ran.Load(), refused.Load(), deletes.Load()-before)
		}
	}

	// Redis killed mid-run.
	before := deletes.Load()
	confirm := with(deleteProject("prj_down"), "plan_ref", previewRef(t, a, deleteProject("prj_down")))
	rds.Kill()
	for _, base := range []string{a, b} {
		env := restAct(t, base, confirm)
		if env.Code != "upstream_unavailable" || env.Remedy == nil || !strings.Contains(env.Error, "nothing ran") {
			t.Fatalf("confirm with redis down: %+v", env)
		}
	}
	if deletes.Load() != before {
		t.Fatal("a call ran while the store was down")
	}
	if last := lastAuditLine(t, auditA); !strings.Contains(last, `"outcome":"refused","code":"upstream_unavailable"`) {
		t.Fatalf("audit of the confirmation with redis down: %s", last)
	}
	rds.Restart()
	if env := restAct(t, b, confirm); !env.OK {
		t.Fatalf("confirm after redis came back: %+v", env)
	}
	if env := restAct(t, a, confirm); env.Code != "plan_invalid" {
		t.Fatalf("replay on the other replica: %+v", env)
	}
	if deletes.Load()-before != 1 {
		t.Fatalf("%d DELETEs after recovery, want 1", deletes.Load()-before)
	}
}

// TestE2ERedisIdempotencyKeyAcrossReplicas confirms a delete with an
// idempotency key on A, retries it on B (with a fresh plan_ref, as an
// agent that lost the answer would), and reuses the key for another call.
func TestE2ERedisIdempotencyKeyAcrossReplicas(t *testing.T) {
	rds := redistest.Start(t)
	upstream, deletes := countingUpstream(t)
	a := startReplica(t, upstream, rds.URL())
	b := startReplica(t, upstream, rds.URL())

	call := deleteProject("prj_idem")
	first := restAct(t, a, with(call, "plan_ref", previewRef(t, a, call), "idempotency_key", "agent-42-step-3"))
	if !first.OK || first.Meta.Replayed {
		t.Fatalf("first: %+v", first)
	}
	retry := restAct(t, b, with(call, "plan_ref", previewRef(t, b, call), "idempotency_key", "agent-42-step-3"))
	if !retry.OK || !retry.Meta.Replayed || string(retry.Data) != string(first.Data) {
		t.Fatalf("retry on B: %+v", retry)
	}
	other := deleteProject("prj_other")
	conflict := restAct(t, b, with(other, "plan_ref", previewRef(t, b, other), "idempotency_key", "agent-42-step-3"))
	if conflict.Code != "conflict" || conflict.Remedy == nil || !strings.Contains(conflict.Remedy.Fix, "fresh idempotency_key") {
		t.Fatalf("same key, other call: %+v", conflict)
	}
	if deletes.Load() != 1 {
		t.Fatalf("%d DELETEs reached the upstream, want 1", deletes.Load())
	}
}

// TestE2ERedisUnreachableAtStart refuses to start, naming the store.
func TestE2ERedisUnreachableAtStart(t *testing.T) {
	rds := redistest.Start(t)
	url := rds.URL()
	rds.Kill()
	cmd := exec.Command(intentsrvBinary(t), "serve", "--plan-store", url)
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitUsage || !strings.Contains(string(out), "plan store") || !strings.Contains(string(out), rds.Addr()) {
		t.Fatalf("exit %v:\n%s", err, out)
	}
}

// TestStdioPlanStoreRefusesASecondProcess runs serve on stdio with a bbolt
// plan store, then a second process on the same file: it is refused.
func TestStdioPlanStoreRefusesASecondProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plans.db")
	first := exec.Command(intentsrvBinary(t), "serve", "--plan-store", path)
	first.Env = cleanEnv()
	stdin, err := first.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	first.Stderr = stderr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); first.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), "serving MCP on stdio") {
		if time.Now().After(deadline) {
			t.Fatalf("first process did not start:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	second := exec.Command(intentsrvBinary(t), "serve", "--plan-store", path)
	second.Env = cleanEnv()
	out, err := second.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitUsage || !strings.Contains(string(out), "in use by another process") {
		t.Fatalf("second process: %v\n%s", err, out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// lastAuditLine is the last line of the audit log at path.
func lastAuditLine(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	return lines[len(lines)-1]
}
