// Package config reads intentsrv.yaml, the file that lists a server's
// operation sources with their credentials (as environment variable names),
// filters and overlays.
//
//	sources:
//	  - name: github                     # first segment of every id
//	    openapi: ./api.github.com.json   # file path or http(s) URL
//	    base_url: https://api.github.com # optional; default: the spec's servers
//	    auth:
//	      token_env: GITHUB_TOKEN        # bearer / oauth2 / openIdConnect
//	      # api_key_env, username_env, password_env, schemes: {NAME: ENV}
//	    headers: {X-GitHub-Api-Version: "2022-11-28"}
//	    include: ["github.repos.*", "github.issues.*"]
//	    exclude: ["*.delete*"]
//	    overlay: ./github.overlay.yaml
//	    timeout: 20s
//	    max_response_bytes: 4194304
//	    mock: false
//	overlays: [./all.overlay.yaml]      # applied to every source, after its own
//	mcpServers:                          # upstream MCP servers, as hosts write them
//	  github:
//	    command: npx
//	    args: [-y, "@modelcontextprotocol/server-github"]
//	    env: {GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}"}
//	    namespace: gh                    # optional; default: the name
//	    include: ["gh.*"]                # id globs, as for OpenAPI sources
//	    overlay: ./gh.overlay.yaml
//	    start_timeout: 20s
//	  search: {url: "https://example.com/mcp", headers: {Authorization: "Bearer ${SEARCH_TOKEN}"}}
//
// Relative paths are resolved against the config file's folder. Secrets
// never go in this file: only the names of the variables that hold them.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/intentsrv/intentsrv/manifest/mcpsrc"
	"github.com/intentsrv/intentsrv/manifest/openapi"
	"github.com/intentsrv/intentsrv/operations"
)

// File is a parsed configuration.
type File struct {
	// Sources are loaded in order.
	Sources []Source `yaml:"sources"`
	// Overlays apply to every source's operations, after the source's own.
	Overlays []string `yaml:"overlays,omitempty"`
	// Gate sets the surface gate's budgets (intentsrv gate); flags given on
	// the command line win over these.
	Gate *GateBudgets `yaml:"gate,omitempty"`
	// MCPServers are upstream MCP servers by name: the standard entry
	// (command, args, env, cwd, url, headers, type, disabled) plus
	// namespace, include, exclude, overlay and start_timeout. Parse checks
	// their shape; mcpsrc.Check (through Upstreams) checks the rest and
	// expands ${VAR} references when the servers start.
	MCPServers map[string]mcpsrc.Server `yaml:"mcpServers,omitempty"`

	// Dir is the config file's folder; relative paths resolve against it.
	Dir string `yaml:"-"`
}

// Upstreams returns the config's MCP servers checked by mcpsrc.Check, with
// ${VAR} references expanded by getenv and relative paths resolved against
// the config's folder; nil getenv means os.Getenv.
func (f *File) Upstreams(getenv func(string) string) ([]mcpsrc.Server, error) {
	servers := make([]mcpsrc.Server, 0, len(f.MCPServers))
	for name, s := range f.MCPServers {
		s.Name = name
		s.Origin = "intentsrv.yaml"
		servers = append(servers, s)
	}
	return mcpsrc.Check(servers, f.Dir, getenv)
}

// GateBudgets are the gate's budgets as config keys. Unset keys keep the
// gate's defaults; a negative number turns that limit off.
type GateBudgets struct {
	MaxTools            *int     `yaml:"max_tools,omitempty"`
	MaxListTokens       *int     `yaml:"max_list_tokens,omitempty"`
	MaxToolTokens       *int     `yaml:"max_tool_tokens,omitempty"`
	MaxDescriptionLines *int     `yaml:"max_description_lines,omitempty"`
	MaxPathTokens       *int     `yaml:"max_path_tokens,omitempty"`
	MaxGrowthPercent    *float64 `yaml:"max_growth_percent,omitempty"`
	Encoding            string   `yaml:"encoding,omitempty"`
	HostServerName      string   `yaml:"host_server_name,omitempty"`
}

