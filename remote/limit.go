package remote

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter holds each principal's token bucket (requests per second with a
// burst) and its cap on concurrent tool calls. Principals come from the
// keys (a fixed set), so the maps stay as small as the keys file. The
// zero rate means no request limit; a zero cap means no concurrency cap.
type limiter struct {
	rps     rate.Limit
	burst   int
	maxCall int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	calls   map[string]int
}

func newLimiter(rps float64, burst, maxConcurrent int) *limiter {
	if burst <= 0 {
		burst = max(1, int(math.Ceil(rps)))
	}
	return &limiter{rps: rate.Limit(rps), burst: burst, maxCall: maxConcurrent,
		buckets: map[string]*rate.Limiter{}, calls: map[string]int{}}
}

// allow takes one token from principal's bucket. When none is left it
// takes nothing and returns how long until one will be.
func (l *limiter) allow(principal string, now time.Time) (ok bool, retryAfter time.Duration) {
	if l.rps <= 0 {
		return true, 0
	}
	l.mu.Lock()
	b := l.buckets[principal]
	if b == nil {
		b = rate.NewLimiter(l.rps, l.burst)
		l.buckets[principal] = b
	}
	l.mu.Unlock()
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// acquire claims one of principal's concurrent call slots; release must be
// called exactly once when ok.
func (l *limiter) acquire(principal string) (release func(), ok bool) {
	if l.maxCall <= 0 {
		return func() {}, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls[principal] >= l.maxCall {
		return nil, false
	}
	l.calls[principal]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.calls[principal]--
			l.mu.Unlock()
		})
	}, true
}

// retrySeconds rounds a wait up to whole seconds, at least 1, as
// Retry-After wants.
func retrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
