package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/internal/testupstream"
	"github.com/intentsrv/intentsrv/tokens"
)

// benchUpstream is one upstream the benchmarks front: its mcpServers entry,
// and an echo call with the same arguments for the direct and proxied path.
type benchUpstream struct {
	name    string
	command string
	args    []string
	env     map[string]string
	tool    string
	params  map[string]any
}

func benchUpstreams(b *testing.B) []benchUpstream {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	ups := []benchUpstream{{name: "go", command: exe, args: []string{"-test.run=^$"},
		env: map[string]string{testupstream.EnvMode: "serve"}, tool: "echo", params: map[string]any{"message": "hi"}}}
	if p := installedPeer("everything"); p != "" {
		ups = append(ups, benchUpstream{name: "everything", command: "node", args: []string{p, "stdio"}, tool: "echo", params: map[string]any{"message": "hi"}})
	}
	return ups
}

// installedPeer is the entry script of reference server name when it is
// installed, else "".
func installedPeer(name string) string {
	p := os.Getenv("INTENTSRV_SERVER_" + strings.ToUpper(name))
	if p == "" {
		p = mcpServerCachePath(name)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	if _, err := os.Stat(abs); err != nil {
		return ""
	}
	return abs
}

func (u benchUpstream) config(b *testing.B) string {
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{u.name: map[string]any{"command": u.command, "args": u.args, "env": u.env}}})
	path := filepath.Join(b.TempDir(), "mcp.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// direct connects mcp-go's stdio client to the upstream itself.
func (u benchUpstream) direct(b *testing.B) *client.Client {
	env := os.Environ()
	for k, v := range u.env {
		env = append(env, k+"="+v)
	}
	c, err := client.NewStdioMCPClient(u.command, env, u.args...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: mcp.Implementation{Name: "bench", Version: "0"}}}); err != nil {
		b.Fatal(err)
	}
	return c
}

func callOnce(b *testing.B, c *client.Client, name string, args map[string]any) time.Duration {
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	start := time.Now()
	res, err := c.CallTool(context.Background(), req)
	d := time.Since(start)
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %+v", name, err, res)
	}
	return d
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkUpstreamProxy alternates one direct call to an upstream and one
// call to the same tool through intentsrv (ask over stdio), and reports the
// median of each and their difference: the latency intentsrv adds.
//
//	go test ./cmd/intentsrv -run '^$' -bench BenchmarkUpstreamProxy -benchtime 1000x
func BenchmarkUpstreamProxy(b *testing.B) {
	for _, u := range benchUpstreams(b) {
		b.Run(u.name, func(b *testing.B) {
			direct := u.direct(b)
			p := serveProcess(b, "--mcp-config", u.config(b), "--mcp-cache", "off").client
			ask := map[string]any{"action": u.name + "." + u.tool, "params": u.params}
			for range 20 { // warm both paths
				callOnce(b, direct, u.tool, u.params)
				callOnce(b, p, "ask", ask)
			}
			var d, x []time.Duration
			b.ResetTimer()
			for range b.N {
				d = append(d, callOnce(b, direct, u.tool, u.params))
				x = append(x, callOnce(b, p, "ask", ask))
			}
			b.StopTimer()
			md, mx := median(d), median(x)
			b.ReportMetric(float64(md.Microseconds()), "direct-p50-µs")
			b.ReportMetric(float64(mx.Microseconds()), "proxied-p50-µs")
			b.ReportMetric(float64((mx - md).Microseconds()), "added-p50-µs")
		})
	}
}

// BenchmarkUpstreamStartup measures intentsrv's start to its first
// tools/list answer and first find answer in front of one upstream: cold
// (empty tools cache: the upstream must start first) and cached.
//
//	go test ./cmd/intentsrv -run '^$' -bench BenchmarkUpstreamStartup -benchtime 10x
func BenchmarkUpstreamStartup(b *testing.B) {
	for _, u := range benchUpstreams(b) {
		cfg := u.config(b)
		for _, mode := range []string{"cold", "cached"} {
			b.Run(u.name+"/"+mode, func(b *testing.B) {
				warm := b.TempDir()
				if mode == "cached" {
					serveProcess(b, "--mcp-config", cfg, "--mcp-cache", warm) // fills the cache
				}
				var list, find []time.Duration
				for range b.N {
					dir := warm
					if mode == "cold" {
						dir = b.TempDir()
					}
					start := time.Now()
					c := serveProcess(b, "--mcp-config", cfg, "--mcp-cache", dir).client
					if _, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
						b.Fatal(err)
					}
					list = append(list, time.Since(start))
					callOnce(b, c, "find", map[string]any{"intent": "echo a message"})
					find = append(find, time.Since(start))
					c.Close()
				}
				b.ReportMetric(float64(median(list).Milliseconds()), "tools-list-p50-ms")
				b.ReportMetric(float64(median(find).Milliseconds()), "first-find-p50-ms")
			})
		}
	}
}

