package router

import (
	"strings"
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// fittedOp is the operation a spec without operation ids gives for
// method and path under namespace ns: an id made of the method and the
// path's words, cut to operations.MaxIDLength as the OpenAPI source cuts
// it (operations.FitID).
func fittedOp(ns, method, desc, path string, kind operations.Kind) *operations.Operation {
	var name []string
	splitWords(method+" "+path, func(w string) { name = append(name, w) })
	return httpOp(operations.FitID(ns+"."+strings.Join(name, "_")), method, desc, path, kind)
}

// azureBots is the base of a deep resource path, as Azure's specs write
// them: ids made from such paths are longer than an id may be.
const azureBots = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.BotService/botServices/{resourceName}/channels"

// TestAFittedIDIsStillMadeFromItsPath: an id generated from a deep path
// and cut to fit ("api.bot.put_subscriptions_…_bot_servi_53f901c3") was
// made from the method and path as much as a short one. Its action comes
// from the path's shape, so a GET of a collection lists; and a PUT is a
// change its method calls one, not one its name says ("put"), so a
// request that reads the resource is answered by the GET at the PUT's
// address. Before, the cut's hash hid where the name came from.
func TestAFittedIDIsStillMadeFromItsPath(t *testing.T) {
	ops := []*operations.Operation{
		fittedOp("api.bot", "PUT", "Registers a channel of a particular type, given its kind, location and SKU, for the bot.", azureBots+"/{channelName}", operations.KindWrite),
		fittedOp("api.bot", "GET", "The channel, with its kind and location.", azureBots+"/{channelName}", operations.KindRead),
		fittedOp("api.bot", "DELETE", "Removes the channel.", azureBots+"/{channelName}", operations.KindDestructive),
		fittedOp("api.bot", "GET", "Channels of the bot.", azureBots, operations.KindRead),
		fittedOp("api.bot", "POST", "Gives the channel new keys.", azureBots+"/{channelName}/regenerateKeys", operations.KindWrite),
	}
	for _, op := range ops {
		if len(op.ID) != operations.MaxIDLength {
			t.Fatalf("%s is not cut to fit: the test needs ids longer than an id may be", op.ID)
		}
	}
	r := New(ops, Options{})
	off := New(ops, Options{Ablate: []string{"fitted-names"}})
	classify := verbClassifier{reversals: true, calls: true, subCollections: true}
	for d, op := range r.ops {
		verb, _ := segmentVerb(op.HTTP.Path)
		if got, want := r.verbs[d], classify.http(op.HTTP); got != want {
			t.Errorf("%s %s: verb %v, want the path's %v", op.HTTP.Method, op.HTTP.Path, got, want)
		}
		if got, want := r.changes[d].named, verb != ""; got != want {
			t.Errorf("%s %s: named for its change %v, want %v", op.HTTP.Method, op.HTTP.Path, got, want)
		}
	}
	if r.verbs[3] != verbList || off.verbs[3] == verbList {
		t.Errorf("the collection's GET lists: %v, and with fitted-names off %v; want a list only with the rule", r.verbs[3], off.verbs[3])
	}
	if !off.changes[0].named || r.changes[0].named {
		t.Errorf("the PUT is named for its change: %v, and with fitted-names off %v; want it only with the rule off", r.changes[0].named, off.changes[0].named)
	}
	leadsOnlyWith(t, ops, "fitted-names", map[string]string{
		"Returns a channel of a particular type, given its SKU": ops[1].ID,
	})
}
