package mcpsrc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/manifest/sanitize"
	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/runs"
)

// State is where an upstream is in its life.
type State string

const (
	StateStarting State = "starting" // a start is under way
	StateReady    State = "ready"    // connected; its tools are known
	StateFailed   State = "failed"   // the last start failed, or the server crashed
	StateStopped  State = "stopped"  // closed
)

// Backoff bounds between restarts of a failed upstream: the wait doubles
// from the first to the last with each failure in a row.
const (
	backoffFirst = 500 * time.Millisecond
	backoffMax   = 30 * time.Second
)

// defaultPingTimeout is how long a server that let a call run out of time
// has to answer a ping before it counts as hung.
const defaultPingTimeout = 5 * time.Second

// conn is one upstream server: its client, its state, and the restarts.
// A conn starts once when the fleet starts; after a failure or a crash it
// starts again on the next call that needs it, no sooner than the backoff
// allows. It is safe for concurrent use.
type conn struct {
	srv     Server
	log     *slog.Logger
	timeout time.Duration // bounds one start (connect, initialize, list)
	// pingTimeout bounds the ping that follows a call that ran out of time.
	pingTimeout time.Duration
	// onTools receives the tool list after every start and every
	// notifications/tools/list_changed.
	onTools func(tools []mcp.Tool)
	now     func() time.Time

	// calls maps the progress token of each call under way that asked
	// for progress to that call's context (see call and relayProgress).
	calls     sync.Map
	nextToken atomic.Uint64

	mu        sync.Mutex
	client    *client.Client
	state     State
	err       error         // why the last start failed, or the crash
	done      chan struct{} // closed when the start under way ends
	failures  int           // failed starts and crashes in a row
	retryAt   time.Time     // no restart before this
	startedIn time.Duration // how long the last successful start took
	started   bool          // some start has succeeded (its tools are known)
	retry     *time.Timer   // the background retry of a server never started
	tools     int           // tools in the last list
	stderr    *tail
	life      context.Context // cancelled by close
	stop      context.CancelFunc
}

func newConn(srv Server, timeout time.Duration, log *slog.Logger, onTools func([]mcp.Tool)) *conn {
	life, stop := context.WithCancel(context.Background())
	return &conn{srv: srv, log: log.With("upstream", srv.Name), timeout: timeout, pingTimeout: defaultPingTimeout, onTools: onTools,
		now: time.Now, state: StateFailed, err: errors.New("not started"), life: life, stop: stop}
}

// startLocked begins a start in the background and returns the channel
// that closes when it ends. The caller holds c.mu.
func (c *conn) startLocked() chan struct{} {
	done := make(chan struct{})
	c.done = done
	c.state = StateStarting
	var stderr *tail
	if c.srv.Transport() == TransportStdio {
		stderr = newTail(c.log)
	}
	c.stderr = stderr
	go c.attempt(done, stderr)
	return done
}

