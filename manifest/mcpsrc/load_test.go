//go:build linux

package mcpsrc

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/internal/testupstream"
	"github.com/intentsrv/intentsrv/operations"
)

// A configured server can be unloaded (its child ends, its operations
// leave the registry, OnChange runs) and loaded again; a disabled entry
// can be loaded; a name outside the configuration is refused with the
// configured names.
func TestFleetLoadAndUnload(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	reg := operations.NewRegistry()
	off := testServer(t, "later", "serve")
	off.Disabled = true
	f := startFleet(t, reg, Options{StartTimeout: 20 * time.Second}, testServer(t, "now", "serve", testupstream.EnvPIDFile, pidFile), off)
	var changes int
	f.OnChange(func() { changes++ })
	ctx := context.Background()
	if _, ok := reg.Get("later.echo"); ok {
		t.Fatal("a disabled server's tools are registered before it is loaded")
	}

	st, err := f.Load(ctx, "later")
	if err != nil || st.State != StateReady || st.Operations != testupstream.Tools {
		t.Fatalf("load: %+v, %v", st, err)
	}
	if out, err := reg.Call(ctx, "later.echo", json.RawMessage(`{"message":"hi"}`)); err != nil {
		t.Fatalf("call a loaded server: %s, %v", out, err)
	}
	if st, err := f.Load(ctx, "later"); err != nil || st.State != StateReady {
		t.Fatalf("loading a running server again: %+v, %v", st, err)
	}

	pid := readPID(t, pidFile)
	before := changes
	st, err = f.Unload("now")
	if err != nil || st.State != StateUnloaded {
		t.Fatalf("unload: %+v, %v", st, err)
	}
	waitGone(t, pid)
	if _, ok := reg.Get("now.echo"); ok {
		t.Fatal("an unloaded server's operations are still registered")
	}
	if changes == before {
		t.Fatal("unload did not run OnChange: the index would keep the server's tools")
	}
	if got := statusOf(f, "now"); got.State != StateUnloaded || got.Operations != 0 {
		t.Fatalf("status after unload: %+v", got)
	}
	if st, err := f.Unload("now"); err != nil || st.State != StateUnloaded {
		t.Fatalf("unloading a stopped server again: %+v, %v", st, err)
	}
	if st, err := f.Load(ctx, "now"); err != nil || st.State != StateReady {
		t.Fatalf("reload: %+v, %v", st, err)
	}
	if _, err := reg.Call(ctx, "now.echo", json.RawMessage(`{"message":"again"}`)); err != nil {
		t.Fatalf("call after reload: %v", err)
	}

	for _, op := range []func() error{
		func() error { _, err := f.Load(ctx, "/bin/sh -c rm"); return err },
		func() error { _, err := f.Unload("nobody"); return err },
	} {
		var oe *operations.Error
		if err := op(); !errors.As(err, &oe) || oe.Code != "invalid_params" {
			t.Fatalf("unknown server: %v", err)
		}
	}
}

// A server whose start fails is loaded (it restarts on next use) and Load
// says why with upstream_unavailable; Load after Close starts nothing.
func TestFleetLoadFailureAndClose(t *testing.T) {
	reg := operations.NewRegistry()
	bad := testServer(t, "bad", "fail")
	bad.Disabled = true
	late := testServer(t, "late", "serve")
	late.Disabled = true
	f := startFleet(t, reg, Options{StartTimeout: 20 * time.Second}, bad, late)
	var oe *operations.Error
	if _, err := f.Load(context.Background(), "bad"); !errors.As(err, &oe) || oe.Code != "upstream_unavailable" {
		t.Fatalf("load of a failing server: %v", err)
	}
	f.Close()
	if _, err := f.Load(context.Background(), "late"); !errors.As(err, &oe) || oe.Code != "upstream_unavailable" {
		t.Fatalf("load after close: %v", err)
	}
	if statusOf(f, "late").State == StateReady {
		t.Fatal("a server started after Close")
	}
}
