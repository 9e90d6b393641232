package operations

import "fmt"

// Error is an error a handler returns when it wants the caller to see a
// machine-readable code and a way forward rather than a generic failure.
// Codes are those of the intent envelope (for example "invalid_params",
// "upstream_error", "rate_limited", "unauthorized"); plus "not_found" for a
// well-formed request naming something that does not exist, and "conflict"
// for a request that contradicts the current state.
type Error struct {
	// Code is the machine code.
	Code string
	// Message is a human sentence saying what went wrong.
	Message string
	// Fix says how to recover, e.g. "list tickets with helpdesk.tickets.list".
	Fix string
	// Details is structured detail, encoded as JSON in the envelope.
	Details any
}

func (e *Error) Error() string {
	if e.Fix != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Fix)
	}
	return e.Code + ": " + e.Message
}

// NotFound returns an *Error with code "not_found".
func NotFound(what string, fix string) *Error {
	return &Error{Code: "not_found", Message: what + " not found", Fix: fix}
}

// Conflict returns an *Error with code "conflict".
func Conflict(msg, fix string) *Error {
	return &Error{Code: "conflict", Message: msg, Fix: fix}
}
