package mcpstdio

import (
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// session is the one client session of a stdio connection, as mcp-go
// sees it. mcp-go marks it initialized and records the negotiated
// protocol version when it answers initialize.
type session struct {
	id            string
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool

	mu      sync.Mutex
	version string
	info    mcp.Implementation
	caps    mcp.ClientCapabilities
}

var (
	_ server.ClientSession         = (*session)(nil)
	_ server.SessionWithClientInfo = (*session)(nil)
)

func (s *session) SessionID() string { return s.id }

func (s *session) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notifications }

func (s *session) Initialize() { s.initialized.Store(true) }

func (s *session) Initialized() bool { return s.initialized.Load() }

// SetProtocolVersion records the version negotiated by initialize (mcp-go
// calls it through an optional interface).
func (s *session) SetProtocolVersion(v string) {
	s.mu.Lock()
	s.version = v
	s.mu.Unlock()
}

// protocolVersion is the negotiated version, or "" before initialize.
func (s *session) protocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

func (s *session) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

func (s *session) SetClientInfo(info mcp.Implementation) {
	s.mu.Lock()
	s.info = info
	s.mu.Unlock()
}

func (s *session) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

func (s *session) SetClientCapabilities(caps mcp.ClientCapabilities) {
	s.mu.Lock()
	s.caps = caps
	s.mu.Unlock()
}
