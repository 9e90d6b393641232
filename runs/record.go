// Package runs keeps operation calls that outlive the request that started
// them. A run executes on a context the server owns, so a client that
// disconnects or cancels its request does not stop it; its principal can
// read its state and progress, wait for its outcome, cancel it and list its
// runs until a retention period after it finishes.
//
// The package knows nothing of MCP or of intentsrv's envelope: a run's
// work returns an Outcome whose value is encoded as JSON when it must be
// kept. Package intent maps runs onto the four-tool contract.
package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// State is where a run is in its life.
type State string

const (
	// StatePending runs wait for a slot (Options.MaxActive); their work
	// has not started.
	StatePending State = "pending"
	// StateRunning runs are executing their work.
	StateRunning State = "running"
	// StateSucceeded runs finished and their outcome is a success.
	StateSucceeded State = "succeeded"
	// StateFailed runs finished and their outcome is a failure.
	StateFailed State = "failed"
	// StateCancelled runs were cancelled before their work returned.
	StateCancelled State = "cancelled"
	// StateInterrupted runs were executing when the process that ran them
	// ended. Only durable stores hold such records: a store that outlives
	// the process marks the running records it finds at start-up so.
	StateInterrupted State = "interrupted"
)

// States lists every state, in life order.
var States = []State{StatePending, StateRunning, StateSucceeded, StateFailed, StateCancelled, StateInterrupted}

// Finished reports whether s is final: the run will not change again.
func (s State) Finished() bool {
	return s == StateSucceeded || s == StateFailed || s == StateCancelled || s == StateInterrupted
}

// ParseState parses a state name, case-insensitively.
func ParseState(name string) (State, error) {
	for _, s := range States {
		if strings.EqualFold(name, string(s)) {
			return s, nil
		}
	}
	return "", fmt.Errorf("state %q is not one of pending, running, succeeded, failed, cancelled, interrupted", name)
}

// Progress is what a run last reported about itself. Done counts work done
// out of Total (zero when the total is unknown); both are in Unit, which
// is steps when empty (UnitBytes for bytes, or any plural noun: "pages").
type Progress struct {
	Done    float64 `json:"done"`
	Total   float64 `json:"total,omitempty"`
	Unit    string  `json:"unit,omitempty"`
	Message string  `json:"message,omitempty"`
}

// UnitBytes as Progress.Unit counts bytes, written for a reader as "1.5 MB".
const UnitBytes = "bytes"

// String says the progress in words: "step 3 of 7: crawling page 3",
// "1.5 MB of 4.0 MB: reading the response body".
func (p Progress) String() string {
	var s string
	switch {
	case p.Unit == UnitBytes && p.Total > 0:
		s = byteSize(p.Done) + " of " + byteSize(p.Total)
	case p.Unit == UnitBytes && p.Done > 0:
		s = byteSize(p.Done)
	case p.Unit != "" && p.Total > 0:
		s = fmt.Sprintf("%s of %s %s", num(p.Done), num(p.Total), p.Unit)
	case p.Unit != "" && p.Done > 0:
		s = num(p.Done) + " " + p.Unit
	case p.Total > 0:
		s = fmt.Sprintf("step %s of %s", num(p.Done), num(p.Total))
	case p.Done > 0:
		s = "step " + num(p.Done)
	}
	if p.Message != "" {
		if s != "" {
			s += ": "
		}
		s += p.Message
	}
	return s
}

// byteSize writes n bytes for a reader: "512 B", "1.5 kB", "4.0 MB".
func byteSize(n float64) string {
	const unit = 1000
	if n < unit {
		return num(n) + " B"
	}
	div, exp := float64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", n/div, "kMGTP"[exp])
}

func num(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprint(int64(f))
	}
	return fmt.Sprintf("%.2f", f)
}

// Record is a run as a store keeps it: a snapshot that can be encoded,
// shared across replicas and read after the run ended.
type Record struct {
	// ID is the run id: "run_" and 22 random URL-safe characters (128
	// bits), unguessable.
	ID string `json:"run_id"`
	// Principal is the caller that started the run; only it can read it.
	Principal string `json:"principal"`
	// Operation is the id of the operation the run executes.
	Operation string `json:"operation"`
	// State is where the run is.
	State State `json:"state"`
	// Progress is the last progress the work reported, if any.
	Progress *Progress `json:"progress,omitempty"`
	// StartedAt is when the run was accepted.
	StartedAt time.Time `json:"started_at"`
	// FinishedAt is when the run reached a final state; zero before.
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// ExpiresAt is when the store may forget the record: the retention
	// period after FinishedAt for a finished run.
	ExpiresAt time.Time `json:"expires_at"`
	// CancelRequested reports that cancellation was asked for.
	CancelRequested bool `json:"cancel_requested,omitempty"`
	// Result is the outcome's value encoded as JSON, once the run finished
	// with one. A run cancelled before its work started has none.
	Result json.RawMessage `json:"result,omitempty"`
	// ResultDropped reports that Result was discarded to keep the store
	// under its size cap.
	ResultDropped bool `json:"result_dropped,omitempty"`
}

// ErrUnknownRun is returned for a run id that names no run this principal
// can read: one that never existed, one that expired, and one that belongs
// to another principal, alike, so ids cannot be probed.
var ErrUnknownRun = errors.New("unknown run")
