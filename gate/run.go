package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/intent"
)

// Check names, as they appear in Breach.Check.
const (
	BreachToolCount        = "tool_count"
	BreachListTokens       = "list_tokens"
	BreachToolTokens       = "tool_tokens"
	BreachToolName         = "tool_name"
	BreachHostPrefix       = "host_prefix"
	BreachDescriptionLines = "description_lines"
	BreachUnreachable      = "unreachable"
	BreachGrowth           = "growth"
	BreachPathTokens       = "path_tokens"
)

// ListSubject is the Breach and Growth subject of the whole listing.
const ListSubject = "tools/list"

// Breach is one budget or rule the server broke.
type Breach struct {
	// Check is one of the Breach* names.
	Check string `json:"check"`
	// Subject is what broke it: a tool name, "tools/list" or an operation
	// id.
	Subject string `json:"subject"`
	// Limit and Actual are the budget and the measured figure, when the
	// check is numeric.
	Limit  float64 `json:"limit,omitempty"`
	Actual float64 `json:"actual,omitempty"`
	// Message says what is wrong, in words.
	Message string `json:"message"`
}

// ToolReport is the measurement of one listed tool.
type ToolReport struct {
	// Name is the tool's wire name.
	Name string `json:"name"`
	// Tokens is the tool's entry in the tools/list result, in each
	// encoding.
	Tokens Tokens `json:"tokens"`
	// Enforced is Tokens in the budgets' encoding.
	Enforced int `json:"enforced"`
	// Lines is the number of lines of the tool's description.
	Lines int `json:"lines"`
	// HostName is the name as a host shows it, with its prefix.
	HostName string `json:"host_name"`
}

// ListReport is the measurement of the whole tools/list result.
type ListReport struct {
	// Tokens is the result's size in each encoding.
	Tokens Tokens `json:"tokens"`
	// Enforced is Tokens in the budgets' encoding.
	Enforced int `json:"enforced"`
	// Bytes is the result's JSON size.
	Bytes int `json:"bytes"`
}

// Report is what Run measured and found. Passed reports whether it found no
// breach.
type Report struct {
	// Budgets are the effective budgets (defaults filled in).
	Budgets Budgets `json:"budgets"`
	// Tools are the listed tools, in listing order.
	Tools []ToolReport `json:"tools"`
	// List is the whole listing.
	List ListReport `json:"list"`
	// Operations is the number of visible operations; Hidden the number the
	// server's policies hide (they are not checked for reachability).
	Operations int `json:"operations"`
	Hidden     int `json:"hidden"`
	// Reachability tells whether reachability was checked.
	Reachability bool `json:"reachability_checked"`
	// Unreachable lists each failed reachability check, by operation id.
	Unreachable []Unreachable `json:"unreachable"`
	// Path is the cost of reaching operations (listing + find + describe),
	// when reachability was checked.
	Path *PathReport `json:"path,omitempty"`
	// Growth is the change against the baseline, when one was given.
	Growth []Growth `json:"growth,omitempty"`
	// Flat is the one-tool-per-operation comparison, when asked for with
	// WithFlat.
	Flat *FlatReport `json:"flat,omitempty"`
	// Breaches are the broken budgets and rules, in check order.
	Breaches []Breach `json:"breaches"`
	// Listing is the tools/list result that was measured.
	Listing *Listing `json:"-"`
}

// Passed reports whether the server met every budget and rule.
func (r *Report) Passed() bool { return len(r.Breaches) == 0 }

// MarshalJSON encodes r with a leading "passed" field, so a CI script can
// read the verdict without counting breaches.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		Passed bool `json:"passed"`
		*plain
	}{r.Passed(), (*plain)(r)})
}

var hostNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Run measures srv's listing against b and, unless b.SkipReachability,
// checks that every visible operation is reachable. It returns an error
// only when it cannot measure (bad budgets, a listing that cannot be
// produced, a cancelled ctx); a server that breaks budgets yields a report
// whose Passed is false.
func Run(ctx context.Context, srv *intent.Server, b Budgets) (*Report, error) {
	b, err := b.withDefaults()
	if err != nil {
		return nil, err
	}
	l, err := ListTools(ctx, srv)
	if err != nil {
		return nil, err
	}
	r := &Report{Budgets: b, Listing: l, Unreachable: []Unreachable{}, Breaches: []Breach{}}
	listTokens, err := count(string(l.Raw))
	if err != nil {
		return nil, err
	}
	r.List = ListReport{Tokens: listTokens, Enforced: listTokens.In(b.Encoding), Bytes: len(l.Raw)}
	prefix := HostPrefix(b.HostServerName)
	for _, t := range l.Tools {
		tk, err := count(string(t.Raw))
		if err != nil {
			return nil, err
		}
		r.Tools = append(r.Tools, ToolReport{
			Name: t.Name, Tokens: tk, Enforced: tk.In(b.Encoding),
			Lines: lines(t.Description), HostName: prefix + t.Name,
		})
	}
	r.checkListing(b)

	for _, op := range srv.Registry().All() {
		if srv.Visible(op) {
			r.Operations++
		} else {
			r.Hidden++
		}
	}
	if !b.SkipReachability {
		r.Reachability = true
		pf := newPathFinder(srv)
		_, bad, paths, err := reachability(ctx, srv, pf)
		if err != nil {
			return nil, err
		}
		pr, err := pathReport(ctx, pf, r.List.Enforced, b.Encoding, paths)
		if err != nil {
			return nil, err
		}
		if pr != nil {
			r.Path = pr
			if b.MaxPathTokens >= 0 && pr.WorstTokens > b.MaxPathTokens {
				r.Breaches = append(r.Breaches, Breach{Check: BreachPathTokens, Subject: pr.WorstID,
					Limit: float64(b.MaxPathTokens), Actual: float64(pr.WorstTokens),
					Message: fmt.Sprintf("reaching %s costs %d tokens (listing + find + describe); the budget is %d", pr.WorstID, pr.WorstTokens, b.MaxPathTokens)})
			}
		}
		r.Unreachable = append(r.Unreachable, bad...)
		for _, u := range bad {
			r.Breaches = append(r.Breaches, Breach{Check: BreachUnreachable, Subject: u.ID,
				Message: fmt.Sprintf("%s does not reach %s: %s", u.Check, u.ID, u.Reason)})
		}
	}
	if b.Baseline != nil {
		r.Growth = compareBaseline(r, b.Baseline, b.Encoding)
		for _, g := range r.Growth {
			if g.Before > 0 && g.Percent > b.MaxGrowthPercent {
				r.Breaches = append(r.Breaches, Breach{Check: BreachGrowth, Subject: g.Subject,
					Limit: b.MaxGrowthPercent, Actual: round1(g.Percent),
					Message: fmt.Sprintf("%s grew from %d to %d tokens (%+.1f%%); the limit is %+.1f%%", g.Subject, g.Before, g.After, g.Percent, b.MaxGrowthPercent)})
			}
		}
	}
	return r, nil
}

