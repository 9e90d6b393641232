package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ErrNotOpenAPI is wrapped by errors about a document that is neither a
// Swagger 2.0 nor an OpenAPI 3.x document.
var ErrNotOpenAPI = errors.New("not an OpenAPI document")

// maxDocBytes bounds the size of a document Parse accepts.
const maxDocBytes = 256 << 20

// decodeDocument decodes JSON or YAML into a tree of map[string]any,
// []any, string, bool, nil and json.Number.
func decodeDocument(data []byte) (map[string]any, error) {
	if len(data) > maxDocBytes {
		return nil, fmt.Errorf("document is %d bytes; the limit is %d", len(data), maxDocBytes)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	trimmed = bytes.TrimPrefix(trimmed, []byte("\xef\xbb\xbf"))
	var root any
	if len(trimmed) > 0 && trimmed[0] == '{' {
		v, err := decodeJSONTree(trimmed)
		if err != nil {
			return nil, fmt.Errorf("decode JSON: %w", err)
		}
		root = v
	} else {
		var v any
		if err := yaml.Unmarshal(trimmed, &v); err != nil {
			return nil, fmt.Errorf("decode YAML: %w", err)
		}
		n, err := normalizeYAML(v, 0)
		if err != nil {
			return nil, err
		}
		root = n
	}
	m, ok := root.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the root is not a mapping", ErrNotOpenAPI)
	}
	return m, nil
}

// normalizeYAML converts what yaml.v3 produces for an interface{} target
// into the JSON tree shape: string keys, json.Number numbers, RFC 3339
// strings for timestamps.
func normalizeYAML(v any, depth int) (any, error) {
	if depth > 512 {
		return nil, fmt.Errorf("decode YAML: nesting deeper than 512 levels")
	}
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			n, err := normalizeYAML(e, depth+1)
			if err != nil {
				return nil, err
			}
			t[k] = n
		}
		return t, nil
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			key := fmt.Sprint(k)
			if _, dup := m[key]; dup {
				// 1 and 1.0 are two YAML keys but one JSON key: which
				// value the spec means cannot be told.
				return nil, fmt.Errorf("decode YAML: two keys of one mapping read as %q (such as 1 and 1.0); keep one", key)
			}
			n, err := normalizeYAML(e, depth+1)
			if err != nil {
				return nil, err
			}
			m[key] = n
		}
		return m, nil
	case []any:
		for i, e := range t {
			n, err := normalizeYAML(e, depth+1)
			if err != nil {
				return nil, err
			}
			t[i] = n
		}
		return t, nil
	case int:
		return json.Number(strconv.Itoa(t)), nil
	case int64:
		return json.Number(strconv.FormatInt(t, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(t, 10)), nil
	case float64:
		if t != t || t > 1e308 || t < -1e308 { // NaN and infinities are not JSON
			return nil, nil
		}
		return json.Number(strconv.FormatFloat(t, 'g', -1, 64)), nil
	case time.Time:
		if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
			return t.Format("2006-01-02"), nil
		}
		return t.Format(time.RFC3339Nano), nil
	default:
		return v, nil
	}
}

// specVersion returns the document's version and its major family: 2 for
// Swagger 2.0, 3 for OpenAPI 3.x.
func specVersion(root map[string]any) (string, int, error) {
	if v, ok := root["openapi"]; ok {
		s := fmt.Sprint(v)
		if strings.HasPrefix(s, "3.") {
			return s, 3, nil
		}
		return "", 0, fmt.Errorf("%w: openapi version %q is not 3.x", ErrNotOpenAPI, s)
	}
	if v, ok := root["swagger"]; ok {
		s := fmt.Sprint(v)
		if s == "2.0" || s == "2" {
			return "2.0", 2, nil
		}
		return "", 0, fmt.Errorf("%w: swagger version %q is not 2.0", ErrNotOpenAPI, s)
	}
	return "", 0, fmt.Errorf("%w: no \"openapi\" or \"swagger\" field", ErrNotOpenAPI)
}

// resolvePointer follows a local JSON pointer ("#/components/schemas/Pet").
func resolvePointer(root map[string]any, ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	frag := ref[1:]
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	if frag == "" || frag == "/" {
		return root, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, false
	}
	var cur any = root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// str returns m[k] as a string ("" when absent or not a string).
func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// boolean returns m[k] as a bool.
func boolean(m map[string]any, k string) (bool, bool) {
	b, ok := m[k].(bool)
	return b, ok
}

// obj returns m[k] as a mapping.
func obj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

// list returns m[k] as a sequence.
func list(m map[string]any, k string) []any {
	l, _ := m[k].([]any)
	return l
}
