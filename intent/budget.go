package intent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/tokens"
)

// cutReport says how a result was cut to fit the budget.
type cutReport struct {
	kept, total   int
	path          string // dotted field path of the list that was cut; empty when the result itself is the list
	droppedCursor bool   // the result had a cursor field, which was removed
}

// cursorKeys are result fields that point past the items a page returned.
// When a result is cut, they would skip the items that were dropped, so
// they are removed.
var cursorKeys = []string{"next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next"}

func isCursor(b []byte, m member) bool {
	for _, k := range cursorKeys {
		if m.keyIs(b, k) {
			return true
		}
	}
	return false
}

const (
	// countChunkBytes is the most text handed to the tokenizer at once when
	// a text may be larger than the budget: counting stops at the first
	// chunk that takes the running total over the limit, so the work done
	// on a result depends on the limit, not on the result's size.
	countChunkBytes = 2048
	// maxCutDepth bounds how deep the budget looks for the list to cut
	// (through the largest object-valued field at each level).
	maxCutDepth = 8
)

// budget keeps a result within MaxResultTokens (o200k_base).
//
// A result that fits is returned unchanged. Otherwise the list to cut is
// the result itself when it is an array, else the largest array-valued
// field of the object, else (up to maxCutDepth levels down) the same search
// in its largest object-valued field. The list is cut at an item boundary
// to the most items that fit; every other byte is kept as it was (key
// order included), minus cursor fields on the way down to the list, which
// would skip the dropped items. A result with no such list, or that does
// not fit even with no items, is refused with result_too_large.
//
// The work is bounded by the limit, not by the result: tokens are counted
// on at most about limit + 1/16 tokens' worth of any text (in chunks of
// countChunkBytes, stopping when over), lists are walked as byte spans and
// the result is never decoded or copied whole. budget gives up with the
// call's timeout or cancellation when ctx ends, and never answers ok after
// that.
func (s *Server) budget(ctx context.Context, op *operations.Operation, raw json.RawMessage) (json.RawMessage, *cutReport, *Envelope) {
	limit := s.opts.MaxResultTokens
	out, cut, err := fitResult(&tokenCounter{ctx: ctx, count: s.countTokens}, raw, limit)
	if err == nil {
		err = ctx.Err()
	}
	var tl *tooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, nil, failure(CodeResultTooLarge,
			fmt.Sprintf("%s returned %d bytes, more than the limit of %d tokens, and %s", op.ID, len(raw), limit, tl.why),
			map[string]any{"bytes": len(raw), "limit": limit},
			&Remedy{Tool: s.verbFor(op), Action: op.ID, Fix: s.pagingHint(op) + " to ask for less"})
	case err != nil:
		return nil, nil, s.budgetFailure(op, err)
	}
	return out, cut, nil
}

// fitResult returns raw when it fits in limit tokens, else raw cut to fit
// with a report of the cut, else a *tooLargeError; or the counter's
// context or tokenizer error.
func fitResult(c *tokenCounter, raw []byte, limit int) (json.RawMessage, *cutReport, error) {
	// Every token is at least one byte, so a result no longer than the limit
	// in bytes fits without counting.
	if len(raw) <= limit {
		return raw, nil, nil
	}
	if _, over, err := c.upTo(raw, limit, true); err != nil || !over {
		return raw, nil, err
	}
	return cutToFit(c, raw, limit)
}

// budgetFailure maps an error met while budgeting onto the envelope: the
// call's deadline or cancellation as for the handler, anything else as an
// internal error.
func (s *Server) budgetFailure(op *operations.Operation, err error) *Envelope {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return s.operationFailure(op, errTimeout)
	case errors.Is(err, context.Canceled):
		return s.operationFailure(op, err)
	}
	return failure(CodeInternalError, "could not count result tokens: "+err.Error(), nil, nil)
}

// tooLargeError says why a result over the budget cannot be cut to fit.
type tooLargeError struct{ why string }

