package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/intentsrv/intentsrv/manifest/sanitize"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// mockBaseURL is the base URL mock mode shows in previews of a spec that
// names no server.
const mockBaseURL = "http://mock.invalid"

// mocker synthesises responses: the spec's own example when it is valid
// against the output schema, else a value generated from that schema. The
// answer of each operation is computed once.
type mocker struct {
	mu    sync.Mutex
	cache map[string]json.RawMessage
}

func newMocker() *mocker { return &mocker{cache: map[string]json.RawMessage{}} }

func (m *mocker) respond(op *Op) (json.RawMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.cache[op.ID]; ok {
		return v, nil
	}
	v := MockResponse(op)
	m.cache[op.ID] = v
	return v, nil
}

// MockResponse is what mock mode answers for op: the spec's example when
// it validates against the output schema, else a value generated from the
// schema and checked against it (the generator searches oneOf/anyOf
// branches, optional properties and types until the value validates, then
// retries with the smallest answer the schema allows), else {"status": N}
// for an operation without a response schema. Only a schema the generator
// cannot satisfy (contradictory keywords, look-alike branches of a oneOf)
// yields an answer that does not validate.
func MockResponse(op *Op) json.RawMessage {
	example := mockExample(op.Example)
	if len(op.Output) == 0 {
		if len(example) > 0 {
			return example
		}
		status := op.OKStatus
		if status == 0 {
			status = 200
		}
		return marshal(map[string]any{"status": status})
	}
	var schema any
	dec := json.NewDecoder(bytes.NewReader(op.Output))
	dec.UseNumber()
	if err := dec.Decode(&schema); err != nil {
		return marshal(map[string]any{})
	}
	g := newGenerator(schema, outputCompiler(op.Output))
	if len(example) > 0 {
		if root := g.compiled(""); root == nil || validates(root, example) {
			return example
		}
	}
	top, ok := subNode(schema, "")
	if !ok {
		// The schema false: nothing validates.
		return marshal(nil)
	}
	v, valid := g.gen([]node{top}, 0, nil)
	if !valid {
		// Second strategy: the smallest answer (required properties only,
		// arrays at their minimum), with a fresh budget.
		g2 := newGenerator(schema, nil)
		g2.comp, g2.schemas, g2.minimal = g.comp, g.schemas, true
		if v2, ok := g2.gen([]node{top}, 0, nil); ok {
			v = v2
		}
	}
	return marshal(v)
}

// mockExample is the spec's response example as mock mode may return it:
// each string cleaned as a value and each key checked against the name
// grammar, like the examples describe shows; nil when one of them is
// refused (the answer is then generated from the schema).
func mockExample(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	clean, ok := policyValue(v, 0, func(s string) (string, bool) { return sanitize.Value(s, sanitize.DescriptionMax) })
	if !ok {
		return nil
	}
	return marshal(clean)
}

// outputURL is where an output schema lives in its compiler.
const outputURL = "mem:///output.json"

// outputCompiler returns a compiler holding the output schema raw, or nil
// when raw is not JSON.
func outputCompiler(raw json.RawMessage) *jsonschema.Compiler {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(outputURL, doc); err != nil {
		return nil
	}
	return c
}

func compileOutput(raw json.RawMessage) *jsonschema.Schema {
	c := outputCompiler(raw)
	if c == nil {
		return nil
	}
	s, err := c.Compile(outputURL)
	if err != nil {
		return nil
	}
	return s
}

type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %q refused", url)
}

func validates(s *jsonschema.Schema, raw json.RawMessage) bool {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return false
	}
	return s.Validate(v) == nil
}

// maxMockDepth bounds the nesting of generated values.
const maxMockDepth = 12

// mockBudget bounds the work of one generation (generated and validated
// values); once spent, the generator stops trying alternatives.
const mockBudget = 20000

// node is one schema a generated value must satisfy: s holds the keywords
// still to act on, ptr locates the whole schema in the output document for
// validation, done marks keywords already acted on.
type node struct {
	s    map[string]any
	ptr  string
	done uint8
}

const (
	doneLiterals uint8 = 1 << iota // examples, default
	doneOneOf
	doneAnyOf
	doneIf
	doneExpand // $ref and allOf
)

