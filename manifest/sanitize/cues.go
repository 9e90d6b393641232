package sanitize

import (
	"strings"
	"unicode"
)

// Text addressed to a model is recognised by what it talks about, not by
// its exact wording: a sentence is read as an instruction when it combines
// cues that API documentation does not combine. Each cue is a class of
// short terms in several languages (English, French, German, Spanish,
// Chinese, Japanese); a term is a word, a word stem ("anweisung*" covers
// Anweisung and Anweisungen), a run of words, or a run of CJK characters.
// Imperative and infinitive forms are listed rather than stems where a
// stem would also match descriptive prose ("ignores", "invocations"). The
// rules that combine the classes are in addressedToModel; adding a
// language means adding its words to the classes, not new rules.

// cueClass names one class of terms.
type cueClass uint8

const (
	cueDismiss    cueClass = iota // ignore, disregard, forget
	cuePrior                      // previous, prior, above, all, your
	cueMeta                       // instructions, guidance, prompt, rules
	cueCall                       // call, invoke, run, use
	cueIntentVerb                 // act, ask, describe, find: intentsrv's verbs
	cueIntentArg                  // with, tool: what follows a verb named as a tool
	cueAnswer                     // before answering, before you reply
	cueAddressee                  // AI, LLM, KI, language model
	cueUrgent                     // important, urgent, wichtig, 重要
	cueAlways                     // always, from now on, immediately
	cueRole                       // you are now
	cueNegation                   // do not, never
	cueTell                       // tell, inform, mention
	cueUser                       // the user (as a third party)
	numCues
)

