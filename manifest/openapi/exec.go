package openapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/intentsrv/intentsrv/manifest/sanitize"
	"github.com/intentsrv/intentsrv/operations"
)

// Defaults for BindOptions.
const (
	DefaultTimeout          = 30 * time.Second
	DefaultMaxResponseBytes = 8 << 20
	maxErrorBody            = 1024
	redacted                = "[redacted]"
)

// BindOptions says how a catalog's operations run.
type BindOptions struct {
	// BaseURL, when set, replaces every server URL of the spec.
	BaseURL string
	// Mock answers from the spec's examples and schemas without network.
	Mock bool
	// Client sends requests; nil means a client that refuses redirects to
	// another host or scheme, except an upgrade from http to https on the
	// same host. A custom client's redirect policy is wrapped with the same
	// refusal.
	Client *http.Client
	// Timeout bounds one call (DefaultTimeout when zero).
	Timeout time.Duration
	// MaxResponseBytes caps a response body (DefaultMaxResponseBytes when
	// zero); a larger body fails with result_too_large.
	MaxResponseBytes int64
	// Credentials are the source's secrets.
	Credentials Credentials
	// Headers are sent with every request (e.g. an API version header).
	Headers map[string]string
	// Logger receives one debug line per call, without secrets; nil
	// discards.
	Logger *slog.Logger
}

// Operations returns the catalog's operations bound to an executor. The
// result is ready for operations.Registry.Register; each call gets a fresh
// slice.
func (c *Catalog) Operations(opts BindOptions) []operations.Operation {
	x := newExecutor(c, opts)
	out := make([]operations.Operation, len(c.Ops))
	for i := range c.Ops {
		op := &c.Ops[i]
		out[i] = operations.Operation{
			ID:          op.ID,
			Namespace:   op.Namespace,
			Summary:     op.Summary,
			Description: op.Description,
			Tags:        op.Tags,
			Input:       op.Input,
			Output:      op.Output,
			Kind:        op.Kind,
			Idempotent:  op.Idempotent,
			OpenWorld:   !opts.Mock,
			Deprecated:  op.Deprecated,
			Source:      "openapi:" + c.Source,
			HTTP:        &operations.HTTPBinding{Method: op.Method, Path: op.Path},
			Handler:     x.handler(op),
			Preview:     x.previewer(op),
		}
	}
	return out
}

type executor struct {
	cat     *Catalog
	opts    BindOptions
	client  *http.Client
	secrets []string
	mock    *mocker
}

func newExecutor(c *Catalog, opts BindOptions) *executor {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	x := &executor{cat: c, opts: opts, secrets: opts.Credentials.secrets()}
	base := opts.Client
	if base == nil {
		base = &http.Client{}
	}
	cl := *base
	inner := base.CheckRedirect
	cl.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		// Judged against the first request (the host the call was for)
		// and the previous hop (no step back from https to http).
		for _, from := range []*url.URL{via[0].URL, via[len(via)-1].URL} {
			if ok, downgrade := redirectAllowed(from, req.URL); !ok {
				return &redirectError{to: req.URL.Scheme + "://" + req.URL.Host, downgrade: downgrade}
			}
		}
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		if inner != nil {
			return inner(req, via)
		}
		return nil
	}
	x.client = &cl
	if opts.Mock {
		x.mock = newMocker()
	}
	return x
}

// redirectAllowed reports whether a request to from may follow a redirect
// to to: the same host and scheme (default ports spelled or not), or the
// same host upgraded from http to https (port 80 to 443, or the same
// port). downgrade reports a refusal for going from https to http.
func redirectAllowed(from, to *url.URL) (ok, downgrade bool) {
	fs, ts := strings.ToLower(from.Scheme), strings.ToLower(to.Scheme)
	if fs == "https" && ts == "http" {
		return false, true
	}
	if !strings.EqualFold(from.Hostname(), to.Hostname()) {
		return false, false
	}
	fp, tp := effectivePort(from), effectivePort(to)
	switch {
	case fs == ts:
		return fp == tp, false
	case fs == "http" && ts == "https":
		return fp == tp || fp == "80" && tp == "443", false
	}
	return false, false
}

