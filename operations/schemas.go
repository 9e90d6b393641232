package operations

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compiledSchemas compiles each distinct input schema once per registry and
// shares the result between the operations whose schemas are the same
// bytes. A compiled schema is immutable and validates concurrently, and
// catalogs repeat schemas: versioned APIs, operations that take the same
// path and paging parameters, generated catalogs (a third of 100,000
// generated operations). Sharing saves that share of the compile time and
// of the memory, which at 100,000 operations is most of a registry's.
// Entries are keyed by the schema's SHA-256 and kept for the registry's
// life, also after the operations using them are removed.
type compiledSchemas struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]*compiledSchema
}

// compiledSchema is one distinct schema, compiled on first use.
type compiledSchema struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

func newCompiledSchemas() *compiledSchemas {
	return &compiledSchemas{m: map[[sha256.Size]byte]*compiledSchema{}}
}

// compile returns raw compiled by compileObjectSchema, compiling it only
// the first time these bytes are seen. Concurrent callers with the same
// bytes wait for the one compilation.
func (c *compiledSchemas) compile(raw json.RawMessage) (*jsonschema.Schema, error) {
	key := sha256.Sum256(raw)
	c.mu.Lock()
	cs := c.m[key]
	if cs == nil {
		cs = &compiledSchema{}
		c.m[key] = cs
	}
	c.mu.Unlock()
	cs.once.Do(func() { cs.schema, cs.err = compileObjectSchema(raw) })
	return cs.schema, cs.err
}
