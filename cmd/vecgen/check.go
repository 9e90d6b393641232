package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
)

// checked is one file -check compares: the repository's, and the one the
// generator made in its place.
type checked struct{ shipped, made string }

// compareMade compares each file the stage made with the repository's
// (a file the stage did not write is skipped). Weight files are compared
// as JSON without held_out_top1, which only a -validate run records; every
// other file byte for byte. The error names every file that differs and
// the command that rewrites it.
func compareMade(files []checked, stage string) error {
	var stale []string
	for _, f := range files {
		made, err := os.ReadFile(f.made)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		shipped, err := os.ReadFile(f.shipped)
		if err != nil {
			return fmt.Errorf("-check: %w", err)
		}
		same := bytes.Equal(made, shipped)
		if !same && strings.HasSuffix(f.shipped, ".json") {
			same = sameWeights(made, shipped)
		}
		if !same {
			stale = append(stale, f.shipped)
		}
	}
	if len(stale) > 0 {
		cmd := "go run ./cmd/vecgen"
		if stage != "vectors" {
			cmd += " -stage " + stage
		}
		return fmt.Errorf("-check: %s not what the pinned corpus makes with this tree; rewrite with %q and commit", strings.Join(stale, ", "), cmd)
	}
	return nil
}

// sameWeights reports whether two weight files hold the same fit: equal
// JSON once the record of a validation run (held_out_top1) is left out.
func sameWeights(a, b []byte) bool {
	var x, y map[string]any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	delete(x, "held_out_top1")
	delete(y, "held_out_top1")
	return reflect.DeepEqual(x, y)
}
