package operations

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaKey identifies an input schema by its bytes.
type schemaKey [sha256.Size]byte

// compiledSchemas compiles each distinct input schema once per registry and
// shares the result between the operations whose schemas are the same
// bytes. A compiled schema is immutable and validates concurrently, and
// catalogs repeat schemas: versioned APIs, operations that take the same
// path and paging parameters, generated catalogs (a third of 100,000
// generated operations). Sharing saves that share of the compile time and
// of the memory, which at 100,000 operations is most of a registry's.
//
// By default every compiled schema is kept for the registry's life, also
// after the operations using them are removed. With a limit (see
// Registry.LimitCompiledSchemas) at most that many are kept, and one that
// was let go compiles again on its next use.
type compiledSchemas struct {
	mu    sync.Mutex
	m     map[schemaKey]*compiledSchema
	limit int // most entries kept; 0: all
}

// compiledSchema is one distinct schema, compiled on first use.
type compiledSchema struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

func newCompiledSchemas() *compiledSchemas {
	return &compiledSchemas{m: map[schemaKey]*compiledSchema{}}
}

// compile returns raw, whose key is key, compiled by compileObjectSchema,
// compiling it only when no kept entry has it. Concurrent callers with the
// same bytes wait for the one compilation.
func (c *compiledSchemas) compile(key schemaKey, raw json.RawMessage) (*jsonschema.Schema, error) {
	c.mu.Lock()
	cs := c.m[key]
	if cs == nil {
		cs = &compiledSchema{}
		c.m[key] = cs
		c.trim(key)
	}
	c.mu.Unlock()
	cs.once.Do(func() { cs.schema, cs.err = compileObjectSchema(raw) })
	return cs.schema, cs.err
}

// setLimit keeps at most limit entries from now on (0: all), letting go
// of the surplus at once.
func (c *compiledSchemas) setLimit(limit int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = max(0, limit)
	c.trim(schemaKey{})
}

// trim lets go of entries other than keep until at most limit are left.
// Which ones is left to the map's iteration order, which Go randomises: a
// schema in use is as likely to stay as any other, and the choice costs
// no bookkeeping on the validation path. Callers hold c.mu; a caller that
// still holds an entry let go keeps using it.
func (c *compiledSchemas) trim(keep schemaKey) {
	if c.limit == 0 {
		return
	}
	for k := range c.m {
		if len(c.m) <= c.limit {
			return
		}
		if k != keep {
			delete(c.m, k)
		}
	}
}
