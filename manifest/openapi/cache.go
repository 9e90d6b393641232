package openapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/intentsrv/intentsrv/operations"
)

// The catalog cache is a binary file, not JSON: decoding the JSON form of
// GitHub's catalog (8 MB, most of it schemas kept as raw JSON) took about
// 150 ms, because encoding/json scans every raw schema twice (validity,
// then copy). The binary form is read with one SHA-256 pass and a walk
// over length-prefixed fields; the schemas are sub-slices of the file's
// bytes, never scanned or copied.
//
// Layout:
//
//	magic    "intentsrv openapi catalog\n"
//	sum      SHA-256 of everything after it (32 bytes)
//	key      string: the cache key the entry was written for
//	catalog  the Catalog, field by field (see encodeCatalog)
//	compiled bitmap, one bit per operation: its input schema compiled when
//	         a previous start registered it (see Catalog.RecordCompiled)
//
// Strings and byte strings are a uvarint length and the bytes; lists are a
// uvarint count and the items.
const cacheMagic = "intentsrv openapi catalog\n"

// cacheExt is the file name extension of cache entries.
const cacheExt = ".catalog"

// cacheLink ties a catalog to its cache entry.
type cacheLink struct {
	path, key string

	mu       sync.Mutex
	compiled []bool        // per operation of the catalog
	index    map[*byte]int // first byte of an op's Input -> op index
}

// Compiled reports whether input is the input schema of one of c's
// operations, as Operations returned it (the same bytes, not a copy), and
// the catalog's verified cache entry records that this schema compiled
// when a previous start registered it. Such an operation can be
// registered with operations.RegisterOptions{DeferCompile: true}. A
// catalog just parsed, or an operation whose input an overlay replaced,
// reports false.
func (c *Catalog) Compiled(input json.RawMessage) bool {
	l := c.cache
	if l == nil || len(input) == 0 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.opIndex(c)[&input[0]]
	return ok && l.compiled[i] && len(c.Ops[i].Input) == len(input)
}

// opIndex maps each operation's Input to its index; l.mu is held.
func (l *cacheLink) opIndex(c *Catalog) map[*byte]int {
	if l.index == nil {
		l.index = make(map[*byte]int, len(c.Ops))
		for i := range c.Ops {
			if in := c.Ops[i].Input; len(in) > 0 {
				l.index[&in[0]] = i
			}
		}
	}
	return l.index
}

