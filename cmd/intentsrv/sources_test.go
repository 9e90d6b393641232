package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

func testdataPath(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "testdata"}, parts...)...)
}

func loadSources(t *testing.T, args ...string) (*operations.Registry, bool, error) {
	t.Helper()
	var s sourceFlags
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.register(fs)
	if err := fs.Parse(append([]string{"--openapi-cache", t.TempDir()}, args...)); err != nil {
		t.Fatal(err)
	}
	s.getenv = func(string) string { return "" }
	reg := operations.NewRegistry()
	loaded, err := s.load(context.Background(), reg, slog.New(slog.DiscardHandler))
	return reg, loaded, err
}

func ids(reg *operations.Registry) []string {
	var out []string
	for _, op := range reg.All() {
		out = append(out, op.ID)
	}
	return out
}

func TestSourcesNoneMeansDefault(t *testing.T) {
	reg, loaded, err := loadSources(t)
	if err != nil || loaded || reg.Len() != 0 {
		t.Fatalf("loaded=%v err=%v len=%d", loaded, err, reg.Len())
	}
}

func TestSourcesOpenAPIFlag(t *testing.T) {
	reg, loaded, err := loadSources(t, "--openapi", "tracker="+testdataPath("openapi", "tracker.yaml"), "--mock")
	if err != nil || !loaded {
		t.Fatalf("loaded=%v err=%v", loaded, err)
	}
	if reg.Len() != 8 {
		t.Fatalf("ids = %v", ids(reg))
	}
	op, ok := reg.Get("tracker.projects.delete")
	if !ok || op.Kind != operations.KindDestructive || op.OpenWorld {
		t.Fatalf("op = %+v", op)
	}
	ns := reg.Namespaces(nil)
	found := false
	for _, n := range ns {
		if n.Name == "tracker.projects" && n.Blurb != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("no blurb for tracker.projects: %+v", ns)
	}
}

func TestSourcesConfigFile(t *testing.T) {
	reg, loaded, err := loadSources(t, "--config", testdataPath("config", "intentsrv.yaml"))
	if err != nil || !loaded {
		t.Fatalf("loaded=%v err=%v", loaded, err)
	}
	got := ids(reg)
	for _, want := range []string{"tracker.project.show", "tracker.projects.list", "tracker.tasks.update", "pets.pet.add_pet"} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %s in %v", want, got)
		}
	}
	for _, gone := range []string{"tracker.projects.get", "tracker.projects.delete", "tracker.comments.create", "pets.pet.upload_file"} {
		if slices.Contains(got, gone) {
			t.Errorf("%s should be renamed, hidden or excluded: %v", gone, got)
		}
	}
	show, _ := reg.Get("tracker.project.show")
	if show.Summary != "Show one project by id" || !slices.Contains(show.Aliases, "tracker.projects.get") || len(show.Examples) != 1 {
		t.Errorf("overlay not applied: %+v", show)
	}
	if byAlias, ok := reg.Get("project"); !ok || byAlias.ID != "tracker.project.show" {
		t.Error("alias from overlay not registered")
	}
	upd, _ := reg.Get("tracker.tasks.update")
	if upd.Kind != operations.KindDestructive {
		t.Errorf("kind override not applied: %s", upd.Kind)
	}
	list, _ := reg.Get("tracker.projects.list")
	if !slices.Contains(list.Tags, "listing") {
		t.Errorf("global overlay not applied: %v", list.Tags)
	}
}

func TestSourcesFlagErrors(t *testing.T) {
	spec := testdataPath("openapi", "tracker.yaml")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no equals", []string{"--openapi", spec}, "NAME=PATH_OR_URL"},
		{"bad name", []string{"--openapi", "Bad.Name=" + spec}, "one id segment"},
		{"twice", []string{"--openapi", "a=" + spec, "--openapi", "a=" + spec}, "defined twice"},
		{"base url not http", []string{"--openapi", "a=" + spec, "--base-url", "ftp://x"}, "http(s) URL"},
		{"base url ambiguous", []string{"--openapi", "a=" + spec, "--openapi", "b=" + spec, "--base-url", "http://x"}, "NAME=URL"},
		{"base url unknown source", []string{"--openapi", "a=" + spec, "--base-url", "zz=http://x"}, "no source named"},
		{"missing spec", []string{"--openapi", "a=" + filepath.Join(t.TempDir(), "none.yaml")}, "read spec"},
		{"missing config", []string{"--config", filepath.Join(t.TempDir(), "none.yaml")}, "read config"},
		{"bad overlay", []string{"--openapi", "a=" + spec, "--overlay", spec}, "overlay"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := loadSources(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestSourcesBaseURLApplies(t *testing.T) {
	reg, _, err := loadSources(t, "--openapi", "tracker="+testdataPath("openapi", "tracker.yaml"), "--base-url", "http://127.0.0.1:9/api")
	if err != nil {
		t.Fatal(err)
	}
	op, _ := reg.Get("tracker.projects.get")
	p, err := op.Preview(context.Background(), []byte(`{"projectId":"prj_1"}`))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(p)
	var got struct{ URL string }
	if err := json.Unmarshal(raw, &got); err != nil || got.URL != "http://127.0.0.1:9/api/projects/prj_1" {
		t.Errorf("preview = %s", raw)
	}
}
