package operations

import (
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"sync/atomic"

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
// Registry.LimitCompiledSchemas) at most that many are kept, the least
// recently used let go first, and one that was let go compiles again on
// its next use. Work that uses each schema in one run of consecutive
// calls, as the surface gate does, so compiles each schema once.
type compiledSchemas struct {
	mu    sync.Mutex
	m     map[schemaKey]*compiledSchema
	limit int // most entries kept; 0: all
	// recent holds the kept entries' keys, most recently used first,
	// while a limit is set; empty otherwise.
	recent list.List
	// compiles counts compilations started, for tests.
	compiles atomic.Int64
}

// compiledSchema is one distinct schema, compiled on first use.
type compiledSchema struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
	use    *list.Element // in recent, under a limit
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
	switch {
	case cs == nil:
		cs = &compiledSchema{}
		c.m[key] = cs
		if c.limit > 0 {
			cs.use = c.recent.PushFront(key)
			c.trim()
		}
	case cs.use != nil:
		c.recent.MoveToFront(cs.use)
	}
	c.mu.Unlock()
	cs.once.Do(func() {
		c.compiles.Add(1)
		cs.schema, cs.err = compileObjectSchema(raw)
	})
	return cs.schema, cs.err
}

// setLimit keeps at most limit entries from now on (0: all), letting go
// of the surplus at once. The entries already kept when a limit is first
// set count as used in no particular order.
func (c *compiledSchemas) setLimit(limit int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = max(0, limit)
	if c.limit == 0 {
		for _, cs := range c.m {
			cs.use = nil
		}
		c.recent.Init()
		return
	}
	if c.recent.Len() == 0 {
		for k, cs := range c.m {
			cs.use = c.recent.PushBack(k)
		}
	}
	c.trim()
}

// limited reports whether a limit is set.
func (c *compiledSchemas) limited() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limit > 0
}

// trim lets go of the least recently used entries until at most limit are
// left. Callers hold c.mu and have set a limit; a caller that still holds
// an entry let go keeps using it.
func (c *compiledSchemas) trim() {
	for c.recent.Len() > c.limit {
		last := c.recent.Back()
		c.recent.Remove(last)
		k := last.Value.(schemaKey)
		c.m[k].use = nil
		delete(c.m, k)
	}
}
