package intent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

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
	// maxRunBytes caps a chunk's run of text with no natural split (see
	// chunkEnd).
	maxRunBytes = 256
	// maxBytesPerToken: a text averaging more bytes a token than this is
	// padding, not content (JSON averages about four). Counting stops
	// there and calls the text over: it costs the cut at most a few items
	// that would have fit, and bounds the bytes ever handed to the
	// tokenizer for a limit.
	maxBytesPerToken = 16
	// likelyFitBytesPerToken: a result of at most this many bytes a token
	// of the limit is counted whole before looking for a list to cut.
	likelyFitBytesPerToken = 4
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
// on at most about limit tokens' worth of any text (in chunks of at most
// countChunkBytes, stopping when over; a text averaging more than
// maxBytesPerToken bytes a token counts as over; see upTo), lists are
// walked as byte spans, and the result is never decoded or copied whole.
// budget gives up with the call's timeout or cancellation when ctx ends,
// and never answers ok after that.
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
	// A result of up to about four bytes a token (JSON's average) likely
	// fits: count it first, as it is.
	counted := len(raw) <= likelyFitBytesPerToken*limit
	if counted {
		if _, over, err := c.upTo(raw, limit); err != nil || !over {
			return raw, nil, err
		}
	}
	f, ok := findCut(raw)
	if !ok {
		if !counted {
			if _, over, err := c.upTo(raw, limit); err != nil || !over {
				return raw, nil, err
			}
		}
		return nil, nil, &tooLargeError{"it holds no list that can be cut (the result itself, or an array field up to " + fmt.Sprint(maxCutDepth) + " objects deep)"}
	}
	// Whether a larger result fits is learnt while taking its items: the
	// tokens before the list are not counted twice.
	return cutToFit(c, raw, f, limit)
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

