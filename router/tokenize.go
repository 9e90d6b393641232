package router

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// splitWords splits s into lower-cased words. It breaks on every character
// that is not a letter or digit (so dotted ids, snake_case, kebab-case and
// slash paths all split, and "who's" gives who, s) and on camelCase
// boundaries ("listLineItems" → list, line, items; "HTTPServer" → http,
// server). Letters and digits stay together ("svc12", "ec2", "v2"); a word
// of three or more letters followed by digits is also given without them
// ("covid19" → covid19, covid). fn is called once per word, in order.
func splitWords(s string, fn func(w string)) { splitWordsParts(s, true, fn) }

// splitWordsParts is splitWords; parts says whether to also give the letter
// prefix of letter+digit words.
func splitWordsParts(s string, parts bool, fn func(w string)) {
	var buf [64]byte
	word := buf[:0]
	start, end := 0, 0 // the bytes of s the word was read from
	flush := func() {
		if len(word) > 0 {
			// A word already in lower case is a substring of s: no
			// copy (most requests are typed in lower case).
			w := s[start:end]
			if string(word) != w {
				w = string(word)
			}
			fn(w)
			// "covid19" is also "covid"; "ec2" and "v2" stay whole.
			if i := alphaPrefix(w); parts && i >= 3 && i < len(w) {
				fn(w[:i])
			}
			word = word[:0]
		}
	}
	var prev rune // previous rune in the current word, 0 at start
	// Work over runes with one rune of lookahead for the acronym rule.
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		isL, isD := unicode.IsLetter(r), unicode.IsDigit(r)
		if !isL && !isD {
			flush()
			prev = 0
			continue
		}
		if prev != 0 {
			switch {
			case unicode.IsLower(prev) && unicode.IsUpper(r):
				flush()
			case unicode.IsUpper(prev) && unicode.IsUpper(r):
				// "HTTPServer": break before the S when a lower-case letter follows.
				if i < len(s) && !acronymPlural(s, i) {
					next, _ := utf8.DecodeRuneInString(s[i:])
					if unicode.IsLower(next) {
						flush()
					}
				}
			}
		}
		if len(word) == 0 {
			start = i - size
		}
		word = utf8.AppendRune(word, unicode.ToLower(r))
		end = i
		prev = r
	}
	flush()
}

// splitBytes is splitWords for the index build: it passes a buffer that
// is only valid during the call, and it does not allocate per word.
func splitBytes(s string, fn func(w []byte)) {
	var buf [64]byte
	splitBytesBuf(s, buf[:0], fn)
}

// splitBytesBuf is splitBytes with a caller's word buffer, returned grown
// for reuse: the build splits millions of fields and allocates nothing.
func splitBytesBuf(s string, word []byte, fn func(w []byte)) []byte {
	word = word[:0]
	var prev rune
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if !isLetterOrDigit(r) {
			emitWord(word, fn)
			word = word[:0]
			prev = 0
			continue
		}
		if prev != 0 {
			switch {
			case unicode.IsLower(prev) && unicode.IsUpper(r):
				emitWord(word, fn)
				word = word[:0]
			case unicode.IsUpper(prev) && unicode.IsUpper(r):
				if i < len(s) && !acronymPlural(s, i) {
					next, _ := utf8.DecodeRuneInString(s[i:])
					if unicode.IsLower(next) {
						emitWord(word, fn)
						word = word[:0]
					}
				}
			}
		}
		if r < utf8.RuneSelf {
			c := byte(r)
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			word = append(word, c)
		} else {
			word = utf8.AppendRune(word, unicode.ToLower(r))
		}
		prev = r
	}
	emitWord(word, fn)
	return word
}

// acronymPlural reports whether s[i:] starts with a lone "s" that ends the
// word: the plural of an acronym ("PRs", "URLs", "IDs"), which belongs to
// the acronym rather than starting a word of its own.
func acronymPlural(s string, i int) bool {
	if i >= len(s) || s[i] != 's' {
		return false
	}
	if i+1 == len(s) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(s[i+1:])
	return !unicode.IsLetter(next) || unicode.IsUpper(next)
}

