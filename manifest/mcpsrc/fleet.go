package mcpsrc

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/operations"
)

// DefaultStartTimeout bounds one upstream's start (connect, initialize,
// tools/list) when neither the fleet nor the server sets another.
const DefaultStartTimeout = 30 * time.Second

// StateDisabled is the state of a server its entry disables.
const StateDisabled State = "disabled"

// Options configure a Fleet.
type Options struct {
	// StartTimeout bounds each server's start; zero means
	// DefaultStartTimeout. A server's start_timeout wins.
	StartTimeout time.Duration
	// CacheDir holds tools lists between runs; "" disables the cache.
	CacheDir string
	// Logger receives lifecycle reports; nil discards them.
	Logger *slog.Logger
	// Prepare filters and corrects one server's operations (include and
	// exclude globs, overlays) before they are registered, on every start
	// and every tools/list_changed. Nil registers them as built. An error
	// leaves the server's previous operations in place and is logged.
	Prepare func(srv Server, ops []operations.Operation) ([]operations.Operation, error)
}

// Status is one upstream's health, for describe's overview, doctor and the
// log.
type Status struct {
	Server     string        `json:"server"`
	Namespace  string        `json:"namespace"`
	Transport  Transport     `json:"transport"`
	State      State         `json:"state"`
	Tools      int           `json:"tools"`      // in the upstream's last tools/list
	Operations int           `json:"operations"` // registered now (after filters and overlays)
	StartedIn  time.Duration `json:"started_in,omitempty"`
	Cached     bool          `json:"cached,omitempty"` // its operations were first served from the tools cache
	Error      string        `json:"error,omitempty"`
}

// Fleet runs every configured upstream MCP server and keeps the registry's
// operations in step with their tools. It is safe for concurrent use.
type Fleet struct {
	reg   *operations.Registry
	opts  Options
	log   *slog.Logger
	cache toolCache

	// Under mu once Start returns: Load and Unload move servers between
	// the two lists.
	conns    []*conn  // running servers
	disabled []Server // configured, not running: listed in Status, loadable

	mu         sync.Mutex
	registered map[string][]string        // server name -> its operation ids
	declared   map[string]operations.Kind // operation id -> kind its annotations and name imply (ToolKind)
	cached     map[string]bool            // servers first served from the cache
	unloaded   map[string]bool            // disabled servers that Unload stopped
	closed     bool                       // Close was called: Load refuses
	onChange   func()
}

// Start starts every enabled server in parallel and registers their tools
// into reg. A server whose tools are in the cache is registered from it at
// once and connects in the background; Start waits for the others, each
// within its start timeout (or until ctx ends), so that a server that fails
// or hangs is reported and never holds the rest. Calls to a server still
// starting wait for it within the call's own deadline.
func Start(ctx context.Context, reg *operations.Registry, servers []Server, opts Options) *Fleet {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	f := &Fleet{reg: reg, opts: opts, log: opts.Logger, cache: toolCache{dir: opts.CacheDir},
		registered: map[string][]string{}, declared: map[string]operations.Kind{}, cached: map[string]bool{}, unloaded: map[string]bool{}}
	var wait []chan struct{}
	for _, srv := range servers {
		if srv.Disabled {
			f.disabled = append(f.disabled, srv)
			f.log.Info("upstream disabled in its config; skipped", "upstream", srv.Name)
			continue
		}
		if done, hit := f.add(srv); !hit {
			wait = append(wait, done)
		}
	}
	for _, d := range wait {
		select {
		case <-d:
		case <-ctx.Done():
			return f
		}
	}
	return f
}

// add starts srv: its operations are registered from the cache at once
// when the cache holds its tools (hit), and done closes when its start
// ends.
func (f *Fleet) add(srv Server) (done chan struct{}, hit bool) {
	c := newConn(srv, srv.startTimeout(f.opts.StartTimeout), f.log, nil)
	c.onTools = func(tools []mcp.Tool) { f.index(c, tools, true) }
	f.mu.Lock()
	if f.closed { // a Load racing Close: start nothing that would outlive it
		f.mu.Unlock()
		done = make(chan struct{})
		close(done)
		return done, false
	}
	f.conns = append(f.conns, c)
	f.mu.Unlock()
	tools, hit := f.cache.load(srv)
	if hit {
		f.index(c, tools, false)
		f.mu.Lock()
		f.cached[srv.Name] = true
		f.mu.Unlock()
	}
	c.mu.Lock()
	done = c.startLocked()
	c.mu.Unlock()
	return done, hit
}

