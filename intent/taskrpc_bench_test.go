package intent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkTaskRPC times, call by call and alternating so a loaded machine
// slows both alike, what a host pays for MCP Tasks next to the run handle
// path it replaces: reading a running task (tasks/get, through TaskRPC)
// against runs.get through mcp-go's tools/call, and creating a task of a
// fast operation (a task-augmented ask, through TaskRPC and mcp-go)
// against the plain ask through mcp-go. Each message is encoded to JSON,
// as a transport would. It reports the medians.
func BenchmarkTaskRPC(b *testing.B) {
	s, so := newSlowServer(b, Options{})
	defer close(so.release)
	ms := NewMCPServer(s, "bench", WithMCPTasks())
	rpc := NewTaskRPC(s, ms)
	ctx := context.Background()
	send := func(msg string) []byte {
		resp, ok := rpc.Handle(ctx, []byte(msg))
		if !ok {
			resp = ms.HandleMessage(ctx, []byte(msg))
		}
		out, err := json.Marshal(resp)
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	var created struct {
		Result struct {
			Task mcp.Task `json:"task"`
		} `json:"result"`
	}
	_ = json.Unmarshal(send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"action":"slow.crawl","params":{"pages":1}},"task":{}}}`), &created)
	id := created.Result.Task.TaskId
	if id == "" {
		b.Fatal("no task")
	}
	<-so.reported
	tasksGet := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":%q}}`, id)
	runsGet := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"action":"runs.get","params":{"run_id":%q}}}}`, id)
	taskAsk := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask","arguments":{"action":"fast.echo","params":{"pages":1}},"task":{}}}`
	plainAsk := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask","arguments":{"action":"fast.echo","params":{"pages":1}}}}`
	var tg, rg, ta, pa []time.Duration
	timed := func(msg string) time.Duration {
		t0 := time.Now()
		send(msg)
		return time.Since(t0)
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			tg, rg = append(tg, timed(tasksGet)), append(rg, timed(runsGet))
			ta, pa = append(ta, timed(taskAsk)), append(pa, timed(plainAsk))
		} else {
			rg, tg = append(rg, timed(runsGet)), append(tg, timed(tasksGet))
			pa, ta = append(pa, timed(plainAsk)), append(ta, timed(taskAsk))
		}
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	b.ReportMetric(median(tg), "ns-median/tasks-get")
	b.ReportMetric(median(rg), "ns-median/runs-get")
	b.ReportMetric(median(ta), "ns-median/task-ask")
	b.ReportMetric(median(pa), "ns-median/plain-ask")
}
