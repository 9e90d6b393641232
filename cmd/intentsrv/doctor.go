package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/gate"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/manifest/mcpsrc"
	"github.com/intentsrv/intentsrv/manifest/openapi"
	"github.com/intentsrv/intentsrv/operations"
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
	src         *sourceFlags
	network     bool // --check-network: the operator allowed network probes
	getenv      func(string) string

	// sources holds the OpenAPI sources with their catalogs once a check
	// has loaded them, so later checks do not load the specs again.
	sources    []openAPISource
	sourcesErr error
	loaded     bool
}

// openAPISource is one configured OpenAPI source with its catalog.
type openAPISource struct {
	spec sourceSpec
	cat  *openapi.Catalog
}

// baseURL is where the source's requests go: the configured base URL, else
// the spec's first server.
func (o openAPISource) baseURL() string {
	if o.spec.BaseURL != "" || len(o.cat.Servers) == 0 {
		return o.spec.BaseURL
	}
	return o.cat.Servers[0]
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
		{"upstream", checkUpstreams},
		{"writes", checkWrites},
		{"kinds", checkKinds},
		{"text", checkTextPolicy},
		{"env", checkEnv},
		{"auth", checkAuth},
		{"network", checkNetwork},
		{"lock", checkLock},
		{"gate", checkGate},
	}
}

func runDoctor(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f serverFlags
	defer f.src.close() // ends upstream MCP servers, if any were started
	fs := newFlagSet("doctor", "doctor [flags]", stderr)
	f.register(fs)
	var jsonOut, network bool
	fs.BoolVar(&jsonOut, "json", false, "print the findings as JSON")
	fs.BoolVar(&network, "check-network", false, "also check that each source's base URL answers (touches the network)")
	rest, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "intentsrv doctor: unexpected arguments %q\n", rest)
		return exitUsage
	}
	env := &doctorEnv{src: &f.src, network: network, getenv: os.Getenv}
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

// checkUpstreams reports each upstream MCP server: whether it started, how
// long that took, and what it lists. A server still starting (its
// operations came from the tools cache) is waited for, within its start
// timeout, so the report is about the server and not the cache.
func checkUpstreams(ctx context.Context, env *doctorEnv) []finding {
	if env.srv == nil {
		return skipped()
	}
	f := env.src.fleet
	if f == nil {
		return []finding{{Status: statusSkip, Detail: "no upstream MCP server configured (--mcp-config, mcpServers)"}}
	}
	f.Wait(ctx)
	var out []finding
	for _, st := range f.Status() {
		switch st.State {
		case mcpsrc.StateReady:
			status := statusOK
			if st.Operations == 0 {
				status = statusWarn
			}
			out = append(out, finding{Status: status, Detail: fmt.Sprintf("%s (%s): started and listed %d tools in %s; %d operations under %s.*",
				st.Server, st.Transport, st.Tools, st.StartedIn.Round(time.Millisecond), st.Operations, st.Namespace)})
		case mcpsrc.StateDisabled:
			out = append(out, finding{Status: statusSkip, Detail: st.Server + ": disabled in its config"})
		default:
			out = append(out, finding{Status: statusFail, Detail: fmt.Sprintf("%s (%s): %s: %s", st.Server, st.Transport, st.State, st.Error)})
		}
	}
	return out
}

// checkKinds lists every operation served as a lower kind than its HTTP
// method and name imply (a DELETE as a read, a POST DeleteBucket as a
// write; see openapi.KindFloor): only the operator's overlay can do that,
// and each such override is a decision someone should see.
func checkKinds(_ context.Context, env *doctorEnv) []finding {
	if env.srv == nil {
		return skipped()
	}
	var out []finding
	for _, op := range env.srv.Registry().All() {
		if op.HTTP == nil {
			if f := env.src.fleet; f != nil {
				if declared, ok := f.Declared(op.ID); ok && mcpsrc.Lowered(declared, op.Kind) {
					out = append(out, finding{Status: statusWarn, Detail: fmt.Sprintf("%s: served as %s by an operator overlay; its upstream's annotations and name imply %s", op.ID, op.Kind, declared)})
				}
			}
			continue
		}
		floor := openapi.KindFloor(op.HTTP.Method, op.ID[strings.LastIndexByte(op.ID, '.')+1:], op.HTTP.Path, op.Summary)
		if _, lowered := operations.Declared(floor, op.Kind); lowered {
			why := "its method implies"
			if floor != openapi.MethodKind(op.HTTP.Method) {
				why = "it is named for a removal, which makes it"
			}
			out = append(out, finding{Status: statusWarn, Detail: fmt.Sprintf("%s: %s %s is served as %s by an operator overlay; %s %s", op.ID, op.HTTP.Method, op.HTTP.Path, op.Kind, why, floor)})
		}
	}
	if len(out) == 0 {
		return []finding{{Status: statusOK, Detail: "no operation is served as a lower kind than its HTTP method and name or upstream annotations imply"}}
	}
	return out
}

