// Package overlay applies an operator's corrections to operations from any
// source (OpenAPI specs, upstream MCP servers): rename, hide, change kind,
// add aliases, examples and tags, rewrite summaries and descriptions. An
// overlay is a YAML list of rules, either at the top level of the file or
// under a "rules" key; each rule matches operation ids exactly or by glob,
// and every matching rule applies, in file order.
//
//	rules:
//	  - match: github.repos.delete      # exact id
//	    hide: true
//	  - match: "github.actions.*"       # glob: * any run, ? one character
//	    kind: read
//	  - match: github.repos.get
//	    rename: github.repo.get
//	    summary: Get one repository
//	    aliases: [repo]
//	    examples:
//	      - intent: show me golang/go
//	        params: {owner: golang, repo: go}
//
// A file may also be the bare list:
//
//	# hide.overlay.yaml
//	- match: github.repos.delete
//	  hide: true
package overlay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/intentsrv/intentsrv/manifest/sanitize"
	"github.com/intentsrv/intentsrv/operations"
)

// Overlay is a parsed overlay file.
type Overlay struct {
	// Rules apply in order.
	Rules []Rule `yaml:"rules"`
}

// Rule changes every operation whose id matches Match.
type Rule struct {
	// Match is an operation id or a glob over ids ("*" matches any run of
	// characters, dots included; "?" one character).
	Match string `yaml:"match"`
	// Hide removes the operation: it is neither listed nor callable.
	Hide bool `yaml:"hide,omitempty"`
	// Rename gives the operation a new id; only for rules without
	// wildcards. The old id stays reachable as an alias.
	Rename string `yaml:"rename,omitempty"`
	// Kind overrides the kind: read, write or destructive.
	Kind string `yaml:"kind,omitempty"`
	// Summary and Description replace the source's texts.
	Summary     string `yaml:"summary,omitempty"`
	Description string `yaml:"description,omitempty"`
	// Namespace replaces the namespace shown by describe.
	Namespace string `yaml:"namespace,omitempty"`
	// Aliases, Tags and Examples are added.
	Aliases  []string  `yaml:"aliases,omitempty"`
	Tags     []string  `yaml:"tags,omitempty"`
	Examples []Example `yaml:"examples,omitempty"`
	// Deprecated, when set, overrides the deprecation flag.
	Deprecated *bool `yaml:"deprecated,omitempty"`
}

// Example is an operations.Example in YAML.
type Example struct {
	Intent string         `yaml:"intent"`
	Params map[string]any `yaml:"params,omitempty"`
}

// Load reads and checks an overlay file.
func Load(path string) (*Overlay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read overlay: %w", err)
	}
	o, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("overlay %s: %w", path, err)
	}
	return o, nil
}

// Parse decodes and checks an overlay: a list of rules, or a mapping with
// the list under "rules". Unknown keys are errors, so a typo does not
// silently do nothing.
func Parse(data []byte) (*Overlay, error) {
	var o Overlay
	// The first pass only finds the document's shape; the second decodes
	// strictly (a yaml.Node's own Decode cannot refuse unknown keys).
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("decode: %w", err)
	}
	var target any = &o
	if len(doc.Content) > 0 && doc.Content[0].Kind == yaml.SequenceNode {
		target = &o.Rules
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(target); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("decode: %w", err)
	}
	for i, r := range o.Rules {
		where := fmt.Sprintf("rule %d (%q)", i+1, r.Match)
		if strings.TrimSpace(r.Match) == "" {
			return nil, fmt.Errorf("rule %d: match is empty", i+1)
		}
		if r.Rename != "" {
			if IsGlob(r.Match) {
				return nil, fmt.Errorf("%s: rename needs an exact id, not a glob", where)
			}
			if err := operations.CheckID(r.Rename); err != nil {
				return nil, fmt.Errorf("%s: rename: %w", where, err)
			}
		}
		if r.Kind != "" && !operations.Kind(r.Kind).Valid() {
			return nil, fmt.Errorf("%s: kind %q is not read, write or destructive", where, r.Kind)
		}
		for _, a := range r.Aliases {
			if strings.TrimSpace(a) == "" {
				return nil, fmt.Errorf("%s: empty alias", where)
			}
		}
		for _, e := range r.Examples {
			if strings.TrimSpace(e.Intent) == "" {
				return nil, fmt.Errorf("%s: example without intent", where)
			}
		}
	}
	return &o, nil
}

// Report says what Apply changed, for logs.
type Report struct {
	Hidden, Renamed, Changed int
	// Unmatched lists rules that matched no operation (likely typos).
	Unmatched []string
}

