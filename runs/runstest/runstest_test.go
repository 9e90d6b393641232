package runstest_test

import (
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/runs"
	"github.com/intentsrv/intentsrv/runs/runstest"
)

func TestMemoryStore(t *testing.T) {
	runstest.Run(t, func(_ *testing.T, now func() time.Time) runs.Store {
		return runs.NewMemoryStore(runs.MemoryOptions{Now: now})
	})
}