// checkTextPolicy lists, per OpenAPI source, what the outside-text policy
// refused: operations not served because a required name reads as an
// instruction or hides text, and names, examples, patterns or enum members
// dropped. Each refused operation is named; the rest is counted.
func checkTextPolicy(ctx context.Context, env *doctorEnv) []finding {
	srcs, early := openAPISources(ctx, env, "the embedded demo catalog has no outside text")
	if early != nil {
		return early
	}
	var out []finding
	for _, o := range srcs {
		dropped := 0
		for _, w := range o.cat.Warnings {
			if !strings.Contains(w, openapi.PolicyWarning) {
				continue
			}
			if strings.Contains(w, "refused") {
				out = append(out, finding{Status: statusWarn, Detail: o.spec.Name + ": " + strings.Replace(w, openapi.PolicyWarning, "", 1)})
			} else {
				dropped++
			}
		}
		if dropped > 0 {
			out = append(out, finding{Status: statusWarn, Detail: fmt.Sprintf("%s: %d name(s), example(s), pattern(s) or enum member(s) dropped: they hide text or read as instructions to a model (see the log at start-up)", o.spec.Name, dropped)})
		}
	}
	if len(out) == 0 {
		return []finding{{Status: statusOK, Detail: "no outside name, example or operation refused by the text policy"}}
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

// openAPISources returns the configured OpenAPI sources with their
// catalogs (from the cache when it is fresh), loading them once per doctor
// run. When the checks that need them cannot run, it returns the findings
// to report instead; demo is the skip line for the embedded catalog.
func openAPISources(ctx context.Context, env *doctorEnv, demo string) ([]openAPISource, []finding) {
	switch {
	case env.srv == nil:
		return nil, skipped()
	case env.usedDefault:
		return nil, []finding{{Status: statusSkip, Detail: demo}}
	}
	if !env.loaded {
		env.loaded = true
		env.sources, env.sourcesErr = loadOpenAPISources(ctx, env.src)
	}
	if env.sourcesErr != nil {
		return nil, []finding{{Status: statusFail, Detail: env.sourcesErr.Error()}}
	}
	return env.sources, nil
}

func loadOpenAPISources(ctx context.Context, src *sourceFlags) ([]openAPISource, error) {
	specs, _, err := src.sources()
	if err != nil {
		return nil, err
	}
	out := make([]openAPISource, len(specs))
	for i, sp := range specs {
		cat, err := openapi.Load(ctx, openapi.LoadOptions{Name: sp.Name, Location: sp.OpenAPI, CacheDir: src.cacheDirectory()})
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", sp.Name, err)
		}
		out[i] = openAPISource{spec: sp, cat: cat}
	}
	return out, nil
}

// checkAuth reports, per source, whether the environment variables its
// security schemes need are set. Values are never read out, only whether
// they are empty. Unset is a warning: public operations still work.
func checkAuth(ctx context.Context, env *doctorEnv) []finding {
	srcs, early := openAPISources(ctx, env, "the embedded demo catalog needs no credentials")
	if early != nil {
		return early
	}
	var out []finding
	for _, o := range srcs {
		sp, cat := o.spec, o.cat
		if sp.Mock {
			out = append(out, finding{Status: statusSkip, Detail: sp.Name + ": mock mode sends no credentials"})
			continue
		}
		names := sortedKeys(cat.Schemes)
		if len(names) == 0 {
			out = append(out, finding{Status: statusOK, Detail: sp.Name + ": the spec declares no security schemes"})
			continue
		}
		ae := sp.authEnv()
		var set, unset []string
		for _, name := range names {
			for _, v := range ae.VarsFor(name, cat.Schemes[name]) {
				if v == "" {
					continue
				}
				if strings.TrimSpace(env.getenv(v)) != "" {
					set = append(set, v)
				} else {
					unset = append(unset, v+" ("+name+")")
				}
			}
		}
		set, unset = uniq(set), uniq(unset)
		switch {
		case len(unset) == 0:
			out = append(out, finding{Status: statusOK, Detail: fmt.Sprintf("%s: %s set", sp.Name, strings.Join(set, ", "))})
		case len(set) == 0:
			out = append(out, finding{Status: statusWarn, Detail: fmt.Sprintf("%s: no credentials: %s unset; operations that need auth will answer unauthorized", sp.Name, strings.Join(unset, ", "))})
		default:
			out = append(out, finding{Status: statusOK, Detail: fmt.Sprintf("%s: %s set; %s unset (other schemes)", sp.Name, strings.Join(set, ", "), strings.Join(unset, ", "))})
		}
	}
	return out
}

func uniq(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// checkNetwork checks that every source has an absolute base URL and, with
// --check-network, sends one HEAD request to each: any HTTP answer (even
// 404) means it is reachable.
func checkNetwork(ctx context.Context, env *doctorEnv) []finding {
	srcs, early := openAPISources(ctx, env, "the embedded demo catalog calls no network")
	if early != nil {
		return early
	}
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var out []finding
	for _, o := range srcs {
		name, base := o.spec.Name, o.baseURL()
		switch {
		case o.spec.Mock:
			if env.network {
				out = append(out, finding{Status: statusSkip, Detail: name + ": mock mode uses no network"})
			}
			continue
		case !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://"):
			out = append(out, finding{Status: statusFail, Detail: fmt.Sprintf("%s: no absolute base URL (spec servers: %q); pass --base-url or set base_url", name, base)})
			continue
		case !env.network:
			continue
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, base, nil)
		if err != nil {
			out = append(out, finding{Status: statusFail, Detail: fmt.Sprintf("%s: base URL %s: %v", name, base, err)})
			continue
		}
		resp, err := client.Do(req)
		if err != nil {
			out = append(out, finding{Status: statusFail, Detail: fmt.Sprintf("%s: %s does not answer: %v", name, base, err)})
			continue
		}
		resp.Body.Close()
		out = append(out, finding{Status: statusOK, Detail: fmt.Sprintf("%s: %s answers (HTTP %d)", name, base, resp.StatusCode)})
	}
	if !env.network {
		out = append(out, finding{Status: statusSkip, Detail: "base URLs not probed; --check-network allows it"})
	}
	return out
}

// checkLock reports on pinning. intentsrv has no lock files yet, so there
// is no drift to check; the line says so rather than claiming a pass.
func checkLock(ctx context.Context, env *doctorEnv) []finding {
	p := &env.src.pins
	if p.file == nil {
		return []finding{{Status: statusSkip, Detail: "no --lock file: operations are not pinned (write one with intentsrv lock)"}}
	}
	if env.srv == nil {
		return skipped()
	}
	if env.src.fleet != nil {
		env.src.fleet.Wait(ctx) // judge the upstreams' own lists, not the cache's
	}
	d := p.file.Compare(env.srv.Registry().All())
	if d.Empty() {
		return []finding{{Status: statusOK, Detail: fmt.Sprintf("all %d operations match %s", len(p.file.Operations), p.path)}}
	}
	var out []finding
	if len(d.Drifted)+len(d.New) > 0 {
		verdict := "served with a warning (add --strict-lock to refuse them)"
		if p.strict {
			verdict = "refused with lock_drift (--strict-lock)"
		}
		out = append(out, finding{Status: statusFail, Detail: fmt.Sprintf("%d operations differ from %s, %s: %s; review the change, then refresh the lock with intentsrv lock",
			len(d.Drifted)+len(d.New), p.path, verdict, driftText(d.Drifted, d.New, 20))})
	}
	if len(d.Missing) > 0 {
		out = append(out, finding{Status: statusWarn, Detail: fmt.Sprintf("%d pinned operations are not served (a tool removed, or its server down or unloaded): %s",
			len(d.Missing), listIDs(d.Missing, 20))})
	}
	return out
}