// cueTerms lists each class's terms, lower case. A trailing '*' makes a
// Latin term a prefix; a term of several words matches them in a row.
var cueTerms = [numCues][]string{
	cueDismiss: {
		"ignore", "disregard", "forget", "neglect",
		"ignorez", "ignore", "ignorer", "oubliez", "oublie", "oublier", "négligez", "ne tenez pas compte", "ne tiens pas compte", "faites abstraction",
		"ignoriere", "ignorieren", "ignoriert", "vergiss", "vergessen", "missachte", "missachten",
		"ignora", "ignorar", "ignoren", "olvida", "olvide", "olviden", "olvidar", "desestima", "descarta", "haz caso omiso", "hagas caso omiso",
		"忽略", "无视", "忘记", "忘掉", "不要理会", "無視", "忘れ",
	},
	cuePrior: {
		"previous", "prior", "above", "earlier", "preceding", "foregoing", "all", "your", "original",
		"précédent*", "antérieur*", "ci dessus", "toutes", "tous", "vos", "tes",
		"vorherig*", "bisherig*", "obig*", "früher*", "alle", "allen", "deine*", "ihre*",
		"anterior*", "previa*", "previo*", "todas", "todos", "tus", "sus",
		"之前", "以上", "先前", "上面", "前面", "以前", "所有", "一切",
		"これまで", "上記", "前の", "先の", "すべて", "全て",
	},
	cueMeta: {
		"instruction*", "guidance", "guideline*", "prompt*", "directive*", "orders",
		"consigne*", "règles",
		"anweisung*", "vorgabe*", "regeln", "richtlinie*", "befehle",
		"instruccion*", "indicaciones", "directrices", "reglas", "órdenes",
		"指令", "指示", "提示词", "规则", "命令", "プロンプト", "ルール",
	},
	cueCall: {
		"call", "calling", "invoke", "invoking", "run", "execute", "use", "trigger",
		"appelle", "appelez", "appeler", "invoque", "invoquez", "invoquer", "exécute", "exécutez", "exécuter", "utilise", "utilisez", "utiliser", "lance", "lancez",
		"rufe", "rufen", "ruf", "aufrufen", "führe", "führen", "verwende", "verwenden", "nutze", "nutzen", "benutze", "benutzen",
		"llama", "llame", "llamar", "llamen", "invoca", "invoque", "invocar", "ejecuta", "ejecute", "ejecutar", "usa", "usar", "utiliza", "utilice", "utilizar",
		"调用", "执行", "使用", "呼び出", "実行", "使っ", "使用",
	},
	cueIntentVerb: {"act", "ask", "describe", "find", "plan ref"},
	// What follows an intent verb named as a tool: "act with …", "act
	// tool", "act avec". "Use ACT as the state code" has none.
	cueIntentArg: {"with", "using", "tool", "verb", "avec", "outil", "mit", "werkzeug", "con", "herramienta", "工具", "ツール"},
	cueAnswer: {
		"before answering", "before responding", "before replying", "before you answer", "before you respond", "before you reply",
		"avant de répondre", "avant toute réponse",
		"bevor du antwortest", "bevor sie antworten", "vor der antwort", "vor jeder antwort",
		"antes de responder", "antes de contestar", "antes de cada respuesta",
		"回答之前", "回答前", "回复之前", "回复前", "答复之前",
		"回答する前", "答える前", "返答する前", "返信する前",
	},
	cueAddressee: {
		"ai", "ais", "llm", "llms", "chatbot*", "language model*",
		"ia", "modèle de langage",
		"ki", "sprachmodell*",
		"modelo de lenguaje",
		"人工智能", "智能体", "语言模型", "大模型", "言語モデル",
	},
	cueUrgent: {
		"important", "urgent", "critical", "attention", "notice", "warning",
		"wichtig", "achtung", "importante", "urgente", "atención", "aviso",
		"重要", "紧急", "注意", "警告",
	},
	cueAlways: {
		"always", "from now on", "immediately", "henceforth",
		"toujours", "désormais", "dorénavant", "immédiatement",
		"immer", "ab jetzt", "ab sofort", "sofort", "stets",
		"siempre", "a partir de ahora", "de ahora en adelante", "inmediatamente",
		"总是", "始终", "务必", "立即", "从现在开始", "今后",
		"必ず", "常に", "今後", "今すぐ", "直ちに",
	},
	cueRole: {
		"you are now", "from now on you are", "you will now act",
		"tu es maintenant", "vous êtes maintenant", "tu es désormais", "vous êtes désormais",
		"du bist jetzt", "sie sind jetzt", "du bist nun", "sie sind nun", "du bist ab jetzt",
		"ahora eres", "ahora usted es", "ahora eres un", "ahora actúas como",
		"你现在是", "你现在扮演", "从现在开始你是",
		"あなたは今", "今からあなたは", "あなたはこれから",
	},
	cueNegation: {
		"don t", "do not", "never", "without",
		"ne", "n", "jamais", "sans",
		"nicht", "nichts", "niemals", "ohne",
		"no", "nunca", "sin",
		"不要", "别", "不得", "切勿", "ないで", "せずに", "しないで",
	},
	cueTell: {
		"tell", "telling", "inform", "informing", "mention", "mentioning", "reveal", "alert", "notify", "notifying", "warn",
		"dis", "dites", "dire", "prévenir", "préviens", "prévenez", "informer", "informez", "mentionnez", "révélez",
		"sag", "sage", "sagen", "erzähle", "erzählen", "informiere", "informieren", "erwähne", "erwähnen",
		"digas", "diga", "decir", "cuentes", "contar", "informar", "informes", "avisar", "avises", "menciones",
		"告诉", "告知", "通知", "提及", "提醒",
		"伝え", "知らせ", "言わ",
	},
	cueUser: {
		"user", "users", "human", "operator",
		"utilisateur*",
		"benutzer*", "nutzer*", "anwender*",
		"usuario*", "al usuario",
		"用户", "使用者", "ユーザー", "ユーザ", "利用者",
	},
}

// term is one compiled cue term: its tokens, and whether the last is a
// prefix.
type term struct {
	class  cueClass
	toks   []string
	prefix bool
}

// cueIndex maps a term's first token (for a prefix term, its first three
// bytes) to the terms that start with it.
var cueIndex, cuePrefixIndex = func() (map[string][]term, map[string][]term) {
	exact, prefix := map[string][]term{}, map[string][]term{}
	for c, terms := range cueTerms {
		for _, t := range terms {
			pre := strings.HasSuffix(t, "*")
			toks := cueTokens(strings.TrimSuffix(t, "*"))
			if len(toks) == 0 {
				continue
			}
			tm := term{class: cueClass(c), toks: toks, prefix: pre}
			if pre && len(toks) == 1 {
				k := prefixKey(toks[0])
				prefix[k] = append(prefix[k], tm)
				continue
			}
			exact[toks[0]] = append(exact[toks[0]], tm)
		}
	}
	return exact, prefix
}()

// prefixKey is the bucket of a prefix term or of a token that may start
// with one: its first three runes.
func prefixKey(tok string) string {
	n := 0
	for i := range tok {
		if n == 3 {
			return tok[:i]
		}
		n++
	}
	return tok
}

