package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/intentsrv/intentsrv/gate"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/internal/synth"
	"github.com/intentsrv/intentsrv/manifest/config"
	"github.com/intentsrv/intentsrv/operations"
)

// gateFlags are the gate's own flags, on top of the server flags.
type gateFlags struct {
	budgets        gate.Budgets
	baseline       string
	writeBaseline  bool
	jsonOut        bool
	compareFlat    bool
	synthOps       int
	noReachability bool
}

func (g *gateFlags) register(fs interface {
	IntVar(*int, string, int, string)
	StringVar(*string, string, string, string)
	BoolVar(*bool, string, bool, string)
	Float64Var(*float64, string, float64, string)
}) {
	b := &g.budgets
	fs.IntVar(&b.MaxTools, "max-tools", gate.DefaultMaxTools, "most tools the listing may have (negative: no limit)")
	fs.IntVar(&b.MaxListTokens, "max-list-tokens", gate.DefaultMaxListTokens, "most tokens the whole tools/list result may take (negative: no limit)")
	fs.IntVar(&b.MaxToolTokens, "max-tool-tokens", gate.DefaultMaxToolTokens, "most tokens one tool may take (negative: no limit)")
	fs.IntVar(&b.MaxDescriptionLines, "max-description-lines", gate.DefaultMaxDescriptionLines, "most lines a tool description may have (negative: no limit)")
	fs.IntVar(&b.MaxPathTokens, "max-path-tokens", gate.DefaultMaxPathTokens, "most tokens reaching any one operation may cost: listing + find + describe (negative: no limit)")
	fs.StringVar(&b.Encoding, "encoding", gate.EncodingMax, "encoding budgets are enforced in: o200k_base, cl100k_base, or max (the larger); both are reported")
	fs.StringVar(&b.HostServerName, "host-server-name", gate.DefaultHostServerName, "server name hosts put in their tool-name prefix mcp__<name>__; prefixed names must stay legal")
	fs.Float64Var(&b.MaxGrowthPercent, "max-growth", gate.DefaultMaxGrowthPercent, "with --baseline: most percent the tokens may grow, whole listing and each tool")
	fs.StringVar(&g.baseline, "baseline", "", "compare token counts with this committed baseline file")
	fs.BoolVar(&g.writeBaseline, "write-baseline", false, "write the current figures to the --baseline file instead of comparing")
	fs.BoolVar(&g.jsonOut, "json", false, "print the report as JSON")
	fs.BoolVar(&g.compareFlat, "compare-flat", false, "also measure a one-tool-per-operation listing of the same catalog and print the ratio")
	fs.BoolVar(&g.noReachability, "skip-reachability", false, "check only the listing, not that every operation is reachable")
	fs.IntVar(&g.synthOps, "synth", 0, "development: gate a generated catalog of `N` operations instead of the configured sources")
}

func runGate(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f serverFlags
	defer f.src.close() // ends upstream MCP servers, if any were started
	var g gateFlags
	fs := newFlagSet("gate", "gate [flags]", stderr)
	f.register(fs)
	g.register(fs)
	rest, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "intentsrv gate: "+format+"\n", a...)
		return exitUsage
	}
	if len(rest) > 0 {
		return fail("unexpected arguments %q", rest)
	}
	if g.writeBaseline && g.baseline == "" {
		return fail("--write-baseline needs --baseline FILE")
	}
	if err := g.applyConfig(fs, f.src.configFile); err != nil {
		return fail("%v", err)
	}
	log := f.logger(stderr)
	if limit, set := gateMemoryLimit(os.Getenv("GOMEMLIMIT")); set {
		debug.SetMemoryLimit(limit)
	}
	srv, err := buildServer(ctx, &f, g.synthOps, !g.noReachability, log)
	if err != nil {
		return fail("%v", err)
	}
	// The gate validates each operation about once, those sharing a schema
	// one after the other, so it need not keep every compiled schema.
	srv.Registry().LimitCompiledSchemas(gateCompiledSchemas)
	b := g.budgets
	b.SkipReachability = g.noReachability
	if g.baseline != "" && !g.writeBaseline {
		base, err := gate.ReadBaseline(g.baseline)
		if err != nil {
			return fail("%v (create it with --write-baseline)", err)
		}
		b.Baseline = base
	}
	r, err := gate.Run(ctx, srv, b)
	if err != nil {
		return fail("%v", err)
	}
	r.Breaches = append(r.Breaches, f.src.lockBreaches(ctx, srv.Registry())...)
	if g.compareFlat {
		if err := r.WithFlat(ctx, srv); err != nil {
			return fail("%v", err)
		}
	}
	if g.writeBaseline {
		if err := gate.WriteBaseline(g.baseline, r.Baseline()); err != nil {
			return fail("%v", err)
		}
		log.Info("baseline written", "file", g.baseline, "tokens", r.List.Enforced)
	}
	if g.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return fail("encode report: %v", err)
		}
	} else if err := r.WriteText(stdout); err != nil {
		return fail("write report: %v", err)
	}
	if !r.Passed() {
		return exitFail
	}
	return exitOK
}

