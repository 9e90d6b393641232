package operations

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
)

// schemaCache holds reflected schemas per Go type. Reflection is pure, so a
// process-wide cache is safe and saves work when many operations share types.
var schemaCache sync.Map // reflect.Type -> json.RawMessage

// SchemaFor returns the JSON Schema reflected from T with
// github.com/invopop/jsonschema: json tags name properties, fields without
// omitempty are required, and `jsonschema:"description=...,enum=...,default=..."`
// tags add the rest. Nested named types land in $defs. Results are cached
// per type.
func SchemaFor[T any]() (json.RawMessage, error) {
	return schemaForType(reflect.TypeFor[T]())
}

func schemaForType(t reflect.Type) (json.RawMessage, error) {
	if v, ok := schemaCache.Load(t); ok {
		return v.(json.RawMessage), nil
	}
	r := &jsonschema.Reflector{
		ExpandedStruct:            true,
		AllowAdditionalProperties: false,
	}
	s := r.ReflectFromType(t)
	s.Version = "" // the registry compiles with 2020-12; keep descriptors short
	s.ID = ""
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("reflect schema of %s: %w", t, err)
	}
	schemaCache.Store(t, json.RawMessage(raw))
	return raw, nil
}

// Func is the shape of a typed operation: a Go function from a decoded input
// struct to an output value that encodes as JSON.
type Func[In, Out any] func(ctx context.Context, in In) (Out, error)

// Add registers fn as operation op with schemas reflected from In (which
// must be a struct) and, when Out is a struct or pointer to struct, from Out.
// Any Input or Output already set on op is kept, so a caller can hand-tune a
// schema. Arguments are validated against the schema before they are decoded
// into In, so fn sees only arguments that fit.
func Add[In, Out any](r *Registry, op Operation, fn Func[In, Out]) error {
	if fn == nil {
		return &RegistrationError{ID: op.ID, Err: fmt.Errorf("nil function")}
	}
	inType := reflect.TypeFor[In]()
	if inType.Kind() != reflect.Struct {
		return &RegistrationError{ID: op.ID, Err: fmt.Errorf("input type %s is not a struct", inType)}
	}
	if len(op.Input) == 0 {
		in, err := schemaForType(inType)
		if err != nil {
			return &RegistrationError{ID: op.ID, Err: err}
		}
		op.Input = in
	}
	if len(op.Output) == 0 {
		outType := reflect.TypeFor[Out]()
		for outType.Kind() == reflect.Pointer {
			outType = outType.Elem()
		}
		if outType.Kind() == reflect.Struct {
			out, err := schemaForType(outType)
			if err != nil {
				return &RegistrationError{ID: op.ID, Err: err}
			}
			op.Output = out
		}
	}
	op.Handler = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var in In
		if err := decodeArgs(args, &in); err != nil {
			return nil, err
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		// Results are read by models: keep "<" and "&" as they are rather
		// than the \u003c escapes json.Marshal writes for HTML safety.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
	}
	return r.Register(op)
}

// MustAdd is Add that panics on error.
func MustAdd[In, Out any](r *Registry, op Operation, fn Func[In, Out]) {
	if err := Add(r, op, fn); err != nil {
		panic(err)
	}
}

// TypedPreview adapts a typed function to a Previewer: args (already
// validated) are decoded into In. Use it to show what a write would touch,
// e.g. the record a delete would remove and what goes with it.
func TypedPreview[In any](fn func(ctx context.Context, in In) (any, error)) Previewer {
	return func(ctx context.Context, args json.RawMessage) (any, error) {
		var in In
		if err := decodeArgs(args, &in); err != nil {
			return nil, err
		}
		return fn(ctx, in)
	}
}

// decodeArgs decodes validated arguments into a Go value. JSON Schema
// counts 42.0 and 1e2 as integers, Go's decoder does not: whole numbers
// written as floats are rewritten before decoding. What still does not
// decode (a number too large for its Go type) is a *ValidationError with
// the field's JSON pointer.
func decodeArgs(args json.RawMessage, dst any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		return nil
	}
	err := json.Unmarshal(args, dst)
	if err == nil {
		return nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if d.Decode(&v) == nil {
		if fixed, changed := WholeNumbers(v); changed {
			if b, merr := json.Marshal(fixed); merr == nil {
				if err = json.Unmarshal(b, dst); err == nil {
					return nil
				}
			}
		}
	}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		ptr := ""
		if ute.Field != "" {
			ptr = "/" + strings.ReplaceAll(ute.Field, ".", "/")
		}
		return &ValidationError{Problems: []Problem{{Pointer: ptr, Message: fmt.Sprintf("value %s does not fit a Go %s", ute.Value, ute.Type)}}}
	}
	return &ValidationError{Problems: []Problem{{Message: "arguments do not decode: " + err.Error()}}}
}

// WholeNumbers rewrites the json.Numbers in a value decoded with UseNumber
// that hold whole values in float notation ("42.0", "1e2") as integers,
// in place where it can, and reports whether it changed anything. Only
// values exactly representable as float64 integers are rewritten, so two
// different large integers never collapse into one.
func WholeNumbers(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		s := x.String()
		if !strings.ContainsAny(s, ".eE") {
			return x, false
		}
		f, err := x.Float64()
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return x, false
		}
		return json.Number(strconv.FormatInt(int64(f), 10)), true
	case map[string]any:
		changed := false
		for k, e := range x {
			n, c := WholeNumbers(e)
			x[k] = n
			changed = changed || c
		}
		return x, changed
	case []any:
		changed := false
		for i, e := range x {
			n, c := WholeNumbers(e)
			x[i] = n
			changed = changed || c
		}
		return x, changed
	}
	return v, false
}
