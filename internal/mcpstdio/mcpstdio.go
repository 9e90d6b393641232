// Package mcpstdio serves an mcp-go server over MCP's stdio transport: one
// JSON-RPC message per line in, one per line out. It stands in for
// mcp-go's StdioServer where a server meets clients that are buggy,
// hostile or just busy:
//
//   - A message longer than Options.MaxMessageBytes is refused while it is
//     read, in memory bounded by the cap, with a -32600 error whose id is
//     recovered from the message's first 64 KiB when it is there (null
//     otherwise); the next message is served as usual.
//   - Tool calls that may be slow run on their own lane, at most
//     CallWorkers at once with CallQueue more waiting (at most
//     CallQueueBytes of messages between them); everything else
//     (discovery calls named by Options.Quick, tools/list, ping, ...) is
//     served at once on another lane, so it never waits behind them. A
//     call beyond the queue is answered busy; the condition is logged once
//     per session and counted in Stats.
//   - Protocol rules mcp-go leaves open are enforced: an id that is not a
//     string or an integer gets -32600; blank lines are ignored; a batch
//     is served only when the negotiated revision has batches (2025-03-26
//     and earlier) and refused with -32600 otherwise; a request other
//     than ping before initialize gets -32600; a request the client
//     cancels (notifications/cancelled) is not answered.
//   - A server may answer some requests itself before mcp-go sees them
//     (Options.Intercept), and name methods that block until something
//     else ends (Options.Blocking, e.g. MCP's tasks/result): those are
//     served each on its own goroutine, bounded apart from both lanes.
//   - When the input ends, the answers still in flight are written before
//     Serve returns, within Options.Grace.
//
// The server sends no requests of its own over this transport (no
// sampling, elicitation or roots), so responses from the client are
// ignored.
package mcpstdio

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Defaults of Options.
const (
	DefaultMaxMessageBytes = 4 << 20
	DefaultCallWorkers     = 8
	DefaultCallQueue       = 1024
	DefaultCallQueueBytes  = 64 << 20
	DefaultQuickWorkers    = 16
	DefaultGrace           = 30 * time.Second
)

// idWindow is how far into an over-long message its id is looked for.
// Clients put the id first or near it; looking further would cost memory
// in proportion to the cap.
const idWindow = 64 << 10

// codeServerBusy answers a tool call refused for overload when no
// Options.Busy builds a result: JSON-RPC leaves -32000 to -32099 to
// servers.
const codeServerBusy = -32000

// Options configure a Transport. The zero value serves with the defaults.
type Options struct {
	// MaxMessageBytes caps the length of one message (one line, without
	// its newline). Zero means DefaultMaxMessageBytes.
	MaxMessageBytes int
	// Quick reports whether a tools/call of the named tool is cheap and
	// in-memory. Quick calls are served on the quick lane with every
	// other request, never behind slow calls. Nil means no tool is quick.
	Quick func(tool string) bool
	// CallWorkers bounds the slow tool calls running at once. Zero means
	// DefaultCallWorkers.
	CallWorkers int
	// CallQueue bounds the slow tool calls waiting for a worker; a call
	// beyond it is answered at once with Busy's result. Zero means
	// DefaultCallQueue.
	CallQueue int
	// CallQueueBytes bounds the total length of the messages of the calls
	// waiting, so a queue of large calls cannot hold CallQueue times
	// MaxMessageBytes. Zero means DefaultCallQueueBytes.
	CallQueueBytes int
	// QuickWorkers bounds the quick-lane requests served at once; while
	// all are taken, reading waits. Zero means DefaultQuickWorkers.
	QuickWorkers int
	// Busy builds the result of a tool call refused because the call
	// queue is full. Nil means a JSON-RPC error (-32000).
	Busy func(tool string) *mcp.CallToolResult
	// Intercept, when set, may answer a request before mcp-go sees it (a
	// server that answers MCP task requests itself, intent.TaskRPC):
	// handled false hands the message to mcp-go. It runs on the request's
	// lane, under the request's context.
	Intercept func(ctx context.Context, msg []byte) (resp any, handled bool)
	// Blocking reports whether a request of method may block until
	// something else ends (MCP's tasks/result waits for its task). Such a
	// request is served on its own goroutine, at most CallQueue at once
	// (one more is answered busy), so it holds neither a call worker nor
	// the quick lane. Nil means no method blocks.
	Blocking func(method string) bool
	// Grace bounds how long, once the input ends, Serve waits for answers
	// still in flight before it cancels their requests. Zero means
	// DefaultGrace.
	Grace time.Duration
	// Logger receives the transport's warnings; nil discards them.
	Logger *slog.Logger
}

