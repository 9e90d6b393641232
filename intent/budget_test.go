package intent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// tokenizerUse is how much text the budget handed the tokenizer.
type tokenizerUse struct {
	bytes, largest int // in all; in one call
}

// countingTokens wraps s's token counter to record its use, and restores
// it when the test ends.
func countingTokens(t *testing.T, s *Server) *tokenizerUse {
	t.Helper()
	inner := s.countTokens
	use := &tokenizerUse{}
	s.countTokens = func(text string) (int, error) {
		use.bytes += len(text)
		use.largest = max(use.largest, len(text))
		return inner(text)
	}
	t.Cleanup(func() { s.countTokens = inner })
	return use
}

// paddedResult is a list whose items carry long runs the tokenizer is
// slow on (its work on one piece grows with the square of its length):
// spaces, one long word, unspaced CJK.
func paddedResult(size int) []byte {
	b := make([]byte, 0, size+4096)
	b = append(b, '[')
	runs := []string{strings.Repeat(" ", 40000), strings.Repeat("abcdefgh", 5000), strings.Repeat("漢字仮名交じり文", 2000)}
	for i := 0; len(b) < size; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = append(b, fmt.Sprint(i)...)
		b = append(b, `,"text":"`...)
		b = append(b, runs[i%len(runs)]...)
		b = append(b, `"}`...)
	}
	return append(b, ']')
}

// TestBudgetWorkDependsOnTheLimitNotTheSize: cutting a result tokenizes a
// bounded prefix of it. The text counted for a 2 MiB answer is the same as
// for a 128 KiB one, and a small multiple of what the limit allows, for
// every shape (the old budget tokenized the whole result, then every
// item).
func TestBudgetWorkDependsOnTheLimitNotTheSize(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	limit := s.opts.MaxResultTokens
	op := &operations.Operation{ID: "big.list"}
	shapes := append(resultShapes, struct {
		name string
		gen  func(int) []byte
	}{"padded", paddedResult})
	for _, shape := range shapes {
		var examined []int
		for _, size := range []int{128 << 10, 2 << 20} {
			raw := shape.gen(size)
			use := countingTokens(t, s)
			out, cut, env := s.budget(context.Background(), op, raw)
			examined = append(examined, use.bytes)
			// JSON averages about four bytes a token: 32 bytes a token of
			// the limit is eight times what a cut needs. No call gets more
			// than a chunk, so no piece costs the tokenizer much.
			if use.bytes > 32*limit || use.largest > countChunkBytes {
				t.Errorf("%s, %d bytes: the budget tokenized %d bytes, at most %d at once; want at most %d, %d at once",
					shape.name, size, use.bytes, use.largest, 32*limit, countChunkBytes)
			}
			if shape.name == "string" {
				if env == nil || env.Code != CodeResultTooLarge || env.Remedy == nil {
					t.Errorf("%s: a result with no list should be refused with result_too_large and a remedy: %+v", shape.name, env)
				}
				continue
			}
			if env != nil {
				t.Fatalf("%s, %d bytes: %s", shape.name, size, env.JSON())
			}
			if shape.name == "padded" {
				// One tokenizer call on its long runs takes seconds:
				// count as the budget does (checked against the
				// tokenizer by TestChunkedCountMatchesTheTokenizer).
				c := &tokenCounter{ctx: context.Background(), count: countO200K}
				if n, over, _ := c.upTo(out, limit); !json.Valid(out) || over {
					t.Fatalf("padded: the cut result is not valid JSON or has %d tokens", n)
				}
			} else {
				checkCut(t, out, limit)
			}
			if cut == nil || cut.kept == 0 || cut.kept >= cut.total {
				t.Fatalf("%s: cut report %+v", shape.name, cut)
			}
		}
		if examined[1] > examined[0]+countChunkBytes {
			t.Errorf("%s: tokenized %d bytes of a 128 KiB result but %d of a 2 MiB one; the work should not grow with the result", shape.name, examined[0], examined[1])
		}
	}
}

