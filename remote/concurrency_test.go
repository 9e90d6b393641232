package remote

import (
	"fmt"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

// TestManyClientsMixedCalls runs clients of two principals at once over
// MCP, each mixing find, describe and ask (run it with -race): every call
// must succeed under the concurrency cap.
func TestManyClientsMixedCalls(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxConcurrentCalls = 16 })
	const clientsPerPrincipal, calls = 4, 15
	var clients []*client.Client
	for i := 0; i < clientsPerPrincipal; i++ {
		clients = append(clients, f.mustMCP(keyAlice), f.mustMCP(keyBob))
	}
	calls3 := []struct {
		tool string
		args map[string]any
	}{
		{"find", map[string]any{"intent": "search tickets"}},
		{"describe", map[string]any{"action": "tickets.search"}},
		{"ask", map[string]any{"action": "tickets.search", "params": map[string]any{"query": "x"}}},
	}
	errs := make(chan error, len(clients)*calls)
	var wg sync.WaitGroup
	for ci, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				call := calls3[(ci+i)%len(calls3)]
				res, err := c.CallTool(t.Context(), toolRequest(call.tool, call.args))
				if err != nil {
					errs <- err
					continue
				}
				if env := resultEnvelope(res, nil); !env.OK {
					errs <- fmt.Errorf("%s: %s %s", call.tool, env.Code, env.Error)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
