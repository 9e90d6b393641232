package intent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/tokens"
)

// cutReport says how a result was cut to fit the budget.
type cutReport struct {
	warning string
	step    Step
}

// budget keeps a result within MaxResultTokens (o200k_base). A result that
// fits is returned unchanged. Otherwise the largest array in it (the result
// itself, or its largest array-valued field) is cut at an item boundary to
// the most items that fit. A result with no array to cut, or that does not
// fit even with no items, is refused with result_too_large.
func (s *Server) budget(op *operations.Operation, raw json.RawMessage) (json.RawMessage, *cutReport, *Envelope) {
	limit := s.opts.MaxResultTokens
	// Every token is at least one byte, so a result no longer than the limit
	// in bytes fits without counting.
	if len(raw) <= limit {
		return raw, nil, nil
	}
	n, err := tokens.Count(tokens.O200K, string(raw))
	if err != nil {
		return nil, nil, failure(CodeInternalError, "could not count result tokens: "+err.Error(), nil, nil)
	}
	if n <= limit {
		return raw, nil, nil
	}
	tooLarge := func() (json.RawMessage, *cutReport, *Envelope) {
		return nil, nil, failure(CodeResultTooLarge, fmt.Sprintf("%s returned about %d tokens; the limit is %d", op.ID, n, limit),
			map[string]any{"tokens": n, "limit": limit},
			&Remedy{Tool: s.verbFor(op), Action: op.ID, Fix: s.pagingHint(op) + " to ask for less"})
	}
	var doc any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return tooLarge()
	}
	items, rebuild := largestArray(doc)
	if items == nil {
		return tooLarge()
	}
	fits := func(k int) (json.RawMessage, bool) {
		b, err := json.Marshal(rebuild(items[:k]))
		if err != nil {
			return nil, false
		}
		if len(b) <= limit {
			return b, true
		}
		c, err := tokens.Count(tokens.O200K, string(b))
		return b, err == nil && c <= limit
	}
	// The largest k whose result fits: binary search over item counts.
	k := sort.Search(len(items)+1, func(k int) bool { _, ok := fits(k); return !ok }) - 1
	if k < 0 {
		return tooLarge()
	}
	out, _ := fits(k)
	why := fmt.Sprintf("the result was cut to %d of %d items; %s for the rest", k, len(items), s.pagingHint(op))
	step := Step{Tool: s.verbFor(op), Action: op.ID, Why: why}
	if containsString(s.info(op).paging, "limit") {
		step.Params = map[string]any{"limit": max(k, 1)}
	}
	return out, &cutReport{warning: fmt.Sprintf("result cut from %d to %d items to fit %d tokens", len(items), k, limit), step: step}, nil
}

// largestArray finds the array to cut in a decoded result and returns a
// function that rebuilds the result around a shorter copy of it.
func largestArray(doc any) ([]any, func([]any) any) {
	switch v := doc.(type) {
	case []any:
		return v, func(a []any) any { return a }
	case map[string]any:
		best, bestLen := "", -1
		for k, x := range v {
			if arr, ok := x.([]any); ok && len(arr) > 0 {
				b, _ := json.Marshal(arr)
				if len(b) > bestLen {
					best, bestLen = k, len(b)
				}
			}
		}
		if best == "" {
			return nil, nil
		}
		return v[best].([]any), func(a []any) any {
			m := make(map[string]any, len(v))
			for k, x := range v {
				m[k] = x
			}
			m[best] = a
			return m
		}
	}
	return nil, nil
}