// Stats count what a Transport refused or dropped.
type Stats struct {
	Requests  int64 // requests accepted for serving (initialize excluded)
	Oversize  int64 // messages refused for their length
	Busy      int64 // tool calls refused because the call queue was full, and blocking requests beyond theirs
	Cancelled int64 // requests cancelled by the client and left unanswered
	Invalid   int64 // messages answered -32700 or -32600 by the transport
}

// Transport serves one stdio session of an mcp-go server. Create it with
// New and call Serve once.
type Transport struct {
	ms   *server.MCPServer
	opts Options
	log  *slog.Logger
	sess *session

	outMu  sync.Mutex
	out    io.Writer
	outErr error

	mu       sync.Mutex
	inflight map[string]*call // requests accepted and not finished, by idKey

	quick       chan struct{}  // semaphore of the quick lane
	blocking    chan struct{}  // semaphore of the requests that may block (Options.Blocking)
	calls       chan *call     // the slow lane's queue
	queuedBytes atomic.Int64   // length of the messages in calls
	pending     sync.WaitGroup // requests accepted and not finished
	closed      atomic.Bool

	requests, oversize, busy, cancelled, invalid atomic.Int64
	busyWarned                                   atomic.Bool
}

// call is one accepted request.
type call struct {
	id     any
	key    string
	msg    []byte
	method string
	tool   string
	reply  replier
	ctx    context.Context
	cancel context.CancelFunc

	cancelledByClient bool // guarded by Transport.mu
}

var sessionSeq atomic.Int64

// New returns a Transport serving ms with opts (defaults filled in).
func New(ms *server.MCPServer, opts Options) *Transport {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if opts.CallWorkers <= 0 {
		opts.CallWorkers = DefaultCallWorkers
	}
	if opts.CallQueue <= 0 {
		opts.CallQueue = DefaultCallQueue
	}
	if opts.CallQueueBytes <= 0 {
		opts.CallQueueBytes = DefaultCallQueueBytes
	}
	if opts.QuickWorkers <= 0 {
		opts.QuickWorkers = DefaultQuickWorkers
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Quick == nil {
		opts.Quick = func(string) bool { return false }
	}
	if opts.Blocking == nil {
		opts.Blocking = func(string) bool { return false }
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Transport{
		ms:   ms,
		opts: opts,
		log:  log,
		sess: &session{
			id:            fmt.Sprintf("stdio-%d", sessionSeq.Add(1)),
			notifications: make(chan mcp.JSONRPCNotification, 100),
		},
		inflight: map[string]*call{},
		quick:    make(chan struct{}, opts.QuickWorkers),
		blocking: make(chan struct{}, opts.CallQueue),
		calls:    make(chan *call, opts.CallQueue),
	}
}

// Stats returns the counts so far. It is safe to call during Serve.
func (t *Transport) Stats() Stats {
	return Stats{
		Requests:  t.requests.Load(),
		Oversize:  t.oversize.Load(),
		Busy:      t.busy.Load(),
		Cancelled: t.cancelled.Load(),
		Invalid:   t.invalid.Load(),
	}
}

// Serve reads messages from in and writes answers to out until in ends
// (then it waits up to Options.Grace for the answers in flight and returns
// nil) or ctx is done (it returns ctx's error). A read error is returned
// wrapped.
func (t *Transport) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	t.out = out
	if err := t.ms.RegisterSession(ctx, t.sess); err != nil {
		return fmt.Errorf("register the stdio session: %w", err)
	}
	defer t.ms.UnregisterSession(context.WithoutCancel(ctx), t.sess.id)
	base, cancelAll := context.WithCancel(t.ms.WithContext(ctx, t.sess))
	defer cancelAll()

	var workers sync.WaitGroup
	for range t.opts.CallWorkers {
		workers.Go(func() { t.callWorker(base) })
	}
	workers.Go(func() { t.pumpNotifications(base) })

	readDone := make(chan error, 1)
	go func() { readDone <- t.read(base, in) }()
	var err error
	select {
	case err = <-readDone:
		t.drain()
	case <-ctx.Done():
		err = ctx.Err()
	}
	t.closed.Store(true)
	cancelAll()
	workers.Wait()
	t.logSummary()
	return err
}

// read is the loop over input lines.
func (t *Transport) read(ctx context.Context, in io.Reader) error {
	lr := newLineReader(in, t.opts.MaxMessageBytes)
	for !t.closed.Load() {
		line, size, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the input: %w", err)
		}
		if size > int64(t.opts.MaxMessageBytes) {
			t.refuseOversize(line, size)
			continue
		}
		switch firstByte(line) {
		case 0: // a blank line carries no message
		case '[':
			t.handleBatch(ctx, line)
		default:
			t.handle(ctx, append([]byte(nil), line...), direct{t}, false)
		}
	}
	return nil
}