// isLetterOrDigit is unicode.IsLetter || unicode.IsDigit, fast for ASCII.
func isLetterOrDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// emitWord passes a non-empty word to fn, and its letter prefix when the
// rest is digits ("covid19" → covid19, covid).
func emitWord(word []byte, fn func(w []byte)) {
	if len(word) == 0 {
		return
	}
	fn(word)
	if i := alphaPrefix(word); i >= 3 && i < len(word) {
		fn(word[:i])
	}
}

// alphaPrefix returns the length of w's leading run of letters, when the
// rest of w is digits; otherwise 0.
func alphaPrefix[T string | []byte](w T) int {
	i := 0
	for i < len(w) && (w[i] < '0' || w[i] > '9') {
		i++
	}
	for j := i; j < len(w); j++ {
		if w[j] < '0' || w[j] > '9' {
			return 0
		}
	}
	return i
}

// stopWords are dropped from documents and queries. It is the Snowball
// English list plus words that carry no routing signal in API text.
func isStopWord(w string) bool {
	if english.IsStopWord(w) {
		return true
	}
	switch w {
	case "also", "e", "g", "eg", "ie", "etc", "via", "per", "using", "use",
		"used", "would", "could", "shall", "may", "might", "must", "let",
		"lets", "us", "ve", "ll", "re", "d", "m", "im", "whats", "thats",
		"within", "upon", "onto", "across", "among", "yet", "however",
		"whether", "either", "neither", "etc.", "like":
		return true
	}
	return false
}

// queryFillers are conversational words frequent in user requests and rare
// in API text; dropping them from queries (not documents) keeps them from
// matching an operation that happens to say "please" or "know".
func isQueryFiller(w string) bool {
	switch w {
	case "please", "pls", "plz", "want", "wanna", "need", "needs", "tell",
		"know", "help", "can", "could", "would", "hi", "hello", "hey",
		"thanks", "thank", "kindly", "okay", "ok", "interested", "curious",
		"wondering", "wonder", "able", "possible", "go", "going", "try",
		"trying", "looking", "look", "give", "gimme", "lemma", "wish",
		"appreciate", "grateful", "assist", "assistance", "love",
		"something", "anything", "thing", "things", "stuff", "way",
		"provide", "share", "let's", "really", "just", "maybe", "some",
		"sure", "bit", "lot", "lots", "much", "many", "well":
		return true
	}
	return false
}

// isNumber reports whether w is all digits. Numbers are almost always
// parameter values ("ticket 42"), so they are not indexed.
func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return len(w) > 0
}

// stem reduces w with the Snowball (Porter2) English stemmer.
func stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return w // the English stemmer is for English words
		}
	}
	return english.Stem(w, true)
}

// plural folds a regular English plural to its singular (Harman's
// S-stemmer: "policies" → policy, "tickets" → ticket, but "status" and
// "class" stay). Words are indexed under this form, and under their
// Snowball stem as a weaker variant, so "ticket" matches "tickets" fully.
//
// A singular keeps its final s where English spells the singular so:
// the Greek and Latin "-sis" and "-xis" ("analysis", "axis"), "-us"
// ("status"), "-ias" and "-vas" ("alias", "bias", "canvas") and "news";
// their plurals fold to them ("analyses", "statuses", "aliases"), as do
// the irregular plurals APIs use ("indices", "children"). A singular and
// its plural thus meet under one term, and such a singular, folding to
// itself, is not read as many ("get the alias").
func plural(w string) string {
	n := len(w)
	if w == "children" {
		return "child"
	}
	if n < 4 || w[n-1] != 's' {
		return w
	}
	switch {
	case w == "news", strings.HasSuffix(w, "sis"), strings.HasSuffix(w, "xis"),
		strings.HasSuffix(w, "ias") && !strings.HasSuffix(w, "dias"), strings.HasSuffix(w, "vas"):
		return w // a singular
	case strings.HasSuffix(w, "yses"):
		return w[:n-2] + "is" // analyses → analysis
	case strings.HasSuffix(w, "iases"), strings.HasSuffix(w, "vases"), latinUsPlural(w):
		return w[:n-2] // aliases → alias, statuses → status
	case strings.HasSuffix(w, "ices") && latinIcesPlurals[w] != "":
		return latinIcesPlurals[w] // indices → index
	case strings.HasSuffix(w, "ies") && !strings.HasSuffix(w, "eies") && !strings.HasSuffix(w, "aies"):
		return w[:n-3] + "y"
	case sibilantPlural(w):
		return w[:n-2]
	case strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "aes") && !strings.HasSuffix(w, "ees") && !strings.HasSuffix(w, "oes"):
		return w[:n-1]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "ss"):
		return w[:n-1]
	}
	return w
}

