// Package operations defines the operation type and the registry that holds
// every operation intentsrv can run, whatever its source: Go functions
// registered with generics, OpenAPI operations executed over HTTP, or tools of
// upstream MCP servers.
//
// The registry is private to the server: hosts never see operations as tools.
// They reach them through the four intent tools of package intent.
package operations

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Kind says what running an operation does to the world. It drives policy:
// ask runs only reads; act runs writes, and destructive operations (every
// write under the confirm policy) only after a confirmed preview.
type Kind string

const (
	// KindRead operations have no side effects the caller can observe.
	KindRead Kind = "read"
	// KindWrite operations create or change state.
	KindWrite Kind = "write"
	// KindDestructive operations delete or irreversibly change state.
	KindDestructive Kind = "destructive"
)

// Valid reports whether k is one of the three kinds.
func (k Kind) Valid() bool {
	return k == KindRead || k == KindWrite || k == KindDestructive
}

// IsWrite reports whether k changes state (write or destructive).
func (k Kind) IsWrite() bool { return k == KindWrite || k == KindDestructive }

// risk orders the kinds: read < write < destructive; 0 for an invalid kind.
func (k Kind) risk() int {
	switch k {
	case KindRead:
		return 1
	case KindWrite:
		return 2
	case KindDestructive:
		return 3
	}
	return 0
}

// Declared is the kind of an operation whose protocol implies floor (an
// HTTP DELETE is destructive, a POST a write) when a source outside the
// operator's control — a spec's extension, an upstream tool's annotations
// — declares declared: the riskier of the two. Such a source may raise a
// kind but never lower it, so a spec cannot turn a DELETE into a read that
// runs without a preview. lowered reports a declaration that was refused.
// Only the operator's own overlay or configuration may lower a kind.
func Declared(floor, declared Kind) (kind Kind, lowered bool) {
	if !declared.Valid() {
		return floor, false
	}
	if declared.risk() < floor.risk() {
		return floor, true
	}
	return declared, false
}

// Example is one worked use of an operation: a phrase a user might say and
// the parameters that serve it. Examples feed the router and describe.
type Example struct {
	// Intent is natural language, as a user would say it.
	Intent string `json:"intent"`
	// Params are arguments that satisfy the input schema, if any.
	Params map[string]any `json:"params,omitempty"`
}

// HTTPBinding records how an operation maps to HTTP, for operations that come
// from an OpenAPI spec. The router indexes the method and path words.
type HTTPBinding struct {
	// Method is the upper-case HTTP method, e.g. "GET".
	Method string `json:"method"`
	// Path is the templated path, e.g. "/repos/{owner}/{repo}".
	Path string `json:"path"`
}

// Handler runs an operation. args has already been validated against the
// operation's input schema; the result must be JSON. A handler should honour
// ctx cancellation: the server abandons calls past their timeout.
type Handler func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// Previewer describes, without side effects, what running an operation with
// args would do: the HTTP request that would be sent, the upstream tool and
// arguments, and so on. Secrets must be redacted. A nil Previewer yields a
// generic preview of the action and its arguments.
type Previewer func(ctx context.Context, args json.RawMessage) (any, error)

