package main

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// drain makes a stdio session answer every request it accepted before it
// ends. mcp-go's stdio transport stops its workers and cancels running
// calls as soon as stdin reaches EOF, so a client that writes its requests
// and closes its end (a script, a pipe) would lose the answers still in
// flight. drain counts requests read and responses written, and holds the
// EOF back until they match or the grace period runs out.
type drain struct {
	grace time.Duration

	mu        sync.Mutex
	cond      *sync.Cond
	requests  int // JSON-RPC requests (with id and method) read from stdin
	responses int // JSON-RPC responses (with id, no method) written to stdout

	in       io.Reader
	inLine   []byte
	out      io.Writer
	outLine  []byte
	outWrite sync.Mutex
}

func newDrain(in io.Reader, out io.Writer, grace time.Duration) *drain {
	d := &drain{in: in, out: out, grace: grace}
	d.cond = sync.NewCond(&d.mu)
	return d
}

// rpcKind classifies one JSON-RPC line: a request (id and method), a
// response (id, no method) or neither.
func rpcKind(line []byte) (request, response bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return false, false
	}
	return m.Method != "", m.Method == ""
}

// count splits p into lines (carrying a partial line in *buf) and counts
// those f selects.
func count(buf *[]byte, p []byte, f func([]byte) bool) int {
	n := 0
	*buf = append(*buf, p...)
	for {
		i := bytes.IndexByte(*buf, '\n')
		if i < 0 {
			return n
		}
		if f((*buf)[:i]) {
			n++
		}
		*buf = (*buf)[i+1:]
	}
}

// Read implements io.Reader for the transport's stdin.
func (d *drain) Read(p []byte) (int, error) {
	n, err := d.in.Read(p)
	if n > 0 {
		req := count(&d.inLine, p[:n], func(l []byte) bool { r, _ := rpcKind(l); return r })
		d.mu.Lock()
		d.requests += req
		d.mu.Unlock()
	}
	if err == io.EOF {
		d.wait()
	}
	return n, err
}

// wait blocks until every request read has its response, or grace passes.
func (d *drain) wait() {
	deadline := time.AfterFunc(d.grace, func() {
		d.mu.Lock()
		d.responses = max(d.responses, d.requests)
		d.mu.Unlock()
		d.cond.Broadcast()
	})
	defer deadline.Stop()
	d.mu.Lock()
	for d.responses < d.requests {
		d.cond.Wait()
	}
	d.mu.Unlock()
}

// Write implements io.Writer for the transport's stdout.
func (d *drain) Write(p []byte) (int, error) {
	d.outWrite.Lock()
	n, err := d.out.Write(p)
	resp := count(&d.outLine, p[:n], func(l []byte) bool { _, r := rpcKind(l); return r })
	d.outWrite.Unlock()
	if resp > 0 {
		d.mu.Lock()
		d.responses += resp
		d.mu.Unlock()
		d.cond.Broadcast()
	}
	return n, err
}