// latinIcesPlurals are the Latin plurals in "-ices" whose singular ends in
// "-ex" or "-ix"; every other "-ices" ("devices", "prices") drops its s.
var latinIcesPlurals = map[string]string{
	"indices": "index", "vertices": "vertex", "matrices": "matrix", "appendices": "appendix",
}

// latinUsPlural reports whether w is the plural of a singular in "-us"
// ("statuses", "bonuses", "campuses", "viruses"): "-uses" after a letter
// that does not end a singular in "-use" (unlike "causes", "houses",
// "abuses", "excuses", "fuses").
func latinUsPlural(w string) bool {
	n := len(w)
	return n >= 6 && strings.HasSuffix(w, "uses") && strings.IndexByte("tnprig", w[n-5]) >= 0
}

// sibilantPlural reports whether w is a plural that adds "es" to a
// sibilant ("branches", "hashes", "boxes", "addresses"), so that its
// singular drops both letters. A vowel before "ch" marks a singular in
// "-che" ("caches", "niches"), which drops only the s.
func sibilantPlural(w string) bool {
	n := len(w)
	switch {
	case n < 5 || !strings.HasSuffix(w, "es"):
		return false
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zzes"):
		return true
	case strings.HasSuffix(w, "ches"):
		return !strings.ContainsRune("aeiou", rune(w[n-5]))
	}
	return false
}

// maskValues blanks the tokens of a query that are values rather than
// words: URLs and e-mail addresses, slugs and paths ("octocat/hello-world",
// "src/main.go", "feature/login") and file or host names ("main.go",
// "example.com"). Their words name things the user has, not operations
// ("octocat" is a user here, not GET /octocat). It returns q itself when
// nothing is masked.
func maskValues(q string) string {
	if !strings.ContainsAny(q, "/@.0123456789") {
		return q // no value can be in it
	}
	var b []byte
	for i := 0; i < len(q); {
		for i < len(q) && isSpaceOrQuote(q[i]) {
			i++
		}
		j := i
		for j < len(q) && !isSpaceOrQuote(q[j]) {
			j++
		}
		if j > i && isValueToken(trimPunct(q[i:j])) {
			if b == nil {
				b = []byte(q)
			}
			for k := i; k < j; k++ {
				b[k] = ' '
			}
		}
		i = j
	}
	if b == nil {
		return q
	}
	return string(b)
}

// trimPunct drops the punctuation that ends a sentence or a clause from
// the end of token t.
func trimPunct(t string) string {
	for len(t) > 0 {
		switch t[len(t)-1] {
		case '.', ',', ';', ':', '!', '?', ')', '\'', '"':
			t = t[:len(t)-1]
			continue
		}
		break
	}
	return t
}

func isSpaceOrQuote(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\'' || c == '"' || c == '`' || c == '('
}

// isValueToken reports whether t (one whitespace-delimited token) is a
// value: it has "://" or "@" between characters, a "/" between two
// letters or digits (unless every part is capitalised: "CI/CD"), or a "."
// between a letter or digit and a final part of one to four letters
// ("main.go", "example.com", not "v1.2" nor "etc.") when it does not start
// with a capital ("Kick.com" names a service).
func isValueToken(t string) bool {
	if strings.Contains(t, "://") || isCode(t) {
		return true
	}
	for k := 1; k+1 < len(t); k++ {
		c, prev, next := t[k], t[k-1], t[k+1]
		if !isASCIIAlnum(prev) || !isASCIIAlnum(next) {
			continue
		}
		switch c {
		case '@':
			return true
		case '/':
			// Capitalised parts are names ("CI/CD", "Verifier/Validator").
			if !allPartsCapitalised(t, '/') {
				return true
			}
		case '.':
			// A capitalised host is a name ("Kick.com", "Node.js").
			ext := t[k+1:]
			if len(ext) <= 4 && strings.IndexFunc(ext, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 && !(t[0] >= 'A' && t[0] <= 'Z') {
				return true
			}
		}
	}
	return false
}

// allPartsCapitalised reports whether every sep-separated part of t
// starts with a capital letter.
func allPartsCapitalised(t string, sep byte) bool {
	for _, p := range strings.Split(t, string(sep)) {
		if p == "" || p[0] < 'A' || p[0] > 'Z' {
			return false
		}
	}
	return true
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isCode reports whether t is an identifier made of letters and digits
// ("6dcb09b", "CA107308006SI", "tt0111161"): seven characters or more,
// with at least three digits and two letters. Words that mix a few digits
// ("covid19", "sha256", "ec2") are not codes.
func isCode(t string) bool {
	if len(t) < 7 {
		return false
	}
	digits, letters := 0, 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		default:
			return false
		}
	}
	return digits >= 3 && letters >= 2
}

