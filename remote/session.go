package remote

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// sessionIDPrefix marks the session ids this server issues.
const sessionIDPrefix = "mcp-session-"

var errSessionUnknown = errors.New("session not found")

// sessions binds each MCP session to the principal that opened it: a
// session id presented with another principal's key is treated as unknown
// (404), so a leaked session id is worth nothing without its key. It
// implements mcp-go's SessionIdManagerResolver: the manager it resolves for
// a request knows that request's principal. Terminated and idle-swept
// sessions are forgotten, so the table holds only live sessions.
type sessions struct {
	mu    sync.Mutex
	owner map[string]string // session id -> principal
}

func newSessions() *sessions { return &sessions{owner: map[string]string{}} }

// ResolveSessionIdManager implements server.SessionIdManagerResolver. r is
// nil when mcp-go sweeps idle sessions; that manager may terminate any.
func (s *sessions) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	p := principalView{s: s}
	if r != nil {
		p.principal, p.bound = principalFrom(r.Context())
	}
	return p
}

// Len is the number of live sessions.
func (s *sessions) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.owner)
}

// principalView is the sessions table as one principal sees it.
type principalView struct {
	s         *sessions
	principal string
	bound     bool // false for the sweeper, which acts for no principal
}

// Generate implements server.SessionIdManager.
func (v principalView) Generate() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic("remote: no randomness for a session id: " + err.Error())
	}
	id := sessionIDPrefix + base64.RawURLEncoding.EncodeToString(b)
	v.s.mu.Lock()
	v.s.owner[id] = v.principal
	v.s.mu.Unlock()
	return id
}

// Validate implements server.SessionIdManager: a session another principal
// opened is unknown to this one.
func (v principalView) Validate(id string) (isTerminated bool, err error) {
	v.s.mu.Lock()
	owner, ok := v.s.owner[id]
	v.s.mu.Unlock()
	if !ok || (v.bound && owner != v.principal) {
		return false, errSessionUnknown
	}
	return false, nil
}

// Terminate implements server.SessionIdManager: only the owner (or the
// idle sweeper) ends a session.
func (v principalView) Terminate(id string) (isNotAllowed bool, err error) {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	owner, ok := v.s.owner[id]
	if !ok {
		return false, nil
	}
	if v.bound && owner != v.principal {
		return true, nil
	}
	delete(v.s.owner, id)
	return false, nil
}
