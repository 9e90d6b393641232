// Package tokens counts model tokens with the BPE encodings hosts bill in
// (o200k_base and cl100k_base), from BPE files embedded in the binary: no
// network at run time.
package tokens

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding names accepted by Count.
const (
	O200K  = "o200k_base"
	CL100K = "cl100k_base"
)

// Encodings lists the encodings intentsrv reports, in report order.
var Encodings = []string{O200K, CL100K}

var (
	loaderOnce sync.Once
	mu         sync.Mutex
	encoders   = map[string]*tiktoken.Tiktoken{}
)

// encoder returns the cached encoder for name. tiktoken-go keeps its BPE
// loader in package state; we set the offline loader exactly once.
func encoder(name string) (*tiktoken.Tiktoken, error) {
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	mu.Lock()
	defer mu.Unlock()
	if e, ok := encoders[name]; ok {
		return e, nil
	}
	e, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("load token encoding %q: %w", name, err)
	}
	encoders[name] = e
	return e, nil
}

// Count returns the number of tokens text encodes to under the named
// encoding. Special-token text is counted as ordinary text. It is safe for
// concurrent use.
func Count(encoding, text string) (int, error) {
	e, err := encoder(encoding)
	if err != nil {
		return 0, err
	}
	return len(e.EncodeOrdinary(text)), nil
}

// Max returns the larger of the o200k_base and cl100k_base counts: the
// figure budgets are enforced against, since hosts use either.
func Max(text string) (int, error) {
	best := 0
	for _, enc := range Encodings {
		n, err := Count(enc, text)
		if err != nil {
			return 0, err
		}
		best = max(best, n)
	}
	return best, nil
}