// cueHit is one occurrence of a class, at token position pos.
type cueHit struct {
	class cueClass
	pos   int
}

// roleNotClaims are words after "you are now" that tell a programmer
// where a flow left them ("you are now ready to make requests").
var roleNotClaims = map[string]bool{
	"ready": true, "able": true, "set": true, "done": true, "logged": true, "signed": true,
	"authenticated": true, "authorized": true, "connected": true, "registered": true,
	"subscribed": true, "redirected": true, "prêt": true, "prête": true, "bereit": true, "listo": true, "lista": true,
}

// cjk reports the scripts that do not separate words with spaces.
func cjk(r rune) bool {
	if r < 0x2e80 { // below the CJK blocks: most text never looks further
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー'
}

// cueTokens folds s and splits it into tokens: words of spaced scripts,
// and one token per CJK character. Folding lower-cases, maps look-alikes
// (Cyrillic, Greek, full-width) to their Latin twins, and treats every
// character that is not a letter, digit or combining mark as a separator.
// The tokens share one string.
func cueTokens(s string) []string {
	if ascii(s) {
		return asciiTokens(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	var bounds []int // start, end of each token in b
	open := false
	closeToken := func() {
		if open {
			bounds = append(bounds, b.Len())
			open = false
		}
	}
	for _, r := range s {
		r = confusable(unicode.ToLower(r))
		switch {
		case cjk(r):
			closeToken()
			bounds = append(bounds, b.Len())
			b.WriteRune(r)
			bounds = append(bounds, b.Len())
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if !open {
				bounds = append(bounds, b.Len())
				open = true
			}
			b.WriteRune(r)
		default:
			closeToken()
		}
	}
	closeToken()
	folded := b.String()
	toks := make([]string, len(bounds)/2)
	for k := range toks {
		toks[k] = folded[bounds[2*k]:bounds[2*k+1]]
	}
	return toks
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// asciiTokens is cueTokens for ASCII text, byte by byte: most API prose
// is ASCII, and this runs on every sentence of a spec.
func asciiTokens(s string) []string {
	buf := make([]byte, 0, len(s))
	var bounds []int
	open := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
			fallthrough
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			if !open {
				bounds = append(bounds, len(buf))
				open = true
			}
			buf = append(buf, c)
		default:
			if open {
				bounds = append(bounds, len(buf))
				open = false
			}
		}
	}
	if open {
		bounds = append(bounds, len(buf))
	}
	folded := string(buf)
	toks := make([]string, len(bounds)/2)
	for k := range toks {
		toks[k] = folded[bounds[2*k]:bounds[2*k+1]]
	}
	return toks
}

// cueHits returns every occurrence of every class in one sentence.
func cueHits(sentence string) []cueHit {
	toks := cueTokens(sentence)
	var hits []cueHit
	for i, tok := range toks {
		for _, t := range cueIndex[tok] {
			if !matchTerm(t, toks[i:]) {
				continue
			}
			if next := i + len(t.toks); t.class == cueRole && next < len(toks) && roleNotClaims[toks[next]] {
				continue
			}
			hits = append(hits, cueHit{t.class, i})
		}
		for _, t := range cuePrefixIndex[prefixKey(tok)] {
			if strings.HasPrefix(tok, t.toks[0]) {
				hits = append(hits, cueHit{t.class, i})
			}
		}
	}
	return hits
}

func matchTerm(t term, toks []string) bool {
	if len(toks) < len(t.toks) {
		return false
	}
	for j, want := range t.toks {
		last := j == len(t.toks)-1
		if toks[j] != want && !(last && t.prefix && strings.HasPrefix(toks[j], want)) {
			return false
		}
	}
	return true
}

// cueSet is what one sentence holds: for each class, the token positions
// of its occurrences.
type cueSet struct {
	pos [numCues][]int
}

func collect(hits []cueHit) *cueSet {
	var s cueSet
	for _, h := range hits {
		s.pos[h.class] = append(s.pos[h.class], h.pos)
	}
	return &s
}

func (s *cueSet) has(c cueClass) bool { return len(s.pos[c]) > 0 }

// near reports occurrences of every class of cs within a window of span
// tokens.
func (s *cueSet) near(span int, cs ...cueClass) bool {
	for _, c := range cs {
		if !s.has(c) {
			return false
		}
	}
	// Anchor the window at each occurrence of the first class.
	for _, a := range s.pos[cs[0]] {
		ok := true
		for _, c := range cs[1:] {
			found := false
			for _, p := range s.pos[c] {
				if p >= a-span && p <= a+span {
					found = true
					break
				}
			}
			if !found {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// chain reports an occurrence of a, then one of b at most gapAB tokens
// after it, then one of c at most gapBC tokens after that b.
func (s *cueSet) chain(a cueClass, gapAB int, b cueClass, gapBC int, c cueClass) bool {
	for _, p := range s.pos[a] {
		for _, q := range s.pos[b] {
			if q <= p || q-p > gapAB {
				continue
			}
			for _, r := range s.pos[c] {
				if r > q && r-q <= gapBC {
					return true
				}
			}
		}
	}
	return false
}

// followedBy reports an occurrence of b at most gap tokens after one of a.
func (s *cueSet) followedBy(a, b cueClass, gap int) bool {
	for _, p := range s.pos[a] {
		for _, q := range s.pos[b] {
			if q > p && q-p <= gap {
				return true
			}
		}
	}
	return false
}

// keepsUserOut reports the orders in which a negation, a verb of telling
// and the user read as an order to keep the user uninformed: "do not tell
// the user", "sag dem Benutzer nicht", "ohne den Benutzer zu informieren".
// A sentence about users ("users who do not confirm…") starts with them.
func keepsUserOut(s *cueSet) bool {
	return s.followedBy(cueNegation, cueTell, 3) && s.followedBy(cueTell, cueUser, 4) ||
		s.followedBy(cueTell, cueUser, 3) && s.followedBy(cueUser, cueNegation, 3) ||
		s.followedBy(cueNegation, cueUser, 4) && s.followedBy(cueUser, cueTell, 3)
}

// addressedToModel reports whether one sentence speaks to the model that
// reads it rather than to a programmer using the API. The rules:
//
//   - a role claim: "you are now", "du bist jetzt", "你现在是".
//   - dismissing what came before: a dismissal (ignore, oubliez, vergiss,
//     olvida, 忽略, 無視) near a reference to prior or all text and a word
//     for instructions (instructions, guidance, consignes, Anweisungen,
//     指令). "Ignore all fields above 100" names no instructions and stays.
//   - calling intentsrv's own verbs: a call verb just before act, ask,
//     describe, find or plan_ref, itself followed by "with" or "tool"
//     ("call act with …", "appelez toujours act avec …"; in Japanese word
//     order the call verb comes after). A spec cannot know these verbs, so
//     naming them as tools is aimed at the agent; "use the find endpoint"
//     and "use ACT as the state code" stay.
//   - keeping the user out: a negation, a verb of telling and the user, in
//     that order in spaced scripts ("do not tell the user", "ne dis pas à
//     l'utilisateur"); "users who do not confirm" stays.
//   - the reader's own answer ("before answering", "avant de répondre")
//     together with a call, an "always" or an urgency marker.
//   - a model named as the reader (AI, LLM, KI, 人工智能) together with a
//     dismissal or the answer.
//
// Every rule but the role claim needs two or more classes, so a single
// word ("ignore", "important", "AI", "always") never removes a sentence.
func addressedToModel(sentence string) bool {
	hits := cueHits(sentence)
	if len(hits) == 0 {
		return false
	}
	s := collect(hits)
	if s.has(cueRole) {
		return true
	}
	// A CJK character is a token of its own, so windows there are wider.
	cjkText := !ascii(sentence) && strings.IndexFunc(sentence, cjk) >= 0
	span, gap, argGap := 8, 3, 1
	if cjkText {
		span, gap, argGap = 16, 6, 2
	}
	switch {
	case s.near(span, cueDismiss, cuePrior, cueMeta):
		return true
	case s.chain(cueCall, gap, cueIntentVerb, argGap, cueIntentArg),
		cjkText && s.followedBy(cueIntentVerb, cueCall, gap):
		return true
	case s.near(span, cueNegation, cueTell, cueUser) && (cjkText || keepsUserOut(s)):
		return true
	case s.has(cueAnswer) && (s.has(cueCall) || s.has(cueAlways) || s.has(cueUrgent)):
		return true
	case s.has(cueAddressee) && (s.has(cueDismiss) || s.has(cueAnswer)):
		return true
	}
	return false
}
