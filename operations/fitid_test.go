package operations

import (
	"strings"
	"testing"
)

// A long id is cut to MaxIDLength with a hash of the whole, stays valid
// and distinct from another that shares its prefix, and reads as cut
// (CutByFit) with the cut a prefix of the id it came from. A short id is
// kept as it is and does not read as cut.
func TestFitIDCutsLongIDsAndSaysSo(t *testing.T) {
	long := "azure.bot." + strings.Repeat("resource_groups_", 10)
	a, b := FitID(long+"get"), FitID(long+"put")
	for _, id := range []string{a, b} {
		if len(id) > MaxIDLength || !ValidID(id) {
			t.Errorf("FitID gave %q (%d characters): not a valid id", id, len(id))
		}
		cut, ok := CutByFit(id)
		if !ok || !strings.HasPrefix(long, cut) || len(cut) < MaxIDLength/2 {
			t.Errorf("CutByFit(%q) = %q, %v; want the id's cut, a prefix of the long id", id, cut, ok)
		}
	}
	if a == b {
		t.Errorf("two long ids with one prefix fit to the same id %q", a)
	}
	for _, id := range []string{"github.repos.get", FitID("stripe.v1.get_balance"), "x." + strings.Repeat("a", MaxIDLength-2)} {
		if cut, ok := CutByFit(id); ok {
			t.Errorf("CutByFit(%q) = %q, true; want it not cut", id, cut)
		}
	}
}