// BenchmarkUpstreamListingTokens reports what a host pays to list tools:
// the upstream's own tools/list answer against intentsrv's in front of it
// (o200k_base, the same run).
//
//	go test ./cmd/intentsrv -run '^$' -bench BenchmarkUpstreamListingTokens -benchtime 1x
func BenchmarkUpstreamListingTokens(b *testing.B) {
	for _, u := range benchUpstreams(b) {
		b.Run(u.name, func(b *testing.B) {
			count := func(c *client.Client) int {
				res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
				if err != nil {
					b.Fatal(err)
				}
				raw, _ := json.Marshal(res.Tools)
				n, err := tokens.Count(tokens.O200K, string(raw))
				if err != nil {
					b.Fatal(err)
				}
				return n
			}
			var own, fronted int
			for range b.N {
				own = count(u.direct(b))
				fronted = count(serveProcess(b, "--mcp-config", u.config(b), "--mcp-cache", "off", "--writes", "allow").client)
			}
			b.ReportMetric(float64(own), "upstream-tokens")
			b.ReportMetric(float64(fronted), "intentsrv-tokens")
		})
	}
}

// BenchmarkThreePeersListingTokens compares what a host pays to list the
// tools of server-everything, server-filesystem and server-memory (the sum
// of their own tools/list answers) with intentsrv's one listing in front of
// all three, o200k_base and cl100k_base, the same run.
//
//	go test ./cmd/intentsrv -run '^$' -bench BenchmarkThreePeersListingTokens -benchtime 1x
func BenchmarkThreePeersListingTokens(b *testing.B) {
	root := b.TempDir()
	peers := map[string]benchUpstream{}
	for _, n := range []string{"everything", "filesystem", "memory"} {
		p := installedPeer(n)
		if p == "" {
			b.Skipf("server-%s is not installed (.ci/install-mcp-server.sh %s)", n, n)
		}
		u := benchUpstream{name: n, command: "node", args: []string{p}}
		switch n {
		case "everything":
			u.args = append(u.args, "stdio")
		case "filesystem":
			u.args = append(u.args, root)
		case "memory":
			u.env = map[string]string{"MEMORY_FILE_PATH": filepath.Join(root, "memory.jsonl")}
		}
		peers[n] = u
	}
	servers := map[string]any{}
	for n, u := range peers {
		servers[n] = map[string]any{"command": u.command, "args": u.args, "env": u.env}
	}
	doc, _ := json.Marshal(map[string]any{"mcpServers": servers})
	cfg := filepath.Join(b.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, doc, 0o600); err != nil {
		b.Fatal(err)
	}
	listed := func(c *client.Client, enc string) (tools, toks int) {
		res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := json.Marshal(res.Tools)
		n, err := tokens.Count(enc, string(raw))
		if err != nil {
			b.Fatal(err)
		}
		return len(res.Tools), n
	}
	for _, enc := range []string{tokens.O200K, tokens.CL100K} {
		b.Run(enc, func(b *testing.B) {
			var sum, tools, fronted int
			for range b.N {
				sum, tools = 0, 0
				for _, u := range peers {
					n, t := listed(u.direct(b), enc)
					tools += n
					sum += t
				}
				_, fronted = listed(serveProcess(b, "--mcp-config", cfg, "--mcp-cache", "off", "--writes", "allow").client, enc)
			}
			b.ReportMetric(float64(tools), "upstream-tools")
			b.ReportMetric(float64(sum), "upstreams-tokens")
			b.ReportMetric(float64(fronted), "intentsrv-tokens")
		})
	}
}
