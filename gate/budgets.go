package gate

import (
	"fmt"
	"slices"

	"github.com/intentsrv/intentsrv/tokens"
)

// Default budgets, from the project's design: a listing a host can afford
// in every conversation.
const (
	DefaultMaxTools            = 10
	DefaultMaxListTokens       = 4000
	DefaultMaxToolTokens       = 500
	DefaultMaxDescriptionLines = 3
	DefaultHostServerName      = "intentsrv"
	DefaultMaxGrowthPercent    = 10
	// DefaultMaxPathTokens bounds the whole path an agent pays to reach one
	// operation: the listing, one find and one describe.
	DefaultMaxPathTokens = 3000
)

// EncodingMax is the Budgets.Encoding value that enforces the larger of the
// o200k_base and cl100k_base counts. It is the default.
const EncodingMax = "max"

// Budgets are the limits Run enforces. The zero value means the defaults;
// a negative number disables that limit.
//
// The json and yaml keys are the ones a configuration file's "gate" section
// uses.
type Budgets struct {
	// MaxTools caps the number of listed tools (default 10).
	MaxTools int `json:"max_tools,omitempty" yaml:"max_tools,omitempty"`
	// MaxListTokens caps the tokens of the whole tools/list result
	// (default 4,000).
	MaxListTokens int `json:"max_list_tokens,omitempty" yaml:"max_list_tokens,omitempty"`
	// MaxToolTokens caps the tokens of each tool's entry in the listing
	// (default 500).
	MaxToolTokens int `json:"max_tool_tokens,omitempty" yaml:"max_tool_tokens,omitempty"`
	// MaxDescriptionLines caps the lines of each tool description
	// (default 3).
	MaxDescriptionLines int `json:"max_description_lines,omitempty" yaml:"max_description_lines,omitempty"`
	// Encoding is the encoding budgets are enforced in: "o200k_base",
	// "cl100k_base", or "max" (the larger of both; the default). Both
	// counts are reported whatever it says.
	Encoding string `json:"encoding,omitempty" yaml:"encoding,omitempty"`
	// HostServerName is the server name hosts put in the prefix they add to
	// tool names ("mcp__<name>__"); every prefixed name must stay legal
	// (default "intentsrv").
	HostServerName string `json:"host_server_name,omitempty" yaml:"host_server_name,omitempty"`
	// SkipReachability turns off the reachability check, for a quick
	// listing-only run.
	SkipReachability bool `json:"skip_reachability,omitempty" yaml:"skip_reachability,omitempty"`
	// Baseline, when set, is the committed figures the listing may not grow
	// past by more than MaxGrowthPercent.
	Baseline *Baseline `json:"-" yaml:"-"`
	// MaxGrowthPercent is how much tokens may grow against Baseline, whole
	// listing and each tool alike (default 10).
	MaxGrowthPercent float64 `json:"max_growth_percent,omitempty" yaml:"max_growth_percent,omitempty"`
	// MaxPathTokens bounds, for every operation, the tokens of the listing
	// plus a find for its summary plus its describe: what reaching it costs
	// an agent. Checked with reachability; zero means the default, negative
	// no limit.
	MaxPathTokens int `json:"max_path_tokens,omitempty" yaml:"max_path_tokens,omitempty"`
}

// withDefaults fills zero fields and validates the encoding.
func (b Budgets) withDefaults() (Budgets, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&b.MaxTools, DefaultMaxTools)
	def(&b.MaxListTokens, DefaultMaxListTokens)
	def(&b.MaxToolTokens, DefaultMaxToolTokens)
	def(&b.MaxDescriptionLines, DefaultMaxDescriptionLines)
	def(&b.MaxPathTokens, DefaultMaxPathTokens)
	if b.Encoding == "" {
		b.Encoding = EncodingMax
	}
	if b.Encoding != EncodingMax && !slices.Contains(tokens.Encodings, b.Encoding) {
		return b, fmt.Errorf("encoding %q is not %s, %s or %s", b.Encoding, tokens.O200K, tokens.CL100K, EncodingMax)
	}
	if b.HostServerName == "" {
		b.HostServerName = DefaultHostServerName
	}
	if b.MaxGrowthPercent < 0 {
		return b, fmt.Errorf("max growth %g%% is negative; growth is a percentage the tokens may rise by (0 means the default, %d)", b.MaxGrowthPercent, DefaultMaxGrowthPercent)
	}
	if b.MaxGrowthPercent == 0 {
		b.MaxGrowthPercent = DefaultMaxGrowthPercent
	}
	return b, nil
}

// HostPrefix is the prefix hosts add to tool names for a server named name,
// as in Claude Code's "mcp__github__get_issue".
func HostPrefix(name string) string { return "mcp__" + name + "__" }