// drain waits until every accepted request is answered, or Grace passes.
func (t *Transport) drain() {
	done := make(chan struct{})
	go func() { t.pending.Wait(); close(done) }()
	timer := time.NewTimer(t.opts.Grace)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.mu.Lock()
		n := len(t.inflight)
		t.mu.Unlock()
		t.log.Warn("the input ended and requests are still running after the grace period; cancelling them", "running", n, "grace", t.opts.Grace)
	}
}

// handle serves one message (a line, or a member of a batch). Every
// message gets exactly one call to r: reply with its answer, or none.
func (t *Transport) handle(ctx context.Context, msg []byte, r replier, inBatch bool) {
	if !json.Valid(msg) {
		t.refuse(r, nil, codeParseError, "parse error: the message is not valid JSON; send one JSON-RPC message per line")
		return
	}
	if firstByte(msg) != '{' {
		t.refuse(r, nil, codeInvalidRequest, "invalid request: a message is a JSON object (a request, a notification or a response)")
		return
	}
	var h head
	_ = json.Unmarshal(msg, &h) // valid JSON into raw members cannot fail
	hasID := len(h.ID) > 0
	id, idOK := parseID(h.ID)
	if hasID && !idOK {
		t.refuse(r, nil, codeInvalidRequest, "invalid request: the id must be a string or an integer (MCP allows no null, fractional, object, array or boolean id)")
		return
	}
	if string(h.JSONRPC) != `"2.0"` {
		t.refuse(r, id, codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
		return
	}
	var method string
	if len(h.Method) > 0 && (json.Unmarshal(h.Method, &method) != nil || method == "") {
		t.refuse(r, id, codeInvalidRequest, "invalid request: the method must be a non-empty string")
		return
	}
	switch {
	case method != "" && hasID:
		t.request(ctx, msg, id, method, r, inBatch)
	case method != "":
		t.notification(ctx, msg, method)
		r.none()
	case hasID && (len(h.Result) > 0 || len(h.Error) > 0):
		// An answer to a request of the server's; it sends none here.
		t.log.Debug("ignored a response from the client", "id", id)
		r.none()
	default:
		t.refuse(r, id, codeInvalidRequest, "invalid request: a request needs a method and an id, a notification a method")
	}
}

// request accepts one request and serves it on its lane.
func (t *Transport) request(ctx context.Context, msg []byte, id any, method string, r replier, inBatch bool) {
	var p params
	_ = json.Unmarshal(msg, &p) // a malformed params is mcp-go's to report
	if method == string(mcp.MethodInitialize) {
		if inBatch {
			t.refuse(r, id, codeInvalidRequest, "invalid request: initialize must not be part of a JSON-RPC batch; send it alone")
			return
		}
		// Served before the next line is read, so the requests a client
		// pipelines behind it find the session initialized.
		r.reply(t.handleMessage(ctx, id, msg))
		return
	}
	if !t.sess.Initialized() && method != string(mcp.MethodPing) && !mcp.IsModernProtocol(p.Params.Meta.ProtocolVersion()) {
		t.refuse(r, id, codeInvalidRequest, fmt.Sprintf("invalid request: %s before initialize; send initialize (then notifications/initialized) first, only ping is served before it", method))
		return
	}
	c := &call{id: id, key: idKey(id), msg: msg, method: method, tool: p.Params.Name, reply: r}
	t.mu.Lock()
	if _, dup := t.inflight[c.key]; dup {
		t.mu.Unlock()
		t.refuse(r, id, codeInvalidRequest, "invalid request: this id belongs to a request still in flight; give every request its own id")
		return
	}
	c.ctx, c.cancel = context.WithCancel(ctx)
	t.inflight[c.key] = c
	t.mu.Unlock()
	t.requests.Add(1)
	t.pending.Add(1)

	if method == string(mcp.MethodToolsCall) && !t.opts.Quick(c.tool) {
		if t.queuedBytes.Add(int64(len(msg))) > int64(t.opts.CallQueueBytes) {
			t.queuedBytes.Add(-int64(len(msg)))
			t.refuseBusy(c)
			return
		}
		select {
		case t.calls <- c:
		default:
			t.queuedBytes.Add(-int64(len(msg)))
			t.refuseBusy(c)
		}
		return
	}
	if t.opts.Blocking(method) {
		select {
		case t.blocking <- struct{}{}:
			go func() {
				defer func() { <-t.blocking }()
				t.run(c)
			}()
		default:
			t.busy.Add(1)
			t.finish(c, errorResponse(id, codeServerBusy, fmt.Sprintf("server busy: %d %s requests are already waiting; retry when some have answered", t.opts.CallQueue, method), nil))
		}
		return
	}
	select {
	case t.quick <- struct{}{}:
		go func() {
			defer func() { <-t.quick }()
			t.run(c)
		}()
	case <-ctx.Done():
		t.finish(c, errorResponse(id, mcp.REQUEST_INTERRUPTED, "the session is closing; the request was not served", nil))
	}
}

// notification passes a notification to mcp-go after noting a
// cancellation, which must silence the request it names.
func (t *Transport) notification(ctx context.Context, msg []byte, method string) {
	if method == string(mcp.MethodNotificationCancelled) {
		var p params
		_ = json.Unmarshal(msg, &p)
		if id, ok := parseID(p.Params.RequestID); ok {
			t.mu.Lock()
			c := t.inflight[idKey(id)]
			if c != nil {
				c.cancelledByClient = true
			}
			t.mu.Unlock()
			if c != nil {
				c.cancel()
			}
		}
	}
	t.handleMessage(ctx, nil, msg)
}

func (t *Transport) callWorker(ctx context.Context) {
	for {
		select {
		case c := <-t.calls:
			t.queuedBytes.Add(-int64(len(c.msg)))
			t.run(c)
		case <-ctx.Done():
			return
		}
	}
}

// run serves an accepted request, unless the client cancelled it while it
// waited.
func (t *Transport) run(c *call) {
	t.mu.Lock()
	skip := c.cancelledByClient
	t.mu.Unlock()
	var resp any
	if !skip {
		resp = t.handleMessage(c.ctx, c.id, c.msg)
	}
	t.finish(c, resp)
}

// finish retires a request and answers it, unless the client cancelled
// it: per MCP, a cancelled request gets no response.
func (t *Transport) finish(c *call, resp any) {
	t.mu.Lock()
	if t.inflight[c.key] == c {
		delete(t.inflight, c.key)
	}
	dropped := c.cancelledByClient
	t.mu.Unlock()
	c.cancel()
	switch {
	case dropped:
		t.cancelled.Add(1)
		c.reply.none()
	case resp != nil:
		c.reply.reply(resp)
	default:
		c.reply.none()
	}
	t.pending.Done()
}

// handleMessage runs mcp-go on one message, turning a panic into an
// internal error for a request (nil for a notification).
func (t *Transport) handleMessage(ctx context.Context, id any, msg []byte) (resp any) {
	defer func() {
		if p := recover(); p != nil {
			t.log.Error("an MCP handler panicked", "panic", p)
			resp = nil
			if id != nil {
				resp = errorResponse(id, mcp.INTERNAL_ERROR, "internal error: the request did not complete", nil)
			}
		}
	}()
	if t.opts.Intercept != nil && id != nil {
		if m, ok := t.opts.Intercept(ctx, msg); ok {
			return m
		}
	}
	if m := t.ms.HandleMessage(ctx, msg); m != nil {
		return m
	}
	return nil
}

func (t *Transport) refuse(r replier, id any, code int, message string) {
	t.invalid.Add(1)
	r.reply(errorResponse(id, code, message, nil))
}

// refuseBusy answers a slow call that found the queue full. The first one
// of the session is logged; all are counted.
func (t *Transport) refuseBusy(c *call) {
	t.busy.Add(1)
	if t.busyWarned.CompareAndSwap(false, true) {
		t.log.Warn("tool calls arrive faster than they complete: calls beyond the queue are answered busy (logged once; the count is in the session summary)",
			"workers", t.opts.CallWorkers, "queue", t.opts.CallQueue, "queue_bytes", t.opts.CallQueueBytes)
	}
	if t.opts.Busy != nil {
		t.finish(c, mcp.NewJSONRPCResultResponse(mcp.NewRequestId(c.id), t.opts.Busy(c.tool)))
		return
	}
	t.finish(c, errorResponse(c.id, codeServerBusy, fmt.Sprintf("server busy: %d tool calls are running and the queue behind them is full; retry when some have completed", t.opts.CallWorkers), nil))
}

// refuseOversize answers a message longer than the cap; prefix is its
// start, where its id may be found.
func (t *Transport) refuseOversize(prefix []byte, size int64) {
	t.oversize.Add(1)
	id, _ := parseID(idFromPrefix(prefix[:min(len(prefix), idWindow)]))
	t.log.Warn("refused an over-long message", "bytes", size, "limit", t.opts.MaxMessageBytes, "id", id)
	t.write(errorResponse(id, codeInvalidRequest,
		fmt.Sprintf("message too large: %d bytes, over this server's limit of %d bytes per message; it was discarded unread (the id is null unless it is in the message's first %d bytes)", size, t.opts.MaxMessageBytes, idWindow),
		map[string]int64{"size": size, "limit": int64(t.opts.MaxMessageBytes)}))
}

// handleBatch serves a JSON-RPC batch when the negotiated revision has
// batches (2025-03-26 and earlier); 2025-06-18 removed them.
func (t *Transport) handleBatch(ctx context.Context, line []byte) {
	var members []json.RawMessage
	if json.Unmarshal(line, &members) != nil {
		t.refuse(direct{t}, nil, codeParseError, "parse error: the message is not valid JSON; send one JSON-RPC message per line")
		return
	}
	if v := t.sess.protocolVersion(); v == "" || v >= mcp.ProtocolVersion20250618 {
		rev := "this session has not negotiated a revision yet (initialize first)"
		if v != "" {
			rev = "MCP " + v + ", the revision this session negotiated, has none"
		}
		t.refuse(direct{t}, nil, codeInvalidRequest, "invalid request: JSON-RPC batches are not accepted: "+rev+"; send one message per line")
		return
	}
	if len(members) == 0 {
		t.refuse(direct{t}, nil, codeInvalidRequest, "invalid request: an empty batch")
		return
	}
	b := &batch{t: t}
	for _, m := range members {
		b.add()
		t.handle(ctx, m, b, true)
	}
	b.seal()
}

func (t *Transport) pumpNotifications(ctx context.Context) {
	for {
		select {
		case n := <-t.sess.notifications:
			t.write(n)
		case <-ctx.Done():
			return
		}
	}
}

// write sends one message on its own line. Writes are serialised; after a
// write error the rest are dropped (the client is gone).
func (t *Transport) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		t.log.Error("an answer could not be encoded", "err", err)
		return
	}
	b = append(b, '\n')
	t.outMu.Lock()
	defer t.outMu.Unlock()
	if t.outErr != nil {
		return
	}
	if _, err := t.out.Write(b); err != nil {
		t.outErr = err
		t.log.Error("cannot write to the output; later answers are lost", "err", err)
	}
}

