package openapi

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/tokens"
)

// TestReportListingTokens is driven by scripts/bench-openapi.sh (skipped
// otherwise). It prints, for INTENTSRV_BENCH_SPEC, the number of
// operations, the tokens of the tools/list result saved in
// INTENTSRV_BENCH_TOOLS, and the tokens a one-tool-per-operation MCP server
// would list for the same spec (name, description, input schema per tool),
// counted with the larger of o200k_base and cl100k_base.
func TestReportListingTokens(t *testing.T) {
	path := os.Getenv("INTENTSRV_BENCH_SPEC")
	if path == "" {
		t.Skip("run by scripts/bench-openapi.sh")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := os.Getenv("INTENTSRV_BENCH_NAME")
	if name == "" {
		name = "api"
	}
	// Full-depth schemas, as a one-tool-per-operation server would list.
	cat, err := Parse(name, data, ParseOptions{InputDepth: 64})
	if err != nil {
		t.Fatal(err)
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	tools := make([]tool, len(cat.Ops))
	for i, op := range cat.Ops {
		desc := op.Summary
		if op.Description != "" {
			desc += "\n\n" + op.Description
		}
		tools[i] = tool{Name: strings.ReplaceAll(op.ID, ".", "_"), Description: desc, InputSchema: op.Input}
	}
	naiveJSON, _ := json.Marshal(map[string]any{"tools": tools})
	naive, err := tokens.Max(string(naiveJSON))
	if err != nil {
		t.Fatal(err)
	}
	listing := 0
	if p := os.Getenv("INTENTSRV_BENCH_TOOLS"); p != "" {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if listing, err = tokens.Max(string(raw)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("LISTING %d %d %d", len(cat.Ops), listing, naive)
}