// subNode is the node of subschema v at ptr. ok is false for the schema
// false, which no value satisfies; the schema true is a node without
// keywords.
func subNode(v any, ptr string) (node, bool) {
	switch t := v.(type) {
	case map[string]any:
		return node{s: t, ptr: ptr}, true
	case bool:
		return node{ptr: ptr}, t
	}
	return node{ptr: ptr}, true
}

// generator builds values that satisfy a set of schemas, checking each
// candidate against the compiled schemas and trying other candidates
// (branches of oneOf and anyOf, types, smaller objects) when it fails.
type generator struct {
	root    map[string]any
	comp    *jsonschema.Compiler
	schemas map[string]*jsonschema.Schema
	res     map[string]*regexp.Regexp
	steps   int
	minimal bool
}

func newGenerator(schema any, c *jsonschema.Compiler) *generator {
	root, _ := schema.(map[string]any)
	return &generator{root: root, comp: c, schemas: map[string]*jsonschema.Schema{}, res: map[string]*regexp.Regexp{}}
}

func (g *generator) exhausted() bool { return g.steps > mockBudget }

// compiled returns the schema at JSON pointer ptr of the output document,
// or nil when it cannot be compiled (its values are then not checked).
func (g *generator) compiled(ptr string) *jsonschema.Schema {
	if g.comp == nil {
		return nil
	}
	if s, ok := g.schemas[ptr]; ok {
		return s
	}
	loc := outputURL
	if ptr != "" {
		toks := strings.Split(ptr, "/")
		for i, t := range toks {
			toks[i] = url.PathEscape(t)
		}
		loc += "#" + strings.Join(toks, "/")
	}
	s, err := g.comp.Compile(loc)
	if err != nil {
		s = nil
	}
	g.schemas[ptr] = s
	return s
}