// TestChunkedCountMatchesTheTokenizer: counting in chunks gives the
// tokenizer's count of the whole for JSON and prose in any script, and
// never less than it for runs it had to cut.
func TestChunkedCountMatchesTheTokenizer(t *testing.T) {
	c := &tokenCounter{ctx: context.Background(), count: countO200K}
	texts := map[string]string{
		// The tokenizer takes seconds on one call over longer runs.
		"spaces":   strings.Repeat(" ", 3000) + "x",
		"cjk":      strings.Repeat("漢字仮名交じり文", 150),
		"word":     strings.Repeat("abcdefgh", 400),
		"newlines": strings.Repeat("/\n//\n\n", 400),
		"pretty":   strings.ReplaceAll(string(arrayResult(16<<10)), ",", ",\n    "),
		"tabbed":   strings.Repeat("{\"名前\":\t\"値\"}\t\u3000Ünïcödé\u3001Привет\n", 300),
		"camel":    strings.Repeat("someFieldNameThatKeepsGoingWithoutAnySpaceAtAll", 100),
		"mixed":    strings.Repeat("ab c\n\t{}\"':,.é漢0123 456789  Ünïcödé, it's \\u00e9 \r\n", 800),
	}
	exact := map[string]bool{"pretty": true, "tabbed": true, "camel": true, "mixed": true}
	for _, shape := range resultShapes {
		texts[shape.name] = string(shape.gen(16 << 10))
		exact[shape.name] = true
	}
	for name, text := range texts {
		want, err := countO200K(text)
		if err != nil {
			t.Fatal(err)
		}
		chunks, inRuns := 0, 0
		for off := 0; off < len(text); {
			end, inRun := chunkEnd([]byte(text), off)
			chunks++
			if inRun {
				inRuns++
			}
			off = end
		}
		if exact[name] && inRuns > 0 {
			t.Errorf("%s: %d of %d chunks were cut inside a run; this text has a place to end one every few bytes", name, inRuns, chunks)
		}
		got, over, err := c.upTo([]byte(text), 1<<30)
		if err != nil || over || got < want || got > want+inRuns*(cutRunMargin+3) {
			t.Errorf("%s: chunked count %d (over %v, err %v); the tokenizer counts %d in one call; %d chunks, %d cut inside a run", name, got, over, err, want, chunks, inRuns)
		}
	}
}

// TestChunksCutInsideRunsNeverUndercount: texts made of runs the counter
// has to cut (whitespace and newlines, slashes, brackets and quotes, long
// words) are never counted below the tokenizer's count of the whole, which
// is what keeps a cut result within its limit.
func TestChunksCutInsideRunsNeverUndercount(t *testing.T) {
	c := &tokenCounter{ctx: context.Background(), count: countO200K}
	alphabets := []string{" \t\n", "\n\r", "/\n", "/\r\n", "]}\",\"", "\\\"", "\t\u3000\u00a0\n", "abAB", "aeiou", "一丁漢字", "x\u0301 "}
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		al := []rune(alphabets[i%len(alphabets)])
		b := make([]rune, 300+r.IntN(1500))
		for j := range b {
			b[j] = al[r.IntN(len(al))]
		}
		text := string(b)
		want, err := countO200K(text)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, err := c.upTo([]byte(text), 1<<30); err != nil || got < want {
			t.Fatalf("chunked count %d (err %v) is below the tokenizer's %d for %q", got, err, want, text)
		}
	}
}

// checkCut asserts out is valid JSON within limit tokens.
func checkCut(t *testing.T, out []byte, limit int) {
	t.Helper()
	if !json.Valid(out) {
		t.Fatalf("the cut result is not valid JSON: %.200s", out)
	}
	if n, err := countO200K(string(out)); err != nil || n > limit {
		t.Fatalf("the cut result has %d tokens (err %v); the limit is %d", n, err, limit)
	}
}

