package mcpstdio

import (
	"io"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	type line struct {
		text string
		size int64
	}
	cases := []struct {
		name  string
		input string
		max   int
		want  []line
	}{
		{"lines", "a\nbc\n", 8, []line{{"a", 1}, {"bc", 2}}},
		{"last line without newline", "a\nbc", 8, []line{{"a", 1}, {"bc", 2}}},
		{"carriage returns", "a\r\n\r\n", 8, []line{{"a", 1}, {"", 0}}},
		{"exactly the cap", "abcd\nx\n", 4, []line{{"abcd", 4}, {"x", 1}}},
		{"one over the cap", "abcde\nx\n", 4, []line{{"abcd", 5}, {"x", 1}}},
		{"far over the cap", strings.Repeat("z", 200000) + "\nx", 4, []line{{"zzzz", 200000}, {"x", 1}}},
		{"empty input", "", 4, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lr := newLineReader(strings.NewReader(c.input), c.max)
			var got []line
			for {
				l, size, err := lr.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, line{string(l), size})
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %d lines %v, want %v", len(got), got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("line %d = %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestIDFromPrefix(t *testing.T) {
	cases := map[string]string{
		`{"jsonrpc":"2.0","id":12,"method":"x","params":{"pad":"xx`:      `12`,
		`{"jsonrpc":"2.0","id":"ab\"c","method":"x","params":{"pad":"xx`: `"ab\"c"`,
		`{"params":{"a":[1,{"id":3}]},"id":7,"pad":"xxxx`:                `7`,
		`{"jsonrpc":"2.0","method":"x","params":{"pad":"xxxx`:            ``,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"x","params":{"pad":"xx`: ``,
		`{"jsonrpc":"2.0","id":12`:                                       ``, // the id may continue past the cut
		`[{"id":1}`:                                                      ``,
		`not json`:                                                       ``,
	}
	for prefix, want := range cases {
		if got := string(idFromPrefix([]byte(prefix))); got != want {
			t.Errorf("idFromPrefix(%q) = %q, want %q", prefix, got, want)
		}
	}
}
