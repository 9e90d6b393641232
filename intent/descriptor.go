package intent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/intentsrv/intentsrv/operations"
)

// Depth caps for schemas in descriptors: deep enough to call any realistic
// operation, shallow enough that one descriptor cannot flood the context.
const (
	inputSchemaDepth  = 8
	outputSchemaDepth = 3
	// returnsBudgetBytes bounds a descriptor's result shape.
	returnsBudgetBytes = 1500
	// maxShapeFields caps the fields shown per object in a result shape.
	maxShapeFields = 24
)

// descriptor is describe's view of one operation.
type descriptor struct {
	ID          string               `json:"id"`
	Summary     string               `json:"summary"`
	Description string               `json:"description,omitempty"`
	Kind        string               `json:"kind"`
	Tool        string               `json:"tool"`
	Input       json.RawMessage      `json:"input"`
	Returns     any                  `json:"returns,omitempty"`
	Examples    []operations.Example `json:"examples,omitempty"`
	Aliases     []string             `json:"aliases,omitempty"`
	Idempotent  bool                 `json:"idempotent,omitempty"`
	Deprecated  bool                 `json:"deprecated,omitempty"`
	Confirm     bool                 `json:"needs_confirmation,omitempty"`
	Source      string               `json:"source,omitempty"`
	// Elided names the $defs left out of Input to keep the descriptor
	// within its budget; describe {action, params: {defs: [...]}} returns
	// them.
	Elided []string `json:"elided_defs,omitempty"`
}

func (s *Server) descriptor(op *operations.Operation) descriptor {
	info := s.info(op)
	return descriptor{
		ID:          op.ID,
		Summary:     op.Summary,
		Description: clip(op.Description, 600),
		Kind:        string(op.Kind),
		Tool:        s.opts.ToolPrefix + s.verbFor(op),
		Input:       info.input,
		Elided:      info.elided,
		Returns:     info.returns,
		Examples:    op.Examples,
		Aliases:     op.Aliases,
		Idempotent:  op.Idempotent,
		Deprecated:  op.Deprecated,
		Confirm:     s.needsConfirmation(op),
		Source:      sourceLabel(op.Source),
	}
}

// opInfo is what the server derives from an operation's schemas, computed
// once per operation.
type opInfo struct {
	required []string
	paging   []string // names of paging parameters, when the input has them
	limitMax int      // the "limit" parameter's maximum, 0 when none
	input    json.RawMessage
	elided   []string                   // $defs left out of input
	defs     map[string]json.RawMessage // every compacted $def, for describe {defs}
	returns  any                        // the output schema's shape, when known
}

// sourceLabel hides the default source: "go" on every demo descriptor is
// tokens that say nothing.
func sourceLabel(src string) string {
	if src == "go" {
		return ""
	}
	return src
}

func (s *Server) info(op *operations.Operation) *opInfo {
	if v, ok := s.infos.Load(op); ok {
		return v.(*opInfo)
	}
	inf := &opInfo{}
	var schema map[string]any
	if json.Unmarshal(op.Input, &schema) == nil {
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					inf.required = append(inf.required, s)
				}
			}
		}
		if props, ok := schema["properties"].(map[string]any); ok {
			for name := range props {
				if pagingParams[name] {
					inf.paging = append(inf.paging, name)
				}
			}
			if lim, ok := props["limit"].(map[string]any); ok {
				if m, ok := lim["maximum"].(float64); ok && m >= 1 {
					inf.limitMax = int(m)
				}
			}
			sort.Strings(inf.paging)
		}
		// capSchema shares what it does not change with schema, and
		// budgetSchema may clip descriptions in place: schema is this
		// call's own decoding, read above and not after.
		inf.input, inf.elided, inf.defs = budgetSchema(capSchema(schema, inputSchemaDepth, true).(map[string]any), descriptorBudgetBytes)
		if bytes.Equal(inf.input, op.Input) {
			// Nothing was capped or cut: share the operation's bytes rather
			// than keep a second copy for every operation ever described.
			inf.input = op.Input
		}
	} else {
		inf.input = op.Input
	}
	if len(op.Output) > 0 {
		var out map[string]any
		if json.Unmarshal(op.Output, &out) == nil {
			defs, _ := out["$defs"].(map[string]any)
			if defs == nil {
				defs, _ = out["definitions"].(map[string]any)
			}
			// The deepest shape that fits the budget: nested objects give way
			// first, their scalar fields stay typed.
			for d := outputSchemaDepth; d >= 0; d-- {
				inf.returns = shapeOf(out, defs, d)
				if b, _ := json.Marshal(inf.returns); len(b) <= returnsBudgetBytes {
					break
				}
			}
		}
	}
	v, _ := s.infos.LoadOrStore(op, inf)
	return v.(*opInfo)
}

var pagingParams = map[string]bool{
	"cursor": true, "page": true, "per_page": true, "page_size": true, "pagesize": true,
	"limit": true, "offset": true, "page_token": true, "pagetoken": true, "starting_after": true, "after": true, "before": true,
}

