package intent

import "bytes"

// This file finds the byte spans of JSON values without decoding them: the
// result budget cuts a large result by copying a few spans of it, so it
// never builds a tree or a slice of items of the whole result. The input is
// a document json.Valid accepted; on anything else the functions return -1
// or stop early, and never read out of bounds.

// span is a half-open byte range [start, end) of a document.
type span struct{ start, end int }

func (s span) len() int { return s.end - s.start }

// skipSpace returns the offset of the first non-whitespace byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the offset just past the string literal whose opening
// quote is at b[i], or -1 when it is unterminated.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		// The quote closes the string unless an odd run of backslashes
		// escapes it. Each run is read once: runs before different quotes
		// do not overlap.
		bs := 0
		for p := q - 1; p >= j && b[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// skipValue returns the offset just past the JSON value starting at b[i],
// or -1 when there is none.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := skipString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	// A number or a literal runs to the next delimiter.
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

// member is one "key": value pair of an object: key spans the quoted key,
// val the value.
type member struct{ key, val span }

// keyIs reports whether m's key, unquoted, is name. Keys with escapes never
// match; the names asked about have none.
func (m member) keyIs(b []byte, name string) bool {
	return m.key.len() == len(name)+2 && string(b[m.key.start+1:m.key.end-1]) == name
}

// eachMember calls fn for each member of the object spanning obj, in
// order, until fn returns false. It reports false when the object is
// malformed.
func eachMember(b []byte, obj span, fn func(member) bool) bool {
	i := skipSpace(b, obj.start+1)
	if i < obj.end && b[i] == '}' {
		return true
	}
	for i < obj.end {
		if b[i] != '"' {
			return false
		}
		var m member
		m.key = span{i, skipString(b, i)}
		if m.key.end < 0 {
			return false
		}
		i = skipSpace(b, m.key.end)
		if i >= obj.end || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		m.val = span{i, skipValue(b, i)}
		if m.val.end < 0 || m.val.end > obj.end {
			return false
		}
		if !fn(m) {
			return true
		}
		i = skipSpace(b, m.val.end)
		if i >= obj.end {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
	return false
}

// arrayItems walks the items of the array spanning arr, one at a time.
type arrayItems struct {
	b   []byte
	arr span
	i   int  // offset of the next item, or of the closing bracket
	bad bool // the array is malformed
}

func newArrayItems(b []byte, arr span) *arrayItems {
	return &arrayItems{b: b, arr: arr, i: skipSpace(b, arr.start+1)}
}

// next returns the next item's span, or false at the end of the array (or
// at malformed input, which sets bad).
func (it *arrayItems) next() (span, bool) {
	b := it.b
	if it.bad || it.i >= it.arr.end || b[it.i] == ']' {
		return span{}, false
	}
	end := skipValue(b, it.i)
	if end < 0 || end > it.arr.end {
		it.bad = true
		return span{}, false
	}
	item := span{it.i, end}
	i := skipSpace(b, end)
	switch {
	case i < it.arr.end && b[i] == ',':
		it.i = skipSpace(b, i+1)
	case i < it.arr.end && b[i] == ']':
		it.i = i
	default:
		it.bad = true
	}
	return item, true
}