// Unmatched returns the rules unmatched in every one of reps, the reports
// of one overlay applied to several sources' operations in turn: a rule of
// an overlay applied to every source that matches some source's operations
// is not a typo. Rules are named by their match, in file order.
func Unmatched(reps []Report) []string {
	if len(reps) == 0 {
		return nil
	}
	// A rule's match decides alone what it matches, so rules with the same
	// match are unmatched in the same reports: matches can stand for rules.
	var out []string
	for _, m := range reps[0].Unmatched {
		everywhere := true
		for _, r := range reps[1:] {
			if !slices.Contains(r.Unmatched, m) {
				everywhere = false
				break
			}
		}
		if everywhere {
			out = append(out, m)
		}
	}
	return out
}

// Apply returns ops with the overlay applied; ops itself is not modified.
// It fails when a rename would collide with another operation's id.
func (o *Overlay) Apply(ops []operations.Operation) ([]operations.Operation, Report, error) {
	var rep Report
	if o == nil || len(o.Rules) == 0 {
		return ops, rep, nil
	}
	used := make([]bool, len(o.Rules))
	out := make([]operations.Operation, 0, len(ops))
	ids := map[string]bool{}
	for _, op := range ops {
		hidden := false
		changed := false
		orig := op.ID
		for i, r := range o.Rules {
			if !Match(r.Match, orig) {
				continue
			}
			used[i] = true
			changed = true
			if r.Hide {
				hidden = true
				continue
			}
			op = applyRule(op, r)
		}
		if hidden {
			rep.Hidden++
			continue
		}
		if op.ID != orig {
			rep.Renamed++
		} else if changed {
			rep.Changed++
		}
		if ids[op.ID] {
			return nil, rep, fmt.Errorf("overlay: two operations would be called %q", op.ID)
		}
		ids[op.ID] = true
		out = append(out, op)
	}
	for _, op := range out {
		for _, a := range op.Aliases {
			if ids[a] {
				return nil, rep, fmt.Errorf("overlay: alias %q of %q is another operation's id", a, op.ID)
			}
		}
	}
	for i, u := range used {
		if !u {
			rep.Unmatched = append(rep.Unmatched, o.Rules[i].Match)
		}
	}
	return out, rep, nil
}

func applyRule(op operations.Operation, r Rule) operations.Operation {
	if r.Rename != "" && r.Rename != op.ID {
		op.Aliases = appendNew(append([]string(nil), op.Aliases...), op.ID)
		op.ID = r.Rename
		if r.Namespace == "" {
			op.Namespace = operations.DefaultNamespace(r.Rename)
		}
	}
	if r.Namespace != "" {
		op.Namespace = r.Namespace
	}
	if r.Kind != "" {
		op.Kind = operations.Kind(r.Kind)
	}
	if r.Summary != "" {
		op.Summary = sanitize.Summary(r.Summary)
	}
	if r.Description != "" {
		op.Description = sanitize.Description(r.Description)
	}
	if r.Deprecated != nil {
		op.Deprecated = *r.Deprecated
	}
	if len(r.Aliases) > 0 {
		op.Aliases = append([]string(nil), op.Aliases...)
		for _, a := range r.Aliases {
			op.Aliases = appendNew(op.Aliases, strings.TrimSpace(a))
		}
	}
	if len(r.Tags) > 0 {
		op.Tags = append([]string(nil), op.Tags...)
		for _, t := range r.Tags {
			op.Tags = appendNew(op.Tags, sanitize.Tag(t))
		}
	}
	if len(r.Examples) > 0 {
		op.Examples = append([]operations.Example(nil), op.Examples...)
		for _, e := range r.Examples {
			op.Examples = append(op.Examples, operations.Example{Intent: sanitize.Line(e.Intent, sanitize.SummaryMax), Params: e.Params})
		}
	}
	return op
}

func appendNew(list []string, s string) []string {
	for _, e := range list {
		if e == s {
			return list
		}
	}
	return append(list, s)
}

// IsGlob reports whether pattern has wildcards.
func IsGlob(pattern string) bool { return strings.ContainsAny(pattern, "*?") }

// Match reports whether id matches pattern: "*" matches any run of
// characters (dots included), "?" exactly one, everything else itself.
func Match(pattern, id string) bool {
	p, s := 0, 0
	star, mark := -1, 0
	for s < len(id) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == id[s]):
			p++
			s++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, s
			p++
		case star >= 0:
			p = star + 1
			mark++
			s = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// Filter keeps the operations whose id matches at least one include glob
// (every operation when include is empty) and no exclude glob.
func Filter(ops []operations.Operation, include, exclude []string) []operations.Operation {
	if len(include) == 0 && len(exclude) == 0 {
		return ops
	}
	out := make([]operations.Operation, 0, len(ops))
	for _, op := range ops {
		if len(include) > 0 && !matchAny(include, op.ID) {
			continue
		}
		if matchAny(exclude, op.ID) {
			continue
		}
		out = append(out, op)
	}
	return out
}

func matchAny(patterns []string, id string) bool {
	for _, p := range patterns {
		if Match(p, id) {
			return true
		}
	}
	return false
}