// TestCuttingAllocatesTheSameWhateverTheSize: through the public path,
// cutting a 4 MiB answer allocates about what cutting a 256 KiB one does:
// the work depends on the limit, not on the answer (the old budget
// allocated about 70 times the answer's size).
func TestCuttingAllocatesTheSameWhateverTheSize(t *testing.T) {
	small, large := arrayResult(256<<10), arrayResult(4<<20)
	var raw []byte
	r := operations.NewRegistry()
	r.MustRegister(operations.Operation{ID: "big.list", Summary: "List everything", Kind: operations.KindRead,
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return raw, nil }})
	s, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	allocated := func(result []byte) uint64 {
		raw = result
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		env := s.Call(context.Background(), ToolAsk, []byte(`{"action":"big.list"}`))
		runtime.ReadMemStats(&after)
		if !env.OK || env.Meta == nil || !env.Meta.Truncated {
			t.Fatalf("want a truncated result: %.500s", env.JSON())
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	allocated(small) // loads the tokenizer
	a, b := allocated(small), allocated(large)
	// The 3.75 MiB more of the large answer may cost a byte of allocation
	// per 16 bytes (there is none today); the old budget cost 70 per byte.
	if grown := int64(b) - int64(a); grown > int64(len(large)-len(small))/16 {
		t.Fatalf("cutting %d bytes allocated %d; cutting %d allocated %d: the cost grows with the answer", len(small), a, len(large), b)
	}
	t.Logf("allocated %d bytes to cut %d, %d to cut %d", a, len(small), b, len(large))
}

// TestBudgetEndsWithTheCall: a result that arrives as its call ends is not
// answered ok as that call's result. The handler cancels its caller as it
// returns; whichever of the two the server sees first, the answer is the
// cancellation or, since a run outlives the call that started it, a run
// handle to await (the old budget ignored the context and answered ok
// with data about half the time).
func TestBudgetEndsWithTheCall(t *testing.T) {
	raw := arrayResult(256 << 10)
	r := operations.NewRegistry()
	type cancelKey struct{}
	r.MustRegister(operations.Operation{ID: "big.list", Summary: "List everything", Kind: operations.KindRead,
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			ctx.Value(cancelKey{}).(context.CancelFunc)()
			return raw, nil
		}})
	s, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		ctx = context.WithValue(ctx, cancelKey{}, cancel)
		env := s.Call(ctx, ToolAsk, []byte(`{"action":"big.list"}`))
		handle := env.OK && env.Meta != nil && env.Meta.RunID != ""
		if !handle && (env.OK || env.Code != CodeTimeout || env.Remedy == nil) {
			t.Fatalf("call %d: a call cancelled before its result was cut answered: %.300s", i, env.JSON())
		}
	}
}

