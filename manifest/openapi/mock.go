package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

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
// schema (valid against it whenever the schema is satisfiable by the
// generator's rules), else {"status": N} for an operation without a
// response schema.
func MockResponse(op *Op) json.RawMessage {
	if len(op.Output) == 0 {
		if len(op.Example) > 0 {
			return op.Example
		}
		status := op.OKStatus
		if status == 0 {
			status = 200
		}
		return marshal(map[string]any{"status": status})
	}
	validator := compileOutput(op.Output)
	if len(op.Example) > 0 && (validator == nil || validates(validator, op.Example)) {
		return op.Example
	}
	var schema map[string]any
	dec := json.NewDecoder(bytes.NewReader(op.Output))
	dec.UseNumber()
	if err := dec.Decode(&schema); err != nil {
		return marshal(map[string]any{})
	}
	g := &generator{root: schema}
	return marshal(g.value(schema, 0))
}

func compileOutput(raw json.RawMessage) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource("mem:///output.json", doc); err != nil {
		return nil
	}
	s, err := c.Compile("mem:///output.json")
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

type generator struct {
	root map[string]any
}

const maxMockDepth = 12

// value generates a value that satisfies schema s as far as its keywords
// allow: const, then examples, default and enum; then by type, honouring
// required properties, bounds, lengths and common formats.
func (g *generator) value(s map[string]any, depth int) any {
	if ref, ok := s["$ref"].(string); ok {
		if depth > maxMockDepth {
			return nil
		}
		if t, ok := resolvePointer(g.root, ref); ok {
			if tm, ok := t.(map[string]any); ok {
				return g.value(tm, depth+1)
			}
		}
		return nil
	}
	if v, ok := s["const"]; ok {
		return v
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 && ex[0] != nil {
		return ex[0]
	}
	if v, ok := s["default"]; ok {
		return v
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if all, ok := s["allOf"].([]any); ok && len(all) > 0 {
		merged := map[string]any{}
		for _, sub := range all {
			if m, ok := g.value(asMap(sub), depth+1).(map[string]any); ok {
				for k, v := range m {
					merged[k] = v
				}
			} else if len(all) == 1 {
				return g.value(asMap(sub), depth+1)
			}
		}
		if own := g.object(s, depth); own != nil {
			for k, v := range own {
				merged[k] = v
			}
		}
		return merged
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if l, ok := s[k].([]any); ok && len(l) > 0 {
			return g.value(asMap(l[0]), depth+1)
		}
	}
	switch typeOf(s) {
	case "object":
		if depth > maxMockDepth {
			return map[string]any{}
		}
		return g.object(s, depth)
	case "array":
		n := intKey(s, "minItems", 0)
		if n == 0 && depth < maxMockDepth {
			n = 1
		}
		if max, ok := s["maxItems"]; ok && intOf(max) < n {
			n = intOf(max)
		}
		items := asMap(s["items"])
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			v := g.value(items, depth+1)
			if i > 0 && s["uniqueItems"] == true {
				v = distinct(v, i)
			}
			out = append(out, v)
		}
		return out
	case "string":
		return g.str(s)
	case "integer":
		return number(s, true)
	case "number":
		return number(s, false)
	case "boolean":
		return true
	case "null":
		return nil
	}
	if _, ok := s["properties"]; ok {
		return g.object(s, depth)
	}
	return "example"
}

func (g *generator) object(s map[string]any, depth int) map[string]any {
	out := map[string]any{}
	props := asMap(s["properties"])
	required := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, v := range r {
			if name, ok := v.(string); ok {
				required[name] = true
			}
		}
	}
	for _, name := range sortedKeys(props) {
		// Optional properties are filled near the top only, to keep
		// answers small.
		if required[name] || depth < 2 {
			out[name] = g.value(asMap(props[name]), depth+1)
		}
	}
	for name := range required {
		if _, ok := out[name]; !ok {
			out[name] = "example"
		}
	}
	if min := intKey(s, "minProperties", 0); len(out) < min {
		for i := len(out); i < min; i++ {
			out[fmt.Sprintf("key%d", i)] = "example"
		}
	}
	return out
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

func (g *generator) str(s map[string]any) string {
	v := "example"
	if f, ok := formatSamples[fmt.Sprint(s["format"])]; ok {
		v = f
	}
	if p, ok := s["pattern"].(string); ok {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(v) {
			if alt := sampleForPattern(p); re.MatchString(alt) {
				v = alt
			}
		}
	}
	min := intKey(s, "minLength", 0)
	for len([]rune(v)) < min {
		v += "x"
	}
	if max, ok := s["maxLength"]; ok {
		if r := []rune(v); len(r) > intOf(max) {
			v = string(r[:intOf(max)])
		}
	}
	return v
}

// sampleForPattern tries a few common shapes for patterned strings.
func sampleForPattern(p string) string {
	for _, c := range []string{"a", "abc", "AB", "ABC", "A1", "1", "123", "abc-123", "a_b", "ab1", "v1.0.0", "2024-01-02", "x@example.com", "#ffffff"} {
		if re, err := regexp.Compile(p); err == nil && re.MatchString(c) {
			return c
		}
	}
	return "example"
}

func number(s map[string]any, integer bool) any {
	v := 1.0
	if m, ok := s["minimum"]; ok {
		v = floatOf(m)
	}
	if m, ok := s["exclusiveMinimum"]; ok {
		v = floatOf(m) + 1
	}
	if m, ok := s["maximum"]; ok && v > floatOf(m) {
		v = floatOf(m)
	}
	if m, ok := s["exclusiveMaximum"]; ok && v >= floatOf(m) {
		v = floatOf(m) - 1
	}
	if mo, ok := s["multipleOf"]; ok {
		if step := floatOf(mo); step > 0 {
			v = float64(int64(v/step)) * step
		}
	}
	if integer {
		return json.Number(fmt.Sprint(int64(v)))
	}
	return json.Number(fmt.Sprint(v))
}

func distinct(v any, i int) any {
	switch t := v.(type) {
	case string:
		return fmt.Sprintf("%s%d", t, i)
	case json.Number:
		return json.Number(fmt.Sprint(floatOf(t) + float64(i)))
	}
	return v
}

func typeOf(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if e != "null" {
				return fmt.Sprint(e)
			}
		}
		return "null"
	}
	return ""
}

func asMap(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

func floatOf(v any) float64 {
	switch t := v.(type) {
	case json.Number:
		f, _ := t.Float64()
		return f
	case float64:
		return t
	case int:
		return float64(t)
	}
	return 0
}

func intOf(v any) int { return int(floatOf(v)) }

func intKey(s map[string]any, k string, def int) int {
	if v, ok := s[k]; ok {
		return intOf(v)
	}
	return def
}

// isMockURL reports whether u is the placeholder base of mock mode.
func isMockURL(u string) bool { return strings.HasPrefix(u, mockBaseURL) }
