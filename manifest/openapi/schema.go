package openapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/intentsrv/intentsrv/manifest/sanitize"
)

// Depth caps for generated schemas, counted in nested property, item and
// combinator levels from the operation's root.
const (
	DefaultInputDepth  = 12
	DefaultOutputDepth = 4
)

// CutKey marks a schema replaced because it was nested deeper than the cap.
const CutKey = "x-intentsrv-cut"

// keep lists the JSON Schema keywords copied into generated schemas. Any
// other key (OpenAPI's discriminator, xml, externalDocs, vendor
// extensions, $id and $schema that would re-root references) is dropped.
var keep = map[string]bool{
	"type": true, "enum": true, "const": true, "default": true, "format": true,
	"minimum": true, "maximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"uniqueItems": true, "minProperties": true, "maxProperties": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
	"contentMediaType": true, "contentEncoding": true,
	"dependentRequired": true, "minContains": true, "maxContains": true,
}

// policyKeywords are the keywords whose values the value policy checks
// (see sanitize.HostileValue), in the order their warnings are given.
var policyKeywords = []string{"enum", "const", "default", "pattern"}

// subschemaMaps are keywords whose value maps names to schemas.
var subschemaMaps = []string{"properties", "patternProperties", "dependentSchemas"}

// subschemaSingles are keywords whose value is one schema.
var subschemaSingles = []string{"items", "additionalProperties", "not", "propertyNames", "contains", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems"}

// subschemaLists are keywords whose value is a list of schemas.
var subschemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems"}

// schemaBuilder converts OpenAPI schemas of one operation into one JSON
// Schema 2020-12 document, hoisting every referenced component schema into
// $defs.
type schemaBuilder struct {
	root     map[string]any
	version  int  // 2 or 3
	v31      bool // OpenAPI 3.1: schemas are JSON Schema already
	maxDepth int
	input    bool // input schemas drop readOnly properties from required

	defs  map[string]any
	names map[string]string // ref -> def name
	taken map[string]string // def name -> ref
	// refusedRequired lists required property names dropped by the name
	// policy (see unsafeProps): an input schema with one cannot be
	// satisfied, so its operation is refused.
	refusedRequired []string
	warnings        *[]string
	texts           *textCache
	// textDepth is the deepest level whose descriptions and examples are
	// kept (output schemas keep only the top levels' prose).
	textDepth int
}

func newSchemaBuilder(p *parser, maxDepth int, input bool) *schemaBuilder {
	return &schemaBuilder{
		root: p.root, version: p.major, v31: p.v31, maxDepth: maxDepth, input: input,
		warnings: &p.warnings, texts: p.texts, textDepth: maxDepth,
	}
}

// textCache memoises sanitising and the policy checks for one parse: big
// specs repeat the same descriptions, names and values across hundreds of
// operations, and a shared component is converted again for every
// operation that refers to it. Safe for the parse's concurrent builders.
type textCache struct {
	mu     sync.Mutex
	m      map[textKey]string
	values map[textKey]cleanValue
	// names memoises sanitize.NameProblem, hostiles sanitize.HostileValue
	// and defNames the package's defName.
	names    map[string]string
	hostiles map[string]bool
	defNames map[string]string
}

// memo returns f's value for key k, computed once per cache: *m holds the
// values computed so far, under c.mu (f runs outside it).
func memo[K comparable, V any](c *textCache, m *map[K]V, k K, f func() V) V {
	c.mu.Lock()
	v, ok := (*m)[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = f()
	c.mu.Lock()
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
	c.mu.Unlock()
	return v
}

func (c *textCache) nameProblem(name string) string {
	return memo(c, &c.names, name, func() string { return sanitize.NameProblem(name) })
}

func (c *textCache) hostileValue(s string) bool {
	return memo(c, &c.hostiles, s, func() bool { return sanitize.HostileValue(s) })
}

func (c *textCache) defName(ref string) string {
	return memo(c, &c.defNames, ref, func() string { return defName(ref) })
}

type textKey struct {
	s   string
	max int
}

// cleanValue is the memoised sanitize.Value of one string of an example.
type cleanValue struct {
	s  string
	ok bool
}

func (c *textCache) clean(s string, max int) string {
	if s == "" {
		return ""
	}
	return memo(c, &c.m, textKey{s: s, max: max}, func() string { return sanitize.Clean(s, max) })
}

// value memoises sanitize.Value.
func (c *textCache) value(s string, max int) (string, bool) {
	if s == "" {
		return "", true
	}
	v := memo(c, &c.values, textKey{s: s, max: max}, func() cleanValue {
		var v cleanValue
		v.s, v.ok = sanitize.Value(s, max)
		return v
	})
	return v.s, v.ok
}

func (c *textCache) line(s string, max int) string {
	return c.clean(strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " "), max)
}

// cutSchema is what replaces a schema nested past the cap: it accepts any
// value and says why.
func cutSchema(depth int) map[string]any {
	return map[string]any{
		CutKey:        true,
		"description": fmt.Sprintf("[schema cut at depth %d: any value accepted; see the source spec]", depth),
	}
}

// defsInto attaches the hoisted definitions to schema s.
func (b *schemaBuilder) defsInto(s map[string]any) {
	if len(b.defs) > 0 {
		s["$defs"] = b.defs
	}
}

// convert turns one OpenAPI schema node into JSON Schema.
func (b *schemaBuilder) convert(node any, depth int) any {
	switch n := node.(type) {
	case bool:
		return n
	case map[string]any:
		return b.convertMap(n, depth, nil)
	default:
		return map[string]any{}
	}
}

func (b *schemaBuilder) convertMap(n map[string]any, depth int, seen map[string]bool) any {
	if depth > b.maxDepth {
		return cutSchema(b.maxDepth)
	}
	if ref, ok := n["$ref"].(string); ok {
		out := b.refSchema(ref, depth)
		if b.v31 {
			// 3.1 allows keywords beside $ref; keep the description.
			if d := str(n, "description"); d != "" {
				if m, ok := out.(map[string]any); ok {
					m2 := map[string]any{"$ref": m["$ref"], "description": b.texts.clean(d, sanitize.SchemaTextMax)}
					if _, isRef := m["$ref"]; isRef {
						return m2
					}
				}
			}
		}
		return out
	}
	if all := list(n, "allOf"); len(all) > 0 {
		if merged, ok := b.mergeAllOf(n, all, seen); ok {
			n = merged
		}
	}
	out := make(map[string]any, len(n))
	// The keywords whose values the value policy may drop, with a
	// warning, in this order: warnings come out the same on every parse.
	for _, k := range policyKeywords {
		v, ok := n[k]
		if !ok {
			continue
		}
		switch k {
		case "enum":
			if l, ok := v.([]any); ok {
				if e := b.enumMembers(l); len(e) > 0 {
					out[k] = e
				}
			} else {
				out[k] = v
			}
		case "const", "default":
			if b.texts.hostile(v) {
				b.warn(PolicyWarning+"schema %s dropped: it hides text or reads as an instruction to a model", k)
				continue
			}
			out[k] = v
		case "pattern":
			if s, ok := v.(string); ok && patternCompiles(s) {
				// A pattern is shown by describe and drives mock strings:
				// one that reads as an instruction is a value like any other.
				if b.texts.hostileValue(s) {
					b.warn(PolicyWarning + "schema pattern dropped: it hides text or reads as an instruction to a model")
					continue
				}
				out[k] = s
			}
		}
	}
	for k, v := range n {
		switch {
		case slices.Contains(policyKeywords, k):
			// handled above
		case keep[k]:
			out[k] = v
		case k == "description" || k == "title":
			if depth > b.textDepth {
				continue
			}
			if s, ok := v.(string); ok {
				if c := b.texts.clean(s, sanitize.SchemaTextMax); c != "" {
					out[k] = c
				}
			}
		case k == "required":
			if l, ok := v.([]any); ok {
				out[k] = l
			}
		case k == "example":
			if _, has := n["examples"]; !has && depth <= b.textDepth {
				if ex := b.examples([]any{v}); len(ex) > 0 {
					out["examples"] = ex
				}
			}
		case k == "examples":
			if depth > b.textDepth {
				continue
			}
			var l []any
			if list, ok := v.([]any); ok {
				l = list
			} else if m, ok := v.(map[string]any); ok && len(m) > 0 {
				// Some 3.0 specs put an OpenAPI examples map here.
				keys := sortedKeys(m)
				if ex, ok := m[keys[0]].(map[string]any); ok {
					if val, ok := ex["value"]; ok {
						l = []any{val}
					}
				}
			}
			if ex := b.examples(l); len(ex) > 0 {
				out[k] = ex
			}
		case k == "exclusiveMinimum" || k == "exclusiveMaximum":
			if bv, ok := v.(bool); ok {
				bound := "minimum"
				if k == "exclusiveMaximum" {
					bound = "maximum"
				}
				if bv {
					if lim, ok := n[bound]; ok {
						out[k] = lim
						defer delete(out, bound)
					}
				}
			} else {
				out[k] = v
			}
		}
	}
	// Swagger 2.0 "file" and vendor nullable.
	if t, _ := out["type"].(string); t == "file" {
		out["type"] = "string"
		out["format"] = "binary"
	}
	nullable, _ := boolean(n, "nullable")
	if xn, ok := boolean(n, "x-nullable"); ok && xn {
		nullable = true
	}
	dropped := b.unsafeProps(n)
	for _, k := range subschemaMaps {
		if m := obj(n, k); m != nil {
			props := make(map[string]any, len(m))
			// In name order: a definition is hoisted at the depth where it
			// is first met, so the walk's order decides where the depth cap
			// cuts it; map order would make the output vary between runs.
			for _, name := range sortedKeys(m) {
				sub := m[name]
				if b.input && k == "properties" && readOnly(b.root, sub) {
					continue
				}
				if k != "patternProperties" && dropped[name] {
					continue
				}
				props[name] = b.convert(sub, depth+1)
			}
			out[k] = props
		}
	}
	if len(dropped) > 0 {
		if req, ok := out["required"].([]any); ok {
			kept := make([]any, 0, len(req))
			for _, r := range req {
				if name, _ := r.(string); !dropped[name] {
					kept = append(kept, r)
				}
			}
			out["required"] = kept
		}
	}
	if b.input {
		if req, ok := out["required"].([]any); ok {
			if props, ok := out["properties"].(map[string]any); ok && obj(n, "properties") != nil {
				kept := make([]any, 0, len(req))
				for _, r := range req {
					name, _ := r.(string)
					if _, ok := props[name]; ok || obj(n, "properties")[name] == nil {
						kept = append(kept, r)
					}
				}
				out["required"] = kept
			}
		}
	}
	for _, k := range subschemaSingles {
		if v, ok := n[k]; ok {
			switch sub := v.(type) {
			case bool:
				out[k] = sub
			case map[string]any:
				out[k] = b.convert(sub, depth+1)
			case []any:
				if k == "items" { // draft-4 tuple form
					items := make([]any, len(sub))
					for i, s := range sub {
						items[i] = b.convert(s, depth+1)
					}
					out["prefixItems"] = items
				}
			}
		}
	}
	for _, k := range subschemaLists {
		if l := list(n, k); l != nil {
			subs := make([]any, len(l))
			for i, s := range l {
				subs[i] = b.convert(s, depth+1)
			}
			out[k] = subs
		}
	}
	if nullable && !b.v31 {
		makeNullable(out)
	}
	// OpenAPI 3.0 and 2.0 treat a schema with properties but no type as an
	// object; say so explicitly for mock generation and describe.
	if _, has := out["type"]; !has {
		if _, hasProps := out["properties"]; hasProps {
			out["type"] = "object"
		}
	}
	return out
}

// Schema values are shown to agents by describe, so they are sanitised
// like descriptions, with two differences (see sanitize.HostileValue):
//
//   - An example is only an illustration. It is shown cleaned (markup,
//     link targets and invisible characters removed from each string in
//     it), and dropped whole when any string in it is hostile or when
//     nothing is left of a string example.
//   - An enum member, a const and a default are the API's own values: an
//     agent must send an enum member byte for byte, so one is never
//     rewritten. A hostile one (markup that hides text, or a sentence that
//     instructs the model) is dropped with a warning instead: no real API
//     needs an agent to send "ignore all previous instructions", and
//     dropping it keeps what describe shows identical to what is validated.
//     A harmless member with odd characters (" no", "&#10003;", "⬅️") is
//     kept as it is.

// unsafeProps returns the property names of schema n that the name policy
// refuses (sanitize.NameProblem), with a warning for each. Such a name is
// dropped from the schema shown and validated: an optional one can no
// longer be sent, and a required one of an input schema is recorded in
// refusedRequired, which refuses the whole operation (a request without
// it would be wrong, and one with it would put the name before the agent).
// Renaming is not offered: the agent would then see a name that is not
// the API's, and every nested body would need a map back.
func (b *schemaBuilder) unsafeProps(n map[string]any) map[string]bool {
	var dropped map[string]bool
	for _, k := range []string{"properties", "dependentSchemas"} {
		props := obj(n, k)
		if !b.anyNameProblem(props) {
			continue
		}
		// In name order, so that the warnings, and the refused required
		// property an operation's error names, are the same on every parse.
		for _, name := range sortedKeys(props) {
			problem := b.texts.nameProblem(name)
			if problem == "" {
				continue
			}
			if dropped == nil {
				dropped = map[string]bool{}
			}
			if dropped[name] {
				continue
			}
			dropped[name] = true
			required := false
			for _, r := range list(n, "required") {
				if r == name {
					required = true
				}
			}
			if b.input && required {
				b.refusedRequired = append(b.refusedRequired, name)
			} else {
				b.warn(PolicyWarning+"schema property %q dropped (%s); it cannot be sent or shown", clipName(name), problem)
			}
		}
	}
	return dropped
}

// anyNameProblem reports whether a key of m breaks the name policy.
func (b *schemaBuilder) anyNameProblem(m map[string]any) bool {
	for name := range m {
		if b.texts.nameProblem(name) != "" {
			return true
		}
	}
	return false
}

// examples returns the examples of l that may be shown, cleaned.
func (b *schemaBuilder) examples(l []any) []any {
	if len(l) == 0 {
		return nil
	}
	out := make([]any, 0, len(l))
	for _, e := range l {
		if s, isStr := e.(string); isStr {
			c, ok := b.texts.value(s, sanitize.SchemaTextMax)
			if ok && (c != "" || s == "") {
				out = append(out, c)
			}
			continue
		}
		if c, ok := b.exampleValue(e, 0, sanitize.SchemaTextMax); ok {
			out = append(out, c)
		}
	}
	return out
}

// exampleValue cleans every string inside one structured example, each
// capped at max runes; ok is false when one of them is hostile or a key
// breaks the name policy (sanitize.NameProblem).
func (b *schemaBuilder) exampleValue(v any, depth, max int) (any, bool) {
	return policyValue(v, depth, func(s string) (string, bool) { return b.texts.value(s, max) })
}

// policyValue applies the outside-text policy to a structured value: each
// string through value, each key through the name grammar. ok is false
// when one string or key is refused: the value is then not shown at all.
func policyValue(v any, depth int, value func(string) (string, bool)) (any, bool) {
	if depth > 64 {
		return nil, false
	}
	switch t := v.(type) {
	case string:
		return value(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, ok := policyValue(e, depth+1, value)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if !sanitize.SafeName(k) {
				return nil, false
			}
			c, ok := policyValue(e, depth+1, value)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	}
	return v, true
}

// enumMembers returns the members of an enum that may be shown, unchanged.
func (b *schemaBuilder) enumMembers(l []any) []any {
	bad := 0
	for _, e := range l {
		if b.texts.hostile(e) {
			bad++
		}
	}
	if bad == 0 {
		return l
	}
	out := make([]any, 0, len(l)-bad)
	for _, e := range l {
		if !b.texts.hostile(e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		b.warn(PolicyWarning + "schema enum dropped: every member hides text or reads as an instruction to a model; any value of the type is accepted")
	} else {
		b.warn(PolicyWarning+"schema enum: %d member(s) dropped: they hide text or read as instructions to a model", bad)
	}
	return out
}

// hostile reports a value with a hostile string, or a key the name policy
// refuses, in it; its strings' and keys' verdicts are memoised.
func (c *textCache) hostile(v any) bool {
	switch t := v.(type) {
	case string:
		return c.hostileValue(t)
	case []any:
		for _, e := range t {
			if c.hostile(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range t {
			if c.nameProblem(k) != "" || c.hostile(e) {
				return true
			}
		}
	}
	return false
}

// readOnly reports whether a property schema (or what it references) is
// marked readOnly: such properties are not sent in requests.
func readOnly(root map[string]any, sub any) bool {
	m, ok := sub.(map[string]any)
	if !ok {
		return false
	}
	if ro, ok := boolean(m, "readOnly"); ok {
		return ro
	}
	return false
}

// makeNullable lets a converted schema also accept null.
func makeNullable(out map[string]any) {
	switch t := out["type"].(type) {
	case string:
		out["type"] = []any{t, "null"}
	case []any:
		for _, e := range t {
			if e == "null" {
				return
			}
		}
		out["type"] = append(append([]any(nil), t...), "null")
	}
	if e, ok := out["enum"].([]any); ok {
		for _, v := range e {
			if v == nil {
				return
			}
		}
		out["enum"] = append(append([]any(nil), e...), nil)
	}
}

// refSchema hoists the schema at ref into $defs and returns a reference to
// it.
func (b *schemaBuilder) refSchema(ref string, depth int) any {
	if name, ok := b.names[ref]; ok {
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	target, ok := resolvePointer(b.root, ref)
	if !ok {
		b.warn("unresolved reference %q: replaced by a schema that accepts any value", ref)
		return map[string]any{"description": "[unresolved reference " + sanitize.Line(ref, 120) + ": any value accepted]"}
	}
	if b.names == nil {
		b.names = map[string]string{}
		b.taken = map[string]string{}
		b.defs = map[string]any{}
	}
	base := b.texts.defName(ref)
	name := base
	for i := 2; ; i++ {
		if _, clash := b.taken[name]; !clash {
			break
		}
		name = base + "_" + strconv.Itoa(i)
	}
	b.names[ref] = name
	b.taken[name] = ref
	// Registered before conversion, so a circular reference becomes a
	// $ref to the definition being built.
	b.defs[name] = map[string]any{}
	b.defs[name] = b.convert(target, depth)
	return map[string]any{"$ref": "#/$defs/" + name}
}

var reDefName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// defName is the $defs key for the component at ref: its name with
// characters outside [A-Za-z0-9_.-] replaced. A name the name grammar
// refuses ("IgnoreAllPreviousInstructions") becomes "schema": a $defs key
// is intentsrv's own, never sent back, so it can be replaced freely.
func defName(ref string) string {
	i := strings.LastIndexByte(ref, '/')
	name := ref[i+1:]
	name = strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
	name = reDefName.ReplaceAllString(name, "_")
	if name == "" || !sanitize.SafeName(name) {
		name = "schema"
	}
	return name
}

// mergeAllOf flattens allOf into one object schema when every member is a
// plain object schema (properties, required, type object, text), so
// describe shows one list of properties instead of a chain of references.
// It reports false when a member needs real composition; the allOf is then
// kept as it is.
func (b *schemaBuilder) mergeAllOf(n map[string]any, all []any, seen map[string]bool) (map[string]any, bool) {
	members := make([]map[string]any, 0, len(all))
	var flatten func(list []any, depth int) bool
	if seen == nil {
		seen = map[string]bool{}
	}
	flatten = func(items []any, depth int) bool {
		if depth > 8 {
			return false
		}
		for _, item := range items {
			m, ok := item.(map[string]any)
			if !ok {
				return false
			}
			if ref, ok := m["$ref"].(string); ok {
				if seen[ref] {
					return false
				}
				seen[ref] = true
				t, ok := resolvePointer(b.root, ref)
				tm, isMap := t.(map[string]any)
				if !ok || !isMap {
					return false
				}
				m = tm
			}
			if sub := list(m, "allOf"); len(sub) > 0 {
				rest := make(map[string]any, len(m))
				for k, v := range m {
					if k != "allOf" {
						rest[k] = v
					}
				}
				if !flatten(sub, depth+1) {
					return false
				}
				m = rest
			}
			members = append(members, m)
		}
		return true
	}
	if !flatten(all, 0) {
		return nil, false
	}
	merged := map[string]any{}
	props := map[string]any{}
	var required []any
	reqSeen := map[string]bool{}
	allowed := map[string]bool{"type": true, "properties": true, "required": true, "description": true, "title": true, "example": true, "examples": true, "nullable": true, "readOnly": true, "writeOnly": true, "deprecated": true}
	for k, v := range n {
		if k != "allOf" {
			merged[k] = v
		}
	}
	for _, m := range append(members, n) {
		for k := range m {
			if !allowed[k] && k != "allOf" && !strings.HasPrefix(k, "x-") {
				return nil, false
			}
		}
		if t, ok := m["type"]; ok && t != "object" {
			return nil, false
		}
		for name, p := range obj(m, "properties") {
			if prev, dup := props[name]; dup {
				props[name] = map[string]any{"allOf": []any{prev, p}}
			} else {
				props[name] = p
			}
		}
		for _, r := range list(m, "required") {
			if s, ok := r.(string); ok && !reqSeen[s] {
				reqSeen[s] = true
				required = append(required, s)
			}
		}
		if _, ok := merged["description"]; !ok {
			if d := str(m, "description"); d != "" {
				merged["description"] = d
			}
		}
	}
	merged["type"] = "object"
	if len(props) > 0 {
		merged["properties"] = props
	}
	if len(required) > 0 {
		merged["required"] = required
	}
	return merged, true
}

var patternCache sync.Map // pattern -> bool

// patternCompiles reports whether the regexp engine of the validator (Go's
// RE2 syntax) accepts pattern. ECMA-only patterns (look-ahead, back
// references) are dropped rather than failing the operation.
func patternCompiles(p string) bool {
	if v, ok := patternCache.Load(p); ok {
		return v.(bool)
	}
	_, err := regexp.Compile(p)
	patternCache.Store(strings.Clone(p), err == nil) // p may share the whole document's memory
	return err == nil
}

func (b *schemaBuilder) warn(format string, args ...any) {
	if b.warnings != nil && len(*b.warnings) < 200 {
		*b.warnings = append(*b.warnings, fmt.Sprintf(format, args...))
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// marshal encodes a generated schema. Map keys come out sorted, so the
// same spec always yields the same bytes.
func marshal(v any) json.RawMessage {
	raw, err := appendJSON(nil, v)
	if err != nil {
		// Only NaN/Inf could cause this, and decode never produces them.
		return json.RawMessage(`{}`)
	}
	return raw
}
