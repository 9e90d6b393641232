package operations

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/buger/jsonparser"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Problem is one reason arguments do not fit a schema.
type Problem struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value within
	// the arguments; "" is the whole argument object.
	Pointer string `json:"pointer"`
	// Message says what is wrong, in English.
	Message string `json:"message"`
}

// ValidationError lists every problem found in a set of arguments.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "/"
		}
		parts[i] = ptr + ": " + p.Message
	}
	return "invalid arguments: " + strings.Join(parts, "; ")
}

// noLoader refuses every external reference: schemas from outside must not
// make the server read files or reach the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q is not allowed; bundle it under $defs", url)
}

const schemaURL = "mem:///input.json"

// compileObjectSchema compiles raw as a JSON Schema (2020-12 unless it names
// another draft) whose root describes a JSON object.
func compileObjectSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if err := objectRoot(doc); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// checkObjectRoot checks, without compiling and without decoding nested
// values, that raw is a JSON object whose "type", if any, allows "object".
// It is the cheap check of deferred registration; compilation later checks
// the rest.
func checkObjectRoot(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("not valid JSON: %w", err)
		}
		return objectRoot(v)
	}
	t, dt, _, err := jsonparser.Get(raw, "type")
	switch {
	case errors.Is(err, jsonparser.KeyPathNotFoundError):
		return nil
	case err != nil:
		return fmt.Errorf("not valid JSON: %w", err)
	}
	var typ any
	switch dt {
	case jsonparser.String:
		typ = string(t)
	case jsonparser.Array:
		var arr []any
		if err := json.Unmarshal(t, &arr); err != nil {
			return fmt.Errorf("not valid JSON: %w", err)
		}
		typ = arr
	default:
		return fmt.Errorf("root must be an object schema, got type %s", t)
	}
	if !typeAllowsObject(typ) {
		return fmt.Errorf("root must be an object schema, got type %v", typ)
	}
	return nil
}

func objectRoot(doc any) error {
	obj, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("root must be an object schema, got %s", jsonTypeName(doc))
	}
	if t, present := obj["type"]; present && !typeAllowsObject(t) {
		return fmt.Errorf("root must be an object schema, got type %v", t)
	}
	return nil
}

func typeAllowsObject(t any) bool {
	switch v := t.(type) {
	case string:
		return v == "object"
	case []any:
		for _, x := range v {
			if s, _ := x.(string); s == "object" {
				return true
			}
		}
	}
	return false
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return "number"
	}
}

var printer = message.NewPrinter(language.English)

// validate checks args against s and converts the library's error tree to a
// flat, sorted list of problems at the leaves.
func validate(s *jsonschema.Schema, args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return &ValidationError{Problems: []Problem{{Pointer: "", Message: "arguments are not valid JSON: " + err.Error()}}}
	}
	err = s.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ValidationError{Problems: []Problem{{Message: err.Error()}}}
	}
	var probs []Problem
	seen := map[Problem]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			p := Problem{Pointer: pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer)}
			if !seen[p] {
				seen[p] = true
				probs = append(probs, p)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Pointer < probs[j].Pointer })
	return &ValidationError{Problems: probs}
}

func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}
