package mcpstdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// hangGuard only stops a test that would otherwise hang forever; no test
// asserts on elapsed time.
const hangGuard = 30 * time.Second

// slowTool is a tool whose calls block until release is closed (or their
// context ends), reporting when each starts and returns.
type slowTool struct {
	release  chan struct{}
	started  chan string
	returned chan string
}

func newSlowTool() *slowTool {
	return &slowTool{release: make(chan struct{}), started: make(chan string, 4096), returned: make(chan string, 4096)}
}

func (s *slowTool) handler(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	tag := req.GetString("tag", "")
	s.started <- tag
	defer func() { s.returned <- tag }()
	select {
	case <-s.release:
		return mcp.NewToolResultText("slow " + tag), nil
	case <-ctx.Done():
		return mcp.NewToolResultError("cancelled"), nil
	}
}

// newServer returns an mcp-go server with a "quick" tool answering at
// once, an "echo" tool that yields and answers, and a "slow" tool unless
// slow is nil.
func newServer(slow *slowTool) *server.MCPServer {
	ms := server.NewMCPServer("test", "0", server.WithToolCapabilities(false))
	ms.AddTool(mcp.NewTool("quick"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("quick"), nil
	})
	ms.AddTool(mcp.NewTool("echo"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runtime.Gosched()
		return mcp.NewToolResultText(req.GetString("tag", "")), nil
	})
	if slow != nil {
		ms.AddTool(mcp.NewTool("slow"), slow.handler)
	}
	return ms
}

// reply is one line the transport wrote.
type reply struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	raw string
}

// client drives a Transport over pipes, as a client would.
type client struct {
	t       testing.TB
	tr      *Transport
	in      *io.PipeWriter
	replies chan reply
	served  chan error
}

func start(t testing.TB, ms *server.MCPServer, opts Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &client{t: t, tr: New(ms, opts), in: inW, replies: make(chan reply, 8192), served: make(chan error, 1)}
	go func() {
		err := s.tr.Serve(context.Background(), inR, outW)
		outW.Close()
		s.served <- err
	}()
	go func() {
		defer close(s.replies)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var r reply
			if firstByte(sc.Bytes()) == '[' {
				r.ID = "batch"
			} else if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("the transport wrote a line that is not JSON: %q", sc.Text())
			}
			r.raw = sc.Text()
			s.replies <- r
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

func (s *client) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			s.t.Fatalf("write: %v", err)
		}
	}
}

// next returns the next reply.
func (s *client) next() reply {
	s.t.Helper()
	select {
	case r, ok := <-s.replies:
		if !ok {
			s.t.Fatal("the transport stopped writing")
		}
		return r
	case <-time.After(hangGuard):
		s.t.Fatal("no reply: the transport hangs")
	}
	return reply{}
}

// close ends the input and returns every reply written until Serve
// returned.
func (s *client) close() []reply {
	s.t.Helper()
	s.in.Close()
	var all []reply
	for r := range s.replies {
		all = append(all, r)
	}
	if err := <-s.served; err != nil {
		s.t.Fatalf("Serve: %v", err)
	}
	return all
}

func (s *client) initialize(version string) {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if r := s.next(); r.ID != "init" || r.Error != nil {
		s.t.Fatalf("initialize: %s", r.raw)
	}
}

func toolCall(id any, tool, tag string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": map[string]any{"tag": tag}}})
	return string(b)
}

// waitStarted waits until n slow calls have started.
func waitStarted(t *testing.T, slow *slowTool, n int) {
	t.Helper()
	for range n {
		select {
		case <-slow.started:
		case <-time.After(hangGuard):
			t.Fatalf("fewer than %d slow calls started", n)
		}
	}
}

