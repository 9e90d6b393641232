package tokens

import "testing"

func TestCountKnownStrings(t *testing.T) {
	tests := []struct {
		enc, text string
		want      int
	}{
		{O200K, "", 0},
		{O200K, "hello world", 2},
		{CL100K, "hello world", 2},
	}
	for _, tc := range tests {
		got, err := Count(tc.enc, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Count(%s, %q) = %d, want %d", tc.enc, tc.text, got, tc.want)
		}
	}
}

func TestCountGrowsWithText(t *testing.T) {
	short, _ := Max("find operations")
	long, _ := Max("find operations that list every open ticket assigned to the billing team")
	if long <= short {
		t.Fatalf("longer text counted %d tokens, shorter %d", long, short)
	}
}

func TestUnknownEncoding(t *testing.T) {
	if _, err := Count("no_such_encoding", "x"); err == nil {
		t.Fatal("want error for unknown encoding")
	}
}