// effectivePort is u's port, or its scheme's default.
func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

type redirectError struct {
	to        string
	downgrade bool
}

func (e *redirectError) Error() string {
	if e.downgrade {
		return "redirect from https to plain http refused (" + e.to + ")"
	}
	return "redirect to another host refused (" + e.to + ")"
}

// request is a built HTTP request before it is sent, kept apart from
// net/http so a preview never touches the network.
type request struct {
	method  string
	url     *url.URL
	header  http.Header
	body    []byte
	preview any // body as shown in previews
	secretQ map[string]bool
}

func (x *executor) handler(op *Op) operations.Handler {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		if x.mock != nil {
			if _, err := x.build(op, args); err != nil {
				return nil, err
			}
			return x.mock.respond(op)
		}
		req, err := x.build(op, args)
		if err != nil {
			return nil, err
		}
		return x.send(ctx, op, req)
	}
}

func (x *executor) previewer(op *Op) operations.Previewer {
	return func(ctx context.Context, args json.RawMessage) (any, error) {
		req, err := x.build(op, args)
		if err != nil {
			return nil, err
		}
		return x.preview(req), nil
	}
}

// Preview is what act shows before a write runs: the request that would be
// sent, with every secret replaced by "[redacted]".
type Preview struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    any               `json:"body,omitempty"`
	Mock    bool              `json:"mock,omitempty"`
}

func (x *executor) preview(r *request) Preview {
	p := Preview{Method: r.method, URL: x.redactURL(r.url, r.secretQ), Mock: x.mock != nil}
	if len(r.header) > 0 {
		p.Headers = map[string]string{}
		for k, v := range r.header {
			val := strings.Join(v, ", ")
			if sensitiveHeader(k) {
				val = redacted
			}
			p.Headers[k] = x.redact(val)
		}
	}
	if r.preview != nil {
		p.Body = r.preview
	}
	return p
}

// redact replaces every stretch of s that a secret covers with the
// redaction mark. Occurrences are found in s as given and overlapping ones
// merged, so two secrets that overlap in s ("abcd1234" and "1234wxyz" in
// "abcd1234wxyz") leave no part of either, whichever is replaced first.
func (x *executor) redact(s string) string {
	var spans [][2]int
	for _, sec := range x.secrets {
		for from := 0; ; {
			i := strings.Index(s[from:], sec)
			if i < 0 {
				break
			}
			spans = append(spans, [2]int{from + i, from + i + len(sec)})
			from += i + 1
		}
	}
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	var b strings.Builder
	at := 0
	for k := 0; k < len(spans); {
		start, end := spans[k][0], spans[k][1]
		for k++; k < len(spans) && spans[k][0] < end; k++ {
			end = max(end, spans[k][1])
		}
		b.WriteString(s[at:start])
		b.WriteString(redacted)
		at = end
	}
	b.WriteString(s[at:])
	return b.String()
}

// redactJSON is redact for a JSON body. A body that holds no secret, the
// usual case, is returned as it is, without a copy.
func (x *executor) redactJSON(b []byte) json.RawMessage {
	for _, sec := range x.secrets {
		if bytes.Contains(b, []byte(sec)) {
			return json.RawMessage(x.redact(string(b)))
		}
	}
	return b
}

func (x *executor) redactURL(u *url.URL, secretQ map[string]bool) string {
	cp := *u
	if len(secretQ) > 0 {
		q := cp.Query()
		for k := range secretQ {
			if q.Has(k) {
				q.Set(k, "REDACTED")
			}
		}
		cp.RawQuery = strings.ReplaceAll(q.Encode(), "REDACTED", redacted)
	}
	return x.redact(cp.String())
}