// gateSoftMemoryLimit is the soft memory limit the gate runs under when
// the user set none. A gate holds the whole server (compiled schemas,
// router index, descriptors) live while it checks every operation, and
// Go's default collector lets the heap grow to twice what is live: at
// 100,000 operations about 550 MB live became 1.36 GiB resident. Under
// this limit the collector runs earlier instead; a catalog whose live
// heap is larger still completes, with the collector's CPU share capped
// by the runtime.
const gateSoftMemoryLimit = 896 << 20

// gateCompiledSchemas is how many compiled input schemas the gate keeps
// (operations.Registry.LimitCompiledSchemas). The probes validate each
// operation's params about once, so a schema kept after its operations'
// probes is memory the collector marks on every cycle: at 100,000
// generated operations, 260 MB of a 590 MB live heap, which under
// gateSoftMemoryLimit left the collector running every 55 MB allocated.
// The probes take operations grouped by schema (gate.Run), so any limit
// above the number of workers compiles each schema once.
const gateCompiledSchemas = 1024

// gateMemoryLimit returns the soft memory limit the gate sets, and false
// when it sets none because the GOMEMLIMIT environment variable (env) is
// set: the runtime already applied the user's value, "off" included.
func gateMemoryLimit(env string) (int64, bool) {
	if env != "" {
		return 0, false
	}
	return gateSoftMemoryLimit, true
}

// buildServer builds the server the flags describe, as serve would; with
// synthOps > 0 it serves that many generated operations instead of the
// configured sources, under the same policies. With probed set, the
// generated operations' input schemas are not compiled at registration:
// the gate's reachability probe of each operation validates params
// against its schema, which compiles it there, once per distinct schema,
// and reports an operation whose schema does not compile as unreachable.
// Without the probe (--skip-reachability) registration compiles and
// checks them. Generated operations have no output schemas, whose check
// deferred registration skips.
func buildServer(ctx context.Context, f *serverFlags, synthOps int, probed bool, log *slog.Logger) (*intent.Server, error) {
	if synthOps <= 0 {
		srv, _, err := f.build(ctx, log)
		return srv, err
	}
	writes, err := intent.ParseWritePolicy(f.writes)
	if err != nil {
		return nil, err
	}
	reg := operations.NewRegistry()
	// Limited before registering, so registration does not hold them all
	// either.
	reg.LimitCompiledSchemas(gateCompiledSchemas)
	if err := reg.RegisterAll(synth.Operations(synthOps, 1), operations.RegisterOptions{DeferCompile: probed}); err != nil {
		return nil, fmt.Errorf("generate %d operations: %w", synthOps, err)
	}
	return intent.New(reg, intent.Options{
		Writes:          writes,
		ToolPrefix:      f.toolPrefix,
		MaxResultTokens: f.maxTokens,
		Timeout:         f.timeout,
		Allow:           f.allow,
		Deny:            f.deny,
		PlanKey:         []byte(os.Getenv("INTENTSRV_PLAN_KEY")),
		CatalogHint:     f.catalogHint,
		Logger:          log,
	})
}

// applyConfig takes budgets from the config file's gate section for every
// budget flag not given on the command line.
func (g *gateFlags) applyConfig(fs *flag.FlagSet, path string) error {
	if path == "" {
		return nil
	}
	file, err := config.Load(path)
	if err != nil {
		return err
	}
	c := file.Gate
	if c == nil {
		return nil
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	b := &g.budgets
	setInt := func(name string, dst *int, v *int) {
		if v != nil && !given[name] {
			*dst = *v
		}
	}
	setInt("max-tools", &b.MaxTools, c.MaxTools)
	setInt("max-list-tokens", &b.MaxListTokens, c.MaxListTokens)
	setInt("max-tool-tokens", &b.MaxToolTokens, c.MaxToolTokens)
	setInt("max-description-lines", &b.MaxDescriptionLines, c.MaxDescriptionLines)
	setInt("max-path-tokens", &b.MaxPathTokens, c.MaxPathTokens)
	if c.MaxGrowthPercent != nil && !given["max-growth"] {
		b.MaxGrowthPercent = *c.MaxGrowthPercent
	}
	if c.Encoding != "" && !given["encoding"] {
		b.Encoding = c.Encoding
	}
	if c.HostServerName != "" && !given["host-server-name"] {
		b.HostServerName = c.HostServerName
	}
	return nil
}
