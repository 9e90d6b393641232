package mcpsrc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// Server is one upstream MCP server: a child process spoken to over stdio
// (Command set) or a remote server (URL set). The first group of fields is
// the standard mcpServers entry every host reads; the second group is
// intentsrv's own and comes only from intentsrv.yaml.
type Server struct {
	// Name is the entry's key in the configuration.
	Name string `json:"-" yaml:"-"`

	// Command, Args, Env and Cwd start a stdio server. Env adds to
	// intentsrv's own environment.
	Command string            `json:"command,omitempty" yaml:"command,omitempty"`
	Args    []string          `json:"args,omitempty" yaml:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty" yaml:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty" yaml:"cwd,omitempty"`
	// URL and Headers reach a remote server. Type picks the transport:
	// "sse" for the legacy SSE transport, anything else (or empty) is
	// streamable HTTP for a URL and stdio for a command.
	URL     string            `json:"url,omitempty" yaml:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty" yaml:"headers,omitempty"`
	Type    string            `json:"type,omitempty" yaml:"type,omitempty"`
	// Disabled entries are read, checked and skipped.
	Disabled bool `json:"disabled,omitempty" yaml:"disabled,omitempty"`

	// Namespace is the first segment(s) of every operation id; the
	// server's name, normalised, when empty.
	Namespace string `json:"-" yaml:"namespace,omitempty"`
	// Include and Exclude are id globs (see overlay.Filter).
	Include []string `json:"-" yaml:"include,omitempty"`
	Exclude []string `json:"-" yaml:"exclude,omitempty"`
	// Overlay is this server's overlay file.
	Overlay string `json:"-" yaml:"overlay,omitempty"`
	// StartTimeout bounds starting the server and listing its tools, e.g.
	// "20s"; empty means the fleet's default.
	StartTimeout string `json:"-" yaml:"start_timeout,omitempty"`

	// Origin names the file the entry came from, for messages.
	Origin string `json:"-" yaml:"-"`
}

// Transport names how a server is reached.
type Transport string

const (
	TransportStdio      Transport = "stdio"
	TransportStreamable Transport = "streamable-http"
	TransportSSE        Transport = "sse"
)

// Transport reports how s is reached. It is meaningful after Check.
func (s Server) Transport() Transport {
	switch {
	case s.Command != "":
		return TransportStdio
	case strings.EqualFold(s.Type, "sse"):
		return TransportSSE
	}
	return TransportStreamable
}

// ID is the server's namespace: Namespace, or the name made an id segment.
func (s Server) ID() string {
	if s.Namespace != "" {
		return s.Namespace
	}
	return Segment(s.Name)
}

// Error codes of configuration errors. Callers branch on them; each error
// also says how to fix the entry.
const (
	CodeConfigUnreadable = "mcp_config_unreadable" // the file cannot be read
	CodeConfigInvalid    = "mcp_config_invalid"    // not JSON, or not the expected shape
	CodeConfigEmpty      = "mcp_config_empty"      // neither "mcpServers" nor "servers"
	CodeServerInvalid    = "mcp_server_invalid"    // an entry's fields are wrong
	CodeServerDuplicate  = "mcp_server_duplicate"  // two entries share a name or namespace
	CodeVariableUnset    = "mcp_variable_unset"    // ${VAR} names an unset variable
	CodeVariableUnknown  = "mcp_variable_unknown"  // ${input:...} and other forms intentsrv cannot resolve
)

// ConfigError is a configuration mistake: its Code says which kind, Fix
// says what to change.
type ConfigError struct {
	Code    string
	Path    string // the file, when known
	Server  string // the entry's name, when the mistake is in one entry
	Message string
	Fix     string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("mcp config")
	if e.Path != "" {
		b.WriteString(" " + e.Path)
	}
	if e.Server != "" {
		fmt.Fprintf(&b, ": server %q", e.Server)
	}
	fmt.Fprintf(&b, ": %s [%s]", e.Message, e.Code)
	if e.Fix != "" {
		b.WriteString("; " + e.Fix)
	}
	return b.String()
}