// writeLongLine writes a line of about size bytes: a tools/call whose
// argument is padding, the id before it when idFirst, after it otherwise.
// It writes from one reused chunk, so the test itself allocates little.
func writeLongLine(w io.Writer, id int, size int, idFirst bool) (int64, error) {
	head := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"quick","arguments":{"pad":"`
	if idFirst {
		head = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"quick","arguments":{"pad":"`, id)
	}
	tail := `"}}}`
	if !idFirst {
		tail = fmt.Sprintf(`"}},"id":%d}`, id)
	}
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	n, err := io.WriteString(w, head)
	total := int64(n)
	for pad := size - len(head) - len(tail); pad > 0 && err == nil; pad -= len(chunk) {
		n, err = w.Write(chunk[:min(pad, len(chunk))])
		total += int64(n)
	}
	if err == nil {
		n, err = io.WriteString(w, tail+"\n")
		total += int64(n) - 1
	}
	return total, err
}

func TestOversizeLineIsRefusedAndServingGoesOn(t *testing.T) {
	const limit = 1 << 20
	s := start(t, newServer(newSlowTool()), Options{MaxMessageBytes: limit})
	s.initialize("2025-06-18")
	for _, idFirst := range []bool{true, false} {
		size, err := writeLongLine(s.in, 77, 12<<20, idFirst)
		if err != nil {
			t.Fatal(err)
		}
		s.send(`{"jsonrpc":"2.0","id":78,"method":"ping"}`)
		r := s.next()
		wantID := any(float64(77))
		if !idFirst {
			wantID = nil // the id lies past the limit: it cannot be known
		}
		if r.Error == nil || r.Error.Code != -32600 || r.ID != wantID || !strings.Contains(r.Error.Message, "too large") {
			t.Fatalf("over-long line (id first: %v): got %s", idFirst, r.raw)
		}
		var data struct{ Size, Limit int64 }
		if json.Unmarshal(r.Error.Data, &data) != nil || data.Size != size || data.Limit != limit {
			t.Errorf("error data = %s, want size %d and limit %d", r.Error.Data, size, limit)
		}
		if r := s.next(); r.ID != float64(78) || r.Error != nil {
			t.Fatalf("the request after the over-long line: %s", r.raw)
		}
	}
	if got := s.tr.Stats().Oversize; got != 2 {
		t.Errorf("Stats().Oversize = %d, want 2", got)
	}
	s.close()
}

// TestOversizeLineMemoryIsBounded refuses a 64 MiB line under a 1 MiB cap
// and checks the bytes allocated meanwhile stay a small multiple of the
// cap, not of the line.
func TestOversizeLineMemoryIsBounded(t *testing.T) {
	const limit = 1 << 20
	s := start(t, newServer(newSlowTool()), Options{MaxMessageBytes: limit})
	s.initialize("2025-06-18")
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := writeLongLine(s.in, 5, 64<<20, true); err != nil {
		t.Fatal(err)
	}
	if r := s.next(); r.Error == nil || r.ID != float64(5) {
		t.Fatalf("got %s", r.raw)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*limit {
		t.Errorf("refusing a 64 MiB line allocated %d bytes; want at most %d (8× the 1 MiB cap)", alloc, 8*limit)
	}
	s.close()
}

// TestDiscoveryIsNotQueuedBehindSlowCalls holds more slow calls in flight
// than there are call workers and checks that quick calls and other
// requests are answered before any slow call completes.
func TestDiscoveryIsNotQueuedBehindSlowCalls(t *testing.T) {
	slow := newSlowTool()
	s := start(t, newServer(slow), Options{Quick: func(tool string) bool { return tool == "quick" }})
	s.initialize("2025-06-18")
	const slowCalls = 12 // more than DefaultCallWorkers: some wait in the queue
	for i := range slowCalls {
		s.send(toolCall(i, "slow", fmt.Sprint(i)))
	}
	waitStarted(t, slow, DefaultCallWorkers)
	s.send(toolCall("q", "quick", ""), `{"jsonrpc":"2.0","id":"list","method":"tools/list"}`, `{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
	released := false
	guard := time.AfterFunc(hangGuard/2, func() { released = true; close(slow.release) })
	got := map[any]bool{}
	for len(got) < 3 {
		r := s.next()
		if _, isSlow := r.ID.(float64); isSlow {
			t.Fatalf("slow call %v answered before the quick requests (answered so far: %v)", r.ID, got)
		}
		got[r.ID] = true
	}
	if !guard.Stop() || released {
		t.Fatal("the quick requests were answered only after the slow calls were released")
	}
	close(slow.release)
	for range slowCalls {
		if r := s.next(); r.Error != nil {
			t.Errorf("slow call: %s", r.raw)
		}
	}
	s.close()
}

// TestBusyCallsAreAnsweredAndLoggedOnce overflows the call queue and
// checks every call is answered once, the overflow warned about once.
func TestBusyCallsAreAnsweredAndLoggedOnce(t *testing.T) {
	slow := newSlowTool()
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil))
	s := start(t, newServer(slow), Options{CallWorkers: 1, CallQueue: 2, Logger: logger,
		Busy: func(tool string) *mcp.CallToolResult { return mcp.NewToolResultError("busy: " + tool) }})
	s.initialize("2025-06-18")
	const calls = 10
	s.send(toolCall(0, "slow", "0"))
	waitStarted(t, slow, 1)
	for i := 1; i < calls; i++ {
		s.send(toolCall(i, "slow", fmt.Sprint(i)))
	}
	busy := 0
	for busy < calls-3 {
		r := s.next()
		if !strings.Contains(string(r.Result), "busy: slow") {
			t.Fatalf("expected busy answers while the queue is full, got %s", r.raw)
		}
		busy++
	}
	close(slow.release)
	answered := map[any]int{}
	for _, r := range s.close() {
		answered[r.ID]++
	}
	if len(answered) != 3 {
		t.Errorf("the running and queued calls: answers %v, want 3 distinct", answered)
	}
	if st := s.tr.Stats(); st.Busy != calls-3 {
		t.Errorf("Stats().Busy = %d, want %d", st.Busy, calls-3)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if n := strings.Count(logs.String(), "arrive faster"); n != 1 {
		t.Errorf("the overflow was logged %d times, want once:\n%s", n, logs.String())
	}
}

// TestQueuedBytesAreBounded fills the call queue's byte budget with large
// calls: the next large call is refused busy, a small one still queues.
func TestQueuedBytesAreBounded(t *testing.T) {
	slow := newSlowTool()
	s := start(t, newServer(slow), Options{CallWorkers: 1, CallQueueBytes: 64 << 10})
	s.initialize("2025-06-18")
	s.send(toolCall("running", "slow", ""))
	waitStarted(t, slow, 1)
	big := func(id string) string { return toolCall(id, "slow", strings.Repeat("x", 40<<10)) }
	s.send(big("big1"), big("big2"), toolCall("small", "slow", ""))
	if r := s.next(); r.ID != "big2" || r.Error == nil || r.Error.Code != codeServerBusy {
		t.Fatalf("the call over the byte budget: %s", r.raw)
	}
	close(slow.release)
	answered := map[any]bool{}
	for _, r := range s.close() {
		if r.Error != nil {
			t.Errorf("%s", r.raw)
		}
		answered[r.ID] = true
	}
	if len(answered) != 3 || !answered["big1"] || !answered["small"] {
		t.Fatalf("answered %v, want running, big1 and small", answered)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestProtocolRules sends raw lines and checks the transport's answer to
// each: its id and error code, or a result.
func TestProtocolRules(t *testing.T) {
	const (
		ok   = 0
		none = 1 // no answer at all
	)
	cases := []struct {
		name    string
		version string // "" = no initialize
		line    string
		id      any
		code    int
	}{
		{"ping before initialize", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, float64(1), ok},
		{"tools/call before initialize", "", toolCall(2, "quick", ""), float64(2), -32600},
		{"tools/list before initialize", "", `{"jsonrpc":"2.0","id":"l","method":"tools/list"}`, "l", -32600},
		{"object id", "2025-06-18", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, nil, -32600},
		{"array id", "2025-06-18", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, nil, -32600},
		{"boolean id", "2025-06-18", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, nil, -32600},
		{"null id", "2025-06-18", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, -32600},
		{"fractional id", "2025-06-18", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, nil, -32600},
		{"object id on a tool call", "2025-06-18", toolCall(map[string]int{"a": 1}, "quick", ""), nil, -32600},
		{"string id", "2025-06-18", `{"jsonrpc":"2.0","id":"x","method":"ping"}`, "x", ok},
		{"wrong jsonrpc", "2025-06-18", `{"jsonrpc":"1.0","id":3,"method":"ping"}`, float64(3), -32600},
		{"no jsonrpc", "2025-06-18", `{"id":3,"method":"ping"}`, float64(3), -32600},
		{"method not a string", "2025-06-18", `{"jsonrpc":"2.0","id":3,"method":7}`, float64(3), -32600},
		{"neither request nor response", "2025-06-18", `{"jsonrpc":"2.0","id":3}`, float64(3), -32600},
		{"not JSON", "2025-06-18", `{"jsonrpc":"2.0","id":3,`, nil, -32700},
		{"JSON but not an object", "2025-06-18", `42`, nil, -32600},
		{"blank line", "2025-06-18", ``, nil, none},
		{"spaces and a carriage return", "2025-06-18", " \t \r", nil, none},
		{"notification", "2025-06-18", `{"jsonrpc":"2.0","method":"notifications/whatever"}`, nil, none},
		{"a response from the client", "2025-06-18", `{"jsonrpc":"2.0","id":99,"result":{}}`, nil, none},
		{"batch under 2025-06-18", "2025-06-18", `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, nil, -32600},
		{"batch under 2025-11-25", "2025-11-25", `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, nil, -32600},
		{"batch before initialize", "", `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, nil, -32600},
		{"empty batch under 2025-03-26", "2025-03-26", `[]`, nil, -32600},
		{"batch not JSON", "2025-03-26", `[{"jsonrpc":"2.0"`, nil, -32700},
		{"batch of notifications under 2025-03-26", "2025-03-26", `[{"jsonrpc":"2.0","method":"notifications/x"}]`, nil, none},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := start(t, newServer(newSlowTool()), Options{Quick: func(string) bool { return true }})
			if c.version != "" {
				s.initialize(c.version)
			}
			s.send(c.line, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			r := s.next()
			if c.code == none {
				if r.ID != "after" {
					t.Fatalf("expected no answer, got %s", r.raw)
				}
				return
			}
			if r.ID == "after" { // answers run concurrently: take the other
				r = s.next()
			}
			switch {
			case r.ID != c.id:
				t.Fatalf("id = %v, want %v: %s", r.ID, c.id, r.raw)
			case c.code == ok && r.Error != nil:
				t.Fatalf("want a result, got %s", r.raw)
			case c.code != ok && (r.Error == nil || r.Error.Code != c.code):
				t.Fatalf("want error %d, got %s", c.code, r.raw)
			case c.code != ok && len(r.Error.Message) < 20:
				t.Fatalf("the error should say what to do: %s", r.raw)
			}
		})
	}
}

func TestBatchUnder20250326(t *testing.T) {
	s := start(t, newServer(newSlowTool()), Options{Quick: func(tool string) bool { return tool == "quick" }})
	s.initialize("2025-03-26")
	s.send(`[` + toolCall(1, "quick", "") + `,{"jsonrpc":"2.0","method":"notifications/x"},` + toolCall(2, "echo", "two") +
		`,{"jsonrpc":"2.0","id":{},"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}]`)
	r := s.next()
	var members []reply
	if r.ID != "batch" || json.Unmarshal([]byte(r.raw), &members) != nil {
		t.Fatalf("want one array answer, got %s", r.raw)
	}
	got := map[any]int{}
	for _, m := range members {
		code := 0
		if m.Error != nil {
			code = m.Error.Code
		}
		got[m.ID] = code
	}
	want := map[any]int{float64(1): 0, float64(2): 0, nil: -32600, float64(3): -32600}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("batch answers (id: code) = %v, want %v\n%s", got, want, r.raw)
	}
	s.close()
}

func TestDuplicateIDInFlightIsRefused(t *testing.T) {
	slow := newSlowTool()
	s := start(t, newServer(slow), Options{})
	s.initialize("2025-06-18")
	s.send(toolCall(7, "slow", "a"))
	waitStarted(t, slow, 1)
	s.send(toolCall(7, "slow", "b"))
	if r := s.next(); r.ID != float64(7) || r.Error == nil || r.Error.Code != -32600 {
		t.Fatalf("a second request with the id of one in flight: %s", r.raw)
	}
	close(slow.release)
	if r := s.next(); r.ID != float64(7) || r.Error != nil {
		t.Fatalf("the first request: %s", r.raw)
	}
	s.close()
}

// TestCancelledRequestsAreNotAnswered cancels a running call and a queued
// one; neither is answered, and the queued one never runs.
func TestCancelledRequestsAreNotAnswered(t *testing.T) {
	slow := newSlowTool()
	s := start(t, newServer(slow), Options{CallWorkers: 1})
	s.initialize("2025-06-18")
	s.send(toolCall("running", "slow", "running"))
	waitStarted(t, slow, 1)
	// The one worker is taken: "queued" waits. Cancel it first, then the
	// running call, whose end frees the worker.
	s.send(toolCall("queued", "slow", "queued"),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"queued"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"running","reason":"user"}}`)
	select {
	case tag := <-slow.returned:
		if tag != "running" {
			t.Fatalf("returned: %s", tag)
		}
	case <-time.After(hangGuard):
		t.Fatal("the cancelled call's context was not cancelled")
	}
	s.send(toolCall("after", "echo", "after"))
	close(slow.release)
	all := s.close()
	if len(all) != 1 || all[0].ID != "after" {
		t.Fatalf("want only the answer to \"after\", got %v", all)
	}
	select {
	case tag := <-slow.started:
		t.Fatalf("the call cancelled while queued ran anyway (%s)", tag)
	default:
	}
	if got := s.tr.Stats().Cancelled; got != 2 {
		t.Errorf("Stats().Cancelled = %d, want 2", got)
	}
}

// TestPipelinedCallsAreAnsweredExactlyOnce writes 2,000 calls without
// waiting, closes the input and checks that each is answered exactly once
// before Serve returns.
func TestPipelinedCallsAreAnsweredExactlyOnce(t *testing.T) {
	s := start(t, newServer(newSlowTool()), Options{Quick: func(tool string) bool { return tool == "quick" }})
	s.initialize("2025-06-18")
	const calls = 2000
	{
		var b strings.Builder
		for i := range calls {
			switch i % 3 {
			case 0:
				b.WriteString(toolCall(i, "quick", ""))
			case 1:
				b.WriteString(toolCall(i, "echo", fmt.Sprint(i)))
			default:
				fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
			}
			b.WriteByte('\n')
		}
		s.send(strings.TrimSuffix(b.String(), "\n"))
	}
	answered := map[any]int{}
	for _, r := range s.close() {
		answered[r.ID]++
	}
	if len(answered) != calls {
		t.Fatalf("%d distinct ids answered, want %d", len(answered), calls)
	}
	for id, n := range answered {
		if n != 1 {
			t.Errorf("id %v answered %d times", id, n)
		}
	}
}

// FuzzTransport feeds arbitrary input and checks the transport neither
// panics nor stops before the input ends, and writes only JSON lines.
func FuzzTransport(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n" + `[{"jsonrpc":"2.0","id":2,"method":"ping"},1,[]]`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}` + "\n\n" + `[]`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[1]}}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("a", 300) + `"`,
		"\xff\xfe{\r\n",
	} {
		f.Add([]byte(seed))
	}
	ms := newServer(nil)
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		tr := New(ms, Options{MaxMessageBytes: 256, Quick: func(string) bool { return true }, Grace: time.Second})
		if err := tr.Serve(context.Background(), bytes.NewReader(input), &out); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("wrote a line that is not JSON: %q", line)
			}
		}
	})
}

