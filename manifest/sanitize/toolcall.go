package sanitize

import (
	"regexp"
	"strings"
)

// A tool call written into a description is aimed at the agent whatever
// its wording: an agent that reads `{"name": "act", "arguments": {...}}`
// or `<tool_call>…</tool_call>` may take it for a call it made or was
// told to make. Such text is found by its shape, in any language: an
// element named like a tool call is removed with its content (like
// <script>), and a JSON-like object is removed when its keys are those of
// a tool call. Ordinary JSON examples of an API's bodies stay.

// reToolElement matches an element whose name says it holds a tool or
// function call, content included; an unclosed one runs to the end.
var reToolElement = regexp.MustCompile(`(?is)<\s*((?:[a-z_]+:)?(?:tool_calls?|tool_use|tool_code|tool_request|function_calls?|invoke))\b[^>]*>.*?(?:<\s*/\s*(?:[a-z_]+:)?(?:tool_calls?|tool_use|tool_code|tool_request|function_calls?|invoke)\s*>|$)`)

// reCallType matches a "type" that declares a tool call.
var reCallType = regexp.MustCompile(`(?i)["']?type["']?\s*:\s*["'](?:function|tool_use|tool_call|function_call)["']`)

// callNameKeys name what is called; callArgKeys carry its arguments.
// One of each makes an object a call. callKeys alone make one a call.
var (
	callNameKeys = map[string]bool{"name": true, "tool": true, "tool_name": true, "function": true, "action": true, "recipient_name": true}
	callArgKeys  = map[string]bool{"arguments": true, "args": true, "params": true, "parameters": true, "input": true, "intent": true, "plan_ref": true}
	callKeys     = map[string]bool{"tool_calls": true, "tool_call": true, "function_call": true, "tool_use": true, "tool_name": true, "plan_ref": true, "tool_input": true}
)

// maxObjectScan bounds how far an object is followed from its '{'.
const maxObjectScan = 4096

// hasToolCall reports a tool-call-shaped object or element in s.
func hasToolCall(s string) bool {
	return dropToolCalls(s) != s
}

// dropToolCalls replaces every tool-call-shaped object and element of s
// with Removed.
func dropToolCalls(s string) string {
	if strings.IndexByte(s, '<') >= 0 {
		s = reToolElement.ReplaceAllString(s, " "+Removed+" ")
	}
	if strings.IndexByte(s, '{') < 0 || strings.IndexByte(s, ':') < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		end := objectEnd(s, i)
		if !toolCallShaped(s[i:end]) {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(" " + Removed + " ")
		last = end
		i = end - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// objectEnd returns the index just past the '}' that closes the object
// opening at s[start], skipping quoted strings; an object left open (cut
// or malformed) runs to the end of s, or of the scan window.
func objectEnd(s string, start int) int {
	depth := 0
	var quote byte
	limit := start + maxObjectScan
	if limit > len(s) {
		limit = len(s)
	}
	for i := start; i < limit; i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return limit
}

// toolCallShaped reports whether the object text obj, or an object nested
// in it, has the keys of a tool call: a call key (tool_calls, plan_ref…),
// a "type" that declares one, or a name key and an argument key side by
// side in the same object. Keys of different objects do not combine: a
// large example with a "name" here and an "input" there is an API body.
func toolCallShaped(obj string) bool {
	return callObject(obj, 0)
}

func callObject(obj string, depth int) bool {
	if depth > 16 {
		return false
	}
	if reCallType.MatchString(obj) {
		return true
	}
	var name, args bool
	// key notes the key starting at obj[i], if any, and reports whether it
	// alone makes obj a call.
	key := func(i int) bool {
		k, ok := keyAt(obj, i)
		if !ok {
			return false
		}
		k = strings.ToLower(k)
		name = name || callNameKeys[k]
		args = args || callArgKeys[k]
		return callKeys[k]
	}
	level := 0 // nesting inside obj: 1 is obj's own members
	var quote byte
	for i := 0; i < len(obj); i++ {
		c := obj[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '{':
			if level >= 1 {
				end := objectEnd(obj, i)
				if callObject(obj[i:end], depth+1) {
					return true
				}
				i = end - 1
				continue
			}
			level++
		case '[':
			level++
		case '}', ']':
			level--
		case '"', '\'':
			if level == 1 && key(i) {
				return true
			}
			quote = c
		default:
			if level == 1 && (c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && (i == 0 || !isIdent(obj[i-1])) && key(i) {
				return true
			}
		}
		if name && args {
			return true
		}
	}
	return false
}

// keyAt returns the key that starts at obj[i] (a quote or an identifier's
// first letter) when a ':' follows it.
func keyAt(obj string, i int) (string, bool) {
	m := reKeyAt.FindStringSubmatch(obj[i:])
	if m == nil {
		return "", false
	}
	return m[1], true
}

// reKeyAt matches a key at the start of the text, quoted or not.
var reKeyAt = regexp.MustCompile(`^["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*:`)

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