// RecordCompiled notes that the input schemas of ops (bound from c by
// Operations, and registered with their schemas compiled and no error)
// compile, and rewrites c's cache entry to say so, so that the next start
// from the same entry may defer compiling them. Operations that are not
// c's, or whose input is a copy, are ignored. It does nothing when c has
// no cache entry or nothing new is recorded.
func (c *Catalog) RecordCompiled(ops []operations.Operation) error {
	l := c.cache
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	idx := l.opIndex(c)
	changed := false
	for _, op := range ops {
		if len(op.Input) == 0 {
			continue
		}
		if i, ok := idx[&op.Input[0]]; ok && !l.compiled[i] && len(c.Ops[i].Input) == len(op.Input) {
			l.compiled[i] = true
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return writeCache(l.path, l.key, c, l.compiled)
}

// readCache returns the catalog in the entry at path when it is intact and
// was written for key and source name.
func readCache(path, key, name string) (*Catalog, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(path)
	if !bytes.HasPrefix(raw, []byte(cacheMagic)) || len(raw) < len(cacheMagic)+sha256.Size {
		return nil, fmt.Errorf("corrupt cache entry %s: not a catalog cache file", base)
	}
	body := raw[len(cacheMagic)+sha256.Size:]
	if sha256.Sum256(body) != [sha256.Size]byte(raw[len(cacheMagic):]) {
		return nil, fmt.Errorf("corrupt cache entry %s: checksum mismatch", base)
	}
	d := &decoder{buf: body}
	if d.str() != key || d.err != nil {
		return nil, fmt.Errorf("stale cache entry %s", base)
	}
	cat := decodeCatalog(d)
	bits := d.bytes()
	if d.err == nil && d.pos != len(d.buf) {
		d.err = errors.New("trailing bytes")
	}
	if d.err != nil {
		return nil, fmt.Errorf("corrupt cache entry %s: %w", base, d.err)
	}
	if cat.Format != catalogFormat || cat.Source != name || len(cat.Ops) == 0 {
		return nil, fmt.Errorf("stale cache entry %s", base)
	}
	if len(bits) != 0 && len(bits) != (len(cat.Ops)+7)/8 {
		return nil, fmt.Errorf("corrupt cache entry %s: bad compiled bitmap", base)
	}
	compiled := make([]bool, len(cat.Ops))
	for i := range compiled {
		compiled[i] = len(bits) > 0 && bits[i/8]&(1<<(i%8)) != 0
	}
	cat.cache = &cacheLink{path: path, key: key, compiled: compiled}
	return cat, nil
}

// writeCache writes cat's entry atomically (a temporary file renamed over
// path). compiled may be nil.
func writeCache(path, key string, cat *Catalog, compiled []bool) error {
	e := &encoder{buf: make([]byte, 0, cacheSizeHint(cat))}
	e.buf = append(e.buf, cacheMagic...)
	e.buf = append(e.buf, make([]byte, sha256.Size)...)
	start := len(e.buf)
	e.str(key)
	encodeCatalog(e, cat)
	var bits []byte
	for i, ok := range compiled {
		if ok {
			if bits == nil {
				bits = make([]byte, (len(cat.Ops)+7)/8)
			}
			bits[i/8] |= 1 << (i % 8)
		}
	}
	e.bytes(bits)
	sum := sha256.Sum256(e.buf[start:])
	copy(e.buf[len(cacheMagic):], sum[:])

	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".catalog-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(e.buf); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func cacheSizeHint(cat *Catalog) int {
	n := 4096
	for i := range cat.Ops {
		op := &cat.Ops[i]
		n += 256 + len(op.Summary) + len(op.Description) + len(op.Path) + len(op.Input) + len(op.Output) + len(op.Example)
	}
	return n
}

// Operation flag bits.
const (
	opIdempotent = 1 << iota
	opDeprecated
	opBody
	opSecurity
)

// Param flag bits.
const (
	paramExplode = 1 << iota
	paramRequired
	paramAllowReserved
	paramFixed
)

func encodeCatalog(e *encoder, c *Catalog) {
	e.uint(uint64(c.Format))
	e.str(c.Source)
	e.str(c.SpecVersion)
	e.str(c.Title)
	e.strs(c.Servers)
	e.security(c.Security)
	e.uint(uint64(len(c.Schemes)))
	for _, name := range sortedNames(c.Schemes) {
		s := c.Schemes[name]
		e.str(name)
		e.str(s.Type)
		e.str(s.Scheme)
		e.str(s.In)
		e.str(s.Name)
	}
	e.uint(uint64(len(c.Blurbs)))
	for _, ns := range sortedNames(c.Blurbs) {
		e.str(ns)
		e.str(c.Blurbs[ns])
	}
	e.uint(uint64(len(c.Ops)))
	for i := range c.Ops {
		op := &c.Ops[i]
		e.str(op.ID)
		e.str(op.Namespace)
		e.str(op.Summary)
		e.str(op.Description)
		e.strs(op.Tags)
		e.str(op.Method)
		e.str(op.Path)
		e.str(string(op.Kind))
		var flags uint64
		if op.Idempotent {
			flags |= opIdempotent
		}
		if op.Deprecated {
			flags |= opDeprecated
		}
		if op.Body != nil {
			flags |= opBody
		}
		if op.Security != nil {
			flags |= opSecurity
		}
		e.uint(flags)
		e.uint(uint64(len(op.Params)))
		for _, p := range op.Params {
			e.str(p.Name)
			e.str(p.Key)
			e.str(p.In)
			e.str(p.Style)
			var pf uint64
			if p.Explode {
				pf |= paramExplode
			}
			if p.Required {
				pf |= paramRequired
			}
			if p.AllowReserved {
				pf |= paramAllowReserved
			}
			if p.Fixed != nil {
				pf |= paramFixed
			}
			e.uint(pf)
			if p.Fixed != nil {
				e.bytes(p.Fixed)
			}
		}
		if op.Body != nil {
			e.str(op.Body.ContentType)
			e.bool(op.Body.Required)
			e.strs(op.Body.Binary)
		}
		e.bytes(op.Input)
		e.bytes(op.Output)
		e.uint(uint64(op.OKStatus))
		e.bytes(op.Example)
		if op.Security != nil {
			e.security(*op.Security)
		}
		e.strs(op.Servers)
	}
	e.strs(c.Warnings)
}

func decodeCatalog(d *decoder) *Catalog {
	c := &Catalog{}
	c.Format = int(d.uint())
	c.Source = d.str()
	c.SpecVersion = d.str()
	c.Title = d.str()
	c.Servers = d.strs()
	c.Security = d.security()
	if n := d.count(5); n > 0 {
		c.Schemes = make(map[string]SecurityScheme, n)
		for range n {
			name := d.str()
			c.Schemes[name] = SecurityScheme{Type: d.str(), Scheme: d.str(), In: d.str(), Name: d.str()}
		}
	}
	if n := d.count(2); n > 0 {
		c.Blurbs = make(map[string]string, n)
		for range n {
			ns := d.str()
			c.Blurbs[ns] = d.str()
		}
	}
	n := d.count(16)
	c.Ops = make([]Op, n)
	for i := 0; i < n && d.err == nil; i++ {
		op := &c.Ops[i]
		op.ID = d.str()
		op.Namespace = d.intern()
		op.Summary = d.str()
		op.Description = d.str()
		op.Tags = d.internStrs()
		op.Method = d.intern()
		op.Path = d.str()
		op.Kind = operations.Kind(d.intern())
		flags := d.uint()
		op.Idempotent = flags&opIdempotent != 0
		op.Deprecated = flags&opDeprecated != 0
		if np := d.count(5); np > 0 {
			op.Params = make([]Param, np)
			for j := range op.Params {
				p := &op.Params[j]
				p.Name = d.intern()
				p.Key = d.intern()
				p.In = d.intern()
				p.Style = d.intern()
				pf := d.uint()
				p.Explode = pf&paramExplode != 0
				p.Required = pf&paramRequired != 0
				p.AllowReserved = pf&paramAllowReserved != 0
				if pf&paramFixed != 0 {
					p.Fixed = d.bytes()
				}
			}
		}
		if flags&opBody != 0 {
			op.Body = &Body{ContentType: d.intern(), Required: d.bool(), Binary: d.strs()}
		}
		op.Input = d.bytes()
		op.Output = d.bytes()
		op.OKStatus = int(d.uint())
		op.Example = d.bytes()
		if flags&opSecurity != 0 {
			s := d.security()
			if s == nil {
				s = []SecurityRequirement{}
			}
			op.Security = &s
		}
		op.Servers = d.internStrs()
	}
	c.Warnings = d.strs()
	return c
}

func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

type encoder struct{ buf []byte }

func (e *encoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }

func (e *encoder) bool(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

func (e *encoder) str(s string) {
	e.uint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) bytes(b []byte) {
	e.uint(uint64(len(b)))
	e.buf = append(e.buf, b...)
}

func (e *encoder) strs(l []string) {
	e.uint(uint64(len(l)))
	for _, s := range l {
		e.str(s)
	}
}

func (e *encoder) security(l []SecurityRequirement) {
	e.uint(uint64(len(l)))
	for _, r := range l {
		e.strs(r)
	}
}

// decoder reads what encoder wrote. The first error sticks; after it every
// read returns a zero value, so callers check d.err once at the end.
type decoder struct {
	buf      []byte
	pos      int
	err      error
	interned map[string]string
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("truncated or malformed %s at byte %d", what, d.pos)
	}
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.pos:])
	if n <= 0 {
		d.fail("number")
		return 0
	}
	d.pos += n
	return v
}

