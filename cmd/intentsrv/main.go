// Command intentsrv serves any number of operations to MCP hosts through four
// intent tools — find, describe, ask, act — and mirrors those tools on the
// command line.
//
// Usage:
//
//	intentsrv serve [flags]              MCP over stdio (--http ADDR: over HTTP)
//	intentsrv find INTENT...             search operations
//	intentsrv describe [ACTION]          overview, namespace, or one operation
//	intentsrv ask ACTION [PARAMS_JSON]   run a read operation
//	intentsrv act ACTION [PARAMS_JSON]   run a write operation (preview first)
//	intentsrv list                       print every operation id
//
// Run "intentsrv help" for the full list and "intentsrv CMD -h" for a
// command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/runs"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and the answer is "no" (envelope not ok, gate breach)
	exitUsage = 2 // bad flags or configuration
)

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"serve", "serve the intent tools over MCP (stdio; --http ADDR for HTTP and the REST twin)", runServe},
		{"find", "search operations by intent (same handler as the find tool)", verbCommand(intent.ToolFind)},
		{"describe", "catalog overview, a namespace's operations, or one operation's schema", verbCommand(intent.ToolDescribe)},
		{"ask", "run a read operation", verbCommand(intent.ToolAsk)},
		{"act", "run a write operation (destructive ones preview first)", verbCommand(intent.ToolAct)},
		{"list", "print every visible operation id", runList},
		{"eval", "measure routing quality on a labelled intent set", func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
			return runEval(ctx, args, stdout, stderr)
		}},
		{"gate", "check the listing's tool count, token budgets and reachability (for CI)", runGate},
		{"export", "write the tools in OpenAI, Anthropic or MCP format", runExport},
		{"doctor", "check a configuration without serving", runDoctor},
		{"lock", "pin every operation's content in a lock file (serve --lock checks it)", runLock},
		{"version", "print the version", func(_ context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) int {
			fmt.Fprintln(stdout, ServerVersion())
			return exitOK
		}},
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "intentsrv: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `intentsrv serves hundreds or thousands of API operations to an agent through
four tools: find, describe, ask, act.

Usage:
  intentsrv <command> [flags] [arguments]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