func invalid(format string, a ...any) error {
	return &operations.Error{Code: "invalid_params", Message: fmt.Sprintf(format, a...), Fix: "describe the operation and correct the arguments"}
}

// baseURL returns the URL requests of op go to.
func (x *executor) baseURL(op *Op) (*url.URL, error) {
	raw := x.opts.BaseURL
	if raw == "" && len(op.Servers) > 0 {
		raw = op.Servers[0]
	}
	if raw == "" && len(x.cat.Servers) > 0 {
		raw = x.cat.Servers[0]
	}
	if x.mock != nil {
		if u, err := url.Parse(raw); raw == "" || err != nil || u.Host == "" {
			raw = mockBaseURL
		}
	}
	u, err := url.Parse(raw)
	if raw == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &operations.Error{
			Code:    "upstream_unavailable",
			Message: fmt.Sprintf("source %q has no absolute http(s) base URL", x.cat.Source),
			Fix:     "start intentsrv with --base-url for this source (or base_url in the config file)",
		}
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u, nil
}

// build turns validated arguments into a request. It is pure: no I/O.
func (x *executor) build(op *Op, raw json.RawMessage) (*request, error) {
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return nil, invalid("arguments are not a JSON object: %v", err)
		}
	}
	for _, p := range op.Params {
		if v, ok := args[p.Key]; p.Fixed != nil && (!ok || v == nil) {
			// The one value the spec admits, which the caller need not
			// send (Param.Fixed).
			dec := json.NewDecoder(bytes.NewReader(p.Fixed))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("parameter %q: its fixed value does not decode: %w", p.Key, err)
			}
			args[p.Key] = v
		}
	}
	base, err := x.baseURL(op)
	if err != nil {
		return nil, err
	}
	byName := map[string]Param{}
	for _, p := range op.Params {
		if p.In == "path" {
			byName[p.Name] = p
		}
	}
	// Path: every template variable is one escaped segment value.
	var path strings.Builder
	tmpl := op.Path
	if !strings.HasPrefix(tmpl, "/") {
		tmpl = "/" + tmpl
	}
	for len(tmpl) > 0 {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			path.WriteString(tmpl)
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			path.WriteString(tmpl)
			break
		}
		path.WriteString(tmpl[:i])
		name := tmpl[i+1 : i+j]
		tmpl = tmpl[i+j+1:]
		p, ok := byName[name]
		key := name
		if ok {
			key = p.Key
		}
		v, present := args[key]
		if !present {
			return nil, invalid("path parameter %q is required", key)
		}
		seg, err := pathValue(p, v)
		if err != nil {
			return nil, invalid("path parameter %q: %v", key, err)
		}
		path.WriteString(seg)
	}
	full := base.Scheme + "://" + base.Host + strings.TrimRight(base.EscapedPath(), "/") + path.String()
	u, err := url.Parse(full)
	if err != nil {
		return nil, invalid("the arguments do not form a valid URL: %v", err)
	}
	if u.Scheme != base.Scheme || u.Host != base.Host || !strings.HasPrefix(u.EscapedPath(), strings.TrimRight(base.EscapedPath(), "/")) || u.User != nil {
		return nil, invalid("the arguments would change the request's host or leave its path")
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if seg == "." || seg == ".." {
			return nil, invalid("the arguments would leave the operation's path")
		}
	}

	r := &request{method: op.Method, url: u, header: http.Header{}}
	var query []string
	var cookies []string
	for _, p := range op.Params {
		v, ok := args[p.Key]
		if !ok || v == nil {
			continue
		}
		switch p.In {
		case "query":
			query = append(query, queryPairs(p, v)...)
		case "header":
			s := simpleValue(v, p.Explode)
			if strings.ContainsAny(s, "\r\n\x00") {
				return nil, invalid("header parameter %q contains a line break", p.Key)
			}
			r.header.Set(p.Name, s)
		case "cookie":
			s := simpleValue(v, false)
			if strings.ContainsAny(s, "\r\n\x00;") {
				return nil, invalid("cookie parameter %q contains a forbidden character", p.Key)
			}
			cookies = append(cookies, p.Name+"="+escapeComponent(s, false))
		}
	}
	for k, v := range x.opts.Headers {
		r.header.Set(k, v)
	}
	reqs := x.cat.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	for _, a := range x.opts.Credentials.apply(reqs, x.cat.Schemes) {
		switch a.in {
		case "query":
			query = append(query, escapeComponent(a.name, false)+"="+escapeComponent(a.value, false))
			if r.secretQ == nil {
				r.secretQ = map[string]bool{}
			}
			r.secretQ[a.name] = true
		case "cookie":
			cookies = append(cookies, a.name+"="+a.value)
		default:
			r.header.Set(a.name, a.value)
		}
	}
	if len(cookies) > 0 {
		r.header.Set("Cookie", strings.Join(cookies, "; "))
	}
	u.RawQuery = strings.Join(query, "&")

	if op.Body != nil {
		if v, ok := args["body"]; ok {
			body, ct, shown, err := encodeBody(op.Body, v)
			if err != nil {
				return nil, invalid("body: %v", err)
			}
			r.body = body
			r.preview = shown
			r.header.Set("Content-Type", ct)
		}
	}
	r.header.Set("Accept", "application/json, */*;q=0.5")
	return r, nil
}

