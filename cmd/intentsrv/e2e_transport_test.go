package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// These tests speak raw JSON-RPC lines to the binary: the transport's
// limits and protocol rules as a client meets them.

// e2eHangGuard only stops a test that would hang; nothing asserts on time.
const e2eHangGuard = 60 * time.Second

type rawReply struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

// rawServer is the binary in serve mode with its stdin and stdout piped.
type rawServer struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan rawReply
	stderr  *lockedBuffer
}

func startRaw(t *testing.T, args ...string) *rawServer {
	t.Helper()
	s := &rawServer{t: t, replies: make(chan rawReply, 8192), stderr: &lockedBuffer{}}
	s.cmd = exec.Command(intentsrvBinary(t), append([]string{"serve", "--log-level", "warn"}, args...)...)
	s.cmd.Stderr = s.stderr
	s.stdin, _ = s.cmd.StdinPipe()
	stdout, _ := s.cmd.StdoutPipe()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(2*e2eHangGuard, func() { s.cmd.Process.Kill() })
	t.Cleanup(func() {
		kill.Stop()
		s.stdin.Close()
		s.cmd.Process.Kill()
		s.cmd.Wait()
	})
	go func() {
		defer close(s.replies)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			r := rawReply{line: sc.Text()}
			if strings.HasPrefix(r.line, "[") {
				r.ID = "batch"
			} else if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("stdout carried a line that is not JSON-RPC: %q", r.line)
			}
			s.replies <- r
		}
	}()
	return s
}

func (s *rawServer) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.stdin, l+"\n"); err != nil {
			s.t.Fatalf("write: %v\nstderr: %s", err, s.stderr.String())
		}
	}
}

func (s *rawServer) next() rawReply {
	s.t.Helper()
	select {
	case r, ok := <-s.replies:
		if !ok {
			s.t.Fatalf("the server stopped answering; stderr:\n%s", s.stderr.String())
		}
		return r
	case <-time.After(e2eHangGuard):
		s.t.Fatalf("no answer; stderr:\n%s", s.stderr.String())
	}
	return rawReply{}
}

// finish closes stdin and returns every answer written before exit.
func (s *rawServer) finish() []rawReply {
	s.t.Helper()
	s.stdin.Close()
	var all []rawReply
	for r := range s.replies {
		all = append(all, r)
	}
	if err := s.cmd.Wait(); err != nil {
		s.t.Fatalf("serve exited with %v; stderr:\n%s", err, s.stderr.String())
	}
	return all
}

const rawInitialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

