package intent

// This file keeps the result budget as it was before issue #10 item 5 (it
// tokenized the whole result and unmarshalled every item), reachable only
// from the side-by-side BenchmarkBudget (bench_test.go).

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/tokens"
)

// oldBudget keeps a result within MaxResultTokens (o200k_base). A result that
// fits is returned unchanged. Otherwise the largest array in it (the result
// itself, or its largest array-valued top-level field) is cut at an item
// boundary to the most items that fit, keeping the bytes of everything else
// as they were (key order included) and dropping cursors that would skip
// the dropped items. A result with no array to cut, or that does not fit
// even with no items, is refused with result_too_large.
func (s *Server) oldBudget(op *operations.Operation, raw json.RawMessage) (json.RawMessage, *cutReport, *Envelope) {
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
	sp, ok := oldSplitResult(raw)
	if !ok || len(sp.items) == 0 {
		return tooLarge()
	}
	// Count every item once; the result with k items costs about the frame
	// plus the first k item counts. Pick k from the prefix sums, then check
	// the real count and step down while it is over (rarely more than once).
	frame, err := tokens.Count(tokens.O200K, string(sp.build(0)))
	if err != nil {
		return tooLarge()
	}
	k, sum := 0, frame
	for _, it := range sp.items {
		c, _ := tokens.Count(tokens.O200K, string(it))
		if sum+c+1 > limit {
			break
		}
		sum += c + 1
		k++
	}
	for ; k >= 0; k-- {
		out := sp.build(k)
		if len(out) <= limit {
			return out, &cutReport{kept: k, total: len(sp.items), droppedCursor: sp.droppedCursor}, nil
		}
		if c, err := tokens.Count(tokens.O200K, string(out)); err == nil && c <= limit {
			return out, &cutReport{kept: k, total: len(sp.items), droppedCursor: sp.droppedCursor}, nil
		}
	}
	return tooLarge()
}

// oldSplit is a result taken apart around the array to cut.
type oldSplit struct {
	before, after []byte            // bytes around the array
	items         []json.RawMessage // the array's items
	droppedCursor bool              // a cursor field was left out
}

func (sp oldSplit) build(k int) json.RawMessage {
	var b bytes.Buffer
	b.Write(sp.before)
	b.WriteByte('[')
	for i, it := range sp.items[:k] {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	b.Write(sp.after)
	return b.Bytes()
}

// oldSplitResult finds the array to cut: the result itself when it is an
// array, else its largest array-valued top-level field. Cursor fields are
// left out of the rebuilt object.
func oldSplitResult(raw json.RawMessage) (oldSplit, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return oldSplit{}, false
	}
	if raw[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return oldSplit{}, false
		}
		return oldSplit{items: items}, true
	}
	if raw[0] != '{' {
		return oldSplit{}, false
	}
	type field struct {
		key   string
		value json.RawMessage
	}
	var fields []field
	d := json.NewDecoder(bytes.NewReader(raw))
	if _, err := d.Token(); err != nil { // {
		return oldSplit{}, false
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return oldSplit{}, false
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return oldSplit{}, false
		}
		fields = append(fields, field{key, v})
	}
	best := -1
	for i, f := range fields {
		if len(f.value) > 0 && f.value[0] == '[' && (best < 0 || len(f.value) > len(fields[best].value)) {
			best = i
		}
	}
	if best < 0 {
		return oldSplit{}, false
	}
	var items []json.RawMessage
	if json.Unmarshal(fields[best].value, &items) != nil {
		return oldSplit{}, false
	}
	var before, after bytes.Buffer
	dropped := false
	cur := &before
	cur.WriteByte('{')
	first := true
	for i, f := range fields {
		if oldCursorKeys[f.key] {
			dropped = true
			continue
		}
		if !first {
			cur.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(f.key)
		cur.Write(k)
		cur.WriteByte(':')
		if i == best {
			cur = &after
			continue
		}
		cur.Write(f.value)
	}
	cur.WriteByte('}')
	return oldSplit{before: before.Bytes(), after: after.Bytes(), items: items, droppedCursor: dropped}, true
}

var oldCursorKeys = map[string]bool{"next_cursor": true, "nextCursor": true, "next_page_token": true, "nextPageToken": true, "next": true}
