package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
)

func TestFilePlanStore(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	path := filepath.Join(t.TempDir(), "used")
	a := &filePlanStore{path: path, now: func() time.Time { return now }}
	b := &filePlanStore{path: path, now: func() time.Time { return now }} // another process
	ctx := context.Background()
	if err := a.Consume(ctx, "ref1", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := b.Consume(ctx, "ref1", now.Add(time.Minute)); !errors.Is(err, intent.ErrPlanUsed) {
		t.Fatalf("second consume = %v, want ErrPlanUsed", err)
	}
	if err := b.Consume(ctx, "ref2", now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	if err := a.Consume(ctx, "ref3", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if strings.Contains(string(got), "ref1") || strings.Contains(string(got), "ref2") || !strings.Contains(string(got), "ref3") {
		t.Fatalf("expired refs were not swept: %q", got)
	}
}

// TestCLIPlanRefRunsOnce confirms a preview from one CLI run in the next,
// and refuses the same plan_ref on the run after: the CLI keeps its record
// of executed plans on disk.
func TestCLIPlanRefRunsOnce(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("INTENTSRV_PLAN_KEY", "")
	ctx := context.Background()
	var out, errOut strings.Builder
	if code := run(ctx, []string{"act", "helpdesk.tickets.delete", `{"ticket_id": 7}`}, nil, &out, &errOut); code != exitFail {
		t.Fatalf("preview exit = %d, stderr %s", code, errOut.String())
	}
	i := strings.Index(out.String(), `"plan_ref": "`)
	if i < 0 {
		t.Fatalf("no plan_ref in %s", out.String())
	}
	ref := out.String()[i+len(`"plan_ref": "`):]
	ref = ref[:strings.IndexByte(ref, '"')]
	for n, want := range []int{exitOK, exitFail} {
		out.Reset()
		code := run(ctx, []string{"act", "helpdesk.tickets.delete", `{"ticket_id": 7}`, "--plan-ref", ref}, nil, &out, &errOut)
		if code != want {
			t.Fatalf("confirmation %d: exit %d, want %d: %s", n+1, code, want, out.String())
		}
	}
	if !strings.Contains(out.String(), "plan_invalid") {
		t.Fatalf("replay should be plan_invalid: %s", out.String())
	}
}