// attempt starts the server, initializes the session and lists the tools,
// within the start timeout. A start that does not finish in time is
// abandoned and its process closed.
func (c *conn) attempt(done chan struct{}, stderr *tail) {
	defer close(done)
	begin := c.now()
	type outcome struct {
		cl    *client.Client
		tools []mcp.Tool
		err   error
	}
	ch := make(chan outcome, 1)
	ctx, cancel := context.WithTimeout(c.life, c.timeout)
	defer cancel()
	go func() {
		cl, err := c.newClient(stderr)
		if err != nil {
			ch <- outcome{err: err}
			return
		}
		tools, err := c.handshake(ctx, cl)
		ch <- outcome{cl: cl, tools: tools, err: err}
	}()
	var out outcome
	select {
	case out = <-ch:
	case <-ctx.Done():
		out.err = fmt.Errorf("did not start within %s (initialize and tools/list)", c.timeout)
		if c.life.Err() != nil {
			out.err = errors.New("closed while starting")
		}
		// The handshake ends with ctx; whatever it built is closed then,
		// before this start counts as over when the conn is closing.
		closeLate := func() {
			if late := <-ch; late.cl != nil {
				late.cl.Close()
			}
		}
		if c.life.Err() != nil {
			closeLate()
		} else {
			go closeLate()
		}
	}
	if out.err != nil && out.cl != nil {
		go out.cl.Close()
	}
	if out.err != nil && stderr != nil {
		stderr.await(300 * time.Millisecond)
	}
	c.mu.Lock()
	if c.state == StateStopped {
		c.mu.Unlock()
		if out.cl != nil {
			out.cl.Close()
		}
		return
	}
	if out.err != nil {
		c.failures++
		c.retryAt = c.now().Add(backoff(c.failures))
		c.state = StateFailed
		c.err = c.withStderr(out.err)
		err, wait, first := c.err, backoff(c.failures), c.failures == 1
		if !c.started {
			// No tool of it is known, so no call will ever ask for it: it
			// is retried in the background instead.
			c.retry = time.AfterFunc(wait, c.retryInBackground)
		}
		c.mu.Unlock()
		if first {
			c.log.Warn("upstream did not start", "err", err, "retry_after", wait)
		} else {
			c.log.Debug("upstream did not start", "err", err, "retry_after", wait)
		}
		return
	}
	c.started = true
	c.client = out.cl
	c.state = StateReady
	c.err = nil
	c.failures = 0
	c.startedIn = c.now().Sub(begin)
	c.tools = len(out.tools)
	took := c.startedIn
	c.mu.Unlock()
	c.log.Info("upstream started", "transport", c.srv.Transport(), "tools", len(out.tools), "elapsed", took.Round(time.Millisecond))
	c.onTools(out.tools)
}

// retryInBackground starts again a server that has never started, when
// nothing else has started it meanwhile.
func (c *conn) retryInBackground() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == StateFailed && !c.started {
		c.startLocked()
	}
}

// backoff is the wait before the n-th restart in a row.
func backoff(n int) time.Duration {
	d := backoffFirst
	for i := 1; i < n && d < backoffMax; i++ {
		d *= 2
	}
	return min(d, backoffMax)
}

// newClient builds the client for the server's transport; a stdio server's
// process starts here.
func (c *conn) newClient(stderr *tail) (*client.Client, error) {
	var t transport.Interface
	switch c.srv.Transport() {
	case TransportStdio:
		env := make([]string, 0, len(c.srv.Env))
		for k, v := range c.srv.Env {
			env = append(env, k+"="+v)
		}
		st := transport.NewStdioWithOptions(c.srv.Command, env, c.srv.Args,
			transport.WithCommandFunc(c.command),
			transport.WithCommandStderrWriter(stderr),
			transport.WithCommandLogger(c.log))
		t = st
	case TransportSSE:
		sse, err := transport.NewSSE(c.srv.URL, transport.WithHeaders(c.srv.Headers))
		if err != nil {
			return nil, fmt.Errorf("sse %s: %w", c.srv.URL, err)
		}
		t = sseCancelling{sse}
	default:
		// The standing GET stream carries tools/list_changed between calls
		// on the protocol versions upstreams speak today (see below).
		//lint:ignore SA1019 deliberate: the legacy protocol is what upstreams speak
		h, err := transport.NewStreamableHTTP(c.srv.URL, transport.WithHTTPHeaders(c.srv.Headers), transport.WithContinuousListening())
		if err != nil {
			return nil, fmt.Errorf("streamable http %s: %w", c.srv.URL, err)
		}
		t = h
	}
	// The handshake up to 2025-11-25 is the one every upstream in the wild
	// speaks, and the one whose tools/list_changed notification arrives on
	// the session.
	//lint:ignore SA1019 deliberate: see above; revisit when upstreams speak 2026-07-28
	cl := client.NewClient(t, client.WithLegacyProtocolOnly())
	cl.OnNotification(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case mcp.MethodNotificationToolsListChanged:
			go c.relist(cl)
		case string(mcp.MethodNotificationProgress):
			c.relayProgress(n.Params.AdditionalFields)
		}
	})
	// The session (and a stdio server's process) must outlive this start's
	// timeout: it lives until the conn closes or the server crashes.
	if err := cl.Start(c.life); err != nil {
		if c.srv.Transport() == TransportStdio {
			return nil, fmt.Errorf("start %s: %w", c.srv.Command, err)
		}
		return nil, fmt.Errorf("connect %s: %w", c.srv.URL, err)
	}
	return cl, nil
}

