package gate

import (
	"fmt"
	"strings"

	"github.com/intentsrv/intentsrv/tokens"
)

// Tokens is one text's size in each reported encoding.
type Tokens map[string]int

// count measures text under every encoding intentsrv reports.
func count(text string) (Tokens, error) {
	t := make(Tokens, len(tokens.Encodings))
	for _, enc := range tokens.Encodings {
		n, err := tokens.Count(enc, text)
		if err != nil {
			return nil, fmt.Errorf("count tokens: %w", err)
		}
		t[enc] = n
	}
	return t, nil
}

// In returns the count budgets are enforced against under encoding: one
// encoding's count, or the largest with EncodingMax.
func (t Tokens) In(encoding string) int {
	if encoding != EncodingMax && encoding != "" {
		return t[encoding]
	}
	best := 0
	for _, n := range t {
		best = max(best, n)
	}
	return best
}

// String formats t as "o200k_base 412, cl100k_base 405", in report order.
func (t Tokens) String() string {
	var parts []string
	for _, enc := range tokens.Encodings {
		parts = append(parts, fmt.Sprintf("%s %d", enc, t[enc]))
	}
	return strings.Join(parts, ", ")
}
