package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
)

// Keys of the test principals. They are long enough for MinKeyBytes and
// distinctive enough to grep for in logs.
const (
	keyAlice = "alice-key-0123456789abcdef"
	keyBob   = "bob-key-0123456789abcdef-x"
)

// catalog is a small service with a read, a slow read that waits for the
// test to release it, and a destructive operation that counts how often
// it ran.
type catalog struct {
	started  chan struct{} // receives once per slow call started
	release  chan struct{} // closed by finish to let slow calls return
	once     sync.Once
	deleted  atomic.Int64
	lastNote atomic.Value // string: the last note a delete carried
}

type ticketIn struct {
	ID   int    `json:"id" jsonschema:"minimum=1"`
	Note string `json:"note,omitempty"`
}

type searchIn struct {
	Query string `json:"query,omitempty"`
}

func newCatalog(t testing.TB) (*operations.Registry, *catalog) {
	t.Helper()
	c := &catalog{started: make(chan struct{}, 16), release: make(chan struct{})}
	r := operations.NewRegistry()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(operations.Add(r, operations.Operation{ID: "tickets.search", Summary: "Search support tickets by text", Kind: operations.KindRead},
		func(ctx context.Context, in searchIn) ([]string, error) {
			return []string{"ticket 1: printer on fire"}, nil
		}))
	must(operations.Add(r, operations.Operation{ID: "reports.build", Summary: "Build the monthly report (slow)", Kind: operations.KindRead},
		func(ctx context.Context, in searchIn) (string, error) {
			c.started <- struct{}{}
			select {
			case <-c.release:
				return "report ready", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}))
	must(operations.Add(r, operations.Operation{ID: "tickets.delete", Summary: "Delete a ticket forever", Kind: operations.KindDestructive},
		func(ctx context.Context, in ticketIn) (map[string]int, error) {
			c.deleted.Add(1)
			c.lastNote.Store(in.Note)
			return map[string]int{"deleted": in.ID}, nil
		}))
	return r, c
}

// fixture is a remote.Server over the test catalog on a loopback
// httptest server.
type fixture struct {
	t   *testing.T
	srv *Server
	cat *catalog
	url string
}

// newFixture starts the real handler with keys for alice and bob and the
// given config tweaks.
func newFixture(t *testing.T, tweak func(*Config)) *fixture {
	t.Helper()
	reg, cat := newCatalog(t)
	is, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm, PlanKey: bytes.Repeat([]byte("k"), 32), Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	keys := &Keys{}
	if err := keys.readKeys(strings.NewReader("alice "+keyAlice+"\nbob "+keyBob+"\n"), "test"); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Keys: keys, Version: "test"}
	if tweak != nil {
		tweak(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.SetIntent(is)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		cat.finish()
		hs.Close()
	})
	return &fixture{t: t, srv: s, cat: cat, url: hs.URL}
}

// finish lets every slow call, running or to come, return.
func (c *catalog) finish() { c.once.Do(func() { close(c.release) }) }

// mcpClient connects mcp-go's streamable HTTP client with key (none when
// empty) and initializes it.
func (f *fixture) mcpClient(key string) (*client.Client, error) {
	var opts []transport.StreamableHTTPCOption
	if key != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	}
	c, err := client.NewStreamableHttpClient(f.url+PathMCP, opts...)
	if err != nil {
		return nil, err
	}
	f.t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "remote-test", Version: "0"},
	}})
	return c, err
}

func (f *fixture) mustMCP(key string) *client.Client {
	f.t.Helper()
	c, err := f.mcpClient(key)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// callTool calls an intent tool over MCP and returns its envelope.
func callTool(t *testing.T, c *client.Client, tool string, args map[string]any) intent.Envelope {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, toolRequest(tool, args))
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	env := resultEnvelope(res, nil)
	if env.OK == res.IsError {
		t.Fatalf("isError %v but ok %v", res.IsError, env.OK)
	}
	return *env
}

// restResponse is one REST answer: status, headers and envelope.
type restResponse struct {
	status int
	header http.Header
	env    intent.Envelope
	body   []byte
}

// post sends body to the REST twin with key (none when empty) and extra
// headers as "Name: value" pairs.
func (f *fixture) post(path, key, body string, headers ...string) restResponse {
	f.t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.url+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		if name == "Host" {
			req.Host = value
			continue
		}
		req.Header.Set(name, value)
	}
	return f.do(req)
}

func (f *fixture) do(req *http.Request) restResponse {
	f.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := restResponse{status: resp.StatusCode, header: resp.Header, body: raw}
	_ = json.Unmarshal(raw, &out.env)
	return out
}

func toolRequest(tool string, args map[string]any) mcp.CallToolRequest {
	return mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}}
}