// pathValue renders one path parameter as a single escaped segment (or
// label/matrix prefixed value). Every byte outside RFC 3986's unreserved
// set is percent-encoded, so no value can add a segment, a query, a
// fragment, user info or a host.
func pathValue(p Param, v any) (string, error) {
	var s string
	switch p.Style {
	case "label":
		s = "." + joinValue(v, ".", p.Explode, false)
	case "matrix":
		s = ";" + p.Name + "=" + joinValue(v, ",", false, false)
	default:
		s = joinValue(v, ",", p.Explode, false)
	}
	if s == "" {
		return "", errors.New("must not be empty")
	}
	if s == "." || s == ".." {
		return "", errors.New("must not be a dot segment")
	}
	return s, nil
}

// joinValue serialises a scalar, array or object value, escaping each
// piece.
func joinValue(v any, sep string, explode, reserved bool) string {
	switch t := v.(type) {
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = escapeComponent(scalar(e), reserved)
		}
		return strings.Join(parts, sep)
	case map[string]any:
		keys := sortedKeys(t)
		parts := make([]string, 0, 2*len(keys))
		for _, k := range keys {
			if explode {
				parts = append(parts, escapeComponent(k, reserved)+"="+escapeComponent(scalar(t[k]), reserved))
			} else {
				parts = append(parts, escapeComponent(k, reserved), escapeComponent(scalar(t[k]), reserved))
			}
		}
		return strings.Join(parts, sep)
	default:
		return escapeComponent(scalar(v), reserved)
	}
}

// simpleValue renders a header or cookie value (simple style, unescaped).
func simpleValue(v any, explode bool) string {
	switch t := v.(type) {
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = scalar(e)
		}
		return strings.Join(parts, ",")
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(t) {
			if explode {
				parts = append(parts, k+"="+scalar(t[k]))
			} else {
				parts = append(parts, k, scalar(t[k]))
			}
		}
		return strings.Join(parts, ",")
	}
	return scalar(v)
}

func scalar(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	default:
		b, _ := json.Marshal(t)
		return string(b)
	}
}