// valid reports whether v satisfies every schema of ns.
func (g *generator) valid(ns []node, v any) bool {
	for i, n := range ns {
		dup := false
		for _, m := range ns[:i] {
			if m.ptr == n.ptr {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		g.steps++
		if s := g.compiled(n.ptr); s != nil && s.Validate(v) != nil {
			return false
		}
	}
	return true
}

func (g *generator) regexp(p string) *regexp.Regexp {
	if re, ok := g.res[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	g.res[p] = re
	return re
}

// expand follows $ref and allOf, so that every schema the value must
// satisfy is one node. ok is false when one of them is the schema false.
func (g *generator) expand(in []node) ([]node, bool) {
	out := make([]node, 0, len(in)+2)
	work := append([]node(nil), in...)
	for n := 0; len(work) > 0 && n < 64; n++ {
		x := work[0]
		work = work[1:]
		if len(x.s) == 0 {
			continue
		}
		if x.done&doneExpand != 0 {
			out = append(out, x)
			continue
		}
		x.done |= doneExpand
		if ref, ok := x.s["$ref"].(string); ok {
			if t, ok := resolvePointer(g.root, ref); ok {
				ptr := ref[1:]
				if u, err := url.PathUnescape(ptr); err == nil {
					ptr = u
				}
				sub, ok := subNode(t, ptr)
				if !ok {
					return nil, false
				}
				work = append(work, sub)
			}
		}
		if all, ok := x.s["allOf"].([]any); ok {
			for i, m := range all {
				sub, ok := subNode(m, x.ptr+"/allOf/"+strconv.Itoa(i))
				if !ok {
					return nil, false
				}
				work = append(work, sub)
			}
		}
		out = append(out, x)
	}
	return out, true
}

// gen returns a value satisfying every schema of ns, and whether it does;
// when no candidate does, the first one tried. A value equal to one of
// avoid (earlier items of a uniqueItems array) is not accepted.
func (g *generator) gen(ns []node, depth int, avoid []any) (any, bool) {
	g.steps++
	if depth > maxMockDepth {
		return nil, false
	}
	ns, ok := g.expand(ns)
	if !ok {
		return nil, false
	}
	var best any
	have := false
	try := func(v any) bool {
		if !have {
			best, have = v, true
		}
		return !containsValue(avoid, v) && g.valid(ns, v)
	}

	// Values the schema names: const and enum are the only candidates;
	// examples and defaults come first when valid.
	lits, only := literals(ns)
	for _, v := range lits {
		if try(v) {
			return v, true
		}
	}
	if only {
		return best, false
	}

	// Combinators: each branch in turn, until the value validates (for
	// oneOf, that includes matching no other branch).
	for i, n := range ns {
		var key string
		var bit uint8
		switch {
		case n.done&doneOneOf == 0 && n.s["oneOf"] != nil:
			key, bit = "oneOf", doneOneOf
		case n.done&doneAnyOf == 0 && n.s["anyOf"] != nil:
			key, bit = "anyOf", doneAnyOf
		case n.done&doneIf == 0 && n.s["if"] != nil:
			key, bit = "if", doneIf
		default:
			continue
		}
		rest := make([]node, len(ns))
		for j, m := range ns {
			m.done |= doneLiterals
			rest[j] = m
		}
		rest[i].done |= bit
		var choices [][]node
		if key == "if" {
			if cond, ok := subNode(n.s["if"], n.ptr+"/if"); ok && n.s["then"] != nil {
				if then, ok := subNode(n.s["then"], n.ptr+"/then"); ok {
					choices = append(choices, []node{cond, then})
				}
			}
			if n.s["else"] != nil {
				if els, ok := subNode(n.s["else"], n.ptr+"/else"); ok {
					choices = append(choices, []node{els})
				}
			}
			choices = append(choices, nil)
		} else {
			l, _ := n.s[key].([]any)
			for j, b := range l {
				if sub, ok := subNode(b, n.ptr+"/"+key+"/"+strconv.Itoa(j)); ok {
					choices = append(choices, []node{sub})
				}
			}
		}
		for j, c := range choices {
			if j > 0 && g.exhausted() {
				break
			}
			v, ok := g.gen(append(append([]node(nil), rest...), c...), depth, avoid)
			if ok {
				return v, true
			}
			if !have {
				best, have = v, true
			}
		}
		return best, false
	}

	// By type, trying the other allowed types and variants (smaller
	// objects and arrays, other numbers and strings) in turn.
	tried := 0
	for _, t := range typesOf(ns) {
		variants := 2
		if t == "null" {
			variants = 1
		}
		for variant := 0; variant < variants; variant++ {
			if tried > 0 && g.exhausted() {
				return best, false
			}
			if t == "object" && variant == 0 && (g.minimal || depth >= 2) {
				continue // the full object would be the minimal one
			}
			tried++
			if v := g.byType(t, ns, depth, variant, len(avoid)); try(v) {
				return v, true
			}
		}
	}
	return best, false
}

func (g *generator) byType(t string, ns []node, depth, variant, uniq int) any {
	switch t {
	case "null":
		return nil
	case "boolean":
		return variant == 0
	case "string":
		return g.str(ns, uniq+variant)
	case "integer":
		return g.number(ns, true, uniq+variant, false)
	case "number":
		return g.number(ns, false, uniq, variant == 1)
	case "object":
		return g.object(ns, depth, variant == 1 || g.minimal)
	case "array":
		return g.array(ns, depth, variant == 1 || g.minimal)
	}
	return "example"
}

// literals returns the values the schemas name: every const and enum
// value (only is then true: nothing else can validate), else the first
// examples and the default of each schema.
func literals(ns []node) (out []any, only bool) {
	for _, n := range ns {
		if v, ok := n.s["const"]; ok {
			return []any{v}, true
		}
	}
	for _, n := range ns {
		if e, ok := n.s["enum"].([]any); ok {
			if len(e) > 50 {
				e = e[:50]
			}
			out = append(out, e...)
			only = true
		}
	}
	if only {
		return out, true
	}
	for _, n := range ns {
		if n.done&doneLiterals != 0 {
			continue
		}
		ex, _ := n.s["examples"].([]any)
		for i, v := range ex {
			if i < 5 && v != nil {
				out = append(out, v)
			}
		}
		if v, ok := n.s["default"]; ok && v != nil {
			out = append(out, v)
		}
	}
	return out, false
}

var allTypes = []string{"string", "object", "array", "integer", "number", "boolean", "null"}

// typesOf lists the types a value of ns may take, the likeliest first and
// null last: the types every schema allows, or, when none says, the types
// its keywords suggest and then the others.
func typesOf(ns []node) []string {
	var allowed map[string]bool
	var order []string
	for _, n := range ns {
		var l []string
		switch t := n.s["type"].(type) {
		case string:
			l = []string{t}
		case []any:
			for _, e := range t {
				if s, ok := e.(string); ok {
					l = append(l, s)
				}
			}
		default:
			continue
		}
		set := map[string]bool{}
		for _, t := range l {
			set[t] = true
			if t == "number" {
				set["integer"] = true
			}
		}
		if allowed == nil {
			allowed = set
			order = l
			continue
		}
		for t := range allowed {
			if !set[t] {
				delete(allowed, t)
			}
		}
	}
	if allowed == nil {
		order = append(inferTypes(ns), allTypes...)
		allowed = map[string]bool{}
		for _, t := range allTypes {
			allowed[t] = true
		}
	} else {
		order = append(order, "integer")
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range order {
		if !allowed[t] || seen[t] || t == "null" {
			continue
		}
		if t == "integer" && seen["number"] || t == "number" && !allowed["number"] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	if allowed["null"] {
		out = append(out, "null")
	}
	return out
}

// inferTypes guesses types from keywords of untyped schemas.
func inferTypes(ns []node) []string {
	var out []string
	for _, n := range ns {
		for k := range n.s {
			switch k {
			case "properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "propertyNames", "dependentRequired":
				out = append(out, "object")
			case "items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains":
				out = append(out, "array")
			case "minLength", "maxLength", "pattern", "format":
				out = append(out, "string")
			case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
				out = append(out, "number")
			}
		}
	}
	sort.Strings(out) // map order must not decide
	return out
}

func containsValue(l []any, v any) bool {
	if len(l) == 0 {
		return false
	}
	b := marshal(v)
	for _, e := range l {
		if bytes.Equal(marshal(e), b) {
			return true
		}
	}
	return false
}

// object builds an object: required properties, then (near the top only,
// to keep answers small, and unless minimal) the optional ones, then
// properties that dependentRequired or minProperties call for. A property
// not declared takes its schema from patternProperties or
// additionalProperties.
func (g *generator) object(ns []node, depth int, minimal bool) map[string]any {
	out := map[string]any{}
	var required []string
	var declared []string
	seen := map[string]bool{}
	for _, n := range ns {
		for _, r := range list(n.s, "required") {
			if name, ok := r.(string); ok && !seen[name] {
				seen[name] = true
				required = append(required, name)
			}
		}
	}
	dseen := map[string]bool{}
	for _, n := range ns {
		for _, name := range sortedKeys(obj(n.s, "properties")) {
			if !dseen[name] {
				dseen[name] = true
				declared = append(declared, name)
			}
		}
	}
	add := func(name string, req bool) {
		if _, done := out[name]; done {
			return
		}
		pn, ok := g.propNodes(ns, name)
		if !ok && !req {
			return
		}
		v, valid := g.gen(pn, depth+1, nil)
		if !valid && !req {
			return
		}
		out[name] = v
	}
	for _, name := range required {
		add(name, true)
	}
	if !minimal {
		for _, name := range declared {
			add(name, false)
		}
	}
	for pass := 0; pass < 2; pass++ {
		for _, n := range ns {
			dr := obj(n.s, "dependentRequired")
			for _, name := range sortedKeys(dr) {
				if _, ok := out[name]; !ok {
					continue
				}
				for _, d := range list(dr, name) {
					if s, ok := d.(string); ok {
						add(s, true)
					}
				}
			}
		}
	}
	minProps, maxProps := 0, -1
	for _, n := range ns {
		if v, ok := intValue(n.s["minProperties"]); ok && v > minProps {
			minProps = v
		}
		if v, ok := intValue(n.s["maxProperties"]); ok && (maxProps < 0 || v < maxProps) {
			maxProps = v
		}
	}
	for _, name := range declared {
		if len(out) >= minProps {
			break
		}
		add(name, false)
	}
	if minProps > 100 {
		minProps = 100
	}
	for _, name := range g.fillerNames(ns, minProps-len(out), out) {
		add(name, true)
	}
	if maxProps >= 0 && len(out) > maxProps {
		req := map[string]bool{}
		for _, r := range required {
			req[r] = true
		}
		keys := sortedKeys(out)
		for i := len(keys) - 1; i >= 0 && len(out) > maxProps; i-- {
			if !req[keys[i]] {
				delete(out, keys[i])
			}
		}
	}
	return out
}

// propNodes are the schemas property name of an object of ns must
// satisfy. ok is false when a schema forbids the property.
func (g *generator) propNodes(ns []node, name string) ([]node, bool) {
	var out []node
	esc := escapeToken(name)
	for _, n := range ns {
		matched := false
		if v, ok := obj(n.s, "properties")[name]; ok {
			matched = true
			sub, ok := subNode(v, n.ptr+"/properties/"+esc)
			if !ok {
				return nil, false
			}
			out = append(out, sub)
		}
		pp := obj(n.s, "patternProperties")
		for _, p := range sortedKeys(pp) {
			if re := g.regexp(p); re != nil && re.MatchString(name) {
				matched = true
				sub, ok := subNode(pp[p], n.ptr+"/patternProperties/"+escapeToken(p))
				if !ok {
					return nil, false
				}
				out = append(out, sub)
			}
		}
		if ap, ok := n.s["additionalProperties"]; ok && !matched {
			sub, ok := subNode(ap, n.ptr+"/additionalProperties")
			if !ok {
				return nil, false
			}
			out = append(out, sub)
		}
		if _, ok := n.s["propertyNames"]; ok {
			if s := g.compiled(n.ptr + "/propertyNames"); s != nil && s.Validate(name) != nil {
				return nil, false
			}
		}
	}
	return out, true
}

// fillerNames returns up to count new property names an object of ns
// allows: "key0", "key1"..., or names drawn from patternProperties.
func (g *generator) fillerNames(ns []node, count int, taken map[string]any) []string {
	if count <= 0 {
		return nil
	}
	var cands []string
	for i := 0; i < count+8; i++ {
		cands = append(cands, "key"+strconv.Itoa(i))
	}
	for _, n := range ns {
		for _, p := range sortedKeys(obj(n.s, "patternProperties")) {
			for i := 0; i < count+8; i++ {
				if s, ok := patternSample(p, 0, i, 0, false); ok {
					cands = append(cands, s)
				}
			}
		}
	}
	var out []string
	used := map[string]bool{}
	for _, c := range cands {
		if len(out) == count {
			break
		}
		if _, ok := taken[c]; ok || used[c] || !sanitize.SafeName(c) {
			continue
		}
		if _, ok := g.propNodes(ns, c); ok {
			used[c] = true
			out = append(out, c)
		}
	}
	return out
}

// array builds an array of one item (of minItems when more, none when
// minimal), each item generated from items or prefixItems, the first also
// from contains, and distinct from the others when uniqueItems.
func (g *generator) array(ns []node, depth int, minimal bool) []any {
	minItems, maxItems := 0, -1
	unique := false
	var contains []node
	for _, n := range ns {
		if v, ok := intValue(n.s["minItems"]); ok && v > minItems {
			minItems = v
		}
		if v, ok := intValue(n.s["maxItems"]); ok && (maxItems < 0 || v < maxItems) {
			maxItems = v
		}
		if n.s["uniqueItems"] == true {
			unique = true
		}
		if c, ok := n.s["contains"]; ok {
			if sub, ok := subNode(c, n.ptr+"/contains"); ok {
				contains = append(contains, sub)
			}
		}
	}
	count := minItems
	if count == 0 && (!minimal && depth < maxMockDepth || len(contains) > 0) {
		count = 1
	}
	if maxItems >= 0 && count > maxItems {
		count = maxItems
	}
	if count > 100 {
		count = 100
	}
	out := make([]any, 0, count)
	for i := 0; i < count; i++ {
		in, ok := itemNodes(ns, i)
		if !ok {
			break
		}
		if i == 0 {
			in = append(in, contains...)
		}
		var avoid []any
		if unique {
			avoid = out
		}
		v, _ := g.gen(in, depth+1, avoid)
		out = append(out, v)
	}
	return out
}

// itemNodes are the schemas item i of an array of ns must satisfy; ok is
// false when a schema forbids an item there.
func itemNodes(ns []node, i int) ([]node, bool) {
	var out []node
	for _, n := range ns {
		if pre, ok := n.s["prefixItems"].([]any); ok && i < len(pre) {
			sub, ok := subNode(pre[i], n.ptr+"/prefixItems/"+strconv.Itoa(i))
			if !ok {
				return nil, false
			}
			out = append(out, sub)
			continue
		}
		if it, ok := n.s["items"]; ok {
			sub, ok := subNode(it, n.ptr+"/items")
			if !ok {
				return nil, false
			}
			out = append(out, sub)
		}
	}
	return out, true
}

var formatSamples = map[string]string{
	"date-time":     "2024-01-02T03:04:05Z",
	"date":          "2024-01-02",
	"time":          "03:04:05Z",
	"email":         "user@example.com",
	"uri":           "https://example.com/resource",
	"url":           "https://example.com/resource",
	"uri-reference": "/resource",
	"hostname":      "example.com",
	"ipv4":          "192.0.2.1",
	"ipv6":          "2001:db8::1",
	"uuid":          "123e4567-e89b-12d3-a456-426614174000",
	"byte":          "ZXhhbXBsZQ==",
	"duration":      "PT1M",
}

// patternShapes are common shapes of patterned strings, tried when the
// pattern itself gives nothing that fits.
var patternShapes = []string{"a", "abc", "AB", "ABC", "A1", "1", "123", "abc-123", "a_b", "ab1", "v1.0.0", "2024-01-02", "x@example.com", "#ffffff"}

// str builds a string within the length bounds that matches every
// pattern: the format's sample or "example" when they fit, else one
// generated from a pattern; short strings are padded with a character the
// patterns accept. uniq > 0 asks for a variant distinct from earlier ones.
func (g *generator) str(ns []node, uniq int) string {
	minLen, maxLen := 0, -1
	var pats []*regexp.Regexp
	var srcs []string
	format := ""
	for _, n := range ns {
		if v, ok := intValue(n.s["minLength"]); ok && v > minLen {
			minLen = v
		}
		if v, ok := intValue(n.s["maxLength"]); ok && (maxLen < 0 || v < maxLen) {
			maxLen = v
		}
		if p, ok := n.s["pattern"].(string); ok {
			if re := g.regexp(p); re != nil {
				pats = append(pats, re)
				srcs = append(srcs, p)
			}
		}
		if f, ok := n.s["format"].(string); ok && format == "" {
			format = f
		}
	}
	fits := func(s string) bool {
		n := utf8.RuneCountInString(s)
		if n < minLen || maxLen >= 0 && n > maxLen {
			return false
		}
		for _, re := range pats {
			if !re.MatchString(s) {
				return false
			}
		}
		return true
	}
	fit := func(s string) (string, bool) {
		if fits(s) {
			return s, true
		}
		if n := utf8.RuneCountInString(s); n < minLen {
			for _, pad := range []string{"x", "0", "a", "A", "-", "_", ".", " "} {
				if p := s + strings.Repeat(pad, minLen-n); fits(p) {
					return p, true
				}
			}
		} else if maxLen >= 0 && n > maxLen {
			if r := string([]rune(s)[:maxLen]); fits(r) {
				return r, true
			}
		}
		return "", false
	}
	type cand struct {
		s       string
		varying bool // already differs with uniq
	}
	var cands []cand
	if f, ok := formatSamples[format]; ok {
		cands = append(cands, cand{s: f})
	}
	cands = append(cands, cand{s: "example"})
	for _, p := range srcs {
		for alt := 0; alt < 3; alt++ {
			for _, lean := range []bool{false, true} {
				if s, ok := patternSample(p, minLen, uniq, alt, lean); ok {
					cands = append(cands, cand{s, true})
				}
			}
		}
	}
	for _, s := range patternShapes {
		cands = append(cands, cand{s: s})
	}
	for _, c := range cands {
		// A pattern is the spec's text too: a string generated from
		// "^Ignore all previous instructions…$" is not shown.
		if c.varying && sanitize.HostileValue(c.s) {
			continue
		}
		if uniq > 0 && !c.varying {
			if s, ok := fit(c.s + strconv.Itoa(uniq)); ok {
				return s
			}
		}
		if s, ok := fit(c.s); ok {
			return s
		}
	}
	return cands[0].s
}

// patternSample generates a string that matches the regular expression p,
// of at least minLen characters when p lets a repetition grow. offset
// varies the characters picked from classes, alt the branch of
// alternations tried first; lean keeps every repetition at its minimum
// instead of at least one.
func patternSample(p string, minLen, offset, alt int, lean bool) (string, bool) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return "", false
	}
	r := &reGen{offset: offset, alt: alt, lean: lean}
	var b strings.Builder
	if !r.walk(re, &b, 0) {
		return "", false
	}
	s := b.String()
	if n := utf8.RuneCountInString(s); n < minLen {
		r = &reGen{offset: offset, alt: alt, lean: lean, extra: minLen - n}
		b.Reset()
		if !r.walk(re, &b, 0) {
			return "", false
		}
		s = b.String()
	}
	return s, true
}

// reGen walks a parsed regular expression, writing one string it matches.
type reGen struct {
	offset int
	alt    int
	lean   bool
	// extra is how many more characters repetitions should add.
	extra int
}

func (r *reGen) walk(re *syntax.Regexp, b *strings.Builder, k int) bool {
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		c, ok := classPick(re.Rune, r.offset+k)
		if !ok {
			return false
		}
		b.WriteRune(c)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(preferred[(r.offset+k)%26])
	case syntax.OpCapture:
		return r.walk(re.Sub[0], b, k)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !r.walk(s, b, k) {
				return false
			}
		}
	case syntax.OpAlternate:
		for i := range re.Sub {
			s := re.Sub[(i+r.alt)%len(re.Sub)]
			var sb strings.Builder
			save := r.extra
			if r.walk(s, &sb, k) {
				b.WriteString(sb.String())
				return true
			}
			r.extra = save
		}
		return false
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		count := lo
		if count == 0 && !r.lean && re.Op != syntax.OpQuest && hi != 0 {
			count = 1
		}
		if r.extra > 0 && (hi < 0 || hi > count) {
			var one strings.Builder
			probe := &reGen{offset: r.offset, alt: r.alt}
			if probe.walk(re.Sub[0], &one, k) {
				if n := utf8.RuneCountInString(one.String()); n > 0 {
					add := (r.extra + n - 1) / n
					if hi >= 0 && count+add > hi {
						add = hi - count
					}
					count += add
					r.extra -= add * n
				}
			}
		}
		for i := 0; i < count && i < 1000; i++ {
			if !r.walk(re.Sub[0], b, k+i) {
				return false
			}
		}
	}
	// Anchors and boundaries add nothing.
	return true
}

// preferred is the order characters are picked from a class in.
const preferred = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_."

// classPick returns the k-th (cyclically) preferred character of the class
// given as rune ranges.
func classPick(ranges []rune, k int) (rune, bool) {
	in := func(c rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if c >= ranges[i] && c <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	var picks []rune
	for _, c := range preferred {
		if in(c) {
			picks = append(picks, c)
		}
	}
	if len(picks) == 0 {
		for c := rune(0x21); c < 0x7f; c++ {
			if in(c) {
				picks = append(picks, c)
			}
		}
	}
	if len(picks) == 0 {
		for i := 0; i+1 < len(ranges); i += 2 {
			for c := ranges[i]; c <= ranges[i+1] && len(picks) < 16; c++ {
				if unicode.IsGraphic(c) || c == ' ' {
					picks = append(picks, c)
				}
			}
		}
	}
	if len(picks) == 0 {
		return 0, false
	}
	return picks[k%len(picks)], true
}

// number returns a number within the bounds: 1 when it fits, else the
// bound (one past it when exclusive), rounded up to a multiple of every
// multipleOf (down when that passes the upper bound). uniq > 0 moves it
// that many steps for a distinct value; frac asks for a number that is not
// an integer (to tell "number" from "integer" in a oneOf).
func (g *generator) number(ns []node, integer bool, uniq int, frac bool) json.Number {
	var lo, hi *big.Rat
	var loEx, hiEx bool
	var step *big.Rat
	if integer {
		step = big.NewRat(1, 1)
	}
	for _, n := range ns {
		if r, ok := ratOf(n.s["minimum"]); ok && (lo == nil || r.Cmp(lo) > 0) {
			lo, loEx = r, false
		}
		if r, ok := ratOf(n.s["exclusiveMinimum"]); ok && (lo == nil || r.Cmp(lo) >= 0) {
			lo, loEx = r, true
		}
		if r, ok := ratOf(n.s["maximum"]); ok && (hi == nil || r.Cmp(hi) < 0) {
			hi, hiEx = r, false
		}
		if r, ok := ratOf(n.s["exclusiveMaximum"]); ok && (hi == nil || r.Cmp(hi) <= 0) {
			hi, hiEx = r, true
		}
		if r, ok := ratOf(n.s["multipleOf"]); ok && r.Sign() > 0 {
			step = lcmRat(step, r)
		}
	}
	one := big.NewRat(1, 1)
	aboveLo := func(v *big.Rat) bool {
		if lo == nil {
			return true
		}
		c := v.Cmp(lo)
		return c > 0 || c == 0 && !loEx
	}
	belowHi := func(v *big.Rat) bool {
		if hi == nil {
			return true
		}
		c := v.Cmp(hi)
		return c < 0 || c == 0 && !hiEx
	}
	v := big.NewRat(1, 1)
	if lo != nil && !aboveLo(v) {
		v.Set(lo)
		if loEx {
			v.Add(v, one)
		}
	}
	if hi != nil && !belowHi(v) {
		v.Set(hi)
		if hiEx {
			v.Sub(v, one)
		}
		if lo != nil && !aboveLo(v) {
			v.Add(lo, hi)
			v.Quo(v, big.NewRat(2, 1))
		}
	}
	if step != nil {
		k := ratCeil(new(big.Rat).Quo(v, step))
		w := new(big.Rat).Mul(new(big.Rat).SetInt(k), step)
		if lo != nil && !aboveLo(w) {
			w.Add(w, step)
		}
		if hi != nil && !belowHi(w) {
			k = ratFloor(new(big.Rat).Quo(hi, step))
			w.Mul(new(big.Rat).SetInt(k), step)
			if !belowHi(w) {
				w.Sub(w, step)
			}
		}
		v = w
	}
	if frac && step == nil {
		half := big.NewRat(1, 2)
		if up := new(big.Rat).Add(v, half); belowHi(up) {
			v = up
		} else if down := new(big.Rat).Sub(v, half); aboveLo(down) {
			v = down
		}
	}
	if uniq > 0 {
		d := one
		if step != nil {
			d = step
		}
		d = new(big.Rat).Mul(d, big.NewRat(int64(uniq), 1))
		if up := new(big.Rat).Add(v, d); belowHi(up) {
			v = up
		} else if down := new(big.Rat).Sub(v, d); aboveLo(down) {
			v = down
		}
	}
	return json.Number(formatRat(v))
}

func ratOf(v any) (*big.Rat, bool) {
	switch t := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(t))
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(t) == nil {
			return nil, false
		}
		return r, true
	case int:
		return big.NewRat(int64(t), 1), true
	}
	return nil, false
}