// live returns a snapshot of the running servers' connections.
func (f *Fleet) live() []*conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*conn(nil), f.conns...)
}

// OnChange sets fn to run after the registry changed because an upstream's
// tools changed (a start that disagreed with the cache, a
// tools/list_changed, a restart). fn runs once now, so a change between
// the caller's last look and this call is not missed.
func (f *Fleet) OnChange(fn func()) {
	f.mu.Lock()
	f.onChange = fn
	f.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// index replaces c's operations in the registry with those built from
// tools. save writes the list to the cache.
func (f *Fleet) index(c *conn, tools []mcp.Tool, save bool) {
	srv := c.srv
	built, collisions := Operations(srv, tools, c.call)
	for _, m := range collisions {
		f.log.Warn("upstream tool names collide", "upstream", srv.Name, "detail", m)
	}
	declared := make(map[string]operations.Kind, len(built))
	ops := make([]operations.Operation, len(built))
	for i, b := range built {
		ops[i] = b.Op
		declared[b.Op.ID] = b.Declared
	}
	if f.opts.Prepare != nil {
		var err error
		if ops, err = f.opts.Prepare(srv, ops); err != nil {
			f.log.Error("upstream operations not updated", "upstream", srv.Name, "err", err)
			return
		}
	}
	f.mu.Lock()
	if !slices.Contains(f.conns, c) {
		// Unloaded while it listed its tools: they are not served.
		f.mu.Unlock()
		return
	}
	for _, id := range f.registered[srv.Name] {
		f.reg.Remove(id)
		delete(f.declared, id)
	}
	err := f.reg.RegisterAll(ops, operations.RegisterOptions{})
	bad := map[string]bool{}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else if err != nil {
		errs = []error{err}
	}
	for _, e := range errs {
		var re *operations.RegistrationError
		if errors.As(e, &re) {
			bad[re.ID] = true
			f.log.Warn("upstream tool skipped", "upstream", srv.Name, "id", re.ID, "err", re.Err)
		} else {
			f.log.Warn("upstream tool skipped", "upstream", srv.Name, "err", e)
		}
	}
	ids := make([]string, 0, len(ops))
	for _, op := range ops {
		if bad[op.ID] {
			continue
		}
		ids = append(ids, op.ID)
		// An overlay's rename keeps the old id as an alias: the declared
		// kind follows the operation.
		k, ok := declared[op.ID]
		for _, a := range op.Aliases {
			if ok {
				break
			}
			k, ok = declared[a]
		}
		if ok {
			f.declared[op.ID] = k
		}
	}
	f.registered[srv.Name] = ids
	onChange := f.onChange
	f.mu.Unlock()
	if save {
		if err := f.cache.save(srv, tools); err != nil {
			f.log.Warn("upstream tools not cached", "upstream", srv.Name, "err", err)
		}
	}
	if onChange != nil {
		onChange()
	}
}

// Declared returns the kind the upstream's annotations and the tool's name
// imply for the operation id (ToolKind), and whether id is an upstream
// operation. Doctor compares it with the served kind to list overlays that
// lowered it.
func (f *Fleet) Declared(id string) (operations.Kind, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k, ok := f.declared[id]
	return k, ok
}

// Status reports every configured server, sorted by name.
func (f *Fleet) Status() []Status {
	conns := f.live()
	out := make([]Status, 0, len(conns)+len(f.disabled))
	for _, c := range conns {
		out = append(out, f.statusOf(c))
	}
	f.mu.Lock()
	for _, d := range f.disabled {
		state := StateDisabled
		if f.unloaded[d.Name] {
			state = StateUnloaded
		}
		out = append(out, Status{Server: d.Name, Namespace: d.ID(), Transport: d.Transport(), State: state})
	}
	f.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out
}

// Wait blocks until no server is starting or ctx ends; doctor uses it to
// report each server's own start rather than the cache's.
func (f *Fleet) Wait(ctx context.Context) {
	for _, c := range f.live() {
		c.mu.Lock()
		done, starting := c.done, c.state == StateStarting
		c.mu.Unlock()
		if !starting {
			continue
		}
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}

// Close ends every session and child process, in parallel, and waits for
// them. It is safe to call more than once.
func (f *Fleet) Close() error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	conns := f.live()
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.close()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
