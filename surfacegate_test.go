package intentsrv_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/gate"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/internal/synth"
	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/tokens"
)

var update = flag.Bool("update", false, "rewrite testdata/gate goldens and baselines from the current listing")

// surfaceCatalog is one catalog the surface gate runs over.
type surfaceCatalog struct {
	name  string
	short bool // also run under -short
	large bool // check reachability under one write policy only (it covers every operation)
	build func() (*operations.Registry, error)
}

func surfaceCatalogs() []surfaceCatalog {
	return []surfaceCatalog{
		{"demo", true, false, helpdesk.Catalog},
		{"synth1000", true, false, func() (*operations.Registry, error) { return synth.Registry(1000, 1) }},
		{"synth10000", false, true, func() (*operations.Registry, error) { return synth.Registry(10000, 1) }},
	}
}

// TestSurfaceGate is issue 2's gate: over the demo catalog and generated
// catalogs of 1,000 and 10,000 operations, under the read-only default and
// with writes on, the listing stays within the default budgets (10 tools,
// 4,000 tokens, 500 per tool, in the larger of o200k_base and cl100k_base),
// names stay host-legal with room for host prefixes, descriptions stay
// short, the listing does not change with the catalog, and every operation
// is reachable through describe, find and ask/act.
func TestSurfaceGate(t *testing.T) {
	policies := []intent.WritePolicy{intent.WritesDeny, intent.WritesConfirm, intent.WritesAllow}
	listings := map[intent.WritePolicy]map[string][]byte{}
	var figures []string
	for _, c := range surfaceCatalogs() {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && !c.short {
				t.Skip("a 10,000-operation catalog is skipped in -short mode")
			}
			reg, err := c.build()
			if err != nil {
				t.Fatalf("build %s catalog: %v", c.name, err)
			}
			for _, p := range policies {
				t.Run(string(p), func(t *testing.T) {
					srv, err := intent.New(reg, intent.Options{Writes: p})
					if err != nil {
						t.Fatal(err)
					}
					// Under confirm every operation is visible, so one
					// reachability pass covers a large catalog.
					skip := c.large && p != intent.WritesConfirm
					r := gate.Check(t, srv, gate.Budgets{SkipReachability: skip})
					if r.Operations == 0 {
						t.Fatal("no operation was checked")
					}
					if listings[p] == nil {
						listings[p] = map[string][]byte{}
					}
					listings[p][c.name] = r.Listing.Raw
					figures = append(figures, fmt.Sprintf("%-10s writes=%-7s %6d ops  tools=%d  tools/list %s=%d %s=%d  max tool=%d",
						c.name, p, r.Operations, len(r.Tools), tokens.O200K, r.List.Tokens[tokens.O200K],
						tokens.CL100K, r.List.Tokens[tokens.CL100K], r.MaxToolTokens()))
				})
			}
		})
	}
	for p, byCatalog := range listings {
		want := byCatalog["demo"]
		for name, got := range byCatalog {
			if !bytes.Equal(got, want) {
				t.Errorf("writes=%s: the %s listing differs from the demo listing; the listing must not depend on the catalog:\n%s\n%s", p, name, got, want)
			}
		}
	}
	t.Logf("surface figures:\n%s", strings.Join(figures, "\n"))
}

// TestSurfaceGolden pins the exact tools/list result of the default server
// (writes on, so all four tools show), and its size against a committed
// baseline that may grow by at most 10%. Run with -update after a deliberate
// change to the listing.
func TestSurfaceGolden(t *testing.T) {
	reg, err := helpdesk.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm})
	if err != nil {
		t.Fatal(err)
	}
	goldenPath := filepath.Join("testdata", "gate", "tools-list.golden.json")
	baselinePath := filepath.Join("testdata", "gate", "baseline.json")
	b := gate.Budgets{SkipReachability: true}
	if !*update {
		base, err := gate.ReadBaseline(baselinePath)
		if err != nil {
			t.Fatalf("%v (run go test . -run TestSurfaceGolden -update to create it)", err)
		}
		b.Baseline = base
	}
	r := gate.Check(t, srv, b)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, r.Listing.Raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	if *update {
		if err := os.WriteFile(goldenPath, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := gate.WriteBaseline(baselinePath, r.Baseline()); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (run go test . -run TestSurfaceGolden -update to create it)", err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Errorf("tools/list changed; hosts' prompt caches will miss. If deliberate, run go test . -run TestSurfaceGolden -update.\ngot:\n%s\nwant:\n%s", pretty.Bytes(), want)
	}
}

// TestSurfaceFlatComparison reports what a one-tool-per-operation listing
// of the same catalogs would cost: the figure users quote.
func TestSurfaceFlatComparison(t *testing.T) {
	for _, c := range surfaceCatalogs() {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && !c.short {
				t.Skip("a 10,000-operation catalog is skipped in -short mode")
			}
			reg, err := c.build()
			if err != nil {
				t.Fatal(err)
			}
			srv, err := intent.New(reg, intent.Options{Writes: intent.WritesConfirm})
			if err != nil {
				t.Fatal(err)
			}
			r, err := gate.Run(t.Context(), srv, gate.Budgets{SkipReachability: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.WithFlat(t.Context(), srv); err != nil {
				t.Fatal(err)
			}
			if r.Flat.Tools != r.Operations || r.Flat.Enforced <= r.List.Enforced {
				t.Errorf("flat listing: %d tools for %d operations, %d tokens against %d", r.Flat.Tools, r.Operations, r.Flat.Enforced, r.List.Enforced)
			}
			t.Logf("%s: intent listing %d tools, %d tokens; flat listing %d tools, %s=%d %s=%d; ratio %.1fx",
				c.name, len(r.Tools), r.List.Enforced, r.Flat.Tools, tokens.O200K, r.Flat.Tokens[tokens.O200K],
				tokens.CL100K, r.Flat.Tokens[tokens.CL100K], r.Flat.Ratio)
		})
	}
}
