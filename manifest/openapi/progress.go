package openapi

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/intentsrv/intentsrv/runs"
)

// progressEvery bounds how often reading a response body reports progress:
// each report reaches the run's waiters (as MCP notifications), so a fast
// body of many small reads must not send one per read.
const progressEvery = 250 * time.Millisecond

// callProgress reports the phases of one HTTP call made inside a run
// (runs.Reporting): sent and waiting for the response; the status received
// and the body being read, in bytes out of Content-Length when announced;
// the body read. Outside a run it is nil, and its methods do nothing.
type callProgress struct {
	ctx   context.Context
	what  string // "GET /exports/{id}": the operation's template, never a URL with secrets
	total float64
	read  float64
	last  time.Time
}

func newCallProgress(ctx context.Context, op *Op) *callProgress {
	if !runs.Reporting(ctx) {
		return nil
	}
	return &callProgress{ctx: ctx, what: op.Method + " " + op.Path}
}

func (p *callProgress) report(message string) {
	runs.ReportProgress(p.ctx, runs.Progress{Done: p.read, Total: p.total, Unit: runs.UnitBytes, Message: p.what + ": " + message})
	p.last = time.Now()
}

// sent reports that the request went out.
func (p *callProgress) sent() {
	if p != nil {
		p.report("request sent; waiting for the response")
	}
}

// body reports the response's status and returns its body, which reports
// the bytes read as it is read.
func (p *callProgress) body(status int, announced int64, body io.Reader) io.Reader {
	if p == nil {
		return body
	}
	if announced > 0 {
		p.total = float64(announced)
	}
	p.report(fmt.Sprintf("status %d; reading the response body", status))
	return progressReader{p: p, r: body}
}

type progressReader struct {
	p *callProgress
	r io.Reader
}

func (r progressReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	p := r.p
	p.read += float64(n)
	switch {
	case err == io.EOF:
		p.report("response body read")
	case err == nil && n > 0 && time.Since(p.last) >= progressEvery:
		p.report("reading the response body")
	}
	return n, err
}
