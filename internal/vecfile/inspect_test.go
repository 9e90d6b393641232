package vecfile

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestInspect prints the neighbours of the words in VECFILE_WORDS from the
// file VECFILE, for looking at what the vectors learned.
func TestInspect(t *testing.T) {
	file, words := os.Getenv("VECFILE"), os.Getenv("VECFILE_WORDS")
	if file == "" || words == "" {
		t.Skip("VECFILE and VECFILE_WORDS not set")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range strings.Split(words, ",") {
		i, ok := v.Index(w)
		if !ok {
			fmt.Printf("%s: not learned\n", w)
			continue
		}
		var b strings.Builder
		for _, n := range v.Neighbours[i] {
			fmt.Fprintf(&b, " %s(%.2f)", v.Words[n.Word], n.Sim)
		}
		fmt.Printf("%s:%s\n", w, b.String())
	}
}
