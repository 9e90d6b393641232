package intent

import (
	"context"
	"encoding/json"
)

type probeKey struct{}

// WithProbe returns a context under which ask and act take every step of a
// call (lookup, write policy, validation of params, preview, plan_ref
// checks) but stop where the operation's handler would run: instead, the
// call succeeds with data that names the operation it reached (see
// Probed). No handler runs and no plan_ref is consumed; previews, which are
// side-effect free by contract, do run. Only Go code holding the context
// can ask for it: nothing an agent sends turns it on. The surface gate uses
// it to check that every operation resolves, over catalogs that call real
// APIs.
func WithProbe(ctx context.Context) context.Context {
	return context.WithValue(ctx, probeKey{}, true)
}

func probing(ctx context.Context) bool {
	on, _ := ctx.Value(probeKey{}).(bool)
	return on
}

// probeField is the field of a probe answer's data naming the operation.
const probeField = "intentsrv_probe"

// probeAnswer is the envelope of a probed call that reached op's handler.
func probeAnswer(id string) *Envelope {
	data, _ := json.Marshal(map[string]string{probeField: id})
	return &Envelope{OK: true, Data: data}
}

// Probed returns the id of the operation a call made under WithProbe
// reached, and whether env is such an answer.
func Probed(env *Envelope) (string, bool) {
	if env == nil || !env.OK {
		return "", false
	}
	var d map[string]string
	if json.Unmarshal(env.Data, &d) != nil || d[probeField] == "" {
		return "", false
	}
	return d[probeField], true
}