// cutToFit cuts raw at an item boundary of the list f found in it (see
// budget), or returns raw as it is when it fits whole.
func cutToFit(c *tokenCounter, raw []byte, f *cutFrame, limit int) (json.RawMessage, *cutReport, error) {
	frameTokens, over, err := c.upTo(f.build(raw, nil), limit)
	if err != nil {
		return nil, nil, err
	}
	if over {
		// The frame is most of the result; check the result itself (up
		// to the limit) before refusing it.
		if _, over, err := c.upTo(raw, limit); err != nil || !over {
			return raw, nil, err
		}
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
		n, over, err := c.upTo(raw[it.start:it.end], room-1)
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
	// result. When every item was taken, the result itself is checked, and
	// returned as it is if it fits.
	k := len(kept)
	for round := 0; ; round++ {
		if round == 0 && k == total {
			// Every item was taken. The result as it came may hold more
			// than its items (spacing between them): it is counted in
			// chunks, up to the limit, and returned as it is if it fits.
			if _, over, err := c.upTo(raw, limit); err != nil || !over {
				return raw, nil, err
			}
		}
		out := f.build(raw, kept[:k])
		n, over, err := c.upTo(out, limit)
		if err != nil {
			return nil, nil, err
		}
		if !over {
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

// upTo counts the tokens of text, stopping once they are more than max.
// It returns the count, or at least max+1 when it stopped, and whether
// that is over max. The count is never below the tokenizer's count of the
// whole text.
//
// The text goes to the tokenizer in chunks (see chunkEnd). A chunk that
// ends where the o200k pre-tokenizer starts a new piece whatever follows
// adds exactly what it would have in the whole, so the count of JSON and
// prose is exact. A chunk cut inside a long run with no such place
// (padding, a word of hundreds of letters, a run of brackets) can count a
// few tokens fewer than the whole would, since BPE on the two halves of a
// piece may merge differently: each such cut adds cutRunMargin, which
// can only make a cut a little shorter. Reporting over, it has handed the
// tokenizer at most about max+1 tokens of text, and never more than
// maxBytesPerToken bytes for each.
func (c *tokenCounter) upTo(text []byte, max int) (int, bool, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, false, err
	}
	if max < 0 {
		return 0, true, nil
	}
	total := 0
	for off := 0; off < len(text); {
		end, inRun := chunkEnd(text, off)
		n, err := c.count(string(text[off:end]))
		if err != nil {
			return 0, false, err
		}
		total += n
		if inRun {
			total += cutRunMargin
		}
		if total > max {
			return total, true, nil
		}
		if end > maxBytesPerToken*(max+1) {
			return max + 1, true, nil
		}
		if err := c.ctx.Err(); err != nil {
			return 0, false, err
		}
		off = end
	}
	return total, false, nil
}

// cutRunMargin is what a chunk cut inside a run adds to the count, on top
// of its own tokens. BPE gives no bound on how much fewer tokens the two
// halves of a piece can take than the piece: splitting random runs of
// slashes and newlines, brackets and quotes, letters and whitespace at
// random (400,000 splits) took at most 3 fewer, so the margin is one more
// than that.
const cutRunMargin = 4

// chunkEnd returns where the chunk of text starting at off ends, and
// whether it ends inside a run: at the last place within countChunkBytes
// where the o200k pre-tokenizer starts a new piece whatever follows (see
// startsPiece), so the sum of chunk counts is the whole's. A run of
// maxRunBytes with no such place (spaces, one long word) ends the chunk at
// a character boundary inside the run: the tokenizer's work on one piece
// grows with the square of its length.
func chunkEnd(text []byte, off int) (end int, inRun bool) {
	limit := min(len(text), off+countChunkBytes)
	last, run := -1, off
	for p := off + 1; p < limit; p++ {
		if startsPiece(text, p) {
			last, run = p, p
			continue
		}
		if p-run >= maxRunBytes {
			return charBoundary(text, off, p), true
		}
	}
	if limit == len(text) {
		return limit, false
	}
	if last > off {
		return last, false
	}
	return charBoundary(text, off, limit), true
}

// startsPiece reports whether the o200k pre-tokenizer starts a new piece at
// text[p] whatever follows, and ends the one before it without looking
// past p:
//   - after a letter, mark or digit, at anything else but an apostrophe
//     (which may start a contraction): letter and digit pieces hold only
//     their own class;
//   - after a lower-case letter, at an upper-case one (camelCase);
//   - after punctuation, at a space or tab: a punctuation piece takes only
//     newlines and slashes after it.
//
// Inside a run of whitespace, of punctuation or of one case of letters,
// where the pieces end depends on what follows, it reports false.
func startsPiece(text []byte, p int) bool {
	c := text[p]
	if !utf8.RuneStart(c) {
		return false
	}
	before, after := lastRune(text, p), firstRune(text, p)
	switch {
	case isWordRune(before):
		if isWordRune(after) {
			return unicode.IsLower(before) && (unicode.IsUpper(after) || unicode.IsTitle(after))
		}
		return after != '\''
	case unicode.IsSpace(before):
		return false
	default: // punctuation and symbols
		return after == ' ' || after == '\t'
	}
}

// lastRune returns the character that ends text[:p], and firstRune the one
// that starts text[p:]; ASCII without decoding.
func lastRune(text []byte, p int) rune {
	if c := text[p-1]; c < utf8.RuneSelf {
		return rune(c)
	}
	r, _ := utf8.DecodeLastRune(text[:p])
	return r
}

func firstRune(text []byte, p int) rune {
	if c := text[p]; c < utf8.RuneSelf {
		return rune(c)
	}
	r, _ := utf8.DecodeRune(text[p:])
	return r
}

// isWordRune reports whether r is a letter, mark or digit: what the
// pre-tokenizer's word and number pieces are made of.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r)
}

// charBoundary moves p back, not below off+1, to the start of a UTF-8
// character.
func charBoundary(text []byte, off, p int) int {
	for p > off+1 && !utf8.RuneStart(text[p]) {
		p--
	}
	return p
}

// countO200K is the token count budgets are enforced in.
func countO200K(text string) (int, error) { return tokens.Count(tokens.O200K, text) }