func (e *tooLargeError) Error() string { return "result too large: " + e.why }

// cutToFit cuts raw, which is over limit, at an item boundary of its list
// (see budget).
func cutToFit(c *tokenCounter, raw []byte, limit int) (json.RawMessage, *cutReport, error) {
	f, ok := findCut(raw)
	if !ok {
		return nil, nil, &tooLargeError{"it holds no list that can be cut (the result itself, or an array field up to " + fmt.Sprint(maxCutDepth) + " objects deep)"}
	}
	frameTokens, over, err := c.upTo(f.build(raw, nil), limit, true)
	if err != nil {
		return nil, nil, err
	}
	if over {
		return nil, nil, &tooLargeError{"it does not fit even with its list emptied"}
	}
	// Take items while their estimated counts fit; each costs its tokens
	// plus about one for the comma.
	items := newArrayItems(raw, f.arr)
	var kept []span
	var cost []int
	room := limit - frameTokens
	total := 0
	for {
		it, ok := items.next()
		if !ok {
			break
		}
		total++
		n, over, err := c.upTo(raw[it.start:it.end], room-1, false)
		if err != nil {
			return nil, nil, err
		}
		if over {
			break
		}
		kept = append(kept, it)
		cost = append(cost, n+1)
		room -= n + 1
	}
	// The rest of the list is only counted, as spans.
	for i := 0; ; i++ {
		if i%4096 == 4095 {
			if err := c.ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		if _, ok := items.next(); !ok {
			break
		}
		total++
	}
	if items.bad {
		return nil, nil, &tooLargeError{"its list is malformed"}
	}
	// The sum of item counts is an estimate: check the real count of the
	// cut result and drop items from the end by the estimated excess. After
	// a few rounds, halve, so the checks cost at most about twice the cut
	// result.
	k := len(kept)
	for round := 0; ; round++ {
		out := f.build(raw, kept[:k])
		// out is small (its items were estimated to fit), so it is counted
		// whole: one exact count.
		n, err := c.exact(out)
		if err != nil {
			return nil, nil, err
		}
		if n <= limit {
			return out, &cutReport{kept: k, total: total, path: strings.Join(f.path, "."), droppedCursor: f.droppedCursor}, nil
		}
		if k == 0 {
			return nil, nil, &tooLargeError{"it does not fit even with its list emptied"}
		}
		if round >= 4 {
			k /= 2
			continue
		}
		for excess := n - limit; excess > 0 && k > 0; {
			k--
			excess -= cost[k]
		}
	}
}

// cutFrame is a result taken apart around the list to cut: the bytes
// before and after the list, with cursor fields left out.
type cutFrame struct {
	before, after []byte
	arr           span     // the list in the original result
	path          []string // field names from the root down to the list
	droppedCursor bool
}

// build returns the result with only items in its list.
func (f *cutFrame) build(raw []byte, items []span) []byte {
	n := len(f.before) + len(f.after) + 2 + len(items)
	for _, it := range items {
		n += it.len()
	}
	out := make([]byte, 0, n)
	out = append(out, f.before...)
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, raw[it.start:it.end]...)
	}
	out = append(out, ']')
	return append(out, f.after...)
}

// findCut finds the list to cut in raw (see budget) and the frame around it.
func findCut(raw []byte) (*cutFrame, bool) {
	i := skipSpace(raw, 0)
	end := skipValue(raw, i)
	if end < 0 {
		return nil, false
	}
	f := &cutFrame{}
	if !f.descend(raw, span{i, end}, 0) {
		return nil, false
	}
	return f, true
}