// queryPairs serialises one query parameter per its style and explode.
func queryPairs(p Param, v any) []string {
	name := escapeComponent(p.Name, false)
	esc := func(s string) string { return escapeComponent(s, p.AllowReserved) }
	switch t := v.(type) {
	case []any:
		if p.Explode && (p.Style == "form" || p.Style == "") {
			out := make([]string, len(t))
			for i, e := range t {
				out[i] = name + "=" + esc(scalar(e))
			}
			return out
		}
		sep := ","
		switch p.Style {
		case "spaceDelimited":
			sep = "%20"
		case "pipeDelimited":
			sep = "|"
		case "tabDelimited":
			sep = "%09"
		}
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = esc(scalar(e))
		}
		return []string{name + "=" + strings.Join(parts, sep)}
	case map[string]any:
		keys := sortedKeys(t)
		switch {
		case p.Style == "deepObject":
			out := make([]string, 0, len(keys))
			for _, k := range keys {
				out = append(out, name+"%5B"+escapeComponent(k, false)+"%5D="+esc(scalar(t[k])))
			}
			return out
		case p.Explode:
			out := make([]string, 0, len(keys))
			for _, k := range keys {
				out = append(out, escapeComponent(k, false)+"="+esc(scalar(t[k])))
			}
			return out
		default:
			parts := make([]string, 0, 2*len(keys))
			for _, k := range keys {
				parts = append(parts, esc(k), esc(scalar(t[k])))
			}
			return []string{name + "=" + strings.Join(parts, ",")}
		}
	}
	return []string{name + "=" + esc(scalar(v))}
}

// escapeComponent percent-encodes every byte outside RFC 3986's unreserved
// set (and, when reserved is true, keeps the reserved set as well, for
// allowReserved query values; "&", "=" and "#" are always escaped there).
func escapeComponent(s string, reserved bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) || reserved && strings.IndexByte(":/?@!$'()*+,;[]", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// encodeBody serialises the body argument per the operation's media type.
// It returns the bytes, the Content-Type and the value a preview shows.
func encodeBody(b *Body, v any) ([]byte, string, any, error) {
	ct := b.ContentType
	base := strings.ToLower(ct)
	if i := strings.IndexByte(base, ';'); i >= 0 {
		base = strings.TrimSpace(base[:i])
	}
	switch {
	case base == "application/x-www-form-urlencoded":
		m, ok := v.(map[string]any)
		if !ok {
			return nil, "", nil, errors.New("a form body must be an object")
		}
		var pairs []string
		for _, k := range sortedKeys(m) {
			switch t := m[k].(type) {
			case []any:
				for _, e := range t {
					pairs = append(pairs, escapeComponent(k, false)+"="+escapeComponent(scalar(e), false))
				}
			default:
				pairs = append(pairs, escapeComponent(k, false)+"="+escapeComponent(scalar(t), false))
			}
		}
		return []byte(strings.Join(pairs, "&")), ct, m, nil
	case base == "multipart/form-data":
		m, ok := v.(map[string]any)
		if !ok {
			return nil, "", nil, errors.New("a multipart body must be an object")
		}
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		binary := map[string]bool{}
		for _, n := range b.Binary {
			binary[n] = true
		}
		shown := map[string]any{}
		for _, k := range sortedKeys(m) {
			vals := []any{m[k]}
			if l, ok := m[k].([]any); ok && !binary[k] {
				vals = l
			}
			for _, e := range vals {
				var part io.Writer
				var err error
				if binary[k] {
					h := textproto.MIMEHeader{}
					h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, k, k))
					h.Set("Content-Type", "application/octet-stream")
					part, err = w.CreatePart(h)
					shown[k] = fmt.Sprintf("[file: %d bytes]", len(scalar(e)))
				} else {
					part, err = w.CreateFormField(k)
					shown[k] = e
				}
				if err != nil {
					return nil, "", nil, err
				}
				if _, err := io.WriteString(part, scalar(e)); err != nil {
					return nil, "", nil, err
				}
			}
		}
		if err := w.Close(); err != nil {
			return nil, "", nil, err
		}
		return buf.Bytes(), w.FormDataContentType(), shown, nil
	case strings.HasPrefix(base, "text/") || base == "application/octet-stream":
		s, ok := v.(string)
		if !ok {
			raw, _ := json.Marshal(v)
			s = string(raw)
		}
		if base == "application/octet-stream" {
			return []byte(s), ct, fmt.Sprintf("[%d bytes]", len(s)), nil
		}
		return []byte(s), ct, s, nil
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, "", nil, err
		}
		if !isJSON(base) {
			ct = "application/json"
		}
		return raw, ct, v, nil
	}
}

