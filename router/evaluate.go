package router

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// Query is one labelled intent: the operation ids that serve it (none when
// no operation does).
type Query struct {
	Query  string   `json:"query"`
	Labels []string `json:"labels"`
	// Group is an optional breakdown key (the dev sets' "group" or "split").
	Group string `json:"group,omitempty"`
	Split string `json:"split,omitempty"`
	// Source names where the query was asked, when several catalogs are
	// measured together (the corpus benchmark's API); misses carry it.
	Source string `json:"source,omitempty"`
}

// BenchTool is one row of a dev set's tools.jsonl.
type BenchTool struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Params      json.RawMessage `json:"params"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Category    string          `json:"category"`
	Field       string          `json:"field"`
	Tags        []string        `json:"tags"`
}

// LoadQueries reads a JSON Lines file of queries.
func LoadQueries(path string) ([]Query, error) {
	var qs []Query
	err := readJSONL(path, func(line []byte) error {
		var q Query
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		if q.Group == "" {
			q.Group = q.Split
		}
		qs = append(qs, q)
		return nil
	})
	return qs, err
}

// LoadTools reads a dev set's tools.jsonl and turns each tool into an
// operation. It returns the operations and, for each, the tool id the
// queries' labels use (operation ids are sanitised to the id grammar, and a
// "__" in a tool id becomes the namespace separator).
func LoadTools(path string) (ops []*operations.Operation, labelIDs []string, err error) {
	seen := map[string]bool{}
	err = readJSONL(path, func(line []byte) error {
		var t BenchTool
		if err := json.Unmarshal(line, &t); err != nil {
			return err
		}
		op := ToolOperation(t)
		for base, k := op.ID, 2; seen[op.ID]; k++ {
			op.ID = fmt.Sprintf("%s_%d", base, k)
		}
		seen[op.ID] = true
		ops = append(ops, op)
		labelIDs = append(labelIDs, t.ID)
		return nil
	})
	return ops, labelIDs, err
}

// ToolOperation converts one bench tool to an operation.
func ToolOperation(t BenchTool) *operations.Operation {
	id := sanitizeID(t.ID)
	if id == "" {
		id = sanitizeID(t.Name)
	}
	summary, desc := splitSummary(t.Description)
	op := &operations.Operation{
		ID:          id,
		Namespace:   operations.DefaultNamespace(id),
		Summary:     summary,
		Description: desc,
		Input:       t.Params,
		Kind:        operations.KindRead,
		Source:      "bench",
	}
	if !strings.Contains(id, ".") {
		op.Namespace = ""
	}
	for _, tag := range append([]string{t.Category, t.Field}, t.Tags...) {
		if tag != "" {
			op.Tags = append(op.Tags, tag)
		}
	}
	if t.Method != "" || t.Path != "" {
		op.HTTP = &operations.HTTPBinding{Method: strings.ToUpper(t.Method), Path: t.Path}
	}
	return op
}

// sanitizeID maps a tool id to the operation id grammar: lower case,
// [a-z0-9_] segments, "__" (or "/" or ".") between segments.
func sanitizeID(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '.' || r == '/':
			b.WriteString("__")
		default:
			b.WriteByte('_')
		}
	}
	segs := strings.Split(b.String(), "__")
	out := segs[:0]
	for _, s := range segs {
		if s = strings.Trim(s, "_"); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, ".")
}

// splitSummary cuts text after its first sentence.
func splitSummary(text string) (summary, rest string) {
	text = strings.TrimSpace(text)
	for i := 0; i+1 < len(text); i++ {
		if (text[i] == '.' || text[i] == '!' || text[i] == '?') && (text[i+1] == ' ' || text[i+1] == '\n') && i > 10 {
			return text[:i+1], strings.TrimSpace(text[i+1:])
		}
	}
	return text, ""
}

func readJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return scanJSONL(f, path, fn)
}

func scanJSONL(r io.Reader, name string, fn func([]byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	return sc.Err()
}

// EvalOptions configure Evaluate.
type EvalOptions struct {
	// Filter applies to every search.
	Filter Filter
	// LabelIDs maps an operation (by position in the router) to the label
	// id the queries use; nil means the operation id.
	LabelOf func(*operations.Operation) string
	// Misses collects the queries whose top-1 is wrong (or whose no-match
	// decision is wrong).
	Misses bool
}

// Metrics are retrieval and decision quality over a set of queries.
type Metrics struct {
	N            int     `json:"n"`
	NLabelled    int     `json:"n_labelled"`
	NSingle      int     `json:"n_single"`
	Top1         float64 `json:"top1"`
	Top1Single   float64 `json:"top1_single"`
	Recall5      float64 `json:"recall@5"`
	Hit5         float64 `json:"hit@5"`
	FullRecall5  float64 `json:"full_recall@5"`
	Recall10     float64 `json:"recall@10"`
	MRR          float64 `json:"mrr"`
	NDCG10       float64 `json:"ndcg@10"`
	NNoMatch     int     `json:"n_no_match"`
	NoMatchPrec  float64 `json:"no_match_precision"`
	NoMatchRec   float64 `json:"no_match_recall"`
	RunRate      float64 `json:"run_rate"`      // share of labelled queries decided "run"
	RunPrecision float64 `json:"run_precision"` // share of "run" decisions whose top-1 is right
	// FalseRuns counts "run" decisions on a wrong operation, or on a query
	// that no operation serves: the calls an intent-only ask would make by
	// mistake.
	FalseRuns int `json:"false_runs"`
	// FalseDeletes counts the false runs of an operation that destroys
	// (KindDestructive): the costliest of those mistakes.
	FalseDeletes int `json:"false_deletes"`
	// AskRunRate and AskFalseRuns measure what an intent-only ask executes,
	// as the server calls it: the same request searched among reads only
	// (act with only an intent previews and runs nothing). AskRunRate is
	// the share of labelled queries it runs; AskFalseRuns counts the runs
	// of an operation that is not a label (a read run for a write request
	// included) and the runs on a query that no operation serves.
	AskRunRate   float64 `json:"ask_run_rate"`
	AskFalseRuns int     `json:"ask_false_runs"`
	// AskFalseExecuted counts the AskFalseRuns whose operation requires
	// no parameter: an ask with an intent and no params executes those.
	// The rest need parameters the intent alone does not give, so such an
	// ask answers invalid_params naming the operation and executes
	// nothing; an agent that fills them in still calls the wrong one.
	AskFalseExecuted int `json:"ask_false_executed"`
	// EmptyRate is the share of labelled queries answered with no
	// candidate at all: the agent is told the catalog cannot do it.
	EmptyRate float64 `json:"empty_rate"`
	// LowRate is the share of labelled queries decided "no_match", whose
	// candidates are shown flagged as low confidence.
	LowRate float64 `json:"low_rate"`
	// Top1Low, Top1Choose and RunPrecision say what each confidence label
	// is worth to an agent: the share of labelled queries decided
	// "no_match" (shown as low), "choose" (medium) and "run" (high) whose
	// first candidate is a label. A label an agent can trust rises from
	// the first to the last.
	Top1Low    float64 `json:"top1_low"`
	Top1Choose float64 `json:"top1_choose"`
	// ReadsAsWrites is the share of labelled read requests taken as a
	// write: a write verb where the catalog has writes (which ask refuses
	// on a read-only server that hides them), a write ranked first, or a
	// write the whole catalog ranks first when an intent-only ask, among
	// reads, runs nothing (Result.Hidden: ask answers not_read_only).
	ReadsAsWrites float64 `json:"reads_as_writes"`
	// WritesWarned is the share of labelled write requests that a search
	// among reads (intent-only ask; find on a read-only server) answers
	// as asking for a write: its verb writes, or it names the write the
	// filter hid (Result.Hidden). The rest are offered reads with no word
	// that what they ask for is hidden.
	WritesWarned float64 `json:"writes_warned"`
	LatencyP50us float64 `json:"latency_p50_us"`
	LatencyP99us float64 `json:"latency_p99_us"`
}

// falseRun counts x, a run on the wrong operation.
func (m *Metrics) falseRun(x qres) {
	m.FalseRuns++
	if x.runDeletes {
		m.FalseDeletes++
	}
}

// Miss is one query the router got wrong.
type Miss struct {
	Query    string   `json:"query"`
	Labels   []string `json:"labels"`
	Got      []string `json:"got"`
	Decision Decision `json:"decision"`
	Rank     int      `json:"rank"` // rank of the first label, 0 when not in the top 10
	// AskRan is the operation an intent-only ask would run when it is not
	// a label (an ask false run), else "". AskExecuted: it requires no
	// parameter, so an ask with no params executes it.
	AskRan      string `json:"ask_ran,omitempty"`
	AskExecuted bool   `json:"ask_executed,omitempty"`
	// ReadAsWrite: the request reads (no label is a write), and the
	// router took it as a write: its verb, the leader, or the write an
	// intent-only ask names (the reads→writes share counts these).
	ReadAsWrite bool `json:"read_as_write,omitempty"`
	// Source is the query's (Query.Source).
	Source string `json:"source,omitempty"`
}

// Report is the outcome of Evaluate.
type Report struct {
	All     Metrics            `json:"all"`
	Groups  map[string]Metrics `json:"groups,omitempty"`
	Misses  []Miss             `json:"misses,omitempty"`
	NumOps  int                `json:"operations"`
	Queries int                `json:"queries"`
}

type qres struct {
	q        *Query
	ids      []string
	decision Decision
	lat      time.Duration
	// goldRead: every label is a read operation. writeRouted: the query
	// was taken as a write (its verb, in a catalog that has writes) or its
	// top candidate is one.
	goldRead, writeRouted bool
	// runDeletes: the decision is to run an operation that destroys.
	runDeletes bool
	// askRuns: an intent-only ask, which searches reads, runs its top
	// candidate; askRight: that candidate is a label. askWarns: that
	// search says the request asks for a write (WritesWarned).
	askRuns, askRight, askWarns bool
	// askRan: the label of what ask runs, when it runs; askBare: that
	// operation requires no parameter (requiresNothing).
	askRan  string
	askBare bool
}

// Evaluate runs every query through r and measures the ranking (top-1,
// recall@5, hit@5, MRR, nDCG@10) on labelled queries, the no-match decision
// on unlabelled ones, and latency. The ranking measured is the one a caller
// is shown (Result.Candidates, which find lists as they are): a query
// answered with no candidate is a miss, counted in EmptyRate.
func Evaluate(r *Router, queries []Query, o EvalOptions) Report {
	var t Tally
	t.Add(r, queries, o)
	return t.Report(o.Misses)
}

// Tally accumulates an evaluation over several routers, such as one per API
// of a corpus, into one report. The zero value is ready to use.
type Tally struct {
	res []qres
	ops int
}

// Add runs queries through r.
func (t *Tally) Add(r *Router, queries []Query, o EvalOptions) {
	label := o.LabelOf
	if label == nil {
		label = func(op *operations.Operation) string { return op.ID }
	}
	t.ops += r.Len()
	hasWrites := slices.ContainsFunc(r.ops, func(op *operations.Operation) bool { return op.Kind.IsWrite() })
	ask, askable := askFilter(o.Filter)
	for i := range queries {
		q := &queries[i]
		t0 := time.Now()
		out := r.Search(q.Query, o.Filter, 10)
		lat := time.Since(t0)
		ids := make([]string, len(out.Candidates))
		for k, c := range out.Candidates {
			ids[k] = label(c.Op)
		}
		x := qres{q: q, ids: ids, decision: out.Decision, lat: lat}
		x.runDeletes = out.Decision == DecisionRun && out.Candidates[0].Op.Kind == operations.KindDestructive
		if len(q.Labels) > 0 {
			x.goldRead = true
			for _, op := range r.ops {
				if slices.Contains(q.Labels, label(op)) && op.Kind.IsWrite() {
					x.goldRead = false
				}
			}
			x.writeRouted = out.Verb.IsWrite() && hasWrites || len(out.Candidates) > 0 && out.Candidates[0].Op.Kind.IsWrite()
		}
		if askable {
			a := r.Search(q.Query, ask, 10)
			if a.Decision == DecisionRun {
				x.askRuns = true
				x.askRan = label(a.Candidates[0].Op)
				x.askBare = requiresNothing(a.Candidates[0].Op)
				x.askRight = slices.Contains(q.Labels, x.askRan)
			}
			// ask answers a hidden write with not_read_only.
			hiddenWrite := a.Hidden != nil && a.Hidden.Kind.IsWrite()
			x.writeRouted = x.writeRouted || len(q.Labels) > 0 && hiddenWrite
			x.askWarns = a.Verb.IsWrite() || hiddenWrite
		}
		t.res = append(t.res, x)
	}
}

// askFilter is f as an intent-only ask narrows it: reads only. ok is
// false when f keeps no read.
func askFilter(f Filter) (ask Filter, ok bool) {
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, operations.KindRead) {
		return f, false
	}
	f.Kinds = []operations.Kind{operations.KindRead}
	return f, true
}

// Report measures what was added; misses lists the queries whose top-1
// is wrong, those an intent-only ask would run the wrong operation for,
// and the reads taken as writes.
func (t *Tally) Report(misses bool) Report {
	res := t.res
	rep := Report{NumOps: t.ops, Queries: len(res), All: metrics(res)}
	groups := map[string][]qres{}
	for _, x := range res {
		if x.q.Group != "" {
			groups[x.q.Group] = append(groups[x.q.Group], x)
		}
	}
	if len(groups) > 1 {
		rep.Groups = map[string]Metrics{}
		for g, xs := range groups {
			rep.Groups[g] = metrics(xs)
		}
	}
	if misses {
		for _, x := range res {
			wrong := false
			if len(x.q.Labels) == 0 {
				wrong = x.decision != DecisionNoMatch
			} else {
				wrong = len(x.ids) == 0 || !slices.Contains(x.q.Labels, x.ids[0])
			}
			askWrong := x.askRuns && !x.askRight
			readAsWrite := x.goldRead && x.writeRouted
			if !wrong && !askWrong && !readAsWrite {
				continue
			}
			m := Miss{Query: x.q.Query, Labels: x.q.Labels, Got: x.ids, Decision: x.decision, ReadAsWrite: readAsWrite, Source: x.q.Source}
			if askWrong {
				m.AskRan, m.AskExecuted = x.askRan, x.askBare
			}
			if len(m.Got) > 5 {
				m.Got = m.Got[:5]
			}
			for k, id := range x.ids {
				if slices.Contains(x.q.Labels, id) {
					m.Rank = k + 1
					break
				}
			}
			rep.Misses = append(rep.Misses, m)
		}
	}
	return rep
}

func metrics(res []qres) Metrics {
	var m Metrics
	var lats []time.Duration
	var predNo, predNoRight, runs, runsRight, askRuns, empty, low, lowRight, chose, choseRight, reads, readsAsWrites, writes, writesWarned int
	for _, x := range res {
		m.N++
		lats = append(lats, x.lat)
		if x.askRuns && !x.askRight {
			m.AskFalseRuns++
			if x.askBare {
				m.AskFalseExecuted++
			}
		}
		if x.decision == DecisionNoMatch {
			predNo++
			if len(x.q.Labels) == 0 {
				predNoRight++
			}
		}
		if len(x.q.Labels) == 0 {
			m.NNoMatch++
			if x.decision == DecisionRun {
				m.falseRun(x)
			}
			continue
		}
		m.NLabelled++
		if x.askRuns {
			askRuns++
		}
		if len(x.ids) == 0 {
			empty++
		}
		if x.decision == DecisionNoMatch {
			low++
		}
		if x.goldRead {
			reads++
			if x.writeRouted {
				readsAsWrites++
			}
		} else {
			writes++
			if x.askWarns {
				writesWarned++
			}
		}
		gold := x.q.Labels
		in := func(id string) bool { return slices.Contains(gold, id) }
		if x.decision == DecisionRun {
			runs++
			if len(x.ids) > 0 && in(x.ids[0]) {
				runsRight++
			} else {
				m.falseRun(x)
			}
		}
		top1 := len(x.ids) > 0 && in(x.ids[0])
		if top1 {
			m.Top1++
		}
		switch x.decision {
		case DecisionNoMatch:
			if top1 {
				lowRight++
			}
		case DecisionChoose:
			chose++
			if top1 {
				choseRight++
			}
		}
		if len(gold) == 1 {
			m.NSingle++
			if top1 {
				m.Top1Single++
			}
		}
		hits5, hits10 := 0, 0
		dcg := 0.0
		first := 0
		for k, id := range x.ids {
			if !in(id) {
				continue
			}
			if first == 0 {
				first = k + 1
			}
			if k < 5 {
				hits5++
			}
			if k < 10 {
				hits10++
				dcg += 1 / math.Log2(float64(k)+2)
			}
		}
		ng := len(gold)
		idcg := 0.0
		for k := 0; k < min(ng, 10); k++ {
			idcg += 1 / math.Log2(float64(k)+2)
		}
		m.Recall5 += float64(hits5) / float64(ng)
		m.Recall10 += float64(hits10) / float64(ng)
		if hits5 > 0 {
			m.Hit5++
		}
		if hits5 == ng {
			m.FullRecall5++
		}
		if first > 0 {
			m.MRR += 1 / float64(first)
		}
		m.NDCG10 += dcg / idcg
	}
	if n := float64(m.NLabelled); n > 0 {
		m.Top1 /= n
		m.Recall5 /= n
		m.Recall10 /= n
		m.Hit5 /= n
		m.FullRecall5 /= n
		m.MRR /= n
		m.NDCG10 /= n
	}
	if m.NSingle > 0 {
		m.Top1Single /= float64(m.NSingle)
	}
	if m.NLabelled > 0 {
		m.EmptyRate = float64(empty) / float64(m.NLabelled)
		m.LowRate = float64(low) / float64(m.NLabelled)
	}
	if low > 0 {
		m.Top1Low = float64(lowRight) / float64(low)
	}
	if chose > 0 {
		m.Top1Choose = float64(choseRight) / float64(chose)
	}
	if reads > 0 {
		m.ReadsAsWrites = float64(readsAsWrites) / float64(reads)
	}
	if writes > 0 {
		m.WritesWarned = float64(writesWarned) / float64(writes)
	}
	if predNo > 0 {
		m.NoMatchPrec = float64(predNoRight) / float64(predNo)
	}
	if m.NNoMatch > 0 {
		m.NoMatchRec = float64(predNoRight) / float64(m.NNoMatch)
	}
	if m.NLabelled > 0 {
		m.RunRate = float64(runs) / float64(m.NLabelled)
		m.AskRunRate = float64(askRuns) / float64(m.NLabelled)
	}
	if runs > 0 {
		m.RunPrecision = float64(runsRight) / float64(runs)
	}
	slices.Sort(lats)
	if len(lats) > 0 {
		m.LatencyP50us = float64(lats[len(lats)/2].Nanoseconds()) / 1e3
		m.LatencyP99us = float64(lats[min(len(lats)-1, len(lats)*99/100)].Nanoseconds()) / 1e3
	}
	return m
}

// requiresNothing reports whether op's input schema requires no
// property: an ask with an intent and no params passes its validation and
// executes it. A schema that does not parse requires something the
// server cannot tell, and validation refuses it.
func requiresNothing(op *operations.Operation) bool {
	if len(op.Input) == 0 {
		return true
	}
	var schema struct {
		Required []string `json:"required"`
	}
	return json.Unmarshal(op.Input, &schema) == nil && len(schema.Required) == 0
}