// LoadFile reads an mcpServers JSON file and checks every entry; getenv
// resolves ${VAR} (nil means os.Getenv). Relative cwd values resolve
// against the file's folder. Disabled entries are returned with Disabled
// set. Servers come back sorted by name.
func LoadFile(path string, getenv func(string) string) ([]Server, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ConfigError{Code: CodeConfigUnreadable, Path: path, Message: err.Error(),
			Fix: "pass the path of an existing mcpServers JSON file (e.g. .mcp.json, .cursor/mcp.json, claude_desktop_config.json)"}
	}
	servers, err := ParseJSON(data, filepath.Dir(path), getenv)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) && ce.Path == "" {
			ce.Path = path
		}
		return nil, err
	}
	for i := range servers {
		servers[i].Origin = path
	}
	return servers, nil
}

// ParseJSON decodes an mcpServers document: an object with "mcpServers"
// (Claude Desktop, Claude Code, Cursor) or "servers" (VS Code) mapping names
// to entries. Keys intentsrv does not use (hosts add their own, such as
// "alwaysAllow") are ignored; a standard key of the wrong type is an error.
// dir resolves relative cwd values.
func ParseJSON(data []byte, dir string, getenv func(string) string) ([]Server, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, &ConfigError{Code: CodeConfigInvalid, Message: "not a JSON object: " + jsonErrorAt(data, err),
			Fix: `write {"mcpServers": {"NAME": {"command": "...", "args": [...]}}}`}
	}
	raw, ok := doc["mcpServers"]
	if !ok {
		raw, ok = doc["servers"]
	}
	if !ok {
		return nil, &ConfigError{Code: CodeConfigEmpty, Message: `no "mcpServers" (or VS Code's "servers") key`,
			Fix: `list servers under "mcpServers": {"NAME": {"command": "..."}}`}
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, &ConfigError{Code: CodeConfigInvalid, Message: `"mcpServers" is not an object of named entries`,
			Fix: `write "mcpServers": {"NAME": {...}}`}
	}
	servers := make([]Server, 0, len(entries))
	for _, name := range slices.Sorted(maps.Keys(entries)) { // the first error is the same every time
		e := entries[name]
		var s Server
		dec := json.NewDecoder(bytes.NewReader(e))
		if err := dec.Decode(&s); err != nil {
			return nil, &ConfigError{Code: CodeServerInvalid, Server: name, Message: "entry does not decode: " + err.Error(),
				Fix: "command is a string, args an array of strings, env and headers objects of strings, disabled a boolean"}
		}
		s.Name = name
		servers = append(servers, s)
	}
	return Check(servers, dir, getenv)
}

// SameHeader returns the first two names of headers, in name order, that
// name one HTTP header (names ignore case, so the two would send whichever
// was set last), or "", "" when none do.
func SameHeader(headers map[string]string) (first, second string) {
	seen := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(headers)) {
		if prev, ok := seen[http.CanonicalHeaderKey(k)]; ok {
			return prev, k
		}
		seen[http.CanonicalHeaderKey(k)] = k
	}
	return "", ""
}