With no source flags, the embedded demo catalog (a help desk) is served.
Run "intentsrv <command> -h" for a command's flags.
`)
}

// ServerVersion is the module version of the binary: the release version
// when built from a module, else "devel" with the VCS revision the binary
// was built from ("devel+1a2b3c4d5e6f", "-dirty" for uncommitted changes).
func ServerVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel+" + rev[:min(12, len(rev))] + dirty
}

// serverFlags are the flags shared by every command that builds a server.
type serverFlags struct {
	writes      string
	toolPrefix  string
	maxTokens   int
	timeout     time.Duration
	planTTL     time.Duration
	allow, deny stringList
	catalogHint bool
	logLevel    string
	planKey     []byte           // overrides INTENTSRV_PLAN_KEY when set (CLI)
	planStore   intent.PlanStore // nil: in memory (CLI: a file)
	src         sourceFlags
	// Long-running calls (issue 13).
	wait         time.Duration
	runRetention time.Duration
	blockCalls   bool       // the CLI: a run cannot outlive the command
	runStore     runs.Store // nil: in memory (runstore.go opens --run-store)
	maxRuns      int
	runs         *runs.Manager // set by build; closed on shutdown (closeRuns)

	// serve's plan store flags (planstore.go); zero for other commands.
	storeSpec      string
	idempotencyTTL time.Duration
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func (f *serverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.writes, "writes", "deny", "write policy: deny (read-only), confirm (every write previews first) or allow (only destructive operations preview)")
	fs.StringVar(&f.toolPrefix, "tool-prefix", "", "prefix for tool names, e.g. gh_, to run several servers in one host")
	fs.IntVar(&f.maxTokens, "max-result-tokens", intent.DefaultMaxResultTokens, "cut results larger than this many tokens at item boundaries")
	fs.DurationVar(&f.timeout, "timeout", intent.DefaultTimeout, "time budget of one operation call")
	fs.DurationVar(&f.planTTL, "plan-ttl", intent.DefaultPlanTTL, "how long a preview's plan_ref stays valid")
	fs.Var(&f.allow, "allow", "only expose operation ids matching this glob (repeatable)")
	fs.Var(&f.deny, "deny", "hide operation ids matching this glob (repeatable; deny wins)")
	fs.BoolVar(&f.catalogHint, "catalog-hint", false, "add operation counts to find's description (changes the listing when the catalog changes)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level on stderr: debug, info, warn, error")
	f.src.register(fs)
	fs.DurationVar(&f.wait, "wait", intent.DefaultWait, "how long ask/act wait for an operation before answering with a run handle (serve; the CLI waits until done)")
	fs.DurationVar(&f.runRetention, "run-retention", runs.DefaultRetention, "how long a run handle's result stays readable after the run ends")
	fs.IntVar(&f.maxRuns, "max-runs", defaultMaxRuns, "most ask/act operations under way at once, run handles included; past it a call is refused (rate_limited) until some end")
}

func (f *serverFlags) logger(stderr io.Writer) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(f.logLevel)); err != nil {
		lvl = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
}

// buildRegistry loads the configured sources, or the embedded demo catalog
// when none is configured. usedDefault reports the latter.
func buildRegistry(ctx context.Context, src *sourceFlags, log *slog.Logger) (reg *operations.Registry, usedDefault bool, err error) {
	reg = operations.NewRegistry()
	loaded, err := src.load(ctx, reg, log)
	if err != nil {
		return nil, false, err
	}
	if loaded {
		return reg, false, nil
	}
	if err := helpdesk.New().Register(reg); err != nil {
		return nil, false, fmt.Errorf("embedded catalog: %w", err)
	}
	if err := src.pins.applyRegistered(reg); err != nil { // --lock holds for the demo catalog too
		return nil, false, err
	}
	return reg, true, nil
}

// build assembles the intent server the flags describe.
func (f *serverFlags) build(ctx context.Context, log *slog.Logger) (*intent.Server, bool, error) {
	writes, err := intent.ParseWritePolicy(f.writes)
	if err != nil {
		return nil, false, err
	}
	if f.timeout <= 0 {
		return nil, false, fmt.Errorf("--timeout must be positive, got %s", f.timeout)
	}
	if f.maxTokens <= 0 {
		return nil, false, fmt.Errorf("--max-result-tokens must be positive, got %d", f.maxTokens)
	}
	if f.planTTL < time.Second {
		return nil, false, fmt.Errorf("--plan-ttl must be at least 1s, got %s", f.planTTL)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, false, fmt.Errorf("--log-level %q is not debug, info, warn or error", f.logLevel)
	}
	if f.wait <= 0 || f.runRetention <= 0 {
		return nil, false, fmt.Errorf("--wait and --run-retention must be positive, got %s and %s (a call may still ask for no wait with params._wait: 0)", f.wait, f.runRetention)
	}
	if f.maxRuns < 1 {
		return nil, false, fmt.Errorf("--max-runs must be at least 1, got %d", f.maxRuns)
	}
	wait := f.wait
	if f.blockCalls {
		wait = intent.WaitUntilDone
	}
	reg, usedDefault, err := buildRegistry(ctx, &f.src, log)
	if err != nil {
		f.src.close()
		return nil, false, err
	}
	planKey := f.planKey
	if planKey == nil {
		planKey = []byte(os.Getenv("INTENTSRV_PLAN_KEY"))
	}
	srv, err := intent.New(reg, intent.Options{
		Writes:          writes,
		ToolPrefix:      f.toolPrefix,
		MaxResultTokens: f.maxTokens,
		Timeout:         f.timeout,
		Allow:           f.allow,
		Deny:            f.deny,
		PlanKey:         planKey,
		PlanStore:       f.planStore,
		IdempotencyTTL:  f.idempotencyTTL,
		PlanTTL:         f.planTTL,
		CatalogHint:     f.catalogHint,
		SourceHealth:    f.src.health(),
		Logger:          log,
		Wait:            wait,
		Runs:            f.newRuns(log),
	})
	if err != nil {
		f.src.close()
		return nil, false, err
	}
	f.src.attach(srv)
	if srv.Len() == 0 && reg.Len() > 0 {
		log.Warn("no operation is visible: the --allow/--deny globs or the write policy hide all of them",
			"operations", reg.Len(), "allow", f.allow.String(), "deny", f.deny.String(), "writes", writes)
	}
	return srv, usedDefault, nil
}

// newFlagSet returns a FlagSet whose errors and help go to stderr and that
// does not exit the process.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: intentsrv %s\n", synopsis)
		// The command's own flags first; the server and source flags every
		// command shares with serve after them, so they do not bury these.
		shared := sharedFlagNames()
		own := flag.NewFlagSet(name, flag.ContinueOnError)
		common := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.VisitAll(func(f *flag.Flag) {
			dst := own
			if shared[f.Name] && name != "serve" {
				dst = common
			}
			dst.Var(f.Value, f.Name, f.Usage)
			dst.Lookup(f.Name).DefValue = f.DefValue
		})
		for _, group := range []struct {
			title string
			fs    *flag.FlagSet
		}{{"Flags", own}, {"Server and source flags (as for serve)", common}} {
			n := 0
			group.fs.VisitAll(func(*flag.Flag) { n++ })
			if n == 0 {
				continue
			}
			fmt.Fprintf(stderr, "\n%s:\n", group.title)
			group.fs.SetOutput(stderr)
			group.fs.PrintDefaults()
		}
	}
	return fs
}

// sharedFlagNames names the flags serverFlags registers.
func sharedFlagNames() map[string]bool {
	var f serverFlags
	scratch := flag.NewFlagSet("scratch", flag.ContinueOnError)
	f.register(scratch)
	names := map[string]bool{}
	scratch.VisitAll(func(fl *flag.Flag) { names[fl.Name] = true })
	return names
}

// parseFlags parses args, allowing flags after positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, exitOK, true
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), exitOK, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