// WithFlat adds the one-tool-per-operation comparison to r (see Flat).
func (r *Report) WithFlat(ctx context.Context, srv *intent.Server) error {
	fr, err := Flat(ctx, srv, r.Budgets.Encoding, r.List.Enforced)
	if err != nil {
		return err
	}
	r.Flat = fr
	return nil
}

func (r *Report) checkListing(b Budgets) {
	add := func(br Breach) { r.Breaches = append(r.Breaches, br) }
	if b.MaxTools >= 0 && len(r.Tools) > b.MaxTools {
		add(Breach{Check: BreachToolCount, Subject: ListSubject, Limit: float64(b.MaxTools), Actual: float64(len(r.Tools)),
			Message: fmt.Sprintf("%d tools listed; the budget is %d", len(r.Tools), b.MaxTools)})
	}
	if b.MaxListTokens >= 0 && r.List.Enforced > b.MaxListTokens {
		add(Breach{Check: BreachListTokens, Subject: ListSubject, Limit: float64(b.MaxListTokens), Actual: float64(r.List.Enforced),
			Message: fmt.Sprintf("tools/list is %d tokens; the budget is %d", r.List.Enforced, b.MaxListTokens)})
	}
	for _, t := range r.Tools {
		if b.MaxToolTokens >= 0 && t.Enforced > b.MaxToolTokens {
			add(Breach{Check: BreachToolTokens, Subject: t.Name, Limit: float64(b.MaxToolTokens), Actual: float64(t.Enforced),
				Message: fmt.Sprintf("tool %s is %d tokens; the budget is %d", t.Name, t.Enforced, b.MaxToolTokens)})
		}
		switch {
		case strings.Contains(t.Name, "."):
			add(Breach{Check: BreachToolName, Subject: t.Name, Message: fmt.Sprintf("tool name %q contains a dot, which several hosts refuse", t.Name)})
		case !hostNamePattern.MatchString(t.Name):
			add(Breach{Check: BreachToolName, Subject: t.Name, Message: fmt.Sprintf("tool name %q does not match ^[a-zA-Z0-9_-]{1,64}$", t.Name)})
		case !hostNamePattern.MatchString(t.HostName):
			add(Breach{Check: BreachHostPrefix, Subject: t.Name, Limit: 64, Actual: float64(len(t.HostName)),
				Message: fmt.Sprintf("tool name %q becomes %q under a host prefix, which is not ^[a-zA-Z0-9_-]{1,64}$", t.Name, t.HostName)})
		}
		if b.MaxDescriptionLines >= 0 && t.Lines > b.MaxDescriptionLines {
			add(Breach{Check: BreachDescriptionLines, Subject: t.Name, Limit: float64(b.MaxDescriptionLines), Actual: float64(t.Lines),
				Message: fmt.Sprintf("tool %s has a %d-line description; the budget is %d", t.Name, t.Lines, b.MaxDescriptionLines)})
		}
	}
}

// lines counts the lines of s, ignoring one trailing newline; "" has none.
func lines(s string) int {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// Check runs the gate over srv within a test: each breach is reported with
// t.Errorf, the figures with t.Logf, and a measurement failure stops the
// test with t.Fatalf. It returns the report for further assertions.
func Check(t testing.TB, srv *intent.Server, b Budgets) *Report {
	t.Helper()
	r, err := Run(t.Context(), srv, b)
	if err != nil {
		t.Fatalf("surface gate: %v", err)
	}
	for _, br := range r.Breaches {
		t.Errorf("surface gate: %s: %s", br.Check, br.Message)
	}
	t.Logf("surface gate: %d tools, tools/list %s, largest tool %d tokens, %d operations checked, %d unreachable",
		len(r.Tools), r.List.Tokens, r.MaxToolTokens(), r.Operations, len(r.Unreachable))
	return r
}

// MaxToolTokens is the largest enforced count among the listed tools.
func (r *Report) MaxToolTokens() int {
	m := 0
	for _, t := range r.Tools {
		m = max(m, t.Enforced)
	}
	return m
}
