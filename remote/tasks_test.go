package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/mark3labs/mcp-go/mcp"
)

// mcpPeer is one principal's raw JSON-RPC conversation with /mcp.
type mcpPeer struct {
	f       *fixture
	key     string
	session string
	next    int
}

type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call posts one request and returns its reply, read from a JSON body or
// from the first event of an SSE one.
func (p *mcpPeer) call(method, params string) rpcReply {
	p.f.t.Helper()
	p.next++
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, p.next, method, params)
	req, _ := http.NewRequest(http.MethodPost, p.f.url+PathMCP, strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+p.key)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.f.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		p.f.t.Fatalf("%s: HTTP %d: %s", method, resp.StatusCode, b)
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		p.session = s
	}
	var raw []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				raw = []byte(d)
				break
			}
		}
	} else {
		raw, _ = io.ReadAll(resp.Body)
	}
	var r rpcReply
	if err := json.Unmarshal(raw, &r); err != nil {
		p.f.t.Fatalf("%s: %v: %s", method, err, raw)
	}
	return r
}

func (p *mcpPeer) initialize() json.RawMessage {
	p.f.t.Helper()
	r := p.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
	if r.Error != nil {
		p.f.t.Fatalf("initialize: %s", r.Error.Message)
	}
	var init struct {
		Capabilities struct {
			Tasks json.RawMessage `json:"tasks"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(r.Result, &init)
	return init.Capabilities.Tasks
}

// task decodes a task from a CreateTaskResult or a task result.
func task(t *testing.T, r rpcReply) (id, status string) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("want a task, got error %d %s", r.Error.Code, r.Error.Message)
	}
	var created struct {
		Task *mcp.Task `json:"task"`
	}
	var got mcp.Task
	if err := json.Unmarshal(r.Result, &created); err != nil {
		t.Fatal(err)
	}
	if created.Task != nil {
		return created.Task.TaskId, string(created.Task.Status)
	}
	if err := json.Unmarshal(r.Result, &got); err != nil {
		t.Fatal(err)
	}
	return got.TaskId, string(got.Status)
}

// MCP Tasks over /mcp are the key's principal's, with sessions and
// without (where mcp-go's own task map would be one for every client):
// bob neither lists, reads, awaits nor cancels alice's task, and is told
// exactly what an unknown task id gets; alice polls her task, awaits its
// result, and finds it in her list.
func TestMCPTasksArePrincipals(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.Stateless = stateless })
			alice := &mcpPeer{f: f, key: keyAlice}
			bob := &mcpPeer{f: f, key: keyBob}
			if caps := alice.initialize(); string(caps) != `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}` {
				t.Fatalf("initialize advertises tasks as %s", caps)
			}
			bob.initialize()

			id, status := task(t, alice.call("tools/call", `{"name":"ask","arguments":{"action":"reports.build"},"task":{"ttl":60000}}`))
			if id == "" || status != "working" {
				t.Fatalf("alice's task-augmented ask: %q %q", id, status)
			}
			<-f.cat.started
			if got := bob.call("tasks/list", `{}`); got.Error != nil || strings.Contains(string(got.Result), id) {
				t.Fatalf("bob's tasks/list: %s %+v", got.Result, got.Error)
			}
			for _, method := range []string{"tasks/get", "tasks/cancel", "tasks/result"} {
				theirs := bob.call(method, fmt.Sprintf(`{"taskId":%q}`, id))
				none := bob.call(method, `{"taskId":"run_nosuchtask"}`)
				if theirs.Error == nil || none.Error == nil || theirs.Error.Code != -32602 ||
					theirs.Error.Message != strings.Replace(none.Error.Message, "run_nosuchtask", id, 1) {
					t.Fatalf("bob's %s of alice's task = %+v, of no task = %+v", method, theirs.Error, none.Error)
				}
			}
			if _, status := task(t, alice.call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, id))); status != "working" {
				t.Fatalf("alice's task after bob tried: %s", status)
			}
			if got := alice.call("tasks/list", `{}`); !strings.Contains(string(got.Result), id) {
				t.Fatalf("alice's tasks/list: %s", got.Result)
			}
			f.cat.finish()
			res := alice.call("tasks/result", fmt.Sprintf(`{"taskId":%q}`, id))
			if res.Error != nil || !strings.Contains(string(res.Result), "report ready") || strings.Contains(string(res.Result), `"isError":true`) {
				t.Fatalf("alice's tasks/result: %s %+v", res.Result, res.Error)
			}
		})
	}
}

// A task-augmented act goes through the same tool guard as any call: it
// is audited with what the call answered (here a preview, as a task that
// holds it), and a plain tools/call is still mcp-go's.
func TestMCPTaskActIsAudited(t *testing.T) {
	path := t.TempDir() + "/audit.log"
	f := newFixture(t, func(c *Config) { c.AuditLog = path })
	alice := &mcpPeer{f: f, key: keyAlice}
	alice.initialize()
	id, _ := task(t, alice.call("tools/call", `{"name":"act","arguments":{"action":"tickets.delete","params":{"id":7}},"task":{}}`))
	res := alice.call("tasks/result", fmt.Sprintf(`{"taskId":%q}`, id))
	if res.Error != nil || !strings.Contains(string(res.Result), "confirmation_required") {
		t.Fatalf("tasks/result of a destructive act without plan_ref: %s %+v", res.Result, res.Error)
	}
	recs, raw := readAudit(t, path)
	if len(recs) != 1 || recs[0].Principal != "alice" || !strings.Contains(raw, "tickets.delete") {
		t.Fatalf("audit = %s", raw)
	}
	if f.cat.deleted.Load() != 0 {
		t.Fatal("a preview deleted the ticket")
	}
}

// A tasks/result waiting for its task does not hold a shutdown: it is
// answered -32800, Serve returns cleanly although its deadline is an hour
// away, and the task itself is not touched.
func TestShutdownEndsWaitingTaskResult(t *testing.T) {
	reg, cat := newCatalog(t)
	is, err := intent.New(reg, intent.Options{Timeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{ShutdownTimeout: time.Hour, Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	s.SetIntent(is)
	t.Cleanup(func() { s.Close() })
	t.Cleanup(cat.finish)
	url, shutdown, result := serving(t, s)
	peer := &mcpPeer{f: &fixture{t: t, srv: s, cat: cat, url: url}}
	id, _ := task(t, peer.call("tools/call", `{"name":"ask","arguments":{"action":"reports.build"},"task":{}}`))
	<-cat.started

	waited := make(chan string, 1)
	go func() {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"tasks/result","params":{"taskId":%q}}`, id)
		resp, err := http.Post(url+PathMCP, "application/json", strings.NewReader(body))
		if err != nil {
			waited <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		waited <- fmt.Sprintf("%d %s", resp.StatusCode, b)
	}()
	for s.waitingTasks.Load() == 0 {
		runtime.Gosched() // until the tasks/result is in and waiting
	}
	shutdown()
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second): // a liveness bound, not a speed claim
		t.Fatal("a waiting tasks/result held the shutdown")
	}
	if got := <-waited; !strings.Contains(got, `"code":-32800`) {
		t.Fatalf("the waiting tasks/result = %s", got)
	}
	if rec, err := is.Tasks().Get(intent.WithCaller(context.Background(), AnonymousPrincipal), id); err != nil || rec.Status != "working" {
		t.Fatalf("the task after the shutdown: %+v, %v", rec, err)
	}
}
