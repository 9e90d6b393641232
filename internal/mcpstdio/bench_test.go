package mcpstdio

import (
	"context"
	"fmt"
	"io"
	"log"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// longLine is an io.Reader yielding one tools/call line of size bytes
// (padding inside its arguments) and then a ping, without holding the
// line in memory.
type longLine struct {
	head, tail string
	pad        int
	stage      int
	off        int
}

func newLongLine(size int) *longLine {
	head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"quick","arguments":{"pad":"`
	tail := `"}}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	return &longLine{head: head, tail: tail, pad: size - len(head) - 4}
}

func (l *longLine) Read(p []byte) (int, error) {
	for {
		switch l.stage {
		case 0:
			if l.off < len(l.head) {
				n := copy(p, l.head[l.off:])
				l.off += n
				return n, nil
			}
		case 1:
			if l.off < l.pad {
				n := min(len(p), l.pad-l.off)
				for i := range n {
					p[i] = 'x'
				}
				l.off += n
				return n, nil
			}
		case 2:
			if l.off < len(l.tail) {
				n := copy(p, l.tail[l.off:])
				l.off += n
				return n, nil
			}
		default:
			return 0, io.EOF
		}
		l.stage, l.off = l.stage+1, 0
	}
}

// BenchmarkOversizeLine measures refusing one over-long line and serving
// the ping after it, with intentsrv's transport (4 MiB cap) and with
// mcp-go's StdioServer (no cap: it reads, parses and serves the line).
// B/op is the memory a line costs; MB/s staying flat across sizes means
// time linear in the line's length.
func BenchmarkOversizeLine(b *testing.B) {
	ms := newServer(nil)
	for _, mb := range []int{10, 25, 50, 100} {
		size := mb << 20
		b.Run(fmt.Sprintf("transport=mcpstdio/MB=%d", mb), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				tr := New(ms, Options{})
				if err := tr.Serve(context.Background(), newLongLine(size), io.Discard); err != nil {
					b.Fatal(err)
				}
				if tr.Stats().Oversize != 1 {
					b.Fatal("the line was not refused")
				}
			}
		})
		b.Run(fmt.Sprintf("transport=mcpgo/MB=%d", mb), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				ss := server.NewStdioServer(ms)
				ss.SetErrorLogger(log.New(io.Discard, "", 0))
				if err := ss.Listen(context.Background(), newLongLine(size), io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkQuickCall measures one quick tools/call round trip over pipes,
// with no slow call in flight and with every call worker (and some of the
// queue) held by a slow call. With mcp-go's StdioServer the second case
// does not finish until the slow calls do: quick calls share their queue.
func BenchmarkQuickCall(b *testing.B) {
	for _, held := range []int{0, DefaultCallWorkers + 4} {
		b.Run(fmt.Sprintf("slow_in_flight=%d", held), func(b *testing.B) {
			slow := newSlowTool()
			c := start(b, newServer(slow), Options{Quick: func(tool string) bool { return tool == "quick" }})
			c.initialize("2025-06-18")
			for i := range held {
				c.send(toolCall(fmt.Sprint("slow", i), "slow", ""))
			}
			for range min(held, DefaultCallWorkers) {
				<-slow.started
			}
			line := toolCall(1, "quick", "")
			b.ResetTimer()
			for b.Loop() {
				c.send(line)
				if r := <-c.replies; r.ID != float64(1) {
					b.Fatalf("got %s", r.raw)
				}
			}
			b.StopTimer()
			close(slow.release)
			c.in.Close()
			for range c.replies {
			}
		})
	}
}
