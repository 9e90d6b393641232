package remote

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when goroutines outlive them: a
// server, session sweeper, stream or call left running.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
