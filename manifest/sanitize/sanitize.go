// Package sanitize applies intentsrv's policy for text that came from
// outside the server (OpenAPI summaries, descriptions, names, examples and
// patterns; upstream text quoted in errors): it is data, never
// instructions, and reaches an agent only in the forms below. Every
// function is pure and safe for concurrent use.
//
// Prose (Clean, Line, Description) is normalised: control, zero-width and
// bidi characters, HTML (script-like and tool-call elements with their
// content), markdown images and link targets go; every sentence addressed
// to the model that reads it is replaced by Removed; the result is capped
// at a word boundary. A sentence is addressed to the model when it
// combines cues API prose does not combine (cues.go, in several
// languages), matches one of the English patterns below, is a chat turn or
// template marker, or holds a tool call by its shape (toolcall.go). The
// imperative mood alone is not a signal: "You must first call the login
// endpoint", "Skip the first N results" and "Override the default branch"
// are API usage and stay.
//
// Values (value.go) are shown cleaned or not at all, and names (name.go)
// unchanged or not at all, since an agent sends them back byte for byte.
package sanitize

import (
	"html"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Default caps, in runes, for the kinds of text intentsrv shows.
const (
	SummaryMax     = 160
	DescriptionMax = 1200
	SchemaTextMax  = 300
	TagMax         = 48
)

// Removed replaces an instruction-shaped sentence.
const Removed = "[removed: instruction-like text]"

var (
	reComment   = regexp.MustCompile(`(?s)<!--.*?(-->|$)`)
	reScript    = regexp.MustCompile(`(?is)<(script|style|iframe|object|embed|template)\b[^>]*>.*?(</(script|style|iframe|object|embed|template)\s*>|$)`)
	reTag       = regexp.MustCompile(`</?[a-zA-Z][^<>]*>|<[!?][^<>]*>`)
	reMdImage   = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]`)
	reMdLink    = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	reMdRefLink = regexp.MustCompile(`\[([^\]]+)\]\[[^\]]*\]`)
	reMdRefDef  = regexp.MustCompile(`(?m)^[ \t]{0,3}\[[^\]]+\]:[ \t]*\S+.*$`)
	reSpaces    = regexp.MustCompile(`[ \t]+`)
	reBlankRuns = regexp.MustCompile(`\n{3,}`)
	// reBlock matches a whole chat-template turn, whose content is an
	// instruction to a model whatever it says.
	reBlock = regexp.MustCompile(`(?is)<\|im_start\|>.*?(<\|im_end\|>|$)|\[inst\].*?(\[/inst\]|$)|<<\s*sys\s*>>.*?(<<\s*/sys\s*>>|$)|\[system\].*?(\[/system\]|$)`)
)

// instruction patterns are matched against a lower-cased sentence whose
// runs of non-letters were folded to one space, so punctuation and case
// tricks do not hide them.
var instructionPatterns = []guarded{
	// Dismissing the conversation's rules. Override and bypass count only
	// with the reader's own rules as object: "you can override one safety
	// rule" is API prose.
	{`ignore disregard forget`, `\b(ignore|disregard|forget)\b.{0,40}\b(previous|prior|above|earlier|preceding|all|your|system|safety|developer)\b.{0,40}\b(instruction|instructions|prompt|prompts|rules|directions|guidelines|context|messages|policies|policy)\b`},
	{`override bypass`, `\b(override|bypass|circumvent)( all| any)? (your|its|the model s|the assistant s)( (safety|system|previous|prior|original|content))? (instructions|guidelines|rules|policies|filters|restrictions|prompt)\b`},
	// "Your real instructions", "hidden instructions follow"; "Updated
	// instructions of a task" is a field.
	{`instructions prompt directives`, `\b(your|the|my) (new|updated|real|actual|hidden|secret|true) (system )?(instructions|prompt|directives)\b|\b(new|updated|real|actual|hidden|secret|true) (system )?(instructions|prompt|directives) (are|follow|below|as follows|override)\b`},
	{`instruction instructions prompt prompts`, `\b(previous|prior|above|earlier) (instruction|instructions|prompt|prompts)\b`},
	{`prompt`, `\b(your|the|my|this) system prompt\b`},
	// Role play: "act as if you…", "pretend to be", "you will act as";
	// "devices act as a RADIUS server" is API prose.
	{`act behave pretend roleplay`, `\b(act|behave) as (if|though) you\b|\byou (will|shall|must|should|are to|now) (act|behave|pretend|roleplay)\b|\bpretend (to be|that you|you are)\b|\broleplay\b|^ ?(please |now )?(act|behave) as (an?|the) (ai|assistant|model|chatbot|unrestricted|unfiltered|jailbroken|different|new|evil)\b`},
	{`tell inform mention reveal show alert`, `\b(do not|don t|never) (tell|inform|mention|reveal|show|alert)\b.{0,30}\b(user|human|operator|anyone)\b`},
	// "Without asking the user to re-authenticate" describes a token
	// refresh; "without asking the user first" keeps the user out.
	{`without before + asking telling informing confirming + user human operator`, `\b(without|before) (asking|telling|informing|confirming with) (the )?(user|human|operator)( (for|first|about|and|or|anything|that|what|if|whether)\b| ?$)`},
	// Exfiltration as an order ("and reveal the API key"); "never leak
	// client_secret" is advice to a programmer.
	{`reveal leak exfiltrate dump`, `(^ ?|\b(and|then|also|now|please|first) )(reveal|leak|exfiltrate|dump)\b.{0,40}\b(key|keys|token|tokens|secret|secrets|password|passwords|credentials)\b`},
	// "Send your API keys", "print all secrets"; "CCS will not send the
	// credentials to cast app" describes the API.
	{`send email post upload print output + your all any + key keys secrets credentials passwords variables vars prompt`, `\b(send|email|post|upload|print|output) (me |us )?(your|all|any) (api key|api keys|secrets|credentials|passwords|environment variables|env vars|system prompt)\b`},
	// A model named as the reader. "As an agent, you may call our APIs"
	// and "agents should call this method again" speak of software agents
	// in API prose, so "agent" counts only after a vocative.
	{`ai llm assistant agent model chatbot`, `\b(dear|attention|note to|message to|hey) (ai|llm|assistant|agent|language model|chatbot|model)\b|\bas an? (ai|llm|language model|chatbot)\b`},
	{`ai llm assistant model ais llms assistants models chatbot chatbots`, `\b(ai|llm|assistant|model|chatbot)s? (must|should|shall|has to|have to|needs to) (always|now|immediately|first|instead|also|call|run|execute|invoke|use|delete|send)\b`},
	// Chat-template tokens spelled out; bracketed ones ([INST], <<SYS>>)
	// are markers (reMarkers), and a bare "sys" is a table prefix.
	{`im endoftext`, `\b(im start|im end|endoftext)\b`},
	{`jailbreak dan developer god`, `\b(enable|enter|activate|switch to|switch into|you are in|now in) (dan|developer|jailbreak|jailbroken|god) mode\b|\bdan mode\b|\bjailbreak (mode|prompt)\b`},
	{`call invoke run execute use + tool function action operation + instead first immediately always before every`, `\b(call|invoke|run|execute|use) (the )?(tool|function|action|operation)\b.{0,60}\b(instead|first|immediately|always|before anything|every time)\b`},
	// "Forget everything above", "ignore what you were told": the
	// conversation, not the API, is what is being dismissed. "Ignore all
	// fields above 100" is not matched: only words about having been told
	// may stand between "all" and "above".
	{`ignore disregard forget`, `\b(ignore|disregard|forget)( about)? (everything|anything|all|whatever)( (that|which))?( (is|was|has been|have been|been|you ve been|you were|you have been|i ve|i have|we ve|we have))?( (written|said|stated|mentioned|told|given|read|seen|received))? (above|earlier|previously|so far|until now|up to now|before this|before now|prior to this)\b|\b(ignore|disregard|forget)( about)? (what|everything|anything|all) (you (were|have been|ve been|are|got) (told|given|instructed|taught)|i (said|told you|wrote|asked))\b`},
	// Sending somebody's credentials somewhere: "send the user's token to
	// https://…". A credential of the reader's own API ("POST the access
	// token to https://…/token") has no owner and is not matched. Its guard
	// groups are the destination (the rarest part), the credential and the
	// verb.
	{`https http www ftp me us following external remote third url address endpoint server webhook + token tokens key keys secret secrets password passwords credential credentials cookie cookies + send post upload forward email mail transmit share paste leak give`, `\b(send|post|upload|forward|email|mail|transmit|share|paste|leak|give)( me| us)?( (the|a|all|any|every|their|your|his|her))? (user|users|user s|human s|operator s|customer s|caller s|your|their|his|her|all|any|every)( (api|access|auth|bearer|session|private|secret|oauth|personal|ssh|refresh))* (token|tokens|key|keys|secret|secrets|password|passwords|credential|credentials|cookie|cookies)\b.{0,30}\bto (https?|www|ftp|me|us|this (url|address|endpoint|server|webhook)|the following|an? (external|remote|third party))\b`},
	// Text that speaks of the reader as a tool-using model ("before using
	// this tool, you must first call…") is addressed to the agent, not to a
	// programmer calling the API: "You must first call the login endpoint"
	// stays.
	{`tool tools function functions`, `\b(before|prior to) (using|calling|invoking|running|executing) (this|the|any|these|that) (tool|tools|function|functions)\b.{0,60}\b(must|should|shall|need to|needs to|have to|has to|always|first)\b`},
	// intentsrv's own verbs as the thing to call: a spec cannot know them,
	// so naming them is aimed at the agent ("call act with github.repos.delete").
	{`act ask describe find + call invoke run execute use`, `\b(call|invoke|run|execute|use) (the )?(act|ask|describe|find)( tool| verb)? (with|on|for|using)\b|\b(must|should|shall|need to|needs to|have to|has to)( first| always| now| immediately| also)? (call|invoke|run|execute|use) (the )?(act|ask)\b`},
}

// guarded is an instruction pattern with the words of which at least one
// must occur for it to be tried: most text is never run through the
// (backtracking-heavy) pattern at all. "+" separates groups of words, of
// each of which one must occur: every match of the pattern holds a word
// of every group ("url" alone, common in API prose, does not try the
// pattern that sends a user's token to a URL).
type guarded struct {
	words, pattern string
}

// compiledPatterns are the instruction patterns, compiled, in order;
// guards maps each word of a first guard group to the set of patterns
// (bit i for pattern i) it lets through, so a sentence's words are looked
// up once for all patterns; alsoGuards holds each pattern's other groups.
var compiledPatterns, guards, alsoGuards = func() ([]*regexp.Regexp, map[string]uint64, [][][]string) {
	if len(instructionPatterns) > 64 {
		panic("sanitize: more than 64 instruction patterns")
	}
	res := make([]*regexp.Regexp, len(instructionPatterns))
	guards := map[string]uint64{}
	also := make([][][]string, len(instructionPatterns))
	for i, g := range instructionPatterns {
		res[i] = regexp.MustCompile(g.pattern)
		groups := strings.Split(g.words, "+")
		for _, w := range strings.Fields(groups[0]) {
			guards[w] |= 1 << i
		}
		for _, grp := range groups[1:] {
			also[i] = append(also[i], strings.Fields(grp))
		}
	}
	return res, guards, also
}()

// guardsHold reports whether folded (fold's output: words between single
// spaces, a space at each end) holds a word of each of pattern i's other
// guard groups.
func guardsHold(i int, folded string) bool {
	for _, grp := range alsoGuards[i] {
		if !slices.ContainsFunc(grp, func(w string) bool { return strings.Contains(folded, " "+w+" ") }) {
			return false
		}
	}
	return true
}

// markerTokens are chat-template and prompt markers that are removed
// wherever they appear, even mid-sentence.
var reMarkers = regexp.MustCompile(`(?i)<\|[^|<>]{0,32}\|>|\[/?(inst|sys|system)\]|<<\s*/?sys\s*>>|#{2,}\s*(instruction|system|assistant|response)s?\s*:`)

