package gate

import (
	"fmt"
	"io"
	"strings"

	"github.com/intentsrv/intentsrv/tokens"
)

// WriteText writes r as a table for people: one row per tool with its
// tokens in both encodings and its description lines, the whole listing
// against its budget, reachability, growth, the flat comparison when
// present, then every breach and the verdict.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	width := len(ListSubject)
	for _, t := range r.Tools {
		width = max(width, len(t.Name))
	}
	fmt.Fprintf(&b, "%-*s  %11s  %11s  %5s\n", width, "tool", tokens.O200K, tokens.CL100K, "lines")
	for _, t := range r.Tools {
		fmt.Fprintf(&b, "%-*s  %11d  %11d  %5d\n", width, t.Name, t.Tokens[tokens.O200K], t.Tokens[tokens.CL100K], t.Lines)
	}
	fmt.Fprintf(&b, "%-*s  %11d  %11d\n", width, ListSubject, r.List.Tokens[tokens.O200K], r.List.Tokens[tokens.CL100K])

	bud := r.Budgets
	fmt.Fprintf(&b, "\nbudgets (%s): %d/%s tools, %d/%s tokens listing, %d/%s tokens largest tool, %d/%s description lines\n",
		encodingLabel(bud.Encoding), len(r.Tools), limit(bud.MaxTools), r.List.Enforced, limit(bud.MaxListTokens),
		r.MaxToolTokens(), limit(bud.MaxToolTokens), maxLines(r.Tools), limit(bud.MaxDescriptionLines))
	fmt.Fprintf(&b, "host names checked under the prefix %s\n", HostPrefix(bud.HostServerName))
	if r.Reachability {
		fmt.Fprintf(&b, "reachability: %d of %d operations reachable (%d hidden by policy, not checked)\n",
			r.Operations-countIDs(r.Unreachable), r.Operations, r.Hidden)
		for _, u := range r.Unreachable {
			fmt.Fprintf(&b, "  unreachable %s via %s: %s\n", u.ID, u.Check, u.Reason)
		}
		if p := r.Path; p != nil {
			fmt.Fprintf(&b, "path to an operation (listing + find + describe): median %d, worst %d tokens (%s; %d paths counted exactly); budget %s\n",
				p.MedianTokens, p.WorstTokens, p.WorstID, p.Sampled, limit(bud.MaxPathTokens))
		}
	} else {
		fmt.Fprintf(&b, "reachability: not checked (%d operations)\n", r.Operations)
	}
	if len(r.Growth) > 0 {
		fmt.Fprintf(&b, "growth against baseline (limit %+.1f%%):\n", bud.MaxGrowthPercent)
		for _, g := range r.Growth {
			if g.Before == 0 {
				fmt.Fprintf(&b, "  %-12s    new -> %6d\n", g.Subject, g.After)
				continue
			}
			fmt.Fprintf(&b, "  %-12s %6d -> %6d  %+.1f%%\n", g.Subject, g.Before, g.After, g.Percent)
		}
	}
	if f := r.Flat; f != nil {
		fmt.Fprintf(&b, "flat listing (one tool per operation): %d tools, %s tokens %d, %s tokens %d — %.1fx the intent listing\n",
			f.Tools, tokens.O200K, f.Tokens[tokens.O200K], tokens.CL100K, f.Tokens[tokens.CL100K], f.Ratio)
	}
	for _, br := range r.Breaches {
		fmt.Fprintf(&b, "BREACH %s: %s\n", br.Check, br.Message)
	}
	if r.Passed() {
		b.WriteString("PASS\n")
	} else {
		fmt.Fprintf(&b, "FAIL: %d breach(es)\n", len(r.Breaches))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func limit(n int) string {
	if n < 0 {
		return "∞"
	}
	return fmt.Sprint(n)
}

func encodingLabel(enc string) string {
	if enc == EncodingMax {
		return "larger of " + tokens.O200K + " and " + tokens.CL100K
	}
	return enc
}

func countIDs(us []Unreachable) int {
	seen := map[string]bool{}
	for _, u := range us {
		seen[u.ID] = true
	}
	return len(seen)
}

func maxLines(tools []ToolReport) int {
	m := 0
	for _, t := range tools {
		m = max(m, t.Lines)
	}
	return m
}