func (s *rawServer) initialize() {
	s.t.Helper()
	s.send(rawInitialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if r := s.next(); r.ID != "init" || r.Error != nil {
		s.t.Fatalf("initialize: %s", r.line)
	}
}

func rawCall(id any, tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return string(b)
}

// TestE2EOverlongLineIsRefusedAndServingGoesOn sends a 12 MB line under a
// 1 MiB cap, then a find: the first gets -32600 with its id, the second
// its answer.
func TestE2EOverlongLineIsRefusedAndServingGoesOn(t *testing.T) {
	s := startRaw(t, "--max-message-bytes", "1048576")
	s.initialize()
	head := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"find","arguments":{"intent":"`
	w := bufio.NewWriterSize(s.stdin, 64<<10)
	w.WriteString(head)
	chunk := strings.Repeat("open tickets ", 4096)
	for n := 0; n < 12<<20; n += len(chunk) {
		w.WriteString(chunk)
	}
	w.WriteString(`"}}}` + "\n")
	w.WriteString(rawCall(6, "find", map[string]any{"intent": "open tickets"}) + "\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r := s.next()
	if r.ID != float64(5) || r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "too large") {
		t.Fatalf("the over-long line: %s", r.line)
	}
	r = s.next()
	if r.ID != float64(6) || r.Error != nil || !strings.Contains(r.line, `\"ok\":true`) {
		t.Fatalf("the find after it: %.300s", r.line)
	}
	s.finish()
	if !strings.Contains(s.stderr.String(), "over-long") {
		t.Errorf("stderr should record the refusal:\n%s", s.stderr.String())
	}
}

// TestE2EProtocolRules sends the cases a hardening review found and
// expects exactly the answers the protocol calls for.
func TestE2EProtocolRules(t *testing.T) {
	s := startRaw(t)
	s.send(rawCall(1, "find", map[string]any{"intent": "open tickets"})) // before initialize
	if r := s.next(); r.ID != float64(1) || r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "initialize") {
		t.Fatalf("tools/call before initialize: %s", r.line)
	}
	s.initialize()
	s.send(
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		``, `   `,
		`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":"last","method":"ping"}`,
	)
	var invalid []rawReply
	last := false
	for _, r := range s.finish() {
		switch {
		case r.ID == "last" && r.Error == nil:
			last = true
		case r.ID == nil && r.Error != nil && r.Error.Code == -32600:
			invalid = append(invalid, r)
		default:
			t.Errorf("unexpected answer: %s", r.line)
		}
	}
	if !last || len(invalid) != 2 {
		t.Fatalf("want the object-id ping and the batch refused (-32600, id null) and the last ping answered; got %d refusals, last answered %v", len(invalid), last)
	}
	if !strings.Contains(invalid[1].Error.Message, "batches") || !strings.Contains(invalid[1].Error.Message, "2025-06-18") {
		t.Errorf("the batch refusal should name batches and the negotiated revision: %s", invalid[1].line)
	}
}

// TestE2EPipelinedCallsAnsweredExactlyOnce writes 2,000 calls of every
// verb without waiting, closes stdin at once (as a script or a pipe does)
// and expects exactly one answer to each, none an error, before exit.
func TestE2EPipelinedCallsAnsweredExactlyOnce(t *testing.T) {
	var in strings.Builder
	in.WriteString(rawInitialize + "\n")
	const calls = 2000
	for i := 1; i <= calls; i++ {
		switch i % 4 {
		case 0:
			in.WriteString(rawCall(i, "find", map[string]any{"intent": "list open tickets"}))
		case 1:
			in.WriteString(rawCall(i, "describe", map[string]any{"action": "helpdesk.tickets.get"}))
		case 2:
			in.WriteString(rawCall(i, "ask", map[string]any{"action": "helpdesk.tickets.get", "params": map[string]any{"ticket_id": 42}}))
		default:
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
		}
		in.WriteByte('\n')
	}
	cmd := exec.Command(intentsrvBinary(t), "serve", "--log-level", "warn")
	cmd.Stdin = strings.NewReader(in.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	answered := map[any]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var msg struct {
			ID     any             `json:"id"`
			Error  json.RawMessage `json:"error"`
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("bad line %q", line)
		}
		if msg.Error != nil || msg.Result.IsError {
			t.Errorf("request %v failed: %.300s", msg.ID, line)
		}
		answered[msg.ID]++
	}
	for i := 1; i <= calls; i++ {
		if answered[float64(i)] != 1 {
			t.Errorf("request %d answered %d times", i, answered[float64(i)])
		}
	}
	if len(answered) != calls+1 {
		t.Errorf("%d distinct ids answered, want %d", len(answered), calls+1)
	}
	if strings.Count(stderr.String(), "\n") > 5 {
		t.Errorf("a burst should not flood stderr:\n%s", stderr.String())
	}
}

// slowUpstream is an OpenAPI backend on loopback whose one operation
// blocks until released, reporting each request's arrival and end.
type slowUpstream struct {
	srv     *httptest.Server
	release chan struct{}
	arrived chan string
	gone    chan string // a request whose client went away before release
	opID    string
	args    []string
}

func startSlowUpstream(t *testing.T) *slowUpstream {
	t.Helper()
	u := &slowUpstream{release: make(chan struct{}), arrived: make(chan string, 256), gone: make(chan string, 256)}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tag := r.URL.Query().Get("tag")
		u.arrived <- tag
		select {
		case <-u.release:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"tag":%q}`, tag)
		case <-r.Context().Done():
			u.gone <- tag
		}
	}))
	t.Cleanup(func() {
		select {
		case <-u.release:
		default:
			close(u.release)
		}
		u.srv.Close()
	})
	spec := filepath.Join(t.TempDir(), "slow.yaml")
	os.WriteFile(spec, []byte(`openapi: 3.0.3
info: {title: Slow backend, version: "1"}
paths:
  /slow:
    get:
      operationId: getSlow
      summary: Wait for the slow backend to answer
      parameters:
        - {name: tag, in: query, required: true, schema: {type: string}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: object}}}}