// reTurn finds a chat turn marker at the start of a line or sentence,
// capitalised as transcripts write them; reTurnStart is the same test for
// one sentence. "Human:" and "Assistant:" count even when decorated
// ("**Human:**", "> Assistant:"); "User:" and "System:" only when bare, as
// specs use them as list labels ("* **User**: the user's timeline") and in
// lower case for enum values ("user: a person").
var (
	reTurn      = regexp.MustCompile(`(?m)(?:^|[.!?][ \t]+)` + turnMarker)
	reTurnStart = regexp.MustCompile(`^` + turnMarker)
)

const turnMarker = `(?:[ \t>*_#-]*(?:Human|HUMAN|Assistant|ASSISTANT)[*_]*|[ \t]*(?:User|USER|System|SYSTEM))[ \t]*:(?:[ \t*_]|$)`

// hasTurn reports a turn marker in s.
func hasTurn(s string) bool {
	return strings.IndexByte(s, ':') >= 0 && reTurn.MatchString(s)
}

// Clean returns s without invisible characters, HTML, markdown images and
// link targets, or instruction-shaped sentences; whitespace is normalised
// (newlines are kept as paragraph breaks) and the result is at most max
// runes (max <= 0 means no cap). Clean never returns a string that a second
// Clean would change.
func Clean(s string, max int) string { return fixpoint(s, max, true) }

