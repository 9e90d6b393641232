package main

import (
	"context"
	"flag"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/remote"
)

// httpFlags are serve's flags for the HTTP transport (package remote).
type httpFlags struct {
	addr            string
	stateless       bool
	keysFile        string
	allowUnauth     bool
	origins, hosts  stringList
	maxBody         int64
	rate            float64
	burst           int
	maxConcurrent   int
	shutdownTimeout time.Duration
	auditLog        string
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.addr, "http", "", "serve MCP over streamable HTTP (at /mcp) and the REST twin (at /v1/) on this HOST:PORT instead of stdio, e.g. 127.0.0.1:8080")
	fs.BoolVar(&h.stateless, "stateless", false, "with --http: no MCP sessions, every request stands alone (for replicas behind a load balancer)")
	fs.StringVar(&h.keysFile, "api-keys", "", "with --http: file of bearer API keys, one \"PRINCIPAL KEY\" per line (KEY raw or sha256:HEX); "+remote.EnvKeyPrefix+"NAME variables add more")
	fs.BoolVar(&h.allowUnauth, "allow-unauthenticated", false, "with --http: serve without API keys on an address beyond loopback (only behind a proxy that authenticates)")
	fs.Var(&h.origins, "allowed-origin", "with --http: a browser Origin allowed besides loopback ones, e.g. https://app.example.com (repeatable)")
	fs.Var(&h.hosts, "allowed-host", "with --http: a Host header name allowed besides loopback ones; once given, other hosts are refused (repeatable)")
	fs.Int64Var(&h.maxBody, "max-body", remote.DefaultMaxBodyBytes, "with --http: largest request body in bytes")
	fs.Float64Var(&h.rate, "rate", 20, "with --http: requests per second per principal (token bucket; 0: no limit)")
	fs.IntVar(&h.burst, "burst", 40, "with --http: token bucket size per principal")
	fs.IntVar(&h.maxConcurrent, "max-concurrent", 16, "with --http: tool calls in flight per principal (0: no cap)")
	fs.DurationVar(&h.shutdownTimeout, "shutdown-timeout", remote.DefaultShutdownTimeout, "with --http: on SIGINT/SIGTERM, how long calls in flight may finish")
	fs.StringVar(&h.auditLog, "audit-log", "", "with --http: append one JSON line per act call (executed or refused) to this file")
}

// serve runs the HTTP transport when --http is set, and reports whether it
// handled the command (else serve goes on with stdio). It refuses HTTP
// flags given without --http, which would silently do nothing.
func (h *httpFlags) serve(ctx context.Context, fs *flag.FlagSet, f *serverFlags, logger *slog.Logger) (code int, handled bool) {
	if h.addr != "" {
		return h.serveHTTP(ctx, f, logger), true
	}
	var stray []string
	own := flag.NewFlagSet("http", flag.ContinueOnError)
	h.register(own)
	fs.Visit(func(fl *flag.Flag) {
		if own.Lookup(fl.Name) != nil {
			stray = append(stray, "--"+fl.Name)
		}
	})
	if len(stray) > 0 {
		logger.Error("cannot start: these flags apply to the HTTP transport only; add --http HOST:PORT", "flags", strings.Join(stray, " "))
		return exitUsage, true
	}
	return 0, false
}

// serveHTTP runs the HTTP transport: it listens first (so /healthz answers
// and /readyz says "not ready" while sources load), then builds the intent
// server from f and serves until ctx ends.
func (h *httpFlags) serveHTTP(ctx context.Context, f *serverFlags, logger *slog.Logger) int {
	keys := &remote.Keys{}
	if h.keysFile != "" {
		if err := keys.LoadKeysFile(h.keysFile); err != nil {
			logger.Error("cannot start", "err", err)
			return exitUsage
		}
	}
	if err := keys.LoadKeysEnv(os.Environ()); err != nil {
		logger.Error("cannot start", "err", err)
		return exitUsage
	}
	if err := remote.CheckBind(h.addr, keys, h.allowUnauth); err != nil {
		logger.Error("cannot start", "err", err)
		return exitUsage
	}
	rs, err := remote.New(remote.Config{
		Keys:               keys,
		Stateless:          h.stateless,
		AllowedOrigins:     h.origins,
		AllowedHosts:       h.hosts,
		MaxBodyBytes:       h.maxBody,
		RatePerSecond:      h.rate,
		Burst:              h.burst,
		MaxConcurrentCalls: h.maxConcurrent,
		ShutdownTimeout:    h.shutdownTimeout,
		AuditLog:           h.auditLog,
		Version:            ServerVersion(),
		Tools: func(ctx context.Context, srv *intent.Server, format string) (any, error) {
			return exportDoc(ctx, srv, format, false, false)
		},
		Logger: logger,
	})
	if err != nil {
		logger.Error("cannot start", "err", err)
		return exitUsage
	}
	defer rs.Close()
	ln, err := net.Listen("tcp", h.addr)
	if err != nil {
		logger.Error("cannot listen", "addr", h.addr, "err", err)
		return exitUsage
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- rs.Serve(ctx, ln) }()
	// abort stops serving after a start-up failure.
	abort := func(err error) int {
		logger.Error("cannot start", "err", err)
		stop()
		<-served
		return exitUsage
	}
	logger.Info("intentsrv listening on HTTP; loading sources", "addr", ln.Addr().String(), "keys", keys.Len(), "stateless", h.stateless)

	srv, usedDefault, err := f.build(ctx, logger)
	if err != nil {
		return abort(err)
	}
	defer f.closeRuns(logger) // once the transport stopped, before the run store closes
	if usedDefault {
		logger.Info("serving the embedded demo catalog (a help desk); point intentsrv at a real API with --openapi NAME=SPEC_PATH_OR_URL or --config intentsrv.yaml")
	}
	rs.SetIntent(srv)
	logger.Info("intentsrv serving MCP over HTTP", "version", ServerVersion(), "addr", ln.Addr().String(), "mcp", remote.PathMCP, "rest", remote.PathREST,
		"operations", srv.Len(), "tools", len(srv.Tools()), "writes", srv.Options().Writes)
	if err := <-served; err != nil {
		logger.Error("http transport stopped", "err", err)
		return exitFail
	}
	return exitOK
}
