package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/intent"
)

// The stdio transport's tool-call workers and queue: enough that a burst
// of calls queues instead of being processed on the reading goroutine.
const (
	stdioWorkers = 8
	stdioQueue   = 1024
)

func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f serverFlags
	fs := newFlagSet("serve", "serve [flags]", stderr)
	f.register(fs)
	rest, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "intentsrv serve: unexpected arguments %q\n", rest)
		return exitUsage
	}
	logger := f.logger(stderr)
	srv, usedDefault, err := f.build(ctx, logger)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return exitUsage
	}
	ops := srv.Len()
	if usedDefault {
		logger.Info("serving the embedded demo catalog (a help desk); point intentsrv at a real API with --openapi NAME=SPEC_PATH_OR_URL or --config intentsrv.yaml",
			"operations", ops)
	}
	logger.Info("intentsrv serving MCP on stdio", "version", ServerVersion(), "operations", ops, "tools", len(srv.Tools()), "writes", srv.Options().Writes)
	ms := intent.NewMCPServer(srv, ServerVersion())
	stdio := server.NewStdioServer(ms)
	stdio.SetErrorLogger(slog.NewLogLogger(logger.Handler(), slog.LevelWarn))
	for _, opt := range []server.StdioOption{server.WithWorkerPoolSize(stdioWorkers), server.WithQueueSize(stdioQueue)} {
		opt(stdio)
	}
	// Answer every accepted request before the session ends, even when the
	// client closes stdin right after writing (bounded by the call timeout).
	d := newDrain(stdin, stdout, f.timeout+5*time.Second)
	if err := stdio.Listen(ctx, d, d); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		logger.Error("stdio transport stopped", "err", err)
		return exitFail
	}
	return exitOK
}
