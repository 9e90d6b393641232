package mcpsrc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/intentsrv/intentsrv/operations"
)

// StateUnloaded is the state of a server Unload stopped; Load starts it
// again.
const StateUnloaded State = "unloaded"

// Codes of the errors Load and Unload return (as *operations.Error, so the
// intent layer passes them to the agent with their fix).
const (
	// CodeUnknownServer: the name is not a server of the operator's
	// configuration. Only configured servers can be loaded.
	CodeUnknownServer = "invalid_params"
	// CodeUnavailable: the server was loaded but its start failed; it
	// stays loaded and restarts on next use, with backoff.
	CodeUnavailable = "upstream_unavailable"
)

// Load starts the configured, not running server name (an entry marked
// "disabled", or one Unload stopped) and registers its tools, waiting for
// its start within its start timeout or until ctx ends. Only servers of
// the configuration the fleet was started with can be loaded: name is
// looked up there, never run as a command. Loading a running server is
// not an error: its status is returned as it is. A server whose start
// fails stays loaded (a later call restarts it, with backoff) and Load
// returns its status with an error coded upstream_unavailable.
func (f *Fleet) Load(ctx context.Context, name string) (Status, error) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return Status{}, &operations.Error{Code: CodeUnavailable, Message: "the upstream fleet is shutting down", Fix: "retry after intentsrv restarts"}
	}
	if i := slices.IndexFunc(f.conns, func(c *conn) bool { return c.srv.Name == name }); i >= 0 {
		c := f.conns[i]
		f.mu.Unlock()
		return f.statusOf(c), nil
	}
	i := slices.IndexFunc(f.disabled, func(s Server) bool { return s.Name == name })
	if i < 0 {
		err := f.unknownLocked(name)
		f.mu.Unlock()
		return Status{}, err
	}
	srv := f.disabled[i]
	if j := slices.IndexFunc(f.conns, func(c *conn) bool { return c.srv.ID() == srv.ID() }); j >= 0 {
		other := f.conns[j].srv.Name
		f.mu.Unlock()
		return Status{}, &operations.Error{Code: CodeUnknownServer,
			Message: fmt.Sprintf("server %q would serve its tools under %q, which the running server %q already uses", name, srv.ID(), other),
			Fix:     fmt.Sprintf("unload %q first, or give one of them another namespace in the configuration", other)}
	}
	f.disabled = slices.Delete(f.disabled, i, i+1)
	delete(f.unloaded, name)
	f.mu.Unlock()
	f.log.Info("upstream loaded at run time", "upstream", name)
	done, _ := f.add(srv)
	var c *conn
	for _, x := range f.live() {
		if x.srv.Name == name {
			c = x
		}
	}
	if c == nil { // unloaded again meanwhile
		return Status{Server: name, Namespace: srv.ID(), Transport: srv.Transport(), State: StateUnloaded}, nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return f.statusOf(c), nil // still starting; calls wait for it
	}
	st := f.statusOf(c)
	if st.State == StateFailed && st.Operations == 0 {
		return st, &operations.Error{Code: CodeUnavailable, Details: st,
			Message: fmt.Sprintf("server %q was loaded but did not start: %s", name, st.Error),
			Fix:     "check the server's command and environment in the configuration (intentsrv doctor); it restarts on next use, or unload it"}
	}
	return st, nil
}

// Unload stops the running server name: its session and child process end
// and its operations leave the registry (OnChange's function runs). The
// server stays in the configuration, and Load starts it again. Unloading a
// server that is not running is not an error.
func (f *Fleet) Unload(name string) (Status, error) {
	f.mu.Lock()
	i := slices.IndexFunc(f.conns, func(c *conn) bool { return c.srv.Name == name })
	if i < 0 {
		j := slices.IndexFunc(f.disabled, func(s Server) bool { return s.Name == name })
		if j < 0 {
			err := f.unknownLocked(name)
			f.mu.Unlock()
			return Status{}, err
		}
		srv := f.disabled[j]
		f.mu.Unlock()
		state := StateDisabled
		if f.isUnloaded(name) {
			state = StateUnloaded
		}
		return Status{Server: name, Namespace: srv.ID(), Transport: srv.Transport(), State: state}, nil
	}
	c := f.conns[i]
	f.conns = slices.Delete(f.conns, i, i+1)
	for _, id := range f.registered[name] {
		f.reg.Remove(id)
		delete(f.declared, id)
	}
	delete(f.registered, name)
	delete(f.cached, name)
	f.disabled = append(f.disabled, c.srv)
	f.unloaded[name] = true
	onChange := f.onChange
	f.mu.Unlock()
	if onChange != nil {
		onChange()
	}
	if err := c.close(); err != nil {
		f.log.Warn("upstream did not close cleanly", "upstream", name, "err", err)
	}
	f.log.Info("upstream unloaded at run time", "upstream", name)
	return Status{Server: name, Namespace: c.srv.ID(), Transport: c.srv.Transport(), State: StateUnloaded}, nil
}

func (f *Fleet) isUnloaded(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.unloaded[name]
}

// statusOf is c's status with the fleet's counts.
func (f *Fleet) statusOf(c *conn) Status {
	s := c.status()
	f.mu.Lock()
	s.Operations = len(f.registered[s.Server])
	s.Cached = f.cached[s.Server]
	f.mu.Unlock()
	return s
}

// unknownLocked is the error for a name no configured server has; the
// caller holds f.mu.
func (f *Fleet) unknownLocked(name string) error {
	var names []string
	for _, c := range f.conns {
		names = append(names, c.srv.Name)
	}
	for _, d := range f.disabled {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return &operations.Error{Code: CodeUnknownServer,
		Message: fmt.Sprintf("no server named %q in the configuration; configured: %s", name, strings.Join(names, ", ")),
		Fix:     "use a name intentsrv.upstreams.list shows; a server that is not in the operator's configuration cannot be loaded",
		Details: map[string]any{"configured": names}}
}
