package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/manifest/config"
	"github.com/intentsrv/intentsrv/manifest/mcpsrc"
	"github.com/intentsrv/intentsrv/manifest/openapi"
	"github.com/intentsrv/intentsrv/manifest/overlay"
	"github.com/intentsrv/intentsrv/operations"
)

// sourceFlags are the command-line options that add operation sources
// (OpenAPI specs, upstream MCP servers, a config file). When none is given,
// the embedded demonstration catalog is served.
type sourceFlags struct {
	openapis   multiFlag // NAME=PATH_OR_URL
	baseURLs   multiFlag // [NAME=]URL
	overlays   multiFlag // overlay files applied to every source
	configFile string
	mcpConfigs multiFlag // mcpServers JSON files
	mcpCache   string
	mcpStart   time.Duration
	mock       bool
	cacheDir   string
	timeout    time.Duration
	// getenv reads credentials; nil means os.Getenv (tests replace it).
	getenv func(string) string
	// fleet runs the upstream MCP servers once load has started them.
	fleet *mcpsrc.Fleet
	// allowLoading serves intentsrv.upstreams.* (upstreamops.go).
	allowLoading bool
	// pins checks operations against --lock (pinning.go).
	pins pinning
	// reg is the registry load filled, for the lock's health line.
	reg *operations.Registry
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// register adds the source flags to fs.
func (s *sourceFlags) register(fs *flag.FlagSet) {
	fs.Var(&s.openapis, "openapi", "add an OpenAPI source: NAME=PATH_OR_URL (repeatable; NAME prefixes every operation id)")
	fs.Var(&s.baseURLs, "base-url", "override the spec's servers: URL (one --openapi source) or NAME=URL (repeatable)")
	fs.Var(&s.overlays, "overlay", "overlay YAML applied to every source's operations (repeatable)")
	fs.StringVar(&s.configFile, "config", "", "config file (intentsrv.yaml) listing sources, auth env vars, filters and overlays")
	fs.BoolVar(&s.mock, "mock", false, "answer OpenAPI operations from the spec's examples and schemas; no network")
	fs.StringVar(&s.cacheDir, "openapi-cache", "", `folder for parsed-spec caches (default: the user cache dir; "off" disables)`)
	fs.DurationVar(&s.timeout, "upstream-timeout", openapi.DefaultTimeout, "time limit of one HTTP call to an OpenAPI upstream")
	s.registerMCP(fs)
	s.registerLoadingFlag(fs)
	s.registerLockFlags(fs)
}

// sourceSpec is one OpenAPI source to load, from a flag or the config.
type sourceSpec struct {
	config.Source
}

// load registers every configured source's operations into reg. It reports
// loaded=false when no source was configured, so the caller serves the
// embedded default instead.
func (s *sourceFlags) load(ctx context.Context, reg *operations.Registry, log *slog.Logger) (loaded bool, err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	specs, globalOverlays, err := s.sources()
	if err != nil {
		return false, err
	}
	upstreams, err := s.upstreams()
	if err != nil {
		return false, err
	}
	if err := s.pins.open(log); err != nil {
		return false, err
	}
	s.reg = reg
	if s.allowLoading && len(upstreams) == 0 {
		return false, errLoadingWithoutUpstreams
	}
	if len(specs) == 0 && len(upstreams) == 0 {
		return false, nil
	}
	if s.mock && len(upstreams) > 0 {
		return true, errMockUpstreams
	}
	var overlays []*overlay.Overlay
	for _, path := range globalOverlays {
		o, err := overlay.Load(path)
		if err != nil {
			return true, err
		}
		overlays = append(overlays, o)
	}
	cacheDir := s.cacheDirectory()
	getenv := s.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	// A global overlay's rule is a typo only if it matched no operation of
	// any source, so its reports are gathered across sources.
	reports := make([][]overlay.Report, len(overlays))
	for _, src := range specs {
		reps, err := loadOpenAPI(ctx, reg, log, src, overlays, cacheDir, s.mock, s.timeout, getenv)
		if err != nil {
			return true, err
		}
		for i, r := range reps {
			reports[i] = append(reports[i], r)
		}
	}
	if len(upstreams) > 0 {
		reps, err := s.startUpstreams(ctx, reg, log, upstreams, overlays)
		if err != nil {
			return true, err
		}
		for i, r := range reps {
			reports[i] = append(reports[i], r...)
		}
		if s.allowLoading {
			if err := s.registerLoading(reg, upstreams); err != nil {
				return true, err
			}
		}
	}
	if err := s.pins.applyRegistered(reg); err != nil {
		return true, err
	}
	for i, reps := range reports {
		for _, m := range overlay.Unmatched(reps) {
			log.Warn("overlay rule matched no operation", "overlay", globalOverlays[i], "match", m)
		}
	}
	return true, nil
}

// cacheDirectory is where parsed catalogs are cached; "" when caching is
// off.
func (s *sourceFlags) cacheDirectory() string {
	return cacheFolder(s.cacheDir, openapi.CacheDirDefault)
}

// cacheFolder reads a cache flag: "" means the default folder, "off" none.
func cacheFolder(flag string, def func() string) string {
	switch flag {
	case "":
		return def()
	case "off":
		return ""
	}
	return flag
}

// authEnv names the environment variables holding this source's
// credentials: the config's, else the default NAME_TOKEN naming.
func (src sourceSpec) authEnv() openapi.AuthEnv {
	if src.Auth != nil {
		return *src.Auth
	}
	return openapi.DefaultAuthEnv(src.Name)
}

// sources merges the config file's sources with the --openapi flags.
func (s *sourceFlags) sources() ([]sourceSpec, []string, error) {
	var specs []sourceSpec
	var overlays []string
	if s.configFile != "" {
		f, err := config.Load(s.configFile)
		if err != nil {
			return nil, nil, err
		}
		for _, src := range f.Sources {
			specs = append(specs, sourceSpec{src})
		}
		overlays = append(overlays, f.Overlays...)
	}
	seen := map[string]bool{}
	for _, sp := range specs {
		seen[sp.Name] = true
	}
	for _, v := range s.openapis {
		name, loc, ok := strings.Cut(v, "=")
		if !ok || name == "" || loc == "" {
			return nil, nil, fmt.Errorf("--openapi %q: want NAME=PATH_OR_URL", v)
		}
		if err := operations.CheckID(name); err != nil || strings.Contains(name, ".") {
			return nil, nil, fmt.Errorf("--openapi %q: NAME must be one id segment of [a-z0-9_] (e.g. github)", v)
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("--openapi %q: source %q is defined twice", v, name)
		}
		seen[name] = true
		specs = append(specs, sourceSpec{config.Source{Name: name, OpenAPI: loc}})
	}
	for _, v := range s.baseURLs {
		name, u, qualified := strings.Cut(v, "=")
		if !qualified || strings.Contains(name, "/") {
			// An unqualified URL (which may itself contain "=" in its query).
			name, u = "", v
		}
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, nil, fmt.Errorf("--base-url %q: want an http(s) URL, or NAME=URL", v)
		}
		switch {
		case name != "":
			found := false
			for i := range specs {
				if specs[i].Name == name {
					specs[i].BaseURL = u
					found = true
				}
			}
			if !found {
				return nil, nil, fmt.Errorf("--base-url %q: no source named %q", v, name)
			}
		case len(specs) == 1:
			specs[0].BaseURL = u
		default:
			return nil, nil, fmt.Errorf("--base-url %q: with %d sources, write NAME=URL", v, len(specs))
		}
	}
	overlays = append(overlays, s.overlays...)
	return specs, overlays, nil
}

