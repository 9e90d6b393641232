package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/manifest/config"
	"github.com/intentsrv/intentsrv/manifest/mcpsrc"
	"github.com/intentsrv/intentsrv/manifest/overlay"
	"github.com/intentsrv/intentsrv/operations"
)

// errMockUpstreams refuses --mock with upstream MCP servers: mock mode
// answers from an OpenAPI spec's examples, and an MCP server has none.
var errMockUpstreams = errors.New("--mock answers OpenAPI operations from their specs' examples; upstream MCP servers have no spec to answer from, so --mock cannot serve them [mock_upstream_unsupported]; drop --mock, or leave the upstreams out (--mcp-config, mcpServers) or mark them \"disabled\": true")

// registerMCP adds the upstream MCP server flags to fs.
func (s *sourceFlags) registerMCP(fs *flag.FlagSet) {
	fs.Var(&s.mcpConfigs, "mcp-config", "serve the tools of the MCP servers in this mcpServers JSON file (Claude Desktop, Claude Code .mcp.json, Cursor .cursor/mcp.json, VS Code; repeatable)")
	fs.StringVar(&s.mcpCache, "mcp-cache", "", `folder for upstream MCP servers' tools lists (default: the user cache dir; "off" disables)`)
	fs.DurationVar(&s.mcpStart, "mcp-start-timeout", mcpsrc.DefaultStartTimeout, "time limit for one upstream MCP server to start and list its tools")
}

// upstreams gathers the MCP servers of --mcp-config files and of the
// config file's mcpServers. A name defined twice is an error.
func (s *sourceFlags) upstreams() ([]mcpsrc.Server, error) {
	getenv := s.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var all []mcpsrc.Server
	if s.configFile != "" {
		f, err := config.Load(s.configFile)
		if err != nil {
			return nil, err
		}
		servers, err := f.Upstreams(getenv)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", s.configFile, err)
		}
		all = append(all, servers...)
	}
	for _, path := range s.mcpConfigs {
		servers, err := mcpsrc.LoadFile(path, getenv)
		if err != nil {
			return nil, err
		}
		all = append(all, servers...)
	}
	seen := map[string]string{}
	for _, srv := range all {
		if srv.Disabled {
			continue
		}
		if prev, ok := seen[srv.ID()]; ok {
			return nil, &mcpsrc.ConfigError{Code: mcpsrc.CodeServerDuplicate, Path: srv.Origin, Server: srv.Name,
				Message: fmt.Sprintf("its namespace %q is already used by a server in %s", srv.ID(), prev),
				Fix:     "keep one of the two entries, or give one a namespace: in intentsrv.yaml"}
		}
		seen[srv.ID()] = srv.Origin
	}
	return all, nil
}

// mcpCacheDirectory is where tools lists are cached; "" when off.
func (s *sourceFlags) mcpCacheDirectory() string {
	return cacheFolder(s.mcpCache, mcpsrc.CacheDirDefault)
}

// startUpstreams starts the fleet of upstream servers into reg. Each
// server's operations pass its include/exclude globs, its own overlay and
// then the global overlays, on every (re)listing. It returns the global
// overlays' reports from the operations registered during the start, for
// the caller's unmatched-rule warnings.
func (s *sourceFlags) startUpstreams(ctx context.Context, reg *operations.Registry, log *slog.Logger, servers []mcpsrc.Server, global []*overlay.Overlay) ([][]overlay.Report, error) {
	own := map[string]*overlay.Overlay{}
	for _, srv := range servers {
		if srv.Overlay == "" || srv.Disabled {
			continue
		}
		o, err := overlay.Load(srv.Overlay)
		if err != nil {
			return nil, fmt.Errorf("mcp server %q: %w", srv.Name, err)
		}
		own[srv.Name] = o
	}
	var mu sync.Mutex
	reports := make([][]overlay.Report, len(global))
	prepare := func(srv mcpsrc.Server, ops []operations.Operation) ([]operations.Operation, error) {
		ops = overlay.Filter(ops, srv.Include, srv.Exclude)
		if o := own[srv.Name]; o != nil {
			var rep overlay.Report
			var err error
			if ops, rep, err = o.Apply(ops); err != nil {
				return nil, fmt.Errorf("mcp server %q: %w", srv.Name, err)
			}
			for _, m := range rep.Unmatched {
				log.Warn("overlay rule matched no operation", "upstream", srv.Name, "overlay", srv.Overlay, "match", m)
			}
		}
		for i, o := range global {
			var rep overlay.Report
			var err error
			if ops, rep, err = o.Apply(ops); err != nil {
				return nil, fmt.Errorf("mcp server %q: %w", srv.Name, err)
			}
			mu.Lock()
			reports[i] = append(reports[i], rep)
			mu.Unlock()
		}
		return s.pins.apply(ops), nil
	}
	start := time.Now()
	s.fleet = mcpsrc.Start(ctx, reg, servers, mcpsrc.Options{
		StartTimeout: s.mcpStart,
		CacheDir:     s.mcpCacheDirectory(),
		Logger:       log,
		Prepare:      prepare,
	})
	for _, st := range s.fleet.Status() {
		log.Info("upstream mcp server", "upstream", st.Server, "state", st.State, "transport", st.Transport,
			"operations", st.Operations, "cached", st.Cached, "err", st.Error)
	}
	log.Info("upstream mcp servers loaded", "servers", len(servers), "elapsed", time.Since(start).Round(time.Millisecond))
	mu.Lock()
	defer mu.Unlock()
	out := make([][]overlay.Report, len(reports))
	copy(out, reports)
	return out, nil
}

// attach connects a built server to the fleet: its index follows the
// upstreams' tools, and describe's overview reports their health.
func (s *sourceFlags) attach(srv *intent.Server) {
	if s.fleet != nil {
		s.fleet.OnChange(srv.Reindex)
	}
}

// health reports the upstreams for describe's overview; nil without any.
func (s *sourceFlags) health() func() []intent.SourceHealth {
	return func() []intent.SourceHealth {
		var out []intent.SourceHealth
		if h := s.pins.health(s.reg); h != nil {
			out = append(out, *h)
		}
		if s.fleet == nil {
			return out
		}
		for _, st := range s.fleet.Status() {
			out = append(out, intent.SourceHealth{Source: "mcp:" + st.Server, State: string(st.State), Operations: st.Operations, Error: st.Error})
		}
		return out
	}
}

// close ends every upstream session and child process; safe to call when
// none was started.
func (s *sourceFlags) close() {
	if s.fleet != nil {
		s.fleet.Close()
	}
}
