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

// statusOf is the status of the server named name.
func statusOf(f *Fleet, name string) Status {
	for _, s := range f.Status() {
		if s.Server == name {
			return s
		}
	}
	return Status{}
}
