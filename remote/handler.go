package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/intent"
)

// Routes.
const (
	PathMCP     = "/mcp"
	PathHealthz = "/healthz"
	PathReadyz  = "/readyz"
	PathREST    = "/v1/"
)

type principalKey struct{}

// principalFrom returns the principal a guarded request authenticated as.
func principalFrom(ctx context.Context) (string, bool) {
	p, ok := ctx.Value(principalKey{}).(string)
	return p, ok
}

// Handler returns the server's routes with every guard in front: probes
// first (they reveal nothing), then, for MCP and REST, the origin policy,
// authentication, the rate limit and the body cap, in that order. Every
// request is access-logged.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(PathHealthz, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc(PathReadyz, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !s.Ready() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "not ready\n")
			return
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	mux.Handle(PathMCP, s.guard(http.HandlerFunc(s.serveMCP)))
	mux.Handle(PathREST, s.guard(http.HandlerFunc(s.serveREST)))
	return s.accessLog(mux)
}

func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	b := s.backend.Load()
	if b == nil {
		s.notReady(w)
		return
	}
	if r.Method == http.MethodPost && s.serveTask(w, r, b) {
		return
	}
	b.streamable.ServeHTTP(w, r)
}

// serveTask answers an MCP task request (intent.TaskRPC) posted to /mcp,
// behind the same guards as every MCP request and as the key's principal,
// and reports whether it did; anything else is left to mcp-go. With
// sessions, a request whose session id is missing or not this
// principal's is left to mcp-go too, which refuses it as it refuses any.
// A tasks/result waiting for its task ends when shutdown begins (the
// task runs on; the client asks again, of any replica).
func (s *Server) serveTask(w http.ResponseWriter, r *http.Request, b *backend) bool {
	if r.Body == nil {
		return false
	}
	body, err := io.ReadAll(r.Body) // already read into memory by guard
	if err != nil {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !s.cfg.Stateless {
		id := r.Header.Get(server.HeaderKeySessionID)
		if id == "" {
			return false
		}
		if _, err := s.sessions.ResolveSessionIdManager(r).Validate(id); err != nil {
			return false
		}
	}
	ctx := r.Context()
	if bytes.Contains(body, []byte(mcp.MethodTasksResult)) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.stopWaits, cancel)
		defer stop()
		s.waitingTasks.Add(1)
		defer s.waitingTasks.Add(-1)
	}
	resp, handled := b.tasks.Handle(ctx, body)
	if !handled {
		return false
	}
	out, err := json.Marshal(resp)
	if err != nil {
		writeRefusal(w, http.StatusInternalServerError, intent.CodeInternalError, "could not encode the answer: "+err.Error(), "report it")
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(out, '\n'))
	return true
}

func (s *Server) notReady(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	writeRefusal(w, http.StatusServiceUnavailable, intent.CodeUpstreamUnavailable,
		"the server is still loading its sources", "retry in a moment; GET /readyz answers 200 once ready")
}

// guard applies the origin policy, authentication, the rate limit and the
// body cap, and puts the principal (also as the intent caller) in the
// request's context.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "1")
			writeRefusal(w, http.StatusServiceUnavailable, intent.CodeUpstreamUnavailable,
				"the server is shutting down", "retry against another replica, or in a moment")
			return
		}
		if why := s.origins.check(r); why != "" {
			writeRefusal(w, http.StatusForbidden, intent.CodeUnauthorized, why,
				"browsers may reach this server only from allowed origins; the operator lists them with --allowed-origin and --allowed-host")
			return
		}
		if r.ContentLength > s.cfg.MaxBodyBytes {
			s.tooLarge(w)
			return
		}
		// Keys and the rate limit are checked on headers alone, so a caller
		// without a key, or over its limit, cannot make the server buffer
		// bodies; only the audit peeks at a refused act call's arguments.
		principal, challenge, refusal := s.authenticate(r)
		if refusal != nil {
			s.refusedAct(r, s.peekBody(w, r), "", refusal)
			w.Header().Set("WWW-Authenticate", challenge)
			writeEnvelope(w, http.StatusUnauthorized, refusal)
			return
		}
		logged(r.Context()).principal = principal
		if ok, wait := s.limits.allow(principal, s.now()); !ok {
			secs := retrySeconds(wait)
			env := &intent.Envelope{
				Code: intent.CodeRateLimited, Error: "too many requests from " + principal,
				Details: map[string]any{"retry_after_seconds": secs, "limit": "requests"},
				Remedy:  &intent.Remedy{Tool: intent.ToolDescribe, Fix: fmt.Sprintf("wait %d s (Retry-After) and send the request again", secs)},
			}
			s.refusedAct(r, s.peekBody(w, r), principal, env)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			writeEnvelope(w, http.StatusTooManyRequests, env)
			return
		}
		if r.Body != nil {
			body, err := s.readBody(w, r)
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				s.tooLarge(w)
				return
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				w.Header().Set("Connection", "close")
				writeRefusal(w, http.StatusRequestTimeout, intent.CodeTimeout,
					fmt.Sprintf("the request body did not arrive within %s", s.cfg.BodyReadTimeout),
					"send the whole body at once, right after the headers")
				return
			}
			if err != nil {
				writeRefusal(w, http.StatusBadRequest, intent.CodeInvalidParams, "could not read the request body: "+err.Error(), "send the request again")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		ctx := context.WithValue(r.Context(), principalKey{}, principal)
		next.ServeHTTP(w, r.WithContext(intent.WithCaller(ctx, principal)))
	})
}