// loadOpenAPI registers one source's operations, with its own overlay and
// then the global ones applied. It returns the global overlays' reports, in
// order; the caller reports their unmatched rules over all sources.
func loadOpenAPI(ctx context.Context, reg *operations.Registry, log *slog.Logger, src sourceSpec, global []*overlay.Overlay, cacheDir string, mock bool, timeout time.Duration, getenv func(string) string) ([]overlay.Report, error) {
	start := time.Now()
	cat, err := openapi.Load(ctx, openapi.LoadOptions{Name: src.Name, Location: src.OpenAPI, CacheDir: cacheDir, Logger: log})
	if err != nil {
		return nil, err
	}
	env := src.authEnv()
	if src.Timeout > 0 {
		timeout = time.Duration(src.Timeout)
	}
	ops := cat.Operations(openapi.BindOptions{
		BaseURL:          src.BaseURL,
		Mock:             mock || src.Mock,
		Timeout:          timeout,
		MaxResponseBytes: src.MaxResponseBytes,
		Credentials:      openapi.LoadCredentials(env, getenv),
		Headers:          src.Headers,
		Logger:           log,
	})
	total := len(ops)
	ops = overlay.Filter(ops, src.Include, src.Exclude)
	if src.Overlay != "" {
		o, err := overlay.Load(src.Overlay)
		if err != nil {
			return nil, err
		}
		var rep overlay.Report
		ops, rep, err = o.Apply(ops)
		if err != nil {
			return nil, fmt.Errorf("source %q: %w", src.Name, err)
		}
		for _, m := range rep.Unmatched {
			log.Warn("overlay rule matched no operation", "source", src.Name, "overlay", src.Overlay, "match", m)
		}
	}
	reports := make([]overlay.Report, len(global))
	for i, o := range global {
		ops, reports[i], err = o.Apply(ops)
		if err != nil {
			return nil, fmt.Errorf("source %q: %w", src.Name, err)
		}
	}
	registered, failed := registerAll(reg, cat, ops, log)
	if registered == 0 && len(ops) > 0 {
		return nil, fmt.Errorf("source %q: none of its %d operations could be registered", src.Name, len(ops))
	}
	for ns, blurb := range cat.Blurbs {
		reg.SetNamespaceBlurb(ns, blurb)
	}
	log.Info("openapi source loaded", "source", src.Name, "spec", cat.SpecVersion, "operations", registered,
		"filtered_out", total-len(ops), "failed", failed, "warnings", len(cat.Warnings), "mock", mock || src.Mock,
		"elapsed", time.Since(start).Round(time.Millisecond))
	return reports, nil
}

