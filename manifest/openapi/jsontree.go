package openapi

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decodeJSONTree decodes a JSON document into the tree decodeDocument
// promises: map[string]any, []any, string, bool, nil and json.Number. It
// gives the same tree as encoding/json with UseNumber (last duplicate key
// wins, invalid UTF-8 becomes U+FFFD) in one pass instead of two (a
// validity scan, then the decode), and its strings share one copy of the
// document instead of one allocation each: on GitHub's 13 MB spec it takes
// about a third of the time. Strings kept beyond parsing must be cloned
// (detachStrings), or the whole document stays in memory.
func decodeJSONTree(data []byte) (any, error) {
	d := &treeDecoder{s: string(data)}
	d.space()
	v := d.value(0)
	if d.err == nil {
		d.space()
		if d.i < len(d.s) {
			d.fail("after the top-level value")
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	return v, nil
}

// maxTreeDepth matches encoding/json's nesting limit.
const maxTreeDepth = 10000

type treeDecoder struct {
	s   string
	i   int
	err error
}

func (d *treeDecoder) fail(where string) {
	if d.err != nil {
		return
	}
	if d.i < len(d.s) {
		d.err = fmt.Errorf("invalid character %q %s (offset %d)", d.s[d.i], where, d.i)
	} else {
		d.err = fmt.Errorf("unexpected end of JSON input %s", where)
	}
}

func (d *treeDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *treeDecoder) value(depth int) any {
	if depth > maxTreeDepth {
		d.err = fmt.Errorf("exceeded max depth (offset %d)", d.i)
		return nil
	}
	if d.i >= len(d.s) {
		d.fail("looking for a value")
		return nil
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.string()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return d.literal("true", true)
	case c == 'f':
		return d.literal("false", false)
	case c == 'n':
		return d.literal("null", nil)
	}
	d.fail("looking for a value")
	return nil
}

func (d *treeDecoder) literal(word string, v any) any {
	if len(d.s)-d.i >= len(word) && d.s[d.i:d.i+len(word)] == word {
		d.i += len(word)
		return v
	}
	d.fail("in literal " + word)
	return nil
}

func (d *treeDecoder) object(depth int) any {
	d.i++ // '{'
	m := map[string]any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return m
	}
	for d.err == nil {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			d.fail("looking for an object key")
			return nil
		}
		k := d.string()
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			d.fail("after an object key")
			return nil
		}
		d.i++
		d.space()
		v := d.value(depth + 1)
		if d.err != nil {
			return nil
		}
		m[k] = v
		d.space()
		if d.i < len(d.s) {
			switch d.s[d.i] {
			case ',':
				d.i++
				continue
			case '}':
				d.i++
				return m
			}
		}
		d.fail("after an object value")
	}
	return nil
}

func (d *treeDecoder) array(depth int) any {
	d.i++ // '['
	l := []any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return l
	}
	for d.err == nil {
		d.space()
		v := d.value(depth + 1)
		if d.err != nil {
			return nil
		}
		l = append(l, v)
		d.space()
		if d.i < len(d.s) {
			switch d.s[d.i] {
			case ',':
				d.i++
				continue
			case ']':
				d.i++
				return l
			}
		}
		d.fail("after an array element")
	}
	return nil
}

// string decodes the string literal at d.i. Plain ASCII and valid UTF-8
// without escapes is a substring of the document; anything else goes
// through encoding/json for its exact semantics.
func (d *treeDecoder) string() string {
	start := d.i + 1
	ascii := true
	for j := start; j < len(d.s); j++ {
		switch c := d.s[j]; {
		case c == '"':
			s := d.s[start:j]
			if ascii || utf8.ValidString(s) {
				d.i = j + 1
				return s
			}
			return d.slowString(j + 1)
		case c == '\\':
			return d.slowString(d.endOfString(j))
		case c < 0x20:
			d.i = j
			d.fail("in string literal")
			return ""
		case c >= 0x80:
			ascii = false
		}
	}
	d.i = len(d.s)
	d.fail("in string literal")
	return ""
}