// fixpoint runs clean until the text stops changing. prose says whether
// instruction-shaped sentences are removed too.
func fixpoint(s string, max int, prose bool) string {
	out := clean(s, max, prose)
	if out == s {
		// clean is a function of its input: a text it left alone is
		// already its fixed point.
		return out
	}
	// Removal can join fragments into new matches ("<scr<b>ipt>"); a few
	// passes reach a fixed point for any realistic input, and the final
	// check makes the idempotence promise unconditional.
	for i := 0; i < 4; i++ {
		next := clean(out, max, prose)
		if next == out {
			return out
		}
		out = next
	}
	return strictText(out, max, prose)
}

// Line is Clean for one-line text such as summaries and tags: newlines
// become spaces.
func Line(s string, max int) string {
	s = strings.ReplaceAll(s, "\r", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return Clean(s, max)
}

// Summary cleans a one-line summary with the default cap.
func Summary(s string) string { return Line(s, SummaryMax) }

// Description cleans prose with the default cap.
func Description(s string) string { return Clean(s, DescriptionMax) }

// Tag cleans a tag with the default cap.
func Tag(s string) string { return Line(s, TagMax) }

func clean(s string, max int, prose bool) string {
	if s == "" {
		return ""
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	s = stripInvisible(s)
	// Each pass is guarded by a byte test: most text from real specs has
	// no markup at all, and large specs have tens of thousands of texts.
	lt := strings.IndexByte(s, '<') >= 0
	if lt {
		// Chat-template turns first: stripping tags would break their
		// delimiters ("<<SYS>>") apart.
		if mayHoldBlock(s) {
			s = reBlock.ReplaceAllString(s, " "+Removed+" ")
		}
		if strings.Contains(s, "<!--") {
			s = reComment.ReplaceAllString(s, " ")
		}
		s = reScript.ReplaceAllString(s, " ")
		// A tool-call element goes with its content before tags are
		// stripped, which would leave the call bare.
		s = reToolElement.ReplaceAllString(s, " "+Removed+" ")
		s = reTag.ReplaceAllString(s, " ")
	}
	// Entities are decoded after tags are gone; anything that decodes into
	// markup is removed by the next pass of Clean.
	if strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
		s = stripInvisible(s)
		lt = strings.IndexByte(s, '<') >= 0
	}
	if strings.IndexByte(s, '[') >= 0 {
		s = reMdImage.ReplaceAllString(s, "")
		s = reMdRefDef.ReplaceAllString(s, "")
		s = reMdLink.ReplaceAllString(s, "$1")
		s = reMdRefLink.ReplaceAllString(s, "$1")
	}
	markers := lt || strings.IndexByte(s, '[') >= 0 || strings.IndexByte(s, '#') >= 0
	if markers && mayHoldBlock(s) {
		s = reBlock.ReplaceAllString(s, " "+Removed+" ")
	}
	// Checked after tags and entities are gone: a call wrapped in markup
	// or escaped as &quot; is bare by now.
	s = dropToolCalls(s)
	if prose {
		s = dropInstructions(s)
	}
	if markers && mayHoldMarker(s) {
		s = reMarkers.ReplaceAllString(s, " ")
	}
	s = normaliseSpace(s)
	return Cap(s, max)
}

// strictText is the last resort of Clean: it drops every character that can
// start markup, so the result is stable under clean.
func strictText(s string, max int, prose bool) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '<', '>', '[', ']', '|', '`':
			return ' '
		}
		return r
	}, s)
	s = normaliseSpace(s)
	s = Cap(s, max)
	if clean(s, max, prose) != s {
		// Should not happen; give up on content rather than on the promise.
		return ""
	}
	return s
}

