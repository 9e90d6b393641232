package sanitize

import (
	"html"
	"strings"
)

// Values (schema enum members, defaults, examples) are not prose: "user",
// "system" and "assistant" are ordinary role names, "CHROME_OS_DEVELOPER_MODE"
// an ordinary constant, and an enum member is what an agent must send back
// byte for byte. So values are judged differently from descriptions:
//
//   - A value is hostile when it hides text from a human reader (HTML
//     comments, script-like elements, chat-template markers, bidi overrides,
//     zero-width spaces, Unicode tag characters, control characters) or
//     when it is instruction-shaped prose of at least proseWords words.
//     Such a value is not shown at all.
//   - Any other value may still carry harmless markup or entities. An
//     example is shown cleaned (see Value); an enum member is shown as it
//     is, since changing it would make every call that uses it fail.

// proseWords is how many space-separated words a value needs before it is
// read as a sentence that could instruct a model.
const proseWords = 3

// HostileValue reports whether a schema value (an enum member, a const, a
// default or an example string) should not be shown to an agent at all.
func HostileValue(s string) bool {
	if s == "" {
		return false
	}
	if hidesText(s) {
		return true
	}
	if strings.IndexByte(s, '&') >= 0 {
		if u := html.UnescapeString(s); u != s && hidesText(u) {
			return true
		}
	}
	return proseLength(s) >= proseWords && Instructional(s)
}

// proseLength counts the words of s, each CJK character as one: text in
// scripts without spaces is prose however few spaces it has.
func proseLength(s string) int {
	return len(cueTokens(stripInvisible(s)))
}

// Value cleans a string value for display, as an example: markup, link
// targets and invisible characters go as in Clean, but short values are
// not read as sentences, so "system" stays "system". ok is false when the
// value should not be shown: it is hostile, or nothing is left of it.
func Value(s string, max int) (out string, ok bool) {
	if s == "" {
		return "", true
	}
	if HostileValue(s) {
		return "", false
	}
	out = fixpoint(s, max, false)
	return out, out != ""
}

// hidesText reports markup or characters that show a human reader of the
// spec something other than what a model reads.
func hidesText(s string) bool {
	if strings.IndexByte(s, '<') >= 0 {
		if strings.Contains(s, "<!--") || reScript.MatchString(s) {
			return true
		}
	}
	if hasMarker(s) || (mayHoldBlock(s) && reBlock.MatchString(s)) {
		return true
	}
	for _, r := range s {
		if hiding(r) {
			return true
		}
	}
	return false
}

// hiding reports the invisible runes that hide or reorder text. Variation
// selectors and the zero-width (non-)joiners are left out: emoji and
// several scripts need them.
func hiding(r rune) bool {
	switch {
	case r == '\n' || r == '\t' || r == '\r':
		return false
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return true
	case r == 0x200b, r == 0x200e, r == 0x200f, r == 0x061c, r == 0xfeff:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x2069:
		return true
	case r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

// wordCount counts runs of non-space characters.
func wordCount(s string) int {
	n := 0
	in := false
	for _, r := range s {
		space := r == ' ' || r == '\t' || r == '\n' || r == '\r'
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}