// An intercepted request is answered by Intercept, not mcp-go; requests
// whose method blocks are served on their own, so more of them than there
// are quick workers or call workers leave both lanes free; past CallQueue
// of them, one more is answered busy.
func TestInterceptAndBlockingRequests(t *testing.T) {
	release := make(chan struct{})
	waiting := make(chan struct{}, 16)
	intercept := func(ctx context.Context, msg []byte) (any, bool) {
		var m struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		_ = json.Unmarshal(msg, &m)
		if m.Method != "wait/forever" {
			return nil, false
		}
		waiting <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return mcp.NewJSONRPCResultResponse(mcp.NewRequestId(m.ID), map[string]string{"waited": "yes"}), true
	}
	s := start(t, newServer(nil), Options{
		Quick: func(tool string) bool { return tool == "quick" }, QuickWorkers: 1, CallWorkers: 1, CallQueue: 2,
		Intercept: intercept, Blocking: func(method string) bool { return method == "wait/forever" },
	})
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":"w1","method":"wait/forever"}`, `{"jsonrpc":"2.0","id":"w2","method":"wait/forever"}`)
	for range 2 {
		select {
		case <-waiting:
		case <-time.After(hangGuard):
			t.Fatal("the second blocking request was not served while the first blocked")
		}
	}
	s.send(`{"jsonrpc":"2.0","id":"w3","method":"wait/forever"}`)
	if r := s.next(); r.ID != "w3" || r.Error == nil || r.Error.Code != codeServerBusy {
		t.Fatalf("a blocking request past the queue = %s", r.raw)
	}
	s.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`, toolCall("q", "quick", ""), toolCall("e", "echo", "x"))
	got := map[any]bool{}
	for len(got) < 3 {
		r := s.next()
		if r.Error != nil || r.ID == "w1" || r.ID == "w2" {
			t.Fatalf("while two requests block: %s", r.raw)
		}
		got[r.ID] = true
	}
	close(release)
	for range 2 {
		if r := s.next(); !strings.Contains(string(r.Result), `"waited":"yes"`) {
			t.Fatalf("an intercepted request = %s", r.raw)
		}
	}
	s.close()
}