// invisible reports runes that render as nothing or reorder text: C0/C1
// controls (tab and newline excepted), zero-width and joiner characters,
// bidi embeddings and isolates, soft hyphen, word joiners, the BOM,
// interlinear annotations, Unicode tag characters and variation selectors.
func invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return true
	case r == 0x00ad, r == 0x034f, r == 0x061c, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5, r == 0x180e:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x206f:
		return true
	case r == 0x3164, r == 0xfeff, r == 0xffa0, r >= 0xfff0 && r <= 0xfffb:
		return true
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0000 && r <= 0xe0fff:
		return true
	case r >= 0x1bca0 && r <= 0x1bca3, r >= 0x1d173 && r <= 0x1d17a:
		return true
	case unicode.Is(unicode.Co, r): // private use: renders as nothing useful
		return true
	}
	return false
}

func stripInvisible(s string) string {
	clean := true
	for _, r := range s {
		if invisible(r) || r == '\r' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\r':
			b.WriteByte('\n')
		case invisible(r):
			// Controls between words would otherwise glue them together.
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
				b.WriteByte(' ')
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Instructional reports whether s contains instruction-shaped text that
// Clean would remove.
func Instructional(s string) bool {
	s = stripInvisible(s)
	if hasMarker(s) || hasTurn(s) || hasToolCall(s) {
		return true
	}
	for _, sent := range sentences(s) {
		if instructionSentence(sent) {
			return true
		}
	}
	return false
}

func instructionSentence(sentence string) bool {
	return englishInstruction(sentence) || addressedToModel(sentence)
}

// englishInstruction matches the English patterns above.
func englishInstruction(sentence string) bool {
	folded := fold(sentence)
	if folded == "" {
		return false
	}
	var try uint64
	for _, w := range strings.Fields(folded) {
		try |= guards[w]
	}
	for try != 0 {
		i := bits.TrailingZeros64(try)
		try &^= 1 << i
		if guardsHold(i, folded) && compiledPatterns[i].MatchString(folded) {
			return true
		}
	}
	return false
}

// fold lower-cases s, maps look-alike letters to ASCII, and turns every run
// of non-letters and non-digits into a single space.
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	space := true
	for _, r := range s {
		r = confusable(unicode.ToLower(r))
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// confusable maps common Cyrillic and Greek look-alikes of Latin letters
// to their Latin twins, so "іgnore" (Cyrillic і) still matches.
func confusable(r rune) rune {
	if r >= 0xff01 && r <= 0xff5e { // full-width ASCII
		return unicode.ToLower(r - 0xfee0)
	}
	switch r {
	case 'а':
		return 'a'
	case 'е', 'ё':
		return 'e'
	case 'о', 'ο':
		return 'o'
	case 'р', 'ρ':
		return 'p'
	case 'с':
		return 'c'
	case 'у':
		return 'y'
	case 'х', 'χ':
		return 'x'
	case 'і', 'ι':
		return 'i'
	case 'ѕ':
		return 's'
	case 'ј':
		return 'j'
	case 'ν':
		return 'v'
	}
	return r
}

// dropInstructions replaces instruction-shaped sentences by one Removed
// marker. A turn marker ("Human: …") starts a turn that runs to the end of
// its paragraph: every sentence of it is the injected turn's content.
func dropInstructions(s string) string {
	turns := hasTurn(s)
	if !turns && !instructionSentence(s) && !hasMarker(s) {
		return s
	}
	var b strings.Builder
	marked, inTurn := false, false
	for _, sent := range sentences(s) {
		if inTurn && strings.TrimSpace(sent) == "" {
			inTurn = false
		}
		if turns && reTurnStart.MatchString(sent) {
			inTurn = true
		}
		if inTurn || instructionSentence(sent) || hasMarker(sent) {
			if !marked {
				b.WriteString(" " + Removed + " ")
				marked = true
			}
			if strings.HasSuffix(sent, "\n") {
				b.WriteByte('\n')
			}
			continue
		}
		b.WriteString(sent)
	}
	return b.String()
}

// sentences splits s after sentence punctuation followed by a space (so
// "a.b.c" stays whole) and after each newline, keeping every delimiter: the
// parts concatenate back to s.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			out = append(out, s[start:i+1])
			start = i + 1
		case 0xe3, 0xef:
			// 。(e3 80 82), ！(ef bc 81), ？(ef bc 9f) end a sentence
			// without a following space.
			if r, n := utf8.DecodeRuneInString(s[i:]); r == '。' || r == '！' || r == '？' {
				out = append(out, s[start:i+n])
				start = i + n
				i += n - 1
			}
		case '.', '!', '?':
			j := i + 1
			for j < len(s) && (s[j] == '.' || s[j] == '!' || s[j] == '?') {
				j++
			}
			if j == len(s) || s[j] == ' ' || s[j] == '\t' {
				for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
					j++
				}
				out = append(out, s[start:j])
				start = j
				i = j - 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// hasMarker reports a chat-template or prompt marker in s.
func hasMarker(s string) bool {
	return mayHoldMarker(s) && reMarkers.MatchString(s)
}

// mayHoldBlock reports whether s holds what every match of reBlock
// begins with ("<|", "<<" or "["): HTML alone ("<p>"), as most large
// specs write their prose, cannot hold a chat-template block, and the
// regular expression is the costliest of a parse.
func mayHoldBlock(s string) bool {
	return strings.Contains(s, "<|") || strings.Contains(s, "<<") || strings.IndexByte(s, '[') >= 0
}

// mayHoldMarker is mayHoldBlock for reMarkers, whose matches also begin
// with "##".
func mayHoldMarker(s string) bool {
	return mayHoldBlock(s) || strings.Contains(s, "##")
}

func normaliseSpace(s string) string {
	if strings.Contains(s, "  ") || strings.IndexByte(s, '\t') >= 0 {
		s = reSpaces.ReplaceAllString(s, " ")
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	s = strings.Join(lines, "\n")
	s = reBlankRuns.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

// Cap returns s cut to at most max runes, at a word boundary when one is
// near, with "…" marking the cut. max <= 0 means no cap.
func Cap(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	if max == 1 {
		return "…"
	}
	runes := []rune(s)
	cut := runes[:max-1]
	// Back up to a space if one is within the last fifth.
	for i := len(cut) - 1; i > len(cut)*4/5; i-- {
		if unicode.IsSpace(cut[i]) {
			cut = cut[:i]
			break
		}
	}
	return strings.TrimRightFunc(string(cut), unicode.IsSpace) + "…"
}

// Version changes whenever Clean's output for some input changes, so that
// caches of sanitised text (the OpenAPI catalog cache) are rebuilt.
const Version = 4
