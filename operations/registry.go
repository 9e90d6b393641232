package operations

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Registry holds operations by id. It is safe for concurrent use: reads never
// block each other, and registration may happen while the server serves. The
// zero value is not usable; call NewRegistry.
type Registry struct {
	mu         sync.RWMutex
	ops        map[string]*entry
	aliases    map[string]string // alias -> id
	namespaces map[string]string // namespace -> blurb
	sorted     []*Operation      // cache of All(), nil when stale
	schemas    *compiledSchemas
}

type entry struct {
	op      *Operation
	schemas *compiledSchemas
	key     schemaKey // of op.Input
}

// compiled returns the entry's input schema from the registry's compiled
// schemas, compiling it when they do not hold it: on first use when
// registration deferred that, or again after a limit let it go.
func (e *entry) compiled() (*jsonschema.Schema, error) {
	return e.schemas.compile(e.key, e.op.Input)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		ops:        make(map[string]*entry),
		aliases:    make(map[string]string),
		namespaces: make(map[string]string),
		schemas:    newCompiledSchemas(),
	}
}

// RegistrationError is returned when an operation cannot be registered. It
// names the operation so that a bad catalog fails loudly at start-up.
type RegistrationError struct {
	ID  string
	Err error
}

func (e *RegistrationError) Error() string {
	return fmt.Sprintf("register operation %q: %v", e.ID, e.Err)
}

func (e *RegistrationError) Unwrap() error { return e.Err }

// ErrDuplicate is wrapped by the RegistrationError for an id (or alias) that
// is already taken.
var ErrDuplicate = errors.New("duplicate operation id")

// Register adds op with its externally supplied input schema (the path used
// by OpenAPI and upstream MCP sources). It refuses, with a
// *RegistrationError, an invalid or duplicate id, a missing handler, an
// unknown kind, an input schema whose root is not an object schema, and a
// schema that does not compile. The registry keeps its own copy of op.
func (r *Registry) Register(op Operation) error {
	e, err := prepare(op, true, r.schemas)
	if err != nil {
		return err
	}
	return r.insert(e)
}

// LimitCompiledSchemas keeps at most n compiled input schemas from now on,
// the most recently used, letting go of the surplus at once; an operation
// whose schema was let go compiles it again on its next validation. n <= 0
// keeps every one (the default). Compiled schemas are most of a large
// registry's memory (at 100,000 generated operations, 60,000 distinct
// schemas hold 260 MB); a limit suits work that validates each operation
// about once, such as the surface gate, and costs a server that calls many
// cold operations a compilation (about 0.1 ms) per call that misses. Work
// that validates the operations sharing a schema one after the other
// compiles each schema once under any limit of at least the number of
// goroutines validating.
func (r *Registry) LimitCompiledSchemas(n int) { r.schemas.setLimit(n) }

// RegisterOptions tune RegisterAll.
type RegisterOptions struct {
	// DeferCompile skips compiling input schemas at registration; each one
	// compiles on its operation's first validation instead. It also skips
	// checking that output schemas are JSON (a scan that costs a sixth of
	// a warm start on GitHub's spec, whose output schemas are large). Every
	// other check still runs. Use it only for schemas already known to
	// compile, such as a verified on-disk cache of a catalog that
	// registered before, or when every operation is validated next by a
	// caller that reports the failures (the surface gate's probes): a
	// schema that fails later fails its operation's calls with an error
	// naming it, not the start-up, and an output schema that is not JSON
	// is left out of describe.
	DeferCompile bool
}

// RegisterAll registers ops, compiling their schemas on every CPU. Each
// operation that passes is registered; the error joins one
// *RegistrationError per operation that did not, so a caller can log them
// and serve the rest, or stop. Under LimitCompiledSchemas the operations
// are compiled grouped by input schema, so that each distinct schema is
// checked once while the registry keeps only the last ones compiled.
func (r *Registry) RegisterAll(ops []Operation, o RegisterOptions) error {
	entries := make([]*entry, len(ops))
	errs := make([]error, len(ops))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(ops)/64))
	var wg sync.WaitGroup
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	if !o.DeferCompile && r.schemas.limited() {
		slices.SortStableFunc(order, func(a, b int) int { return bytes.Compare(ops[a].Input, ops[b].Input) })
	}
	next := make(chan int, len(ops))
	for _, i := range order {
		next <- i
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				entries[i], errs[i] = prepare(ops[i], !o.DeferCompile, r.schemas)
			}
		}()
	}
	wg.Wait()
	for i, e := range entries {
		if errs[i] == nil {
			errs[i] = r.insert(e)
		}
	}
	return errors.Join(errs...)
}