// count reads a list length, refusing one that could not fit in the rest
// of the buffer at minSize bytes per item (a corrupt length must not
// allocate gigabytes).
func (d *decoder) count(minSize int) int {
	n := d.uint()
	if d.err == nil && n > uint64(len(d.buf)-d.pos)/uint64(max(minSize, 1)) {
		d.fail("list length")
		return 0
	}
	return int(n)
}

func (d *decoder) bool() bool {
	if d.err != nil {
		return false
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] > 1 {
		d.fail("flag")
		return false
	}
	d.pos++
	return d.buf[d.pos-1] == 1
}

// bytes returns the next byte string as a sub-slice of the buffer (nil
// when empty); its capacity ends with it, so appending copies.
func (d *decoder) bytes() []byte {
	n := d.uint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.buf)-d.pos) {
		d.fail("byte string")
		return nil
	}
	if n == 0 {
		return nil
	}
	end := d.pos + int(n)
	b := d.buf[d.pos:end:end]
	d.pos = end
	return b
}

func (d *decoder) str() string { return string(d.bytes()) }

// intern returns the next string, sharing one copy of each distinct value
// among the catalog's many repeated short strings (methods, parameter
// locations, namespaces).
func (d *decoder) intern() string {
	b := d.bytes()
	if len(b) == 0 {
		return ""
	}
	if s, ok := d.interned[string(b)]; ok {
		return s
	}
	if d.interned == nil {
		d.interned = make(map[string]string, 256)
	}
	s := string(b)
	d.interned[s] = s
	return s
}

func (d *decoder) strs() []string {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *decoder) internStrs() []string {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.intern()
	}
	return out
}

func (d *decoder) security() []SecurityRequirement {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	out := make([]SecurityRequirement, n)
	for i := range out {
		r := d.internStrs()
		if r == nil {
			r = []string{} // an empty requirement: no authentication
		}
		out[i] = SecurityRequirement(r)
	}
	return out
}
