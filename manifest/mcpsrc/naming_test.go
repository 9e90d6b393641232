package mcpsrc

import (
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

func TestSegment(t *testing.T) {
	for in, want := range map[string]string{
		"echo": "echo", "getTinyImage": "get_tiny_image", "get_file_contents": "get_file_contents",
		"API-get-user": "api_get_user", "browser.navigate": "browser_navigate", "HTMLParser": "html_parser",
		"list__items": "list_items", "  spaced out ": "spaced_out", "v2Search": "v2_search", "日本": "", "x/y": "x_y",
	} {
		if got := Segment(in); got != want {
			t.Errorf("Segment(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAssignIDsQualifiesCollisions(t *testing.T) {
	ids, coll := AssignIDs("srv", []string{"getUser", "get_user", "get-user", "list", "日本"})
	seen := map[string]bool{}
	for _, n := range ids {
		if err := operations.CheckID(n.ID); err != nil {
			t.Errorf("%s: %v", n.Tool, err)
		}
		if seen[n.ID] {
			t.Errorf("id %s given twice", n.ID)
		}
		seen[n.ID] = true
	}
	if ids[3].ID != "srv.list" {
		t.Errorf("list: %s", ids[3].ID)
	}
	if len(coll) != 1 || !strings.Contains(coll[0], `"getUser"`) || !strings.Contains(coll[0], `"get-user"`) {
		t.Errorf("collisions %v", coll)
	}
	long, _ := AssignIDs("srv", []string{strings.Repeat("a", 300)})
	if len(long[0].ID) > operations.MaxIDLength {
		t.Errorf("long id %d characters", len(long[0].ID))
	}
}
