package gate_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/intentsrv/intentsrv/gate"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
)

// A project that serves its own operations through intentsrv keeps the
// listing small and every operation reachable with one test:
//
//	func TestSurface(t *testing.T) {
//		srv, err := intent.New(myRegistry(), intent.Options{Writes: intent.WritesConfirm})
//		if err != nil {
//			t.Fatal(err)
//		}
//		gate.Check(t, srv, gate.Budgets{})
//	}
//
// Outside a test, Run returns the same report.
func ExampleRun() {
	reg := operations.NewRegistry()
	reg.MustRegister(operations.Operation{
		ID:      "weather.forecast.get",
		Summary: "Get the forecast for a city",
		Input:   json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"sky":"clear"}`), nil
		},
	})
	srv, err := intent.New(reg, intent.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := gate.Run(context.Background(), srv, gate.Budgets{MaxTools: 4, MaxListTokens: 1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("passed:", r.Passed())
	fmt.Println("tools:", len(r.Tools))
	fmt.Println("reachable:", r.Operations-len(r.Unreachable), "of", r.Operations)
	// Output:
	// passed: true
	// tools: 3
	// reachable: 1 of 1
}