// descend adds v's part of the frame: nothing when v is the list, else v's
// members but the one that leads to the list (and cursors), before and
// after it.
func (f *cutFrame) descend(b []byte, v span, depth int) bool {
	switch b[v.start] {
	case '[':
		f.arr = v
		return true
	case '{':
	default:
		return false
	}
	if depth >= maxCutDepth {
		return false
	}
	var best member
	found, bestIsArray := false, false
	ok := eachMember(b, v, func(m member) bool {
		c := b[m.val.start]
		if (c != '[' && c != '{') || isCursor(b, m) {
			return true
		}
		isArray := c == '['
		if !found || isArray && !bestIsArray || isArray == bestIsArray && m.val.len() > best.val.len() {
			best, found, bestIsArray = m, true, isArray
		}
		return true
	})
	if !ok || !found {
		return false
	}
	f.before = append(f.before, '{')
	first, inAfter := true, false
	eachMember(b, v, func(m member) bool {
		if isCursor(b, m) {
			f.droppedCursor = true
			return true
		}
		if m.key.start == best.key.start {
			if !first {
				f.before = append(f.before, ',')
			}
			first = false
			f.before = append(f.before, b[m.key.start:m.key.end]...)
			f.before = append(f.before, ':')
			f.path = append(f.path, string(b[m.key.start+1:m.key.end-1]))
			if !f.descend(b, m.val, depth+1) {
				ok = false
				return false
			}
			inAfter = true
			return true
		}
		dst := &f.before
		if inAfter {
			dst = &f.after
		}
		if !first {
			*dst = append(*dst, ',')
		}
		first = false
		*dst = append(*dst, b[m.key.start:m.val.end]...)
		return true
	})
	f.after = append(f.after, '}')
	return ok
}

// tokenCounter counts o200k tokens of parts of a result, within a call's
// context.
type tokenCounter struct {
	ctx   context.Context
	count func(text string) (int, error)
}

// upTo counts the tokens of text, stopping early once they are clearly
// more than max. It returns the count (exact when exact is set and the
// text was counted to its end; else a close estimate from chunks) and
// whether it is over max. Reporting over, it has counted at most about
// max + max/16 tokens of text, whatever the text's length.
func (c *tokenCounter) upTo(text []byte, max int, exact bool) (int, bool, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, false, err
	}
	if max < 0 {
		return 0, true, nil
	}
	if len(text) <= countChunkBytes {
		n, err := c.count(string(text))
		return n, n > max, err
	}
	// Chunks split where the tokenizer would split anyway (see chunkEnd),
	// so the sum of their counts is close to the count of the whole; the
	// margin keeps an exact count near the limit from being called over.
	stop := max
	if exact {
		stop = max + max/16 + 16
	}
	total := 0
	for off := 0; off < len(text); {
		end := chunkEnd(text, off)
		n, err := c.count(string(text[off:end]))
		if err != nil {
			return 0, false, err
		}
		total += n
		if total > stop {
			return total, true, nil
		}
		if err := c.ctx.Err(); err != nil {
			return 0, false, err
		}
		off = end
	}
	if exact {
		n, err := c.count(string(text))
		return n, n > max, err
	}
	return total, total > max, nil
}

// exact counts the tokens of text in one call.
func (c *tokenCounter) exact(text []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.count(string(text))
}

// chunkEnd returns where the chunk of text starting at off ends: about
// countChunkBytes on, moved back to a boundary the o200k pre-tokenizer
// splits at anyway when there is one nearby (between a letter or digit and
// following punctuation, or a single space before a word), else to a UTF-8
// character boundary.
func chunkEnd(text []byte, off int) int {
	end := off + countChunkBytes
	if end >= len(text) {
		return len(text)
	}
	for p := end; p > end-256 && p > off+1; p-- {
		prev, c := text[p-1], text[p]
		if !isASCIIAlnum(prev) {
			continue
		}
		switch {
		case c == ' ' && p+1 < len(text) && isASCIIAlnum(text[p+1]):
			return p
		case c < 0x80 && c > ' ' && c != '\'' && !isASCIIAlnum(c):
			return p
		}
	}
	for end > off+1 && text[end]&0xC0 == 0x80 {
		end--
	}
	return end
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// countO200K is the token count budgets are enforced in.
func countO200K(text string) (int, error) { return tokens.Count(tokens.O200K, text) }
