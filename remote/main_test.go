package remote

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when goroutines outlive them: a
// server, session sweeper, stream or call left running.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, idleHandlerWorkers)
}

// idleHandlerWorkers ignores the intent server's idle handler workers: a
// worker kept for the next handler exits by itself after ten idle seconds
// (intent/workers.go), so it is a pool, not a leak.
var idleHandlerWorkers = goleak.IgnoreTopFunction("github.com/intentsrv/intentsrv/intent.(*handlerWorkers).loop")