// prepare checks op and builds its entry, compiling its schema (through
// schemas) when compile is set, else checking only that the root is an
// object schema.
func prepare(op Operation, compile bool, schemas *compiledSchemas) (*entry, error) {
	fail := func(format string, args ...any) error {
		return &RegistrationError{ID: op.ID, Err: fmt.Errorf(format, args...)}
	}
	if err := CheckID(op.ID); err != nil {
		return nil, &RegistrationError{ID: op.ID, Err: err}
	}
	if op.Handler == nil {
		return nil, fail("no handler")
	}
	if op.Kind == "" {
		op.Kind = KindRead
	}
	if !op.Kind.Valid() {
		return nil, fail("kind %q is not read, write or destructive", op.Kind)
	}
	if op.Namespace == "" {
		op.Namespace = DefaultNamespace(op.ID)
	}
	if op.Source == "" {
		op.Source = "go"
	}
	if len(bytes.TrimSpace(op.Input)) == 0 {
		op.Input = json.RawMessage(`{"type":"object"}`)
	}
	if compile && len(bytes.TrimSpace(op.Output)) > 0 && !json.Valid(op.Output) {
		return nil, fail("output schema is not valid JSON")
	}
	op.Aliases = append([]string(nil), op.Aliases...)
	for i, a := range op.Aliases {
		op.Aliases[i] = strings.TrimSpace(a)
	}
	e := &entry{op: &op, schemas: schemas, key: sha256.Sum256(op.Input)}
	if compile {
		if _, err := schemas.compile(e.key, op.Input); err != nil {
			return nil, &RegistrationError{ID: op.ID, Err: fmt.Errorf("input schema: %w", err)}
		}
	} else if err := checkObjectRoot(op.Input); err != nil {
		return nil, &RegistrationError{ID: op.ID, Err: fmt.Errorf("input schema: %w", err)}
	}
	return e, nil
}

// insert adds a prepared entry, refusing duplicate ids and aliases.
func (r *Registry) insert(e *entry) error {
	op := e.op
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.ops[op.ID]; dup {
		return &RegistrationError{ID: op.ID, Err: ErrDuplicate}
	}
	if other, dup := r.aliases[op.ID]; dup {
		return &RegistrationError{ID: op.ID, Err: fmt.Errorf("%w: it is an alias of %q", ErrDuplicate, other)}
	}
	for _, a := range op.Aliases {
		if _, dup := r.ops[a]; dup {
			return &RegistrationError{ID: op.ID, Err: fmt.Errorf("%w: alias %q is an operation id", ErrDuplicate, a)}
		}
		if other, dup := r.aliases[a]; dup {
			return &RegistrationError{ID: op.ID, Err: fmt.Errorf("%w: alias %q already names %q", ErrDuplicate, a, other)}
		}
	}
	r.ops[op.ID] = e
	for _, a := range op.Aliases {
		r.aliases[a] = op.ID
	}
	r.sorted = nil
	return nil
}

// MustRegister is Register that panics on error; for catalogs built in code
// whose errors are programming mistakes.
func (r *Registry) MustRegister(op Operation) {
	if err := r.Register(op); err != nil {
		panic(err)
	}
}

// Remove deletes the operation with the given id. It is not an error to
// remove an id that is not registered.
func (r *Registry) Remove(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.ops[id]
	if !ok {
		return
	}
	for _, a := range e.op.Aliases {
		delete(r.aliases, a)
	}
	delete(r.ops, id)
	r.sorted = nil
}

// SetNamespaceBlurb records a one-line description of a namespace, shown by
// describe's overview. Namespaces without a blurb are still listed.
func (r *Registry) SetNamespaceBlurb(namespace, blurb string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.namespaces[namespace] = blurb
}

// Get returns the operation with the given id, or with the given alias. The
// returned operation must not be modified.
func (r *Registry) Get(id string) (*Operation, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e, ok := r.ops[id]; ok {
		return e.op, true
	}
	if real, ok := r.aliases[id]; ok {
		return r.ops[real].op, true
	}
	return nil, false
}

// Len returns the number of registered operations.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.ops)
}

// All returns every operation sorted by id. The slice is shared between
// callers until the next registration: do not modify it.
func (r *Registry) All() []*Operation {
	r.mu.RLock()
	s := r.sorted
	r.mu.RUnlock()
	if s != nil {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sorted != nil {
		return r.sorted
	}
	s = make([]*Operation, 0, len(r.ops))
	for _, e := range r.ops {
		s = append(s, e.op)
	}
	sort.Slice(s, func(i, j int) bool { return s[i].ID < s[j].ID })
	r.sorted = s
	return s
}

// Namespace summarises one namespace for describe's overview.
type Namespace struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	Blurb string `json:"blurb,omitempty"`
}

// Namespaces lists the namespaces of the operations that keep reports true,
// sorted by name, with counts and blurbs. A nil keep keeps every operation.
func (r *Registry) Namespaces(keep func(*Operation) bool) []Namespace {
	counts := map[string]int{}
	for _, op := range r.All() {
		if keep == nil || keep(op) {
			counts[op.Namespace]++
		}
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Namespace, 0, len(counts))
	for name, n := range counts {
		out = append(out, Namespace{Name: name, Count: n, Blurb: r.namespaces[name]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Validate checks args against the input schema of operation id. It returns
// a *ValidationError listing every problem, an error wrapping ErrUnknown for
// an id that is not registered, or nil.
func (r *Registry) Validate(id string, args json.RawMessage) error {
	r.mu.RLock()
	e, ok := r.ops[id]
	if !ok {
		if real, ok2 := r.aliases[id]; ok2 {
			e, ok = r.ops[real]
		}
	}
	r.mu.RUnlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknown, id)
	}
	schema, err := e.compiled()
	if err != nil {
		return fmt.Errorf("operation %q has an input schema that does not compile: %w", e.op.ID, err)
	}
	return validate(schema, args)
}

// ErrUnknown is wrapped by errors about an operation id that is not
// registered.
var ErrUnknown = errors.New("unknown operation")

// Call validates args and runs the operation. Errors from validation are
// *ValidationError; errors from the handler are returned as they are.
func (r *Registry) Call(ctx context.Context, id string, args json.RawMessage) (json.RawMessage, error) {
	op, ok := r.Get(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknown, id)
	}
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage(`{}`)
	}
	if err := r.Validate(op.ID, args); err != nil {
		return nil, err
	}
	return op.Handler(ctx, args)
}