// Source is one OpenAPI source.
type Source struct {
	// Name is the id prefix: one segment of [a-z0-9_].
	Name string `yaml:"name"`
	// OpenAPI is the spec's path or URL.
	OpenAPI string `yaml:"openapi"`
	// BaseURL replaces the spec's servers.
	BaseURL string `yaml:"base_url,omitempty"`
	// Auth names the environment variables holding credentials; when empty,
	// openapi.DefaultAuthEnv(Name) applies.
	Auth *openapi.AuthEnv `yaml:"auth,omitempty"`
	// Headers are sent with every request.
	Headers map[string]string `yaml:"headers,omitempty"`
	// Include and Exclude are id globs; see overlay.Filter.
	Include []string `yaml:"include,omitempty"`
	Exclude []string `yaml:"exclude,omitempty"`
	// Overlay is this source's overlay file.
	Overlay string `yaml:"overlay,omitempty"`
	// Timeout bounds one HTTP call.
	Timeout Duration `yaml:"timeout,omitempty"`
	// MaxResponseBytes caps a response body.
	MaxResponseBytes int64 `yaml:"max_response_bytes,omitempty"`
	// Mock answers from the spec instead of the network.
	Mock bool `yaml:"mock,omitempty"`
}

// Duration is a time.Duration written as "30s" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", s)
	}
	*d = Duration(v)
	return nil
}

// Load reads and checks the config file at path; relative paths in it are
// made relative to path's folder.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	f, err := Parse(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return f, nil
}

// Parse decodes and checks a config; dir resolves relative paths. Unknown
// keys are errors.
func Parse(data []byte, dir string) (*File, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("decode: %w", err)
	}
	f.Dir = dir
	seen := map[string]bool{}
	for i := range f.Sources {
		s := &f.Sources[i]
		where := fmt.Sprintf("source %d", i+1)
		if s.Name != "" {
			where = fmt.Sprintf("source %q", s.Name)
		}
		if err := operations.CheckID(s.Name); err != nil || strings.Contains(s.Name, ".") {
			return nil, fmt.Errorf("%s: name must be one id segment of [a-z0-9_] (e.g. \"github\")", where)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("%s: the name is used twice", where)
		}
		seen[s.Name] = true
		if s.OpenAPI == "" {
			return nil, fmt.Errorf("%s: openapi (a path or URL) is required", where)
		}
		s.OpenAPI = resolve(dir, s.OpenAPI)
		if s.Overlay != "" {
			s.Overlay = resolve(dir, s.Overlay)
		}
		if s.BaseURL != "" && !strings.HasPrefix(s.BaseURL, "http://") && !strings.HasPrefix(s.BaseURL, "https://") {
			return nil, fmt.Errorf("%s: base_url must be an http(s) URL", where)
		}
		for _, k := range slices.Sorted(maps.Keys(s.Headers)) { // the first error is the same every time
			if strings.ContainsAny(k+s.Headers[k], "\r\n") || http.CanonicalHeaderKey(k) == "Authorization" {
				return nil, fmt.Errorf("%s: header %q is not allowed (credentials come from auth env vars)", where, k)
			}
		}
		if a, b := mcpsrc.SameHeader(s.Headers); a != "" {
			return nil, fmt.Errorf("%s: headers %q and %q are the same header (names ignore case); keep one", where, a, b)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(f.MCPServers)) {
		m := f.MCPServers[name]
		if seen[mcpsrc.Segment(name)] && m.Namespace == "" {
			return nil, fmt.Errorf("mcpServers %q: its operations would share the namespace %q with the OpenAPI source of that name; give it a namespace", name, mcpsrc.Segment(name))
		}
	}
	for i, o := range f.Overlays {
		f.Overlays[i] = resolve(dir, o)
	}
	return &f, nil
}

func resolve(dir, p string) string {
	if strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") || filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}
