package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/internal/mcpstdio"
)

func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f serverFlags
	defer f.src.close() // ends upstream MCP servers, if any were started
	fs := newFlagSet("serve", "serve [flags]", stderr)
	f.register(fs)
	maxMessage := fs.Int("max-message-bytes", mcpstdio.DefaultMaxMessageBytes, "longest JSON-RPC message (one stdio line) the server reads; a longer one is refused unread")
	callWorkers := fs.Int("call-workers", mcpstdio.DefaultCallWorkers, "ask/act calls run at once; find and describe never wait behind them")
	var hf httpFlags // --http and its guards (servehttp.go)
	hf.register(fs)
	f.registerStore(fs)                                   // --plan-store, --idempotency-ttl (planstore.go), either transport
	runStore := fs.String("run-store", "", runStoreUsage) // runstore.go, either transport
	rest, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "intentsrv serve: unexpected arguments %q\n", rest)
		return exitUsage
	}
	if *maxMessage < 1024 || *callWorkers < 1 {
		fmt.Fprintf(stderr, "intentsrv serve: --max-message-bytes must be at least 1024 and --call-workers at least 1 (got %d and %d)\n", *maxMessage, *callWorkers)
		return exitUsage
	}
	logger := f.logger(stderr)
	closeStore, ok := f.openPlanStore(ctx, logger)
	if !ok {
		return exitUsage
	}
	defer closeStore()
	closeRuns, ok := f.openRunStore(ctx, *runStore, logger)
	if !ok {
		return exitUsage
	}
	defer closeRuns()
	if code, handled := hf.serve(ctx, fs, &f, logger); handled {
		return code
	}
	srv, usedDefault, err := f.build(ctx, logger)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return exitUsage
	}
	defer f.closeRuns(logger) // before the run store and the upstreams close
	ops := srv.Len()
	if usedDefault {
		logger.Info("serving the embedded demo catalog (a help desk); point intentsrv at a real API with --openapi NAME=SPEC_PATH_OR_URL or --config intentsrv.yaml",
			"operations", ops)
	}
	logger.Info("intentsrv serving MCP on stdio", "version", ServerVersion(), "operations", ops, "tools", len(srv.Tools()), "writes", srv.Options().Writes)
	// MCP Tasks are answered from the runs by TaskRPC before mcp-go sees
	// them; the caller is the local operator, as for every stdio call.
	ms := intent.NewMCPServer(srv, ServerVersion(), intent.WithMCPTasks())
	tasks := intent.NewTaskRPC(srv, ms)
	prefix := srv.Options().ToolPrefix
	stdio := mcpstdio.New(ms, mcpstdio.Options{
		MaxMessageBytes: *maxMessage,
		Quick:           func(tool string) bool { return tool == prefix+intent.ToolFind || tool == prefix+intent.ToolDescribe },
		CallWorkers:     *callWorkers,
		Busy:            busyResult,
		Intercept: func(ctx context.Context, msg []byte) (any, bool) {
			return tasks.Handle(ctx, msg)
		},
		Blocking: intent.TaskMethodBlocks,
		// Answer every accepted request before the session ends, even when
		// the client closes stdin right after writing (bounded by the call
		// timeout).
		Grace:  f.timeout + 5*time.Second,
		Logger: logger,
	})
	if err := stdio.Serve(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
		logger.Error("stdio transport stopped", "err", err)
		return exitFail
	}
	return exitOK
}

// busyResult answers an ask/act call refused because every call worker is
// taken and the queue behind them is full.
func busyResult(tool string) *mcp.CallToolResult {
	return intent.ToolResult(&intent.Envelope{
		Code:   intent.CodeRateLimited,
		Error:  "the server is busy: too many ask/act calls are running or waiting; this one did not run",
		Remedy: &intent.Remedy{Tool: tool, Fix: "retry this call once some of the earlier ones have answered"},
	})
}