`), 0o644)
	u.args = []string{"--openapi", "slow=" + spec, "--base-url", u.srv.URL, "--openapi-cache", "off"}
	out, err := exec.Command(intentsrvBinary(t), append([]string{"list"}, u.args...)...).Output()
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	u.opID = strings.TrimSpace(string(out))
	return u
}

func (u *slowUpstream) waitArrived(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-u.arrived:
		case <-time.After(e2eHangGuard):
			t.Fatalf("fewer than %d calls reached the upstream", n)
		}
	}
}

// TestE2EDiscoveryIsNotQueuedBehindSlowCalls keeps more slow ask calls in
// flight than there are call workers and expects find and describe to be
// answered before any of them.
func TestE2EDiscoveryIsNotQueuedBehindSlowCalls(t *testing.T) {
	u := startSlowUpstream(t)
	s := startRaw(t, u.args...)
	s.initialize()
	const slow = 12 // more than the 8 call workers: some wait in the queue
	for i := range slow {
		s.send(rawCall(100+i, "ask", map[string]any{"action": u.opID, "params": map[string]any{"tag": fmt.Sprint(i)}}))
	}
	u.waitArrived(t, 8)
	s.send(rawCall("find", "find", map[string]any{"intent": "slow backend"}),
		rawCall("describe", "describe", map[string]any{"action": u.opID}))
	got := map[any]bool{}
	for len(got) < 2 {
		r := s.next()
		if _, isAsk := r.ID.(float64); isAsk {
			t.Fatalf("ask %v answered before discovery: %s", r.ID, r.line)
		}
		if r.Error != nil || !strings.Contains(r.line, `\"ok\":true`) {
			t.Fatalf("%v: %.300s", r.ID, r.line)
		}
		got[r.ID] = true
	}
	close(u.release)
	for range slow {
		if r := s.next(); r.Error != nil || !strings.Contains(r.line, `\"ok\":true`) {
			t.Errorf("slow ask: %.300s", r.line)
		}
	}
	s.finish()
}

// TestE2ECancelledCallIsNotAnswered cancels an ask waiting on the
// upstream: the upstream request is abandoned and no answer is written.
func TestE2ECancelledCallIsNotAnswered(t *testing.T) {
	u := startSlowUpstream(t)
	s := startRaw(t, u.args...)
	s.initialize()
	s.send(rawCall(200, "ask", map[string]any{"action": u.opID, "params": map[string]any{"tag": "cancel-me"}}))
	u.waitArrived(t, 1)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":200,"reason":"user"}}`)
	select {
	case <-u.gone:
	case <-time.After(e2eHangGuard):
		t.Fatal("the cancelled call kept its upstream request open")
	}
	s.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	all := s.finish()
	if len(all) != 1 || all[0].ID != "after" {
		t.Fatalf("want only the ping answered, got %v", all)
	}
}

func TestE2ETransportFlagsAreChecked(t *testing.T) {
	for _, args := range [][]string{{"--max-message-bytes", "10"}, {"--call-workers", "0"}} {
		cmd := exec.Command(intentsrvBinary(t), append([]string{"serve"}, args...)...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitUsage || !strings.Contains(string(out), args[0]) {
			t.Errorf("serve %v: err %v, output %q; want exit %d naming the flag", args, err, out, exitUsage)
		}
	}
}
