package operations

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
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
		if len(args) > 0 {
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, &ValidationError{Problems: []Problem{{Message: "arguments do not decode: " + err.Error()}}}
			}
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
		if len(args) > 0 {
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, &ValidationError{Problems: []Problem{{Message: "arguments do not decode: " + err.Error()}}}
			}
		}
		return fn(ctx, in)
	}
}