// endOfString returns the offset just past the closing quote of the
// string literal containing offset j, or len(d.s) when it is unterminated.
func (d *treeDecoder) endOfString(j int) int {
	for ; j < len(d.s); j++ {
		switch d.s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(d.s)
}

func (d *treeDecoder) slowString(end int) string {
	var s string
	if err := json.Unmarshal([]byte(d.s[d.i:end]), &s); err != nil {
		d.err = fmt.Errorf("string literal at offset %d: %w", d.i, err)
		return ""
	}
	d.i = end
	return s
}

// number scans a JSON number, checking its grammar.
func (d *treeDecoder) number() any {
	start := d.i
	j := d.i
	if j < len(d.s) && d.s[j] == '-' {
		j++
	}
	switch {
	case j < len(d.s) && d.s[j] == '0':
		j++
	case j < len(d.s) && d.s[j] >= '1' && d.s[j] <= '9':
		for j < len(d.s) && isDigit(d.s[j]) {
			j++
		}
	default:
		d.i = j
		d.fail("in numeric literal")
		return nil
	}
	if j < len(d.s) && d.s[j] == '.' {
		j++
		if j >= len(d.s) || !isDigit(d.s[j]) {
			d.i = j
			d.fail("after decimal point in numeric literal")
			return nil
		}
		for j < len(d.s) && isDigit(d.s[j]) {
			j++
		}
	}
	if j < len(d.s) && (d.s[j] == 'e' || d.s[j] == 'E') {
		j++
		if j < len(d.s) && (d.s[j] == '+' || d.s[j] == '-') {
			j++
		}
		if j >= len(d.s) || !isDigit(d.s[j]) {
			d.i = j
			d.fail("in exponent of numeric literal")
			return nil
		}
		for j < len(d.s) && isDigit(d.s[j]) {
			j++
		}
	}
	d.i = j
	return json.Number(d.s[start:j])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// appendJSON appends the JSON encoding of a generated schema tree to b,
// byte for byte what json.Marshal gives (sorted keys, HTML-safe escaping)
// but without reflection: schema marshalling was a tenth of a cold start.
// Values of other types go through json.Marshal.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case string:
		return appendJSONString(b, t), nil
	case json.Number:
		if t == "" || !validNumber(string(t)) {
			return appendMarshal(b, t)
		}
		return append(b, t...), nil
	case map[string]any:
		if t == nil {
			return append(b, "null"...), nil
		}
		if len(t) == 0 {
			return append(b, "{}"...), nil
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendJSON(b, t[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case []any:
		if t == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	return appendMarshal(b, v)
}

func appendMarshal(b []byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, raw...), nil
}

// appendJSONString quotes s exactly as json.Marshal does: HTML-safe
// (<, > and & escaped), invalid UTF-8 as U+FFFD, U+2028 and U+2029
// escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// validNumber reports whether s is a JSON number.
func validNumber(s string) bool {
	d := treeDecoder{s: s}
	v := d.number()
	return d.err == nil && v != nil && d.i == len(s)
}

// detachStrings replaces every string of cat by a copy of its own, so the
// catalog does not keep the decoded document (whose strings share one
// buffer, see decodeJSONTree) alive.
func detachStrings(cat *Catalog) {
	c := strings.Clone
	list := func(l []string) {
		for i := range l {
			l[i] = c(l[i])
		}
	}
	cat.SpecVersion, cat.Title = c(cat.SpecVersion), c(cat.Title)
	list(cat.Servers)
	list(cat.Warnings)
	for _, r := range cat.Security {
		list(r)
	}
	schemes := make(map[string]SecurityScheme, len(cat.Schemes))
	for k, s := range cat.Schemes {
		schemes[c(k)] = SecurityScheme{Type: c(s.Type), Scheme: c(s.Scheme), In: c(s.In), Name: c(s.Name)}
	}
	if cat.Schemes != nil {
		cat.Schemes = schemes
	}
	if cat.Blurbs != nil {
		blurbs := make(map[string]string, len(cat.Blurbs))
		for k, v := range cat.Blurbs {
			blurbs[c(k)] = c(v)
		}
		cat.Blurbs = blurbs
	}
	for i := range cat.Ops {
		op := &cat.Ops[i]
		op.ID, op.Namespace, op.Summary, op.Description = c(op.ID), c(op.Namespace), c(op.Summary), c(op.Description)
		op.Method, op.Path = c(op.Method), c(op.Path)
		list(op.Tags)
		list(op.Servers)
		for j := range op.Params {
			p := &op.Params[j]
			p.Name, p.Key, p.In, p.Style = c(p.Name), c(p.Key), c(p.In), c(p.Style)
		}
		if op.Body != nil {
			op.Body.ContentType = c(op.Body.ContentType)
			list(op.Body.Binary)
		}
		if op.Security != nil {
			for _, r := range *op.Security {
				list(r)
			}
		}
	}
}
