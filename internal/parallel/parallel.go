// Package parallel runs independent pieces of work on every processor.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls fn(i) once for every i in [0, n), on at most GOMAXPROCS
// goroutines, and returns when every call has returned. Calls run in no
// set order, so fn must write only what belongs to its i: then what Each
// computes does not depend on the number of processors or on scheduling.
func Each(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}
