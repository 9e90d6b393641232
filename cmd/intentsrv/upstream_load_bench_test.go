package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkUpstreamLoad loads and unloads one upstream at run time through
// act (--allow-upstream-loading), alternating, and reports the median of
// each: from the agent's call to the server's tools being findable, and
// back. The tools cache is off, so each load starts the server cold.
func BenchmarkUpstreamLoad(b *testing.B) {
	for _, u := range benchUpstreams(b) {
		b.Run(u.name, func(b *testing.B) {
			doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{u.name: map[string]any{
				"command": u.command, "args": u.args, "env": u.env, "disabled": true}}})
			cfg := filepath.Join(b.TempDir(), "mcp.json")
			if err := os.WriteFile(cfg, doc, 0o600); err != nil {
				b.Fatal(err)
			}
			c := serveProcess(b, "--mcp-config", cfg, "--mcp-cache", "off", "--writes", "allow", "--allow-upstream-loading").client
			args := map[string]any{"server": u.name}
			var loads, unloads []time.Duration
			for b.Loop() {
				loads = append(loads, callOnce(b, c, "act", map[string]any{"action": "intentsrv.upstreams.load", "params": args}))
				unloads = append(unloads, callOnce(b, c, "act", map[string]any{"action": "intentsrv.upstreams.unload", "params": args}))
			}
			b.ReportMetric(float64(median(loads).Microseconds())/1e3, "load-ms")
			b.ReportMetric(float64(median(unloads).Microseconds())/1e3, "unload-ms")
		})
	}
}
