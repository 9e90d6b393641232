package remote

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// originPolicy guards against DNS rebinding, as the MCP transport
// specification requires: a web page the user visits must not reach the
// server through the user's browser.
//
//   - A request that carries an Origin header (browsers always send one on
//     cross-origin and POST requests) passes only when that origin is a
//     loopback origin (http://localhost:6274, a local inspector) or is listed
//     in AllowedOrigins. Clients that are not browsers send no Origin and
//     pass.
//   - A request that arrives on a loopback address must name a loopback
//     host, or one of AllowedHosts, in its Host header: a rebound domain
//     (evil.example resolving to 127.0.0.1) does not.
//   - When AllowedHosts is set, every request's Host must be loopback or
//     listed.
type originPolicy struct {
	origins map[string]bool // normalised scheme://host[:port]
	hosts   map[string]bool // lower-case host names, without port
}

func newOriginPolicy(origins, hosts []string) originPolicy {
	p := originPolicy{origins: map[string]bool{}, hosts: map[string]bool{}}
	for _, o := range origins {
		p.origins[normalOrigin(o)] = true
	}
	for _, h := range hosts {
		p.hosts[strings.ToLower(hostOnly(h))] = true
	}
	return p
}

// check returns "" when r may proceed, else the reason it may not.
func (p originPolicy) check(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host == "" {
			if !p.origins[o] {
				return "origin " + quote(o) + " is not allowed"
			}
		} else if !isLoopbackName(u.Hostname()) && !p.origins[normalOrigin(o)] {
			return "origin " + quote(o) + " is not allowed (list it with --allowed-origin)"
		}
	}
	host := strings.ToLower(hostOnly(r.Host))
	if isLoopbackName(host) || p.hosts[host] {
		return ""
	}
	if len(p.hosts) > 0 {
		return "host " + quote(r.Host) + " is not allowed (list it with --allowed-host)"
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil && isLoopbackName(hostOnly(local.String())) {
		return "host " + quote(r.Host) + " is not a loopback name on a loopback listener (list it with --allowed-host)"
	}
	return ""
}

// normalOrigin lower-cases an origin and drops a trailing slash.
func normalOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}

// hostOnly strips the port from host[:port] or [v6]:port.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// isLoopbackName reports whether host is "localhost" or a loopback address.
func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

// quote bounds an attacker-chosen string before it reaches a log or a
// response.
func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return strconv.Quote(s)
}
