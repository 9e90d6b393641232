package intent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

func weatherOp(id string) operations.Operation {
	return operations.Operation{
		ID: id, Summary: "Get the weather forecast for a city", Input: json.RawMessage(`{"type":"object"}`), Kind: operations.KindRead,
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"sunny":true}`), nil
		},
	}
}

// Operations registered after New are found, described and run once the
// server is reindexed, and removed ones disappear from the index.
func TestReindexSeesRegistryChanges(t *testing.T) {
	reg := operations.NewRegistry()
	reg.MustRegister(weatherOp("notes.echo"))
	s, err := New(reg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg.MustRegister(weatherOp("weather.forecast"))
	if env := call(t, s, "find", `{"intent":"weather forecast","params":{"namespace":"weather"}}`); env.OK {
		t.Fatalf("before Reindex the new namespace should be unknown: %s", env.JSON())
	}
	s.Reindex()
	env := call(t, s, "find", `{"intent":"weather forecast for paris"}`)
	if !env.OK || !strings.Contains(string(env.Data), "weather.forecast") {
		t.Fatalf("after Reindex: %s", env.JSON())
	}
	if env := call(t, s, "describe", `{}`); !strings.Contains(string(env.Data), `"weather"`) {
		t.Fatalf("overview after Reindex: %s", env.JSON())
	}
	reg.Remove("weather.forecast")
	s.Reindex()
	if env := call(t, s, "describe", `{}`); strings.Contains(string(env.Data), `"weather"`) {
		t.Fatalf("overview after removal: %s", env.JSON())
	}
}

func TestOverviewReportsSourceHealth(t *testing.T) {
	reg := operations.NewRegistry()
	reg.MustRegister(weatherOp("notes.echo"))
	s, err := New(reg, Options{SourceHealth: func() []SourceHealth {
		return []SourceHealth{{Source: "mcp:notes", State: "ready", Operations: 1}, {Source: "mcp:db", State: "failed", Error: "exit status 1"}}
	}})
	if err != nil {
		t.Fatal(err)
	}
	env := call(t, s, "describe", `{}`)
	if !env.OK || !strings.Contains(string(env.Data), `"source":"mcp:db","state":"failed"`) {
		t.Fatalf("overview: %s", env.JSON())
	}
	if len(env.Warnings) != 1 || !strings.Contains(env.Warnings[0], "mcp:db failed") || !strings.Contains(env.Warnings[0], "exit status 1") {
		t.Fatalf("warnings %v", env.Warnings)
	}
}

// Replacing an operation many times (an upstream re-listing its tools)
// leaves one descriptor cache entry per live operation.
func TestReindexDropsStaleDescriptorCache(t *testing.T) {
	reg := operations.NewRegistry()
	reg.MustRegister(weatherOp("weather.forecast"))
	s, err := New(reg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		call(t, s, "describe", `{"action":"weather.forecast"}`)
		reg.Remove("weather.forecast")
		reg.MustRegister(weatherOp("weather.forecast"))
		s.Reindex()
	}
	call(t, s, "describe", `{"action":"weather.forecast"}`)
	n := 0
	s.infos.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Fatalf("%d descriptor cache entries for one live operation", n)
	}
}