// command builds the child process: intentsrv's environment plus the
// entry's env, the entry's cwd, and attributes that end the child when
// intentsrv dies (see proc_*.go).
func (c *conn) command(_ context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
	cmd := exec.Command(command, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = c.srv.Cwd
	setDieWithParent(cmd)
	return cmd, nil
}

// handshake initializes the session and lists every tool.
func (c *conn) handshake(ctx context.Context, cl *client.Client) ([]mcp.Tool, error) {
	if _, err := cl.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "intentsrv", Version: "1"},
	}}); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	res, err := cl.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	return res.Tools, nil
}

// relist answers tools/list_changed: the server's tools are listed again
// and handed to onTools.
func (c *conn) relist(cl *client.Client) {
	ctx, cancel := context.WithTimeout(c.life, c.timeout)
	defer cancel()
	res, err := cl.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		c.log.Warn("upstream tools changed, and listing them again failed", "err", err)
		return
	}
	c.mu.Lock()
	current := c.client == cl
	c.tools = len(res.Tools)
	c.mu.Unlock()
	if !current {
		return
	}
	c.log.Info("upstream tools changed; re-indexing", "tools", len(res.Tools))
	c.onTools(res.Tools)
}

// ready returns the connected client, waiting for a start under way within
// ctx, and starting a failed server again when its backoff has passed.
func (c *conn) ready(ctx context.Context) (*client.Client, error) {
	c.mu.Lock()
	switch c.state {
	case StateReady:
		cl := c.client
		c.mu.Unlock()
		return cl, nil
	case StateStopped:
		c.mu.Unlock()
		return nil, c.unavailable("it has been shut down", "")
	case StateFailed:
		if wait := c.retryAt.Sub(c.now()); wait > 0 {
			err := c.err
			c.mu.Unlock()
			return nil, c.unavailable(fmt.Sprintf("it failed (%v) and restarts in %s", err, wait.Round(100*time.Millisecond)),
				fmt.Sprintf("retry in %s", wait.Round(time.Second)+time.Second))
		}
		c.log.Info("restarting upstream", "after_failures", c.failures)
		c.startLocked()
	}
	done := c.done
	c.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, c.unavailable("it is still starting", "retry shortly")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != StateReady {
		return nil, c.unavailable(fmt.Sprintf("it did not start: %v", c.err), "check the server's command and doctor's report, then retry")
	}
	return c.client, nil
}

func (c *conn) unavailable(why, fix string) error {
	if fix == "" {
		fix = "use another operation"
	}
	return &operations.Error{Code: "upstream_unavailable", Message: fmt.Sprintf("upstream MCP server %q is unavailable: %s", c.srv.Name, why), Fix: fix}
}

// call runs tool with args on the upstream. A call that finds the server
// gone marks it failed, so the next call restarts it.
func (c *conn) call(ctx context.Context, op, tool string, args json.RawMessage) (json.RawMessage, error) {
	cl, err := c.ready(ctx)
	if err != nil {
		return nil, err
	}
	var params map[string]any
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &params); err != nil {
			return nil, &operations.Error{Code: "invalid_params", Message: "params must be a JSON object: " + err.Error()}
		}
	}
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: params}}
	if runs.Reporting(ctx) {
		// A call that became a run asks the upstream for progress; what
		// it sends is recorded on the run and reaches whoever waits on it.
		token := "intentsrv-" + strconv.FormatUint(c.nextToken.Add(1), 10)
		c.calls.Store(token, ctx)
		defer c.calls.Delete(token)
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	res, err := cl.CallTool(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				// A slow tool, or a server that stopped answering: a ping
				// tells them apart without holding up this answer.
				go c.probe(cl)
			}
			return nil, ctx.Err()
		}
		if c.lost(cl, err) {
			return nil, c.unavailable(fmt.Sprintf("the connection ended during the call (%v); it restarts on the next call", err),
				"retry; a write may or may not have taken effect, so check with a read first")
		}
		return nil, &operations.Error{Code: "upstream_error", Message: fmt.Sprintf("%s: the upstream refused the call: %v", op, err),
			Fix: "check the params against describe and retry"}
	}
	return ConvertResult(op, res)
}

