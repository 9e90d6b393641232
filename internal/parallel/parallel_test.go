package parallel

import (
	"runtime"
	"testing"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 3, 1000} {
			calls := make([]int, n)
			Each(n, func(i int) { calls[i]++ })
			for i, c := range calls {
				if c != 1 {
					t.Fatalf("GOMAXPROCS %d, n %d: index %d called %d times, want once", procs, n, i, c)
				}
			}
		}
	}
}
