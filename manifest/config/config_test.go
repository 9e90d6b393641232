package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadExample(t *testing.T) {
	f, err := Load(filepath.Join("..", "..", "testdata", "config", "intentsrv.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sources) != 2 || f.Sources[0].Name != "tracker" {
		t.Fatalf("sources %+v", f.Sources)
	}
	tr := f.Sources[0]
	if !strings.HasSuffix(filepath.ToSlash(tr.OpenAPI), "testdata/openapi/tracker.yaml") || !strings.HasSuffix(filepath.ToSlash(tr.Overlay), "testdata/config/tracker.overlay.yaml") {
		t.Errorf("paths not resolved: %q %q", tr.OpenAPI, tr.Overlay)
	}
	if time.Duration(tr.Timeout) != 10*time.Second || tr.Auth == nil || tr.Auth.Token != "TRACKER_TOKEN" {
		t.Errorf("source %+v", tr)
	}
	if len(f.Overlays) != 1 || !f.Sources[1].Mock {
		t.Errorf("overlays %v mock %v", f.Overlays, f.Sources[1].Mock)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"no name", "sources: [{openapi: a.yaml}]", "name"},
		{"bad name", "sources: [{name: A.B, openapi: a.yaml}]", "name"},
		{"dup", "sources: [{name: a, openapi: a.yaml}, {name: a, openapi: b.yaml}]", "twice"},
		{"no openapi", "sources: [{name: a}]", "openapi"},
		{"bad base", "sources: [{name: a, openapi: a.yaml, base_url: 'ftp://x'}]", "base_url"},
		{"auth header", "sources: [{name: a, openapi: a.yaml, headers: {Authorization: x}}]", "not allowed"},
		{"one header twice", "sources: [{name: a, openapi: a.yaml, headers: {X-Api-Version: '1', x-api-version: '2'}}]", "same header"},
		{"bad duration", "sources: [{name: a, openapi: a.yaml, timeout: soon}]", "duration"},
		{"unknown key", "sources: [{name: a, openapi: a.yaml, tokn: X}]", "tokn"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc), "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestURLsAndAbsolutePathsKept(t *testing.T) {
	f, err := Parse([]byte("sources: [{name: a, openapi: 'https://x.example/spec.json'}]"), "conf")
	if err != nil {
		t.Fatal(err)
	}
	if f.Sources[0].OpenAPI != "https://x.example/spec.json" {
		t.Errorf("URL rewritten: %q", f.Sources[0].OpenAPI)
	}
}