// send runs a built request and maps the answer onto results and
// operations.Error codes.
func (x *executor) send(ctx context.Context, op *Op, r *request) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, x.opts.Timeout)
	defer cancel()
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url.String(), body)
	if err != nil {
		return nil, &operations.Error{Code: "internal_error", Message: "could not build the request: " + x.redact(err.Error())}
	}
	req.Header = r.header
	start := time.Now()
	progress := newCallProgress(ctx, op)
	progress.sent()
	resp, err := x.client.Do(req)
	if err != nil {
		return nil, x.transportError(ctx, r, err)
	}
	defer resp.Body.Close()
	data, err := readBody(progress.body(resp.StatusCode, resp.ContentLength, resp.Body), resp.ContentLength, x.opts.MaxResponseBytes)
	if err != nil {
		return nil, x.transportError(ctx, r, err)
	}
	if x.opts.Logger != nil {
		x.opts.Logger.Debug("openapi call", "op", op.ID, "method", r.method, "url", x.redactURL(r.url, r.secretQ), "status", resp.StatusCode, "bytes", len(data), "elapsed", time.Since(start))
	}
	if int64(len(data)) > x.opts.MaxResponseBytes {
		return nil, &operations.Error{
			Code:    "result_too_large",
			Message: fmt.Sprintf("the response is larger than %d bytes", x.opts.MaxResponseBytes),
			Fix:     "ask for less: use the operation's paging or filter parameters",
			Details: map[string]any{"status": resp.StatusCode, "limit_bytes": x.opts.MaxResponseBytes},
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, x.statusError(op, resp, data)
	}
	return x.result(resp, data), nil
}

// readBody reads at most max+1 bytes of body (one more than allowed, so a
// larger body shows). A body whose length is announced is read into one
// buffer of that size; any other into blocks joined once at the end. Either
// way a large answer costs its size once or twice, not the five times a
// buffer grown by append costs.
func readBody(body io.Reader, announced, max int64) ([]byte, error) {
	r := io.LimitReader(body, max+1)
	if announced >= 0 && announced <= max {
		// One byte more than announced, to see the end without growing.
		buf := make([]byte, announced+1)
		n, err := io.ReadFull(r, buf)
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return buf[:n], nil
		case err != nil:
			return buf[:n], err
		}
		// The body is longer than announced: read on.
		rest, err := readBlocks(r)
		return append(buf, rest...), err
	}
	return readBlocks(r)
}

// readBlocks reads r to its end into blocks of growing size, then joins
// them into one slice of the exact length.
func readBlocks(r io.Reader) ([]byte, error) {
	var blocks [][]byte
	total, size := 0, 8<<10
	for {
		block := make([]byte, size)
		n, err := io.ReadFull(r, block)
		if n > 0 {
			blocks = append(blocks, block[:n])
			total += n
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return join(blocks, total), err
		}
		size = min(2*size, 1<<20)
	}
	return join(blocks, total), nil
}

func join(blocks [][]byte, total int) []byte {
	if len(blocks) == 1 {
		return blocks[0]
	}
	out := make([]byte, 0, total)
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out
}

