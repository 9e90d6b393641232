package mcpstdio

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
)

// head is what the transport reads of a message to route it; mcp-go
// decodes the rest. Raw members never fail to decode, so a message of the
// wrong shape is told apart from one that is not JSON.
type head struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// params is what the transport reads of a request's params: the tool a
// tools/call names, the request a notifications/cancelled names, and the
// protocol version a request of the stateless (2026-07-28) era carries.
type params struct {
	Params struct {
		Name      string          `json:"name"`
		RequestID json.RawMessage `json:"requestId"`
		Meta      *mcp.Meta       `json:"_meta"`
	} `json:"params"`
}

// parseID validates a JSON-RPC id as MCP requires it: a string or an
// integer (MCP forbids null; a fraction, an object, an array or a boolean
// is no id). It returns the id as mcp-go represents it.
func parseID(raw json.RawMessage) (any, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return s, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, false
		}
		return n, true
	}
	return nil, false
}

// idKey is a canonical key for an id, so that a cancellation names the
// request it means whatever spacing the client used.
func idKey(id any) string {
	switch v := id.(type) {
	case string:
		return "s" + v
	case int64:
		return "n" + strconv.FormatInt(v, 10)
	}
	return ""
}

// Errors the transport answers itself, before mcp-go sees the message.
const (
	codeParseError     = mcp.PARSE_ERROR     // -32700: not JSON
	codeInvalidRequest = mcp.INVALID_REQUEST // -32600: JSON, but not a valid request now
)

func errorResponse(id any, code int, message string, data any) mcp.JSONRPCError {
	return mcp.JSONRPCError{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(id),
		Error:   mcp.NewJSONRPCErrorDetails(code, message, data),
	}
}

// firstByte returns the first non-space byte of b, or 0.
func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