// relayProgress records an upstream's notifications/progress on the run of
// the call whose token it carries. Tokens of calls that ended, or that this
// conn never issued, are ignored; so are notifications without a numeric
// progress. It runs on the client's read loop and does not block: a run's
// progress listeners never do, and its store is written at most once a
// second.
func (c *conn) relayProgress(fields map[string]any) {
	token, _ := fields["progressToken"].(string)
	if token == "" {
		return
	}
	v, ok := c.calls.Load(token)
	if !ok {
		return
	}
	done, ok := fields["progress"].(float64)
	if !ok {
		return
	}
	total, _ := fields["total"].(float64)
	message, _ := fields["message"].(string)
	runs.Report(v.(context.Context), done, total, sanitize.Summary(message))
}

// probe pings cl after a call ran out of time; a server that does not
// answer the ping either is hung, and is marked failed so that the next
// call starts it afresh.
func (c *conn) probe(cl *client.Client) {
	ctx, cancel := context.WithTimeout(c.life, c.pingTimeout)
	defer cancel()
	//lint:ignore SA1019 the legacy protocol (above) still has ping
	if err := cl.Ping(ctx); err != nil && c.life.Err() == nil {
		c.markLost(cl, fmt.Errorf("stopped answering (no answer to ping within %s): %w", c.pingTimeout, err))
	}
}

// lost reports whether err means the connection to cl is gone, and if so
// marks the server failed so that the next call starts it again.
func (c *conn) lost(cl *client.Client, err error) bool {
	var te *transport.Error
	if !errors.Is(err, transport.ErrTransportClosed) && !errors.As(err, &te) {
		return false
	}
	c.markLost(cl, fmt.Errorf("connection lost: %w", err))
	return true
}

// markLost records that cl no longer serves: the server is failed, the
// next call restarts it (at once the first time), and cl is closed.
func (c *conn) markLost(cl *client.Client, err error) {
	c.mu.Lock()
	if c.client == cl && c.state == StateReady {
		c.client = nil
		c.state = StateFailed
		c.failures++
		c.err = c.withStderr(err)
		c.retryAt = c.now().Add(backoff(c.failures) - backoffFirst) // the first restart is immediate
		c.log.Warn("upstream lost; it restarts on the next call", "err", c.err)
	}
	c.mu.Unlock()
	go cl.Close()
}

// withStderr adds the last lines the child wrote on stderr to err.
func (c *conn) withStderr(err error) error {
	if c.stderr == nil {
		return err
	}
	if t := c.stderr.String(); t != "" {
		return fmt.Errorf("%w; its stderr ends with: %s", err, t)
	}
	return err
}

// status is a snapshot for describe, doctor and the log.
func (c *conn) status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Status{Server: c.srv.Name, Namespace: c.srv.ID(), Transport: c.srv.Transport(), State: c.state, Tools: c.tools, StartedIn: c.startedIn}
	if c.err != nil && c.state == StateFailed {
		s.Error = c.err.Error()
	}
	return s
}

// close ends the session and the child process, and any start under way.
func (c *conn) close() error {
	c.mu.Lock()
	c.state = StateStopped
	cl := c.client
	c.client = nil
	done := c.done
	if c.retry != nil {
		c.retry.Stop()
	}
	c.mu.Unlock()
	c.stop()
	if done != nil {
		<-done // a start under way ends promptly once life is cancelled
	}
	if cl != nil {
		return cl.Close()
	}
	return nil
}
