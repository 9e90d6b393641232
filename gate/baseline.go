package gate

import (
	"encoding/json"
	"fmt"
	"os"
)

// BaselineVersion is the format version WriteBaseline writes.
const BaselineVersion = 1

// Baseline is a committed record of a listing's size, so that a later run
// can refuse growth. Its JSON form is stable and diff-friendly.
type Baseline struct {
	// Version is the file format version (1).
	Version int `json:"version"`
	// Tools is the number of listed tools.
	Tools int `json:"tools"`
	// Tokens is the whole tools/list result's size in each encoding.
	Tokens Tokens `json:"tokens"`
	// PerTool is each tool's size in each encoding, by tool name.
	PerTool map[string]Tokens `json:"per_tool"`
}

// Baseline returns the figures of r as a baseline.
func (r *Report) Baseline() *Baseline {
	b := &Baseline{Version: BaselineVersion, Tools: len(r.Tools), Tokens: r.List.Tokens, PerTool: map[string]Tokens{}}
	for _, t := range r.Tools {
		b.PerTool[t.Name] = t.Tokens
	}
	return b
}

// ReadBaseline reads a baseline file written by WriteBaseline.
func ReadBaseline(path string) (*Baseline, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read baseline: %w", err)
	}
	var b Baseline
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("parse baseline %s: %w", path, err)
	}
	if b.Version != BaselineVersion {
		return nil, fmt.Errorf("baseline %s has version %d; this intentsrv reads version %d", path, b.Version, BaselineVersion)
	}
	return &b, nil
}

// WriteBaseline writes b to path as indented JSON with a final newline.
func WriteBaseline(path string, b *Baseline) error {
	raw, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("encode baseline: %w", err)
	}
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	return nil
}

// Growth is one figure's change against the baseline.
type Growth struct {
	// Subject is "tools/list" or a tool name.
	Subject string `json:"subject"`
	// Before and After are the enforced token counts.
	Before int `json:"before"`
	After  int `json:"after"`
	// Percent is the change, negative when the listing shrank.
	Percent float64 `json:"percent"`
}

// compareBaseline lists the growth of the whole listing and of every tool
// present in both, in the enforced encoding. Tools the baseline lacks are
// reported with Before 0.
func compareBaseline(r *Report, b *Baseline, encoding string) []Growth {
	pct := func(before, after int) float64 {
		if before == 0 {
			return 100
		}
		return 100 * float64(after-before) / float64(before)
	}
	before := b.Tokens.In(encoding)
	after := r.List.Enforced
	out := []Growth{{Subject: ListSubject, Before: before, After: after, Percent: pct(before, after)}}
	for _, t := range r.Tools {
		before := 0
		if bt, ok := b.PerTool[t.Name]; ok {
			before = bt.In(encoding)
		}
		out = append(out, Growth{Subject: t.Name, Before: before, After: t.Enforced, Percent: pct(before, t.Enforced)})
	}
	return out
}
