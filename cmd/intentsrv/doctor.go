package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/intentsrv/intentsrv/gate"
	"github.com/intentsrv/intentsrv/intent"
)

// Doctor statuses. Only fail makes doctor exit non-zero.
const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "fail"
	statusSkip = "skip"
)

// finding is one line of doctor's report.
type finding struct {
	Check  string `json:"check"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// doctorEnv is what the checks share: the loaded server (nil when the
// configuration did not load) and whether it is the embedded default.
type doctorEnv struct {
	srv         *intent.Server
	usedDefault bool
	loadErr     error
}

// doctorCheck is one check. It returns one or more findings; a check that
// needs the server and finds none reports skip. New checks (upstreams
// start, lock drift, base URLs reachable) are added to doctorChecks.
type doctorCheck struct {
	name string
	run  func(ctx context.Context, env *doctorEnv) []finding
}

func doctorChecks() []doctorCheck {
	return []doctorCheck{
		{"config", checkConfig},
		{"sources", checkSources},
		{"writes", checkWrites},
		{"env", checkEnv},
		{"gate", checkGate},
	}
}

func runDoctor(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f serverFlags
	fs := newFlagSet("doctor", "doctor [flags]", stderr)
	f.register(fs)
	var jsonOut bool
	fs.BoolVar(&jsonOut, "json", false, "print the findings as JSON")
	rest, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "intentsrv doctor: unexpected arguments %q\n", rest)
		return exitUsage
	}
	env := &doctorEnv{}
	env.srv, env.usedDefault, env.loadErr = f.build(ctx, f.logger(stderr))
	var all []finding
	for _, c := range doctorChecks() {
		for _, fd := range c.run(ctx, env) {
			if fd.Check == "" {
				fd.Check = c.name
			}
			all = append(all, fd)
		}
	}
	passed := !slices.ContainsFunc(all, func(f finding) bool { return f.Status == statusFail })
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Passed bool      `json:"passed"`
			Checks []finding `json:"checks"`
		}{passed, all}); err != nil {
			fmt.Fprintf(stderr, "intentsrv doctor: %v\n", err)
			return exitUsage
		}
	} else {
		for _, fd := range all {
			fmt.Fprintf(stdout, "%-4s  %-8s %s\n", fd.Status, fd.Check, fd.Detail)
		}
	}
	if !passed {
		return exitFail
	}
	return exitOK
}

func skipped() []finding {
	return []finding{{Status: statusSkip, Detail: "the configuration did not load"}}
}

func checkConfig(_ context.Context, env *doctorEnv) []finding {
	if env.loadErr != nil {
		return []finding{{Status: statusFail, Detail: env.loadErr.Error()}}
	}
	what := "configured sources"
	if env.usedDefault {
		what = "the embedded demo catalog (no source configured)"
	}
	return []finding{{Status: statusOK, Detail: fmt.Sprintf("%d operations loaded from %s", env.srv.Registry().Len(), what)}}
}

// checkSources reports one line per source (Operation.Source): how many
// operations it gave and how many the policies leave visible.
func checkSources(_ context.Context, env *doctorEnv) []finding {
	if env.srv == nil {
		return skipped()
	}
	total, visible := map[string]int{}, map[string]int{}
	for _, op := range env.srv.Registry().All() {
		total[op.Source]++
		if env.srv.Visible(op) {
			visible[op.Source]++
		}
	}
	if len(total) == 0 {
		return []finding{{Status: statusFail, Detail: "no operation loaded"}}
	}
	var out []finding
	for _, src := range sortedKeys(total) {
		status := statusOK
		if visible[src] == 0 {
			status = statusWarn
		}
		out = append(out, finding{Status: status, Detail: fmt.Sprintf("%s: %d operations, %d visible under the policies", src, total[src], visible[src])})
	}
	return out
}

func checkWrites(_ context.Context, env *doctorEnv) []finding {
	if env.srv == nil {
		return skipped()
	}
	writes, hidden := 0, 0
	for _, op := range env.srv.Registry().All() {
		if op.Kind.IsWrite() {
			writes++
			if !env.srv.Visible(op) {
				hidden++
			}
		}
	}
	p := env.srv.Options().Writes
	var detail string
	switch p {
	case intent.WritesDeny:
		detail = fmt.Sprintf("writes=deny (read-only): %d write operations hidden, act not listed", hidden)
	case intent.WritesConfirm:
		detail = fmt.Sprintf("writes=confirm: %d write operations callable through act, each after a confirmed preview", writes-hidden)
	default:
		detail = fmt.Sprintf("writes=allow: %d write operations callable through act; destructive ones preview first", writes-hidden)
	}
	return []finding{{Status: statusOK, Detail: detail}}
}

// envVars are the environment variables intentsrv itself reads. Sources
// that name credentials in the environment add theirs here as they land.
var envVars = []struct{ name, unset string }{
	{"INTENTSRV_PLAN_KEY", "unset: plan_refs are signed with a random key per process, so replicas and restarts refuse each other's previews"},
}

// checkEnv reports whether each variable is set, never its value.
func checkEnv(_ context.Context, _ *doctorEnv) []finding {
	var out []finding
	for _, v := range envVars {
		if _, ok := os.LookupEnv(v.name); ok {
			out = append(out, finding{Status: statusOK, Detail: v.name + " is set"})
		} else {
			out = append(out, finding{Status: statusWarn, Detail: v.name + " " + v.unset})
		}
	}
	return out
}

func checkGate(ctx context.Context, env *doctorEnv) []finding {
	if env.srv == nil {
		return skipped()
	}
	r, err := gate.Run(ctx, env.srv, gate.Budgets{})
	if err != nil {
		return []finding{{Status: statusFail, Detail: err.Error()}}
	}
	summary := fmt.Sprintf("%d tools, tools/list %d tokens (budget %d), largest tool %d (budget %d), %d of %d operations reachable",
		len(r.Tools), r.List.Enforced, r.Budgets.MaxListTokens, r.MaxToolTokens(), r.Budgets.MaxToolTokens,
		r.Operations-len(unreachableIDs(r)), r.Operations)
	if r.Passed() {
		return []finding{{Status: statusOK, Detail: summary}}
	}
	var msgs []string
	for _, b := range r.Breaches {
		msgs = append(msgs, b.Message)
	}
	if len(msgs) > 3 {
		msgs = append(msgs[:3], fmt.Sprintf("and %d more (run intentsrv gate)", len(msgs)-3))
	}
	return []finding{{Status: statusFail, Detail: summary + ": " + strings.Join(msgs, "; ")}}
}

func unreachableIDs(r *gate.Report) map[string]bool {
	ids := map[string]bool{}
	for _, u := range r.Unreachable {
		ids[u.ID] = true
	}
	return ids
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