// capSchema drops keys that only cost tokens ($schema, $id, at the root)
// and cuts the schema at depth levels of nesting, leaving a marker where it
// cut. $defs stay hoisted at the root and restart their own depth budget.
//
// It copies only what it changes: the result shares every unchanged part
// with v, and is v itself when nothing is dropped or cut (most schemas: at
// 100,000 operations full copies were a third of what describing every
// operation allocated). A caller that modifies the result must own v.
func capSchema(v any, depth int, root bool) any {
	out, _ := capSchemaChanged(v, depth, root)
	return out
}

// capSchemaChanged is capSchema, also reporting whether anything changed.
func capSchemaChanged(v any, depth int, root bool) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		arr, ok := v.([]any)
		if !ok {
			return v, false
		}
		var out []any
		for i, x := range arr {
			if nx, changed := capSchemaChanged(x, depth, false); changed {
				if out == nil {
					out = slices.Clone(arr)
				}
				out[i] = nx
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	if depth <= 0 {
		cut := map[string]any{"x-cut": "deeper structure omitted; pass any value of the declared type"}
		for _, k := range []string{"type", "description", "$ref"} {
			if x, ok := m[k]; ok {
				cut[k] = x
			}
		}
		return cut, true
	}
	var out map[string]any // a copy of m, made at the first change
	set := func(k string, x any, drop bool) {
		if out == nil {
			out = maps.Clone(m)
		}
		if drop {
			delete(out, k)
		} else {
			out[k] = x
		}
	}
	for k, x := range m {
		switch k {
		case "$schema", "$id":
			if root {
				set(k, nil, true)
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			props, ok := x.(map[string]any)
			if !ok {
				continue
			}
			next := depth - 1
			if k == "$defs" || k == "definitions" {
				next = depth // hoisted definitions restart their own depth budget
			}
			var pm map[string]any
			for pk, pv := range props {
				if npv, changed := capSchemaChanged(pv, next, false); changed {
					if pm == nil {
						pm = maps.Clone(props)
					}
					pm[pk] = npv
				}
			}
			if pm != nil {
				set(k, pm, false)
			}
		case "items", "additionalProperties", "not", "if", "then", "else", "contains", "allOf", "anyOf", "oneOf", "prefixItems":
			if nx, changed := capSchemaChanged(x, depth-1, false); changed {
				set(k, nx, false)
			}
		}
	}
	if out == nil {
		return v, false
	}
	return out, true
}

// shapeOf reduces an output schema to the shape of the value it describes:
// objects become {field: shape}, arrays [shape], scalars their type name
// ("string", "integer|null", "string(date-time)"). An agent needs field
// names and types to use a result, not the full schema, and the shape costs
// a fraction of the tokens. $refs into defs are followed; depth bounds
// recursion (cut parts read "...").
func shapeOf(v any, defs map[string]any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok {
		return "any"
	}
	if ref, ok := m["$ref"].(string); ok {
		name := ref[strings.LastIndexByte(ref, '/')+1:]
		d, ok := defs[name]
		switch {
		case !ok:
			return "any"
		case depth >= 0:
			return shapeOf(d, defs, depth)
		}
		// Past the depth limit a referenced scalar (an enum, say) still
		// shows its type; a referenced object or array does not.
		if dm, ok := d.(map[string]any); ok {
			if t := typeName(dm["type"]); t != "" && t != "object" && t != "array" && dm["properties"] == nil {
				return shapeOf(dm, defs, depth)
			}
		}
		return "..."
	}
	// Scalars always show their type; only nested objects and arrays stop
	// at the depth limit.
	if t := typeName(m["type"]); depth < 0 && (t == "object" || t == "array" || m["properties"] != nil || m["items"] != nil) {
		return "..."
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			if k == "allOf" && len(alts) > 1 {
				merged := map[string]any{}
				for _, a := range alts {
					if sm, ok := shapeOf(a, defs, depth).(map[string]any); ok {
						for f, x := range sm {
							merged[f] = x
						}
					}
				}
				return merged
			}
			return shapeOf(alts[0], defs, depth)
		}
	}
	typ := typeName(m["type"])
	switch {
	case typ == "object" || (typ == "" && m["properties"] != nil):
		props, _ := m["properties"].(map[string]any)
		if len(props) == 0 {
			return "object"
		}
		// Required fields first, then the rest by name, so a cap keeps the
		// fields every result has.
		req := map[string]bool{}
		if r, ok := m["required"].([]any); ok {
			for _, x := range r {
				if n, ok := x.(string); ok {
					req[n] = true
				}
			}
		}
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Slice(names, func(i, j int) bool {
			if req[names[i]] != req[names[j]] {
				return req[names[i]]
			}
			return names[i] < names[j]
		})
		out := make(map[string]any, min(len(props), maxShapeFields+1))
		for i, name := range names {
			if i == maxShapeFields {
				out["…"] = fmt.Sprintf("%d more fields", len(names)-maxShapeFields)
				break
			}
			out[name] = shapeOf(props[name], defs, depth-1)
		}
		return out
	case typ == "array":
		return []any{shapeOf(m["items"], defs, depth-1)}
	case typ == "":
		return "any"
	}
	if f, ok := m["format"].(string); ok && f != "" {
		return typ + "(" + f + ")"
	}
	return typ
}

func typeName(t any) string {
	switch v := t.(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		// ["object","null"] is an object that may be null: keep the shape.
		if len(parts) == 2 && parts[1] == "null" && (parts[0] == "object" || parts[0] == "array") {
			return parts[0]
		}
		return strings.Join(parts, "|")
	}
	return ""
}

// Descriptor budget: a descriptor should let an agent call its operation
// and still leave the whole path (listing + find + describe) within about
// 3,000 tokens. JSON schemas run about 3.5 bytes a token.
const (
	descriptorBudgetBytes = 7000
	nestedDescriptionClip = 160
)

// budgetSchema fits an input schema into budget bytes, cutting what an
// agent needs least first: (1) descriptions below the top-level properties
// are clipped; (2) the largest $defs are elided, largest first, each
// replaced by a stub that keeps its type and a short description; (3)
// descriptions below the top level are dropped. Top-level properties and
// required lists are never cut: they are what the agent must send. It
// returns the schema, the elided names (sorted) and every $def in clipped
// form, for describe {defs}.
func budgetSchema(schema map[string]any, budget int) (json.RawMessage, []string, map[string]json.RawMessage) {
	size := func() int {
		b, _ := json.Marshal(schema)
		return len(b)
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`), nil, nil
	}
	if len(raw) <= budget {
		return raw, nil, nil
	}
	props, _ := schema["properties"].(map[string]any)
	nested := func(f func(any)) {
		for _, p := range props {
			if m, ok := p.(map[string]any); ok {
				for k, v := range m {
					if k != "description" {
						f(v)
					}
				}
			}
		}
	}
	nested(func(v any) { clipDescriptions(v, nestedDescriptionClip) })

	defsKey := "$defs"
	defs, _ := schema[defsKey].(map[string]any)
	if defs == nil {
		defsKey = "definitions"
		defs, _ = schema[defsKey].(map[string]any)
	}
	all := make(map[string]json.RawMessage, len(defs))
	names := make([]string, 0, len(defs))
	for name, d := range defs {
		clipDescriptions(d, nestedDescriptionClip)
		b, _ := json.Marshal(d)
		all[name] = b
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if len(all[names[i]]) != len(all[names[j]]) {
			return len(all[names[i]]) > len(all[names[j]])
		}
		return names[i] < names[j]
	})
	var elided []string
	total := size()
	for _, name := range names {
		if total <= budget {
			break
		}
		stub := map[string]any{"x-elided": true}
		if m, ok := defs[name].(map[string]any); ok {
			if t, ok := m["type"]; ok {
				stub["type"] = t
			}
		}
		after, _ := json.Marshal(stub)
		defs[name] = stub
		total -= len(all[name]) - len(after)
		elided = append(elided, name)
	}
	// Definitions that only elided definitions refer to are unreachable from
	// what is left: drop them, and list as elided only those the kept schema
	// still refers to.
	if len(elided) > 0 {
		reach := map[string]bool{}
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if ref, ok := x["$ref"].(string); ok {
					name := ref[strings.LastIndexByte(ref, '/')+1:]
					if !reach[name] {
						reach[name] = true
						if d, ok := defs[name]; ok {
							walk(d)
						}
					}
				}
				for k, e := range x {
					if k != defsKey {
						walk(e)
					}
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(schema)
		kept := elided[:0]
		for _, name := range elided {
			if reach[name] {
				kept = append(kept, name)
			}
		}
		elided = kept
		for name := range defs {
			if !reach[name] {
				delete(defs, name)
			}
		}
	}
	if size() > budget {
		nested(dropDescriptions)
	}
	sort.Strings(elided)
	out, _ := json.Marshal(schema)
	if len(all) == 0 {
		all = nil
	}
	return out, elided, all
}

// dropDescriptions removes every "description" in a schema tree (but not
// properties that happen to be named "description").
func dropDescriptions(v any) {
	switch x := v.(type) {
	case map[string]any:
		if _, isProps := x["properties"]; isProps {
			for _, p := range x["properties"].(map[string]any) {
				dropDescriptions(p)
			}
		}
		if s, ok := x["description"].(string); ok && s != "" {
			delete(x, "description")
		}
		for k, e := range x {
			if k != "properties" {
				dropDescriptions(e)
			}
		}
	case []any:
		for _, e := range x {
			dropDescriptions(e)
		}
	}
}

// clipDescriptions shortens every "description" string in a schema tree.
func clipDescriptions(v any, n int) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "description" {
				x[k] = clip(s, n)
				continue
			}
			clipDescriptions(e, n)
		}
	case []any:
		for _, e := range x {
			clipDescriptions(e, n)
		}
	}
}
