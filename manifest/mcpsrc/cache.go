package mcpsrc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mark3labs/mcp-go/mcp"
)

// cacheFormat changes when the cache entry's shape does; older entries are
// ignored.
const cacheFormat = 1

// CacheDirDefault is the tools-list cache folder under the user cache
// folder; "" when there is none.
func CacheDirDefault() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "intentsrv", "mcp")
}

// toolCache keeps each server's last tools list on disk so that a restart
// serves tools/list, find and describe before its upstreams finish
// starting. An entry is keyed by a hash of the server's whole config entry
// (command, args, env, cwd, url, headers, type), so any change to how the
// server starts misses the cache. Only the tools list is stored; env and
// header values, which may be secrets, enter only the hash.
type toolCache struct {
	dir string // "" disables the cache
}

type cacheEntry struct {
	Format int        `json:"format"`
	Server string     `json:"server"`
	Tools  []mcp.Tool `json:"tools"`
}

// key hashes the entry's fields that decide which server answers.
func cacheKey(s Server) string {
	b, _ := json.Marshal(struct {
		Format  int
		Command string
		Args    []string
		Env     map[string]string
		Cwd     string
		URL     string
		Headers map[string]string
		Type    string
	}{cacheFormat, s.Command, s.Args, s.Env, s.Cwd, s.URL, s.Headers, s.Type})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

func (c toolCache) path(s Server) string {
	return filepath.Join(c.dir, Segment(s.Name)+"-"+cacheKey(s)+".json")
}

// load returns the cached tools of s; ok is false on a miss, and a corrupt
// or foreign entry is a miss.
func (c toolCache) load(s Server) (tools []mcp.Tool, ok bool) {
	if c.dir == "" {
		return nil, false
	}
	data, err := os.ReadFile(c.path(s))
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Format != cacheFormat || e.Server != s.Name {
		return nil, false
	}
	return e.Tools, true
}

// save writes the tools of s atomically, readable by the user only.
func (c toolCache) save(s Server, tools []mcp.Tool) error {
	if c.dir == "" {
		return nil
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return fmt.Errorf("tools cache: %w", err)
	}
	data, err := json.Marshal(cacheEntry{Format: cacheFormat, Server: s.Name, Tools: tools})
	if err != nil {
		return fmt.Errorf("tools cache: %w", err)
	}
	f, err := os.CreateTemp(c.dir, ".tools-*")
	if err != nil {
		return fmt.Errorf("tools cache: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("tools cache: write %s: %v", f.Name(), firstErr(werr, cerr))
	}
	if err := os.Rename(f.Name(), c.path(s)); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("tools cache: %w", err)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