// TestNoOkAfterTheDeadline: a result cut after the call's deadline is a
// timeout, not a late ok (the old budget ran outside the timeout: a 4 MiB
// answer returned in time was cut for seconds and answered ok). A cut that
// finishes in time may answer ok; it must not answer ok late.
func TestNoOkAfterTheDeadline(t *testing.T) {
	raw := arrayResult(4 << 20)
	var deadline time.Time
	r := operations.NewRegistry()
	r.MustRegister(operations.Operation{ID: "big.list", Summary: "List everything", Kind: operations.KindRead,
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			deadline, _ = ctx.Deadline()
			return raw, nil
		}})
	s, err := New(r, Options{Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	env := s.Call(context.Background(), ToolAsk, []byte(`{"action":"big.list"}`))
	if now := time.Now(); env.OK && now.After(deadline) {
		t.Fatalf("answered ok %s after the call's deadline", now.Sub(deadline))
	}
	if !env.OK && env.Code != CodeTimeout {
		t.Fatalf("want ok or timeout: %.300s", env.JSON())
	}
}

// TestBudgetStopsMidwayAtTheDeadline: the budget checks its context while
// it works, so a deadline that passes in the middle of a cut ends it with
// a timeout, never with a late ok.
func TestBudgetStopsMidwayAtTheDeadline(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	op := &operations.Operation{ID: "big.list"}
	for _, shape := range resultShapes[:2] {
		for stopAfter := 1; stopAfter <= 40; stopAfter += 13 {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(time.Hour))
			calls := 0
			inner := s.countTokens
			s.countTokens = func(text string) (int, error) {
				if calls++; calls == stopAfter {
					// The deadline passes while the budget is counting.
					cancel()
				}
				return inner(text)
			}
			_, _, env := s.budget(ctx, op, shape.gen(1<<20))
			s.countTokens = inner
			cancel()
			if env == nil || env.Code != CodeTimeout {
				t.Fatalf("%s, cancelled at tokenizer call %d: want timeout, got %+v", shape.name, stopAfter, env)
			}
		}
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		_, _, env := s.budget(ctx, op, shape.gen(1<<20))
		cancel()
		if env == nil || env.Code != CodeTimeout || !strings.Contains(env.Error, "did not finish") {
			t.Fatalf("%s past its deadline: want timeout, got %+v", shape.name, env)
		}
	}
}

// TestBudgetCutShapes: what is cut and what is kept, byte for byte.
func TestBudgetCutShapes(t *testing.T) {
	item := func(i int) string {
		return `{"n":` + strings.Repeat("1", 1+i%3) + `,"s":"a \"quoted\" ] } [ { , word"}`
	}
	list := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item(i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	tests := []struct {
		name, raw  string
		wantPrefix string // the cut result starts with this
		wantSuffix string // and ends with this
		wantPath   string
		dropped    bool
	}{
		{"top-level array", list(400), `[{"n":1,`, `word"}]`, "", false},
		{"array field, cursor after", `{"total":400,"items":` + list(400) + `,"next_cursor":"abc","meta":{"x":[1,2]}}`,
			`{"total":400,"items":[{"n":1`, `word"}],"meta":{"x":[1,2]}}`, "items", true},
		{"cursor before, pretty-printed", "{\n  \"next\": \"abc\",\n  \"data\": {\n    \"rows\": " + list(400) + "\n  },\n  \"ok\": true\n}",
			`{"data":{"rows":[{"n":1`, `word"}]},"ok": true}`, "data.rows", true},
		{"the largest array wins over objects", `{"small":[1],"obj":{"k":` + list(2) + `},"big":` + list(400) + `}`,
			`{"small":[1],"obj":{"k":[{"n":1,`, `word"}]}`, "big", false},
	}
	s, _ := newTestServer(t, Options{MaxResultTokens: 300})
	op := &operations.Operation{ID: "t.list"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, cut, env := s.budget(context.Background(), op, json.RawMessage(tc.raw))
			if env != nil {
				t.Fatal(env.JSON())
			}
			checkCut(t, out, 300)
			got := string(out)
			if !strings.HasPrefix(got, tc.wantPrefix) || !strings.HasSuffix(got, tc.wantSuffix) {
				t.Fatalf("cut result\n%s\nwant prefix %s and suffix %s", got, tc.wantPrefix, tc.wantSuffix)
			}
			if cut.path != tc.wantPath || cut.droppedCursor != tc.dropped || cut.total != 400 || cut.kept == 0 {
				t.Fatalf("report %+v; want path %q, dropped cursor %v, 400 items in all", cut, tc.wantPath, tc.dropped)
			}
			// The kept items are the first ones, whole.
			var v any
			_ = json.Unmarshal(out, &v)
			items := findList(v, tc.wantPath)
			if len(items) != cut.kept {
				t.Fatalf("the result holds %d items; the report says %d", len(items), cut.kept)
			}
			for i, it := range items {
				b, _ := json.Marshal(it)
				var want any
				_ = json.Unmarshal([]byte(item(i)), &want)
				wb, _ := json.Marshal(want)
				if string(b) != string(wb) {
					t.Fatalf("item %d = %s; want %s", i, b, wb)
				}
			}
		})
	}
	refused := map[string]string{
		"no list":             `{"blob":"` + strings.Repeat("word ", 2000) + `"}`,
		"frame too large":     `{"blob":"` + strings.Repeat("word ", 2000) + `","items":` + list(10) + `}`,
		"list too deep":       strings.Repeat(`{"a":`, maxCutDepth+1) + list(400) + strings.Repeat(`}`, maxCutDepth+1),
		"one item over limit": `[{"blob":"` + strings.Repeat("word ", 2000) + `"}]`,
	}
	for name, raw := range refused {
		_, cut, env := s.budget(context.Background(), op, json.RawMessage(raw))
		switch {
		case name == "one item over limit":
			// The list empties: an answer that says nothing fits, with
			// the step to ask for one item.
			if env != nil || cut == nil || cut.kept != 0 || cut.total != 1 {
				t.Errorf("%s: got %+v, %+v", name, cut, env)
			}
		case env == nil || env.Code != CodeResultTooLarge || env.Remedy == nil:
			t.Errorf("%s: want result_too_large, got %+v", name, env)
		}
	}
}

