// Package pin pins operations against rug pulls: a lock file records a
// content hash per operation (its id, summary, description, input schema
// and kind), and Compare says which served operations drifted from it,
// which are new, and which are gone.
//
// A source outside the operator's control (an upstream MCP server, a
// remote OpenAPI spec) can change what a tool says or takes after the
// operator reviewed it; the hash catches any change an agent would see.
package pin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/intentsrv/intentsrv/operations"
)

// Version is the lock file format this package writes and reads.
const Version = 1

// File is a lock file: one entry per operation id.
type File struct {
	Version    int              `json:"version"`
	Operations map[string]Entry `json:"operations"`
}

// Entry is one pinned operation.
type Entry struct {
	// Source is where the operation came from ("mcp:github", "openapi:x").
	Source string `json:"source"`
	// Hash is "sha256:" and the hex digest of the operation's pinned
	// content (see Hash).
	Hash string `json:"hash"`
}

// Hash is the content hash of op: SHA-256 over the canonical JSON of its
// id, summary, description, input schema (keys sorted, insignificant space
// dropped) and kind (empty counts as read). Any change an agent would see
// in find or describe, or in how the policies treat it, changes the hash.
func Hash(op *operations.Operation) string {
	var schema any
	if len(op.Input) > 0 {
		if err := json.Unmarshal(op.Input, &schema); err != nil {
			schema = string(op.Input) // not JSON: hash its bytes
		}
	}
	kind := op.Kind
	if kind == "" {
		kind = operations.KindRead
	}
	// encoding/json sorts map keys, so the encoding is canonical.
	b, _ := json.Marshal(map[string]any{"id": op.ID, "summary": op.Summary, "description": op.Description, "input": schema, "kind": kind})
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Build pins every operation of ops.
func Build(ops []*operations.Operation) *File {
	f := &File{Version: Version, Operations: make(map[string]Entry, len(ops))}
	for _, op := range ops {
		f.Operations[op.ID] = Entry{Source: op.Source, Hash: Hash(op)}
	}
	return f
}

// Write saves f to path as indented JSON (keys sorted, so a refreshed
// lock diffs well), replacing the file atomically.
func (f *File) Write(path string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write lock file: %w", err)
	}
	return nil
}

// ErrFormat marks a lock file that does not decode or has another
// version; the fix is to refresh it with intentsrv lock.
var ErrFormat = errors.New("not an intentsrv lock file")

// Load reads a lock file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lock file: %w (write one with intentsrv lock --out %s)", err, path)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("lock file %s: %w: %v (refresh it with intentsrv lock)", path, ErrFormat, err)
	}
	if f.Version != Version {
		return nil, fmt.Errorf("lock file %s: %w: version %d, this intentsrv reads %d (refresh it with intentsrv lock)", path, ErrFormat, f.Version, Version)
	}
	if f.Operations == nil {
		f.Operations = map[string]Entry{}
	}
	return &f, nil
}

// State is how one operation stands against the lock.
type State string

const (
	Pinned  State = "pinned"  // hash matches
	Drifted State = "drifted" // in the lock with another hash
	New     State = "new"     // not in the lock
)

// Check is how op stands against f.
func (f *File) Check(op *operations.Operation) State {
	e, ok := f.Operations[op.ID]
	switch {
	case !ok:
		return New
	case e.Hash != Hash(op):
		return Drifted
	}
	return Pinned
}

// Drift lists the operations that differ from a lock, each sorted.
type Drift struct {
	Drifted []string `json:"drifted,omitempty"`
	New     []string `json:"new,omitempty"`
	// Missing are pinned ids no served operation has (a tool removed,
	// a server down or unloaded).
	Missing []string `json:"missing,omitempty"`
}

// Empty reports whether nothing drifted, was added or went missing.
func (d Drift) Empty() bool { return len(d.Drifted)+len(d.New)+len(d.Missing) == 0 }

// Compare checks every operation of ops against f.
func (f *File) Compare(ops []*operations.Operation) Drift {
	var d Drift
	seen := make(map[string]bool, len(ops))
	for _, op := range ops {
		seen[op.ID] = true
		switch f.Check(op) {
		case Drifted:
			d.Drifted = append(d.Drifted, op.ID)
		case New:
			d.New = append(d.New, op.ID)
		}
	}
	for id := range f.Operations {
		if !seen[id] {
			d.Missing = append(d.Missing, id)
		}
	}
	slices.Sort(d.Drifted)
	slices.Sort(d.New)
	slices.Sort(d.Missing)
	return d
}