func intValue(v any) (int, bool) {
	r, ok := ratOf(v)
	if !ok {
		return 0, false
	}
	f, _ := r.Float64()
	if f > 1e6 {
		f = 1e6
	}
	return int(f), true
}

// lcmRat is the least common multiple of positive rationals a and b (b
// alone when a is nil).
func lcmRat(a, b *big.Rat) *big.Rat {
	if a == nil {
		return new(big.Rat).Set(b)
	}
	num := new(big.Int).GCD(nil, nil, a.Num(), b.Num())
	num.Quo(new(big.Int).Mul(a.Num(), b.Num()), num)
	den := new(big.Int).GCD(nil, nil, a.Denom(), b.Denom())
	return new(big.Rat).SetFrac(num, den)
}

func ratFloor(r *big.Rat) *big.Int {
	q := new(big.Int)
	m := new(big.Int)
	q.DivMod(r.Num(), r.Denom(), m) // Euclidean: floors for a positive denominator
	return q
}

func ratCeil(r *big.Rat) *big.Int {
	q := ratFloor(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// formatRat writes r as a JSON number, exactly when it has a finite
// decimal expansion.
func formatRat(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	for prec := 1; prec <= 30; prec++ {
		s := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return s
		}
	}
	return r.FloatString(12)
}

// escapeToken escapes one JSON pointer token.
func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