func (x *executor) transportError(ctx context.Context, r *request, err error) error {
	var re *redirectError
	switch {
	case errors.As(err, &re):
		fix := "the upstream answered with a redirect to another host; check the base URL"
		if re.downgrade {
			fix = "the upstream redirected from https to plain http, which would expose the request; check the base URL"
		}
		return &operations.Error{Code: "upstream_error", Message: x.redact(re.Error()), Fix: fix}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return &operations.Error{Code: "timeout", Message: fmt.Sprintf("the upstream did not answer within %s", x.opts.Timeout), Fix: "retry later, or ask for less"}
	case errors.Is(err, context.Canceled):
		return err
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	if errors.As(err, &dnsErr) || errors.As(err, &opErr) {
		return &operations.Error{
			Code:    "upstream_unavailable",
			Message: fmt.Sprintf("could not reach %s: %s", r.url.Host, upstreamText(x.redact(rootCause(err)))),
			Fix:     "check that the upstream is running and the base URL is right, then retry",
		}
	}
	return &operations.Error{Code: "upstream_unavailable", Message: "the request failed: " + upstreamText(x.redact(rootCause(err))), Fix: "retry later"}
}

// upstreamText is the policy for upstream text quoted in an error message
// (a transport error can quote a malformed response): cleaned like a
// summary and capped, since the message is intentsrv's voice.
func upstreamText(s string) string { return sanitize.Line(s, 200) }

// rootCause strips url.Error's "Get \"URL\":" prefix, which would echo a
// query-string key.
func rootCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

func (x *executor) statusError(op *Op, resp *http.Response, data []byte) error {
	status := resp.StatusCode
	text := clipText(x.redact(string(data)), maxErrorBody)
	details := map[string]any{"status": status}
	if text != "" {
		details["body"] = text
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		reqs := x.cat.Security
		if op.Security != nil {
			reqs = *op.Security
		}
		fix := "check the credentials; intentsrv reads them from the environment"
		if h := x.opts.Credentials.hint(reqs, x.cat.Schemes); h != "" {
			fix = "set or check the environment variable(s) " + h + " and restart intentsrv"
		}
		return &operations.Error{Code: "unauthorized", Message: fmt.Sprintf("the upstream refused the credentials (HTTP %d)", status), Fix: fix, Details: details}
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		fix := "wait and retry"
		if ra := strings.TrimSpace(resp.Header.Get("Retry-After")); ra != "" {
			// The header is the upstream's text: it stays data (details),
			// and only a value parsed as seconds or a date enters the
			// remedy, which is intentsrv's own voice to the agent.
			details["retry_after"] = clipText(x.redact(ra), 64)
			if secs, err := strconv.Atoi(ra); err == nil {
				fix = fmt.Sprintf("retry after %d seconds", secs)
			} else if at, err := http.ParseTime(ra); err == nil {
				fix = "retry after " + at.UTC().Format(http.TimeFormat)
			}
		}
		return &operations.Error{Code: "rate_limited", Message: fmt.Sprintf("the upstream is rate limiting or unavailable (HTTP %d)", status), Fix: fix, Details: details}
	}
	fix := "check the arguments against describe, then retry"
	if status >= 500 {
		fix = "the upstream failed; retry later"
	}
	return &operations.Error{Code: "upstream_error", Message: fmt.Sprintf("the upstream answered HTTP %d", status), Fix: fix, Details: details}
}

// result turns a successful response into the handler's JSON result: the
// body itself when it is JSON; otherwise an object with status, content
// type and the text (or the size of a binary body).
func (x *executor) result(resp *http.Response, data []byte) json.RawMessage {
	ct := resp.Header.Get("Content-Type")
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return marshal(map[string]any{"status": resp.StatusCode})
	}
	if (isJSON(ct) || ct == "") && json.Valid(trimmed) {
		return x.redactJSON(trimmed)
	}
	out := map[string]any{"status": resp.StatusCode, "content_type": ct}
	if utf8.Valid(data) {
		out["text"] = x.redact(string(data))
	} else {
		out["bytes"] = len(data)
	}
	return marshal(out)
}

func clipText(s string, max int) string {
	s = strings.ToValidUTF8(s, "")
	if len(s) <= max {
		return s
	}
	cut := s[:max]
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + "…"
}
