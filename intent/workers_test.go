package intent

import (
	"sync"
	"testing"
)

// A handler that does not return never holds up the next one: run starts
// a worker when none is idle, and workers are reused once free.
func TestHandlerWorkersNeverQueue(t *testing.T) {
	w := newHandlerWorkers()
	release := make(chan struct{})
	hung := make(chan struct{})
	w.run(func() { close(hung); <-release })
	<-hung
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		w.run(wg.Done) // would deadlock here if work queued behind the hung handler
		wg.Wait()
	}
	close(release)
}
