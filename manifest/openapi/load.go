package openapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/intentsrv/intentsrv/manifest/sanitize"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LoadOptions says where a spec is and how to cache its catalog.
type LoadOptions struct {
	// Name is the source name (first id segment).
	Name string
	// Location is a file path or an http(s) URL.
	Location string
	// CacheDir holds cached catalogs; "" disables the cache. CacheDirDefault
	// gives the usual place.
	CacheDir string
	// Parse tunes parsing; SpecURL is filled from Location when it is a URL.
	Parse ParseOptions
	// Client fetches URL locations; nil uses a client with a 60 s timeout.
	Client *http.Client
	// Logger receives cache and warning reports; nil discards them.
	Logger *slog.Logger
}

// CacheDirDefault returns the catalog cache folder under the user cache
// dir ("intentsrv/openapi"), or "" when the platform has none.
func CacheDirDefault() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "intentsrv", "openapi")
}

// Load reads the spec at opts.Location and returns its catalog, from the
// cache when a valid entry for the spec's SHA-256 (and the parse options
// and catalog format) exists. A corrupt, stale or unreadable cache entry is
// ignored and rewritten, never trusted; failing to write the cache is only
// logged.
func Load(ctx context.Context, opts LoadOptions) (*Catalog, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	data, specURL, err := readSpec(ctx, opts.Location, opts.Client)
	if err != nil {
		return nil, err
	}
	popts := opts.Parse
	if specURL != "" {
		popts.SpecURL = specURL
	}
	if popts.InputDepth <= 0 {
		popts.InputDepth = DefaultInputDepth
	}
	if popts.OutputDepth <= 0 {
		popts.OutputDepth = DefaultOutputDepth
	}
	sum := sha256.Sum256(data)
	key := cacheKey(opts.Name, sum, popts)
	var path string
	if opts.CacheDir != "" {
		path = filepath.Join(opts.CacheDir, key+cacheExt)
		cat, err := readCache(path, key, opts.Name)
		switch {
		case err == nil:
			log.Debug("openapi: catalog from cache", "source", opts.Name, "ops", len(cat.Ops))
			return cat, nil
		case errors.Is(err, os.ErrNotExist):
		default:
			log.Warn("openapi: ignoring cached catalog; rebuilding", "source", opts.Name, "err", err)
		}
	}
	popts.Logger = opts.Logger
	cat, err := Parse(opts.Name, data, popts)
	if err != nil {
		return nil, fmt.Errorf("openapi source %q (%s): %w", opts.Name, displayLocation(opts.Location), err)
	}
	if path != "" {
		if err := writeCache(path, key, cat, nil); err != nil {
			log.Warn("openapi: could not write the catalog cache", "source", opts.Name, "err", err)
		} else {
			cat.cache = &cacheLink{path: path, key: key, compiled: make([]bool, len(cat.Ops))}
		}
	}
	return cat, nil
}

// displayLocation strips credentials and query from a URL location.
func displayLocation(loc string) string {
	if u, err := url.Parse(loc); err == nil && u.Scheme != "" && u.Host != "" {
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		return u.String()
	}
	return loc
}

func cacheKey(name string, sum [32]byte, p ParseOptions) string {
	h := sha256.New()
	// The sanitiser's version is part of the key: cached text was cleaned
	// by the sanitiser of its day.
	fmt.Fprintf(h, "format=%d\nsanitize=%d\nname=%s\nurl=%s\nin=%d\nout=%d\nspec=%x\n", catalogFormat, sanitize.Version, name, p.SpecURL, p.InputDepth, p.OutputDepth, sum)
	return name + "-" + hex.EncodeToString(h.Sum(nil))[:32]
}

// readSpec returns the document bytes and, for a URL, the URL.
func readSpec(ctx context.Context, loc string, client *http.Client) ([]byte, string, error) {
	if loc == "" {
		return nil, "", errors.New("no spec location")
	}
	if strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://") {
		if client == nil {
			client = &http.Client{Timeout: 60 * time.Second}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
		if err != nil {
			return nil, "", fmt.Errorf("spec URL %s: %w", displayLocation(loc), err)
		}
		req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
		resp, err := client.Do(req)
		if err != nil {
			return nil, "", fmt.Errorf("fetch spec %s: %s", displayLocation(loc), rootCause(err))
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, "", fmt.Errorf("fetch spec %s: HTTP %d", displayLocation(loc), resp.StatusCode)
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes+1))
		if err != nil {
			return nil, "", fmt.Errorf("fetch spec %s: %w", displayLocation(loc), err)
		}
		if len(data) > maxDocBytes {
			return nil, "", fmt.Errorf("spec %s is larger than %d bytes", displayLocation(loc), maxDocBytes)
		}
		return data, loc, nil
	}
	data, err := os.ReadFile(loc)
	if err != nil {
		return nil, "", fmt.Errorf("read spec: %w", err)
	}
	return data, "", nil
}