func (t *Transport) logSummary() {
	s := t.Stats()
	level := slog.LevelDebug
	if s.Busy+s.Oversize > 0 {
		level = slog.LevelInfo
	}
	t.log.Log(context.Background(), level, "stdio session ended",
		"requests", s.Requests, "refused_busy", s.Busy, "refused_oversize", s.Oversize, "cancelled", s.Cancelled, "invalid", s.Invalid)
}

// replier takes the outcome of one message: exactly one call of reply
// (with its answer) or none (no answer).
type replier interface {
	reply(msg any)
	none()
}

// direct writes each answer on its own line.
type direct struct{ t *Transport }

func (d direct) reply(msg any) { d.t.write(msg) }
func (d direct) none()         {}

// batch gathers its members' answers and writes them as one array once
// the last member is done (nothing when no member has an answer).
type batch struct {
	t      *Transport
	mu     sync.Mutex
	open   int
	sealed bool
	out    []any
}

func (b *batch) add() {
	b.mu.Lock()
	b.open++
	b.mu.Unlock()
}

func (b *batch) reply(msg any) { b.done(msg) }
func (b *batch) none()         { b.done(nil) }

func (b *batch) done(msg any) {
	b.mu.Lock()
	if msg != nil {
		b.out = append(b.out, msg)
	}
	b.open--
	flush := b.sealed && b.open == 0
	b.mu.Unlock()
	if flush {
		b.flush()
	}
}

// seal marks the batch complete: no member is added after it.
func (b *batch) seal() {
	b.mu.Lock()
	b.sealed = true
	flush := b.open == 0
	b.mu.Unlock()
	if flush {
		b.flush()
	}
}

func (b *batch) flush() {
	if len(b.out) > 0 {
		b.t.write(b.out)
	}
}