// readBody reads r's body under the body cap, within BodyReadTimeout.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return s.readWithin(w, http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
}

// readWithin reads body (a reader of the request's body) to its end
// within BodyReadTimeout: the connection's read deadline is set for the
// body alone and lifted once it is in, so a long-lived stream on the
// connection is not cut later. An overdue body fails with an error
// matching os.ErrDeadlineExceeded.
func (s *Server) readWithin(w http.ResponseWriter, body io.Reader) ([]byte, error) {
	rc := http.NewResponseController(w)
	// Deadlines are wall-clock times on the connection, not s.now.
	if err := rc.SetReadDeadline(time.Now().Add(s.cfg.BodyReadTimeout)); err == nil {
		defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
	}
	return io.ReadAll(body)
}

// auditPeekBytes bounds what the audit reads of a refused request's body
// to tell whether it is an act call.
const auditPeekBytes = 64 << 10

// peekBody reads the start of a refused request's body for the audit; it
// reads nothing when there is no audit log.
func (s *Server) peekBody(w http.ResponseWriter, r *http.Request) []byte {
	if s.audit == nil || r.Body == nil {
		return nil
	}
	b, _ := s.readWithin(w, io.LimitReader(r.Body, min(auditPeekBytes, s.cfg.MaxBodyBytes)))
	return b
}

func (s *Server) tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	writeRefusal(w, http.StatusRequestEntityTooLarge, intent.CodeInvalidParams,
		fmt.Sprintf("the request body exceeds %d bytes", s.cfg.MaxBodyBytes),
		"send smaller params (page through large inputs), or ask the operator to raise --max-body")
}

// authenticate returns the principal of r's bearer key, or the refusal
// and the WWW-Authenticate challenge to answer with (status 401). Without
// keys every request is AnonymousPrincipal.
func (s *Server) authenticate(r *http.Request) (principal, challenge string, refusal *intent.Envelope) {
	if s.cfg.Keys.Len() == 0 {
		return AnonymousPrincipal, "", nil
	}
	scheme, key, found := strings.Cut(r.Header.Get("Authorization"), " ")
	key = strings.TrimSpace(key)
	if !found || !strings.EqualFold(scheme, "Bearer") || key == "" {
		return "", `Bearer realm="intentsrv"`, refusalEnvelope(intent.CodeUnauthorized, "an API key is required",
			"send the header Authorization: Bearer <key>; the operator issues keys")
	}
	principal, ok := s.cfg.Keys.Lookup(key)
	if !ok {
		return "", `Bearer realm="intentsrv", error="invalid_token"`, refusalEnvelope(intent.CodeUnauthorized, "the API key is not valid",
			"check the key; the operator issues and revokes keys")
	}
	return principal, "", nil
}

// writeRefusal answers a request refused before it reached a tool, with an
// envelope so every client reads one shape.
func writeRefusal(w http.ResponseWriter, status int, code intent.Code, msg, fix string) {
	writeEnvelope(w, status, refusalEnvelope(code, msg, fix))
}

func refusalEnvelope(code intent.Code, msg, fix string) *intent.Envelope {
	return &intent.Envelope{Code: code, Error: msg, Remedy: &intent.Remedy{Tool: intent.ToolDescribe, Fix: fix}}
}

func writeEnvelope(w http.ResponseWriter, status int, env *intent.Envelope) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(env.JSON(), '\n'))
}

func writeJSON(w http.ResponseWriter, v any) {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		writeRefusal(w, http.StatusInternalServerError, intent.CodeInternalError, "could not encode the answer: "+err.Error(), "report it")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(raw, '\n'))
}

// now is the server's clock.
func (s *Server) now() time.Time { return s.cfg.Now() }