// registerAll registers ops, bound from cat, in bulk: input schemas
// compile on every core. An operation that fails is logged and skipped:
// one bad schema in a 1,000-operation spec should not take the rest down.
//
// An operation whose input schema the catalog's verified cache entry
// records as compiled (a previous start registered it) is registered with
// its compilation deferred to first use; that is what makes a warm start
// cheap. Every other operation compiles now, and those that register are
// recorded in the cache entry for the next start.
func registerAll(reg *operations.Registry, cat *openapi.Catalog, ops []operations.Operation, log *slog.Logger) (registered, failed int) {
	var known, fresh []operations.Operation
	for _, op := range ops {
		if cat.Compiled(op.Input) {
			known = append(known, op)
		} else {
			fresh = append(fresh, op)
		}
	}
	bad := map[string]bool{}
	note := func(err error) {
		if err == nil {
			return
		}
		var errs []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		} else {
			errs = []error{err}
		}
		for _, e := range errs {
			failed++
			var re *operations.RegistrationError
			if errors.As(e, &re) {
				bad[re.ID] = true
				log.Warn("operation skipped", "id", re.ID, "err", re.Err)
			} else {
				log.Warn("operation skipped", "err", e)
			}
		}
	}
	if len(known) > 0 {
		note(reg.RegisterAll(known, operations.RegisterOptions{DeferCompile: true}))
	}
	if len(fresh) > 0 {
		err := reg.RegisterAll(fresh, operations.RegisterOptions{})
		note(err)
		compiled := fresh
		if err != nil {
			compiled = make([]operations.Operation, 0, len(fresh))
			for _, op := range fresh {
				if !bad[op.ID] {
					compiled = append(compiled, op)
				}
			}
		}
		if err := cat.RecordCompiled(compiled); err != nil {
			log.Warn("openapi: could not update the catalog cache", "source", cat.Source, "err", err)
		}
	}
	return len(ops) - failed, failed
}