// Check validates servers, expands ${VAR} references in every string a
// server is started with, resolves relative cwd and overlay paths against
// dir, and sorts the servers by name. It is the one check for entries from
// any file (JSON or intentsrv.yaml).
func Check(servers []Server, dir string, getenv func(string) string) ([]Server, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	out := make([]Server, len(servers))
	for i, s := range servers {
		// Expansion rewrites strings in place: work on copies.
		s.Args = slices.Clone(s.Args)
		s.Env = maps.Clone(s.Env)
		s.Headers = maps.Clone(s.Headers)
		out[i] = s
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	namespaces := map[string]string{}
	for i := range out {
		s := &out[i]
		bad := func(msg, fix string) error {
			return &ConfigError{Code: CodeServerInvalid, Server: s.Name, Message: msg, Fix: fix}
		}
		if strings.TrimSpace(s.Name) == "" {
			return nil, bad("the server name is empty", "give every entry a name such as \"github\"")
		}
		if Segment(s.Name) == "" {
			return nil, bad("the name has no letter or digit to build ids from", "rename it, or set namespace: in intentsrv.yaml")
		}
		if s.Namespace != "" {
			if err := operations.CheckID(s.Namespace); err != nil {
				return nil, bad("namespace: "+err.Error(), "use lowercase dotted segments of [a-z0-9_], e.g. gh")
			}
		}
		if s.Disabled {
			continue
		}
		if prev, ok := namespaces[s.ID()]; ok {
			return nil, &ConfigError{Code: CodeServerDuplicate, Server: s.Name,
				Message: fmt.Sprintf("its operations would share the namespace %q with server %q", s.ID(), prev),
				Fix:     "rename one server, or give one a namespace: in intentsrv.yaml"}
		}
		namespaces[s.ID()] = s.Name
		if err := s.expand(dir, getenv); err != nil {
			return nil, err
		}
		switch {
		case s.Command != "" && s.URL != "":
			return nil, bad("both command and url are set", "keep command (a local server) or url (a remote one)")
		case s.Command == "" && s.URL == "":
			return nil, bad("neither command nor url is set", `set "command" (and "args") to start a local server, or "url" for a remote one`)
		}
		switch strings.ToLower(s.Type) {
		case "", "stdio", "http", "streamable-http", "streamablehttp", "streamable_http", "sse":
		default:
			return nil, bad(fmt.Sprintf("type %q is not stdio, http, streamable-http or sse", s.Type), "drop type, or set one of those")
		}
		if s.Command != "" {
			if strings.EqualFold(s.Type, "sse") || strings.EqualFold(s.Type, "http") {
				return nil, bad(fmt.Sprintf("type %q needs a url, not a command", s.Type), "drop type, or replace command with url")
			}
			if len(s.Headers) > 0 {
				return nil, bad("headers are for remote servers; this one has a command", "pass settings to a local server through env")
			}
			if s.Cwd != "" && !filepath.IsAbs(s.Cwd) && dir != "" {
				s.Cwd = filepath.Join(dir, s.Cwd)
			}
		} else {
			u, err := url.Parse(s.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, bad(fmt.Sprintf("url %q is not an http(s) URL", s.URL), "write the server's full URL, e.g. https://example.com/mcp")
			}
			if len(s.Env) > 0 || len(s.Args) > 0 || s.Cwd != "" {
				return nil, bad("env, args and cwd are for local servers; this one has a url", "drop them, or send settings as headers")
			}
			for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
				if strings.ContainsAny(k+s.Headers[k], "\r\n") {
					return nil, bad(fmt.Sprintf("header %q contains a line break", k), "remove the line break")
				}
			}
			if a, b := SameHeader(s.Headers); a != "" {
				return nil, bad(fmt.Sprintf("headers %q and %q are the same header (names ignore case)", a, b), "keep one of them")
			}
		}
		if s.StartTimeout != "" {
			if d, err := time.ParseDuration(s.StartTimeout); err != nil || d <= 0 {
				return nil, bad(fmt.Sprintf("start_timeout %q is not a positive duration", s.StartTimeout), `write e.g. "20s"`)
			}
		}
		if s.Overlay != "" && !filepath.IsAbs(s.Overlay) && dir != "" {
			s.Overlay = filepath.Join(dir, s.Overlay)
		}
	}
	return out, nil
}

// startTimeout is the server's own start timeout, or def.
func (s Server) startTimeout(def time.Duration) time.Duration {
	if d, err := time.ParseDuration(s.StartTimeout); err == nil && d > 0 {
		return d
	}
	return def
}

// jsonErrorAt describes a JSON syntax error with its line and column.
func jsonErrorAt(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err.Error()
	}
	line, col := 1, 1
	for _, b := range data[:min(int(se.Offset), len(data))] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%v at line %d, column %d", err, line, col)
}
