package remote

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// requestLog collects what the access log line says about one request;
// the guard fills in the principal once it is known.
type requestLog struct {
	principal string
}

type requestLogKey struct{}

// logged returns the request's log record; requests that did not pass
// through accessLog get a throwaway one.
func logged(ctx context.Context) *requestLog {
	if l, ok := ctx.Value(requestLogKey{}).(*requestLog); ok {
		return l
	}
	return &requestLog{}
}

// accessLog logs one line per request at info level (debug for probes):
// method, path, status, bytes, duration and principal. It never logs
// headers, so keys and session ids stay out of the log.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &requestLog{}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), requestLogKey{}, rec)))
		level := slog.LevelInfo
		if r.URL.Path == PathHealthz || r.URL.Path == PathReadyz {
			level = slog.LevelDebug
		}
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		s.log.LogAttrs(r.Context(), level, "http request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", sw.status),
			slog.Int64("bytes", sw.bytes),
			slog.Float64("ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("principal", rec.principal),
			slog.String("remote", r.RemoteAddr),
		)
	})
}

// statusWriter records the status and size of a response. It forwards
// Flush (streamed MCP responses need it) and unwraps for
// http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
