package remote

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzOriginPolicy feeds the origin policy attacker-chosen Origin and Host
// headers on a loopback listener with no allow-lists: it must not panic,
// and it must refuse every Host that is not a loopback name and every
// Origin whose host is not one.
func FuzzOriginPolicy(f *testing.F) {
	for _, seed := range [][2]string{
		{"", "127.0.0.1:8080"}, {"http://localhost:6274", "localhost"}, {"http://evil.example", "evil.example"},
		{"null", "[::1]:80"}, {"http://127.0.0.1.evil.example", "127.0.0.1"}, {"http://[::1]:3000", "[::1]"},
	} {
		f.Add(seed[0], seed[1])
	}
	p := newOriginPolicy(nil, nil)
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	f.Fuzz(func(t *testing.T, origin, host string) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local)))
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		why := p.check(r)
		if why == "" && !isLoopbackName(hostOnly(host)) {
			t.Fatalf("host %q passed", host)
		}
		if why == "" && origin != "" && strings.Contains(strings.ToLower(origin), "evil") {
			t.Fatalf("origin %q passed", origin)
		}
	})
}

// FuzzReadKeys feeds the keys-file parser arbitrary text: it must not
// panic, every accepted principal must be legal, and an error must never
// show a key.
func FuzzReadKeys(f *testing.F) {
	f.Add("alice " + keyAlice + "\n# c\nbob sha256:" + strings.Repeat("ab", 32) + "\n")
	f.Add("Alice! 0123456789abcdef0123\n")
	f.Add("x y z\n")
	f.Fuzz(func(t *testing.T, text string) {
		var k Keys
		err := k.readKeys(strings.NewReader(text), "f")
		if err == nil {
			for _, p := range k.Principals() {
				if !principalName.MatchString(p) {
					t.Fatalf("principal %q accepted", p)
				}
			}
			return
		}
		// Errors name principals; a key that is also (part of) some
		// principal's name cannot be told apart from it.
		var principals, keys []string
		for _, line := range strings.Split(text, "\n") {
			if fields := strings.Fields(line); len(fields) == 2 {
				principals = append(principals, fields[0])
				keys = append(keys, fields[1])
			}
		}
	keys:
		for _, key := range keys {
			for _, p := range principals {
				if strings.Contains(p, key) {
					continue keys
				}
			}
			if len(key) >= MinKeyBytes && strings.Contains(err.Error(), key) {
				t.Fatalf("error shows a key: %v", err)
			}
		}
	})
}