func findList(v any, path string) []any {
	if path != "" {
		for _, k := range strings.Split(path, ".") {
			v = v.(map[string]any)[k]
		}
	}
	l, _ := v.([]any)
	return l
}

// FuzzBudget: any valid JSON result comes out unchanged, cut to valid JSON
// within the limit, or refused with a code; never a panic.
func FuzzBudget(f *testing.F) {
	for _, seed := range []string{`[1,2,3]`, `{"a":[{"b":"]"}],"next":"x"}`, `"x"`, `{"a":{"b":{"c":[[],[],{}]}}}`, `[ "a\"", {"k": [1, 2]} ]`} {
		f.Add(seed, 8)
	}
	f.Fuzz(func(t *testing.T, raw string, limit int) {
		if !json.Valid([]byte(raw)) {
			return
		}
		limit = 1 + abs(limit)%64
		c := &tokenCounter{ctx: context.Background(), count: countO200K}
		out, _, err := fitResult(c, []byte(strings.TrimSpace(raw)), limit)
		var tl *tooLargeError
		if errors.As(err, &tl) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkCut(t, out, limit)
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestNestedListCutThroughAsk: an answer whose list sits several objects
// down (refused before) comes back cut, marked truncated, with a warning
// that names the list and the counts, no cursor that would skip the cut
// items, and a next step.
func TestNestedListCutThroughAsk(t *testing.T) {
	raw := deepResult(256 << 10)
	r := operations.NewRegistry()
	r.MustRegister(operations.Operation{ID: "repo.issues", Summary: "List a repository's issues", Kind: operations.KindRead,
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return raw, nil }})
	s, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := call(t, s, ToolAsk, `{"action":"repo.issues"}`)
	if !env.OK || env.Meta == nil || !env.Meta.Truncated || len(env.NextSteps) == 0 || env.NextSteps[0].Action != "repo.issues" {
		t.Fatalf("want a truncated result with a next step: %.500s", env.JSON())
	}
	if len(env.Warnings) != 1 || !strings.Contains(env.Warnings[0], `items of "data.repository.issues.nodes"`) || !strings.Contains(env.Warnings[0], "cursor was dropped") {
		t.Fatalf("the warning should name the list cut and the dropped cursor: %q", env.Warnings)
	}
	issues := data(t, env)["data"].(map[string]any)["repository"].(map[string]any)["issues"].(map[string]any)
	if _, stale := issues["next"]; stale || len(issues["nodes"].([]any)) == 0 || issues["pageInfo"] == nil {
		t.Fatalf("the list's object should keep its fields but the cursor: %v", issues)
	}
}
