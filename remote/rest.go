package remote

import (
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/intentsrv/intentsrv/intent"
)

// serveREST is the REST twin of the MCP tools, for agent loops without
// MCP: POST /v1/find|describe|ask|act takes the condensed input as its JSON
// body and answers the envelope; GET /v1/tools answers what "intentsrv
// export" prints (?format=mcp, openai or anthropic; mcp by default).
//
// The HTTP status says whether the call reached the tool: 200 carries the
// tool's envelope, whatever its ok; 4xx and 5xx carry a refusal envelope
// (auth, limits, malformed request). Tool names are the bare verbs: the
// tool prefix is an MCP listing concern.
func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	b := s.backend.Load()
	if b == nil {
		s.notReady(w)
		return
	}
	verb := strings.TrimPrefix(r.URL.Path, PathREST)
	if verb == "tools" {
		s.serveTools(w, r, b)
		return
	}
	switch verb {
	case intent.ToolFind, intent.ToolDescribe, intent.ToolAsk, intent.ToolAct:
		// act answers writes_disabled itself on a read-only server.
	default:
		writeRefusal(w, http.StatusNotFound, intent.CodeUnknownAction, "no route "+quote(r.URL.Path),
			"POST to /v1/find, /v1/describe, /v1/ask or /v1/act, or GET /v1/tools")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeRefusal(w, http.StatusMethodNotAllowed, intent.CodeInvalidParams, r.Method+" is not allowed here", "POST the condensed input as a JSON body")
		return
	}
	body, _ := io.ReadAll(r.Body) // the guard buffered it
	if len(body) > 0 {
		// A JSON content type also keeps browsers from sending this
		// without a CORS preflight.
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			writeRefusal(w, http.StatusUnsupportedMediaType, intent.CodeInvalidParams, "the body must be JSON", "send Content-Type: application/json")
			return
		}
	}
	principal, _ := principalFrom(r.Context())
	release, ok := s.limits.acquire(principal)
	if !ok {
		env := s.busy(principal)
		if verb == intent.ToolAct {
			s.auditAct(principal, transportREST, body, env)
		}
		w.Header().Set("Retry-After", "1")
		writeEnvelope(w, http.StatusTooManyRequests, env)
		return
	}
	env := b.intent.Call(r.Context(), verb, body)
	release()
	if verb == intent.ToolAct {
		s.auditAct(principal, transportREST, body, env)
	}
	writeEnvelope(w, http.StatusOK, env)
}

func (s *Server) serveTools(w http.ResponseWriter, r *http.Request, b *backend) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeRefusal(w, http.StatusMethodNotAllowed, intent.CodeInvalidParams, r.Method+" is not allowed here", "GET /v1/tools")
		return
	}
	if s.cfg.Tools == nil {
		writeRefusal(w, http.StatusNotFound, intent.CodeUnknownAction, "this server does not export its tools", "use MCP tools/list")
		return
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "mcp"
	}
	if format != "mcp" && format != "openai" && format != "anthropic" {
		writeRefusal(w, http.StatusBadRequest, intent.CodeInvalidParams, "format "+quote(format)+" is not mcp, openai or anthropic", "GET /v1/tools?format=openai")
		return
	}
	doc, err := s.cfg.Tools(r.Context(), b.intent, format)
	if err != nil {
		writeRefusal(w, http.StatusInternalServerError, intent.CodeInternalError, "could not export the tools: "+err.Error(), "report it")
		return
	}
	writeJSON(w, doc)
}
