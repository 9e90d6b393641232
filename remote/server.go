// Package remote serves an intent.Server over HTTP: MCP over streamable
// HTTP at /mcp, and the same four verbs as plain JSON (the REST twin) under
// /v1, behind one set of guards — DNS-rebinding checks on Origin and Host, a
// request body cap, bearer API keys naming principals, a token-bucket rate
// limit and a cap on concurrent calls per principal — with an audit log of
// every act call, structured access logs, health and readiness probes, and
// a graceful shutdown that lets calls in flight finish.
//
// The principal a key names is the intent caller (intent.WithCaller): a
// plan_ref issued to one principal does not confirm for another, and an MCP
// session opened by one principal is unknown to the others.
package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/intent"
)

// Defaults of Config.
const (
	DefaultMaxBodyBytes    = 1 << 20
	DefaultShutdownTimeout = 30 * time.Second
	DefaultBodyReadTimeout = 10 * time.Second
	DefaultSessionIdleTTL  = 30 * time.Minute
	// AnonymousPrincipal is the principal of every request when the server
	// runs without keys.
	AnonymousPrincipal = "anonymous"
)

// Config configures a Server. The zero value serves without keys (allowed
// only on loopback, see CheckBind), with no rate limit or concurrency cap,
// a 1 MiB body cap and no audit log.
type Config struct {
	// Keys authenticate requests; nil or empty means every request is
	// AnonymousPrincipal.
	Keys *Keys
	// Stateless serves MCP without sessions: every request stands alone,
	// so replicas behind any load balancer can answer it.
	Stateless bool
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed
	// besides loopback ones. AllowedHosts are Host header names allowed
	// besides loopback ones; when set, every other Host is refused.
	AllowedOrigins, AllowedHosts []string
	// MaxBodyBytes caps a request body; zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// BodyReadTimeout bounds how long a request body may take to arrive
	// once its headers are in; a slower one is answered 408 and its
	// connection closed. Zero means DefaultBodyReadTimeout.
	BodyReadTimeout time.Duration
	// RatePerSecond and Burst shape each principal's token bucket over
	// HTTP requests; a zero rate means no limit. A zero burst means the
	// rate rounded up.
	RatePerSecond float64
	Burst         int
	// MaxConcurrentCalls caps each principal's tool calls in flight; zero
	// means no cap.
	MaxConcurrentCalls int
	// ShutdownTimeout bounds how long calls in flight may run once
	// shutdown begins; zero means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// AuditLog is a file that receives one JSON line per act call; empty
	// means no audit log.
	AuditLog string
	// Version is reported in the MCP serverInfo.
	Version string
	// Tools returns the document GET /v1/tools serves for a format
	// ("mcp", "openai" or "anthropic"); nil means 404.
	Tools func(ctx context.Context, srv *intent.Server, format string) (any, error)
	// Logger receives access logs and operational messages; nil discards.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server is the HTTP front of an intent.Server. It answers probes as soon
// as it exists; the MCP and REST routes answer 503 until SetIntent hands it
// the intent server (once the sources are loaded).
type Server struct {
	cfg      Config
	log      *slog.Logger
	origins  originPolicy
	limits   *limiter
	sessions *sessions
	audit    *auditLog

	backend  atomic.Pointer[backend]
	draining atomic.Bool
	// stopWaits ends the requests that wait for a task (tasks/result) when
	// shutdown begins, so they do not hold it; their tasks run on.
	stopWaits       context.Context
	cancelStopWaits context.CancelFunc
	waitingTasks    atomic.Int64 // tasks/result requests waiting now
}

// backend is what SetIntent builds: the intent server, its MCP handler,
// and the TaskRPC that answers MCP task requests in front of it.
type backend struct {
	intent     *intent.Server
	streamable *server.StreamableHTTPServer
	tasks      *intent.TaskRPC
}

// New validates cfg and returns a Server. It opens the audit log, if any;
// Close releases it.
func New(cfg Config) (*Server, error) {
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxBodyBytes < 0 || cfg.RatePerSecond < 0 || cfg.Burst < 0 || cfg.MaxConcurrentCalls < 0 || cfg.ShutdownTimeout < 0 || cfg.BodyReadTimeout < 0 {
		return nil, errors.New("remote: body cap, body read timeout, rate, burst, concurrency cap and shutdown timeout must not be negative")
	}
	if cfg.BodyReadTimeout == 0 {
		cfg.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.Keys == nil {
		cfg.Keys = &Keys{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		origins:  newOriginPolicy(cfg.AllowedOrigins, cfg.AllowedHosts),
		limits:   newLimiter(cfg.RatePerSecond, cfg.Burst, cfg.MaxConcurrentCalls),
		sessions: newSessions(),
	}
	s.stopWaits, s.cancelStopWaits = context.WithCancel(context.Background())
	if cfg.AuditLog != "" {
		a, err := openAuditLog(cfg.AuditLog)
		if err != nil {
			return nil, err
		}
		s.audit = a
	}
	return s, nil
}

// SetIntent hands the server the intent server to serve and marks it ready.
// A later call swaps in a rebuilt intent server and ends the MCP sessions
// of the one it replaces.
func (s *Server) SetIntent(srv *intent.Server) {
	ms := intent.NewMCPServer(srv, s.cfg.Version, intent.WithMCPTasks())
	ms.Use(s.toolGuard(srv.Options().ToolPrefix + intent.ToolAct))
	tasks := intent.NewTaskRPC(srv, ms) // task-augmented calls go through ms, and so through toolGuard
	opts := []server.StreamableHTTPOption{
		server.WithStreamableHTTPLogger(s.log),
		// The origin policy of this package replaces mcp-go's loopback
		// Host check, so --allowed-host applies to MCP and REST alike.
		server.WithDisableLocalhostProtection(true),
	}
	if s.cfg.Stateless {
		opts = append(opts, server.WithStateLess(true))
	} else {
		opts = append(opts, server.WithSessionIdManagerResolver(s.sessions), server.WithSessionIdleTTL(DefaultSessionIdleTTL))
	}
	old := s.backend.Swap(&backend{intent: srv, streamable: server.NewStreamableHTTPServer(ms, opts...), tasks: tasks})
	if old != nil {
		_ = old.streamable.Shutdown(context.Background())
	}
}

// Ready reports whether SetIntent was called and the server is not
// shutting down.
func (s *Server) Ready() bool { return s.backend.Load() != nil && !s.draining.Load() }

// Close ends the MCP sessions and stops the background work of the
// server (the idle-session sweeper), then releases the audit log. Serve
// does the first part itself at shutdown; Close is still needed for the
// audit log, and for a Server used only through Handler.
func (s *Server) Close() error {
	if b := s.backend.Load(); b != nil {
		_ = b.streamable.Shutdown(context.Background())
	}
	return s.audit.Close()
}

// Serve answers HTTP on ln until ctx ends, then shuts down gracefully: the
// listener closes at once (new connections are refused), requests that
// arrive on open connections get 503, and calls in flight run to their end
// for up to Config.ShutdownTimeout, after which they are cancelled. It
// returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	base, cancelBase := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelBase(nil)
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("http server stopped: %w", err)
	case <-ctx.Done():
	}
	s.draining.Store(true)
	s.cancelStopWaits()
	s.log.Info("shutting down: refusing new requests, waiting for calls in flight", "deadline", s.cfg.ShutdownTimeout,
		"task_waits_ended", s.waitingTasks.Load())
	deadline, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if b := s.backend.Load(); b != nil {
		// Ends long-lived GET streams, which would hold Shutdown until its
		// deadline, and stops the idle-session sweeper.
		_ = b.streamable.Shutdown(deadline)
	}
	err := hs.Shutdown(deadline)
	if err != nil {
		cancelBase(intent.ErrShutdown)
		_ = hs.Close()
		s.log.Warn("shutdown deadline passed; calls still in flight were cancelled", "deadline", s.cfg.ShutdownTimeout)
		return fmt.Errorf("shutdown: calls still ran after %s and were cancelled: %w", s.cfg.ShutdownTimeout, err)
	}
	s.log.Info("shut down cleanly")
	return nil
}

// CheckBind refuses to serve without keys on an address other than
// loopback, unless allowUnauthenticated: anyone who can reach the port
// could otherwise call every operation.
func CheckBind(addr string, keys *Keys, allowUnauthenticated bool) error {
	if allowUnauthenticated || (keys != nil && keys.Len() > 0) {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT, e.g. 127.0.0.1:8080: %w", addr, err)
	}
	if loopbackHost(host) {
		return nil
	}
	return fmt.Errorf("--http %q listens beyond loopback without API keys: give keys with --api-keys FILE or %sNAME variables, listen on 127.0.0.1, or pass --allow-unauthenticated if a proxy in front authenticates", addr, EnvKeyPrefix)
}

// loopbackHost reports whether a listen host is loopback only: "localhost"
// or a loopback IP. An empty host or 0.0.0.0 listens on every interface.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