// Operation is one callable unit in the registry. Only ID, Input (for raw
// registration) and Handler are required; the registry fills Namespace from
// the ID and Kind defaults to read.
type Operation struct {
	// ID is the stable identifier: lowercase dotted segments of [a-z0-9_],
	// at most 128 characters, e.g. "helpdesk.tickets.get". IDs travel inside
	// params, never as tool names, so dots are safe.
	ID string `json:"id"`
	// Namespace groups operations for describe's overview. When empty it is
	// the ID without its last segment ("helpdesk.tickets").
	Namespace string `json:"namespace"`
	// Summary is one line saying what the operation does.
	Summary string `json:"summary"`
	// Description is longer prose; it is indexed by the router and shown by
	// describe.
	Description string `json:"description,omitempty"`
	// Tags are free-form labels (e.g. OpenAPI tags).
	Tags []string `json:"tags,omitempty"`
	// Aliases are other ids or names the operation answers to exactly.
	Aliases []string `json:"aliases,omitempty"`
	// Examples are worked uses that feed routing and describe.
	Examples []Example `json:"examples,omitempty"`
	// Input is the JSON Schema of the arguments. Its root must be an object
	// schema; it is compiled at registration.
	Input json.RawMessage `json:"input"`
	// Output is the JSON Schema of the result, when known.
	Output json.RawMessage `json:"output,omitempty"`
	// Kind is read, write or destructive; empty means read.
	Kind Kind `json:"kind"`
	// Idempotent reports that repeating a call with the same arguments has no
	// further effect.
	Idempotent bool `json:"idempotent,omitempty"`
	// OpenWorld reports that the operation reaches outside the server
	// (network, third-party systems).
	OpenWorld bool `json:"open_world,omitempty"`
	// Deprecated operations still run, with a warning on their results.
	Deprecated bool `json:"deprecated,omitempty"`
	// Source says where the operation came from: "go", "openapi:NAME" or
	// "mcp:SERVER".
	Source string `json:"source"`
	// HTTP is set for operations executed over HTTP.
	HTTP *HTTPBinding `json:"http,omitempty"`
	// Handler runs the operation. Required.
	Handler Handler `json:"-"`
	// Preview describes a call without running it; optional.
	Preview Previewer `json:"-"`
}

// MaxIDLength is the longest operation id the registry accepts.
const MaxIDLength = 128

var idPattern = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`)

// ValidID reports whether id follows the operation id grammar.
func ValidID(id string) bool {
	return len(id) > 0 && len(id) <= MaxIDLength && idPattern.MatchString(id)
}

// CheckID returns an error that says how id breaks the grammar, or nil.
func CheckID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("empty operation id")
	case len(id) > MaxIDLength:
		return fmt.Errorf("operation id %q is %d characters long; the limit is %d", id, len(id), MaxIDLength)
	case !idPattern.MatchString(id):
		return fmt.Errorf("operation id %q is not lowercase dotted segments of [a-z0-9_] (e.g. \"tickets.get\")", id)
	}
	return nil
}

// FitID cuts id to MaxIDLength when it is longer, replacing its tail with
// a short hash of the whole id so that two long ids that share a prefix stay
// distinct. Sources that build ids from outside names call it.
func FitID(id string) string {
	if len(id) <= MaxIDLength {
		return id
	}
	h := ShortHash(id)
	cut := strings.TrimRight(id[:MaxIDLength-len(h)-1], "._")
	return cut + "_" + h
}

// CutByFit reports whether id looks cut by FitID: as long as an id may be,
// less the separators the cut may have ended with, and ending in "_" and
// a ShortHash. cut is id without them, its last word perhaps cut short.
// An id that merely ends like a hash reads as cut too; a caller uses it
// to read what is left, not to prove where it came from.
func CutByFit(id string) (cut string, ok bool) {
	const slack, n = 4, shortHashLen // separators FitID may trim from its cut; the hash's length
	if len(id) < MaxIDLength-slack || id[len(id)-n-1] != '_' {
		return id, false
	}
	for _, c := range id[len(id)-n:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return id, false
		}
	}
	return id[:len(id)-n-1], true
}

// shortHashLen is the length of ShortHash's digits.
const shortHashLen = 8

// ShortHash is 8 hex digits of the SHA-256 of s: enough to tell apart the
// few names that collide in one catalog, short enough for an id.
func ShortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:shortHashLen/2])
}

// DefaultNamespace is the namespace of an id whose operation names none: the
// id without its last segment, or the id itself when it has one segment.
func DefaultNamespace(id string) string {
	if i := strings.LastIndexByte(id, '.'); i > 0 {
		return id[:i]
	}
	return id
}