// isIdentifier reports whether token t names one item: a number ("42",
// "#42") or a code ("6dcb09b").
func isIdentifier(t string) bool {
	t = trimPunct(t)
	for len(t) > 0 && (t[0] == '#' || t[0] == '(' || t[0] == '\'' || t[0] == '"') {
		t = t[1:]
	}
	return isNumber(t) || isCode(t)
}

// hasSlug reports whether q gives a two-part name, owner and name
// ("golang/go", "acme/web-app"): a token of two parts joined by one slash,
// of letters, digits, '-', '_' and '.', that is not a pair of words the
// catalog knows ("input/output", "read/write": known reports whether it
// knows a part) unless a part has a character no word has.
func hasSlug(q string, known func(string) bool) bool {
	if !strings.Contains(q, "/") {
		return false
	}
	for tok := range strings.FieldsSeq(q) {
		tok = trimPunct(strings.Trim(tok, "'\"`("))
		i := strings.IndexByte(tok, '/')
		if i <= 0 || i == len(tok)-1 || strings.Count(tok, "/") != 1 || allPartsCapitalised(tok, '/') {
			continue
		}
		plain := true // every part is letters only
		ok := true
		for k := 0; k < len(tok); k++ {
			switch c := tok[k]; {
			case c == '/':
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			case c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.':
				plain = false
			default:
				ok = false
			}
		}
		if !ok || isFileName(tok[i+1:]) {
			continue // "src/main.go" is a path in a repository, not one
		}
		if !plain || !known(strings.ToLower(tok[:i])) || !known(strings.ToLower(tok[i+1:])) {
			return true
		}
	}
	return false
}

// isFileName reports whether name ends in an extension of one to four
// letters ("main.go", "index.md").
func isFileName(name string) bool {
	j := strings.LastIndexByte(name, '.')
	if j <= 0 || len(name)-j-1 < 1 || len(name)-j-1 > 4 {
		return false
	}
	for _, c := range name[j+1:] {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// itemNouns appends to out the words of q, lower-cased, that are followed
// by an identifier ("issue 1347", "commit 6dcb09b", "PR #12"): the request
// is about one item of that resource.
func itemNouns(q string, out []string) []string {
	if !strings.ContainsAny(q, "0123456789") {
		return out // identifiers have digits
	}
	prev := ""
	for i := 0; i < len(q); {
		for i < len(q) && isSpaceOrQuote(q[i]) {
			i++
		}
		j := i
		for j < len(q) && !isSpaceOrQuote(q[j]) {
			j++
		}
		tok := q[i:j]
		i = j
		if prev != "" && isIdentifier(tok) {
			out = append(out, strings.ToLower(prev))
		}
		prev = trimPunct(tok)
		for k := 0; k < len(prev); k++ {
			if c := prev[k] | 0x20; c < 'a' || c > 'z' {
				prev = ""
				break
			}
		}
	}
	return out
}

// Words calls fn with each word of text as the index stores it: split as
// splitWords does, lower-cased, folded to its singular, with stop words and
// numbers dropped. It is the tokenizer the router's word vectors are
// trained with, so that a word of a query and a word of the vectors meet.
func Words(text string, fn func(w string)) {
	splitWordsParts(text, false, func(w string) {
		if isStopWord(w) || isNumber(w) {
			return
		}
		fn(plural(w))
	})
}
