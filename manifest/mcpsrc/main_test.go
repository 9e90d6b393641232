package mcpsrc

import (
	"os"
	"testing"

	"github.com/intentsrv/intentsrv/internal/testupstream"
)

// TestMain lets the test binary double as the Go test upstream and as a
// parent process that the orphan test kills.
func TestMain(m *testing.M) {
	testupstream.Main()
	fleetParentMain()
	os.Exit(m.Run())
}
