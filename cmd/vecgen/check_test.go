package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -check passes when the made files equal the repository's, a weight
// file's recorded validation aside, and names every file that differs and
// the command that rewrites it.
func TestCheckNamesStaleFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shippedBin := write("vectors.bin", "\x01\x02")
	shippedJSON := write("ranker.json", `{"weights": [0.5, 1], "held_out_top1": {"lexical": 0.6, "reranked": 0.7}}`)
	sameBin := write("made.bin", "\x01\x02")
	sameJSON := write("made.json", `{"weights":[0.5,1]}`)
	files := []checked{{shippedBin, sameBin}, {shippedJSON, sameJSON}, {write("verbs.tsv", "x"), filepath.Join(dir, "not-written.tsv")}}
	if err := compareMade(files, "ranker"); err != nil {
		t.Fatalf("equal files (validation record aside, one not written) reported stale: %v", err)
	}

	files = []checked{{shippedBin, write("other.bin", "\x01\x03")}, {shippedJSON, write("other.json", `{"weights":[0.5,1.0001]}`)}}
	err := compareMade(files, "ranker")
	if err == nil {
		t.Fatal("changed files passed the check")
	}
	for _, want := range []string{shippedBin, shippedJSON, "go run ./cmd/vecgen -stage ranker"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}
