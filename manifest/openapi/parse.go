package openapi

import (
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/intentsrv/intentsrv/manifest/sanitize"
	"github.com/intentsrv/intentsrv/operations"
	"golang.org/x/text/unicode/norm"
)

// ParseOptions tunes Parse. The zero value uses the defaults.
type ParseOptions struct {
	// SpecURL is where the document came from, if it was fetched; relative
	// server URLs are resolved against it.
	SpecURL string
	// InputDepth and OutputDepth cap schema nesting (DefaultInputDepth,
	// DefaultOutputDepth when zero).
	InputDepth, OutputDepth int
	// Logger receives collision and warning reports; nil discards them.
	Logger *slog.Logger
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Parse builds the catalog of the OpenAPI document data (JSON or YAML)
// for source name (a valid id segment such as "github"). It fails on a
// document that is not Swagger 2.0 or OpenAPI 3.x, or that has no
// operation; problems confined to one operation are recorded in
// Catalog.Warnings and the rest of the document still loads.
func Parse(name string, data []byte, opts ParseOptions) (*Catalog, error) {
	if err := operations.CheckID(name); err != nil || strings.Contains(name, ".") {
		return nil, fmt.Errorf("source name %q must be one id segment of [a-z0-9_]", name)
	}
	root, err := decodeDocument(data)
	if err != nil {
		return nil, err
	}
	version, major, err := specVersion(root)
	if err != nil {
		return nil, err
	}
	if opts.InputDepth <= 0 {
		opts.InputDepth = DefaultInputDepth
	}
	if opts.OutputDepth <= 0 {
		opts.OutputDepth = DefaultOutputDepth
	}
	p := &parser{
		name: name, root: root, major: major, v31: strings.HasPrefix(version, "3.1"),
		opts: opts, texts: &textCache{},
	}
	cat := &Catalog{
		Format:      catalogFormat,
		Source:      name,
		SpecVersion: version,
		Title:       sanitize.Summary(str(obj(root, "info"), "title")),
	}
	cat.Servers = p.servers(root, nil)
	cat.Schemes = p.schemes()
	if sec, ok := root["security"].([]any); ok {
		cat.Security = securityList(sec)
	}
	type job struct {
		path   string
		method string
		item   map[string]any
		raw    map[string]any
	}
	var jobs []job
	paths := obj(root, "paths")
	for _, path := range sortedKeys(paths) {
		item, ok := paths[path].(map[string]any)
		if !ok {
			continue
		}
		if ref := str(item, "$ref"); ref != "" {
			if t, ok := resolveRef(root, ref).(map[string]any); ok {
				item = t
			}
		}
		for _, m := range methods {
			if raw, ok := item[m].(map[string]any); ok {
				jobs = append(jobs, job{path, m, item, raw})
			}
		}
	}
	// Operations are independent: build them on every core. Each worker
	// has its own warnings; the text cache is shared.
	type result struct {
		op       Op
		parts    [2]string
		warnings []string
		err      error
	}
	results := make([]result, len(jobs))
	workers := runtime.GOMAXPROCS(0)
	if workers > len(jobs) {
		workers = len(jobs)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				wp := *p
				wp.warnings = nil
				wp.opts.Logger = nil
				j := jobs[i]
				op, parts, err := wp.operation(j.path, j.method, j.item, j.raw)
				results[i] = result{op, parts, wp.warnings, err}
			}
		}()
	}
	wg.Wait()
	var parts [][2]string
	for i, r := range results {
		for _, w := range r.warnings {
			p.warn("%s", w)
		}
		if r.err != nil {
			p.warn("%s %s: %v", strings.ToUpper(jobs[i].method), jobs[i].path, r.err)
			continue
		}
		cat.Ops = append(cat.Ops, r.op)
		parts = append(parts, r.parts)
	}
	if len(cat.Ops) == 0 {
		return nil, fmt.Errorf("the document has no operations")
	}
	p.assignIDs(cat.Ops, parts)
	cat.Blurbs = p.blurbs(cat.Ops)
	cat.Warnings = p.warnings
	detachStrings(cat)
	return cat, nil
}

// resolvePointer on a parser root, returning nil when absent.
func resolveRef(root map[string]any, ref string) any {
	v, _ := resolvePointer(root, ref)
	return v
}

type parser struct {
	name     string
	root     map[string]any
	major    int
	v31      bool
	opts     ParseOptions
	warnings []string
	// parts holds each op's unqualified id parts, parallel to Catalog.Ops.
	texts *textCache
}

func (p *parser) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(p.warnings) < 500 {
		p.warnings = append(p.warnings, msg)
	}
	if p.opts.Logger != nil {
		p.opts.Logger.Warn("openapi: "+msg, "source", p.name)
	}
}

// deref follows $ref chains of non-schema objects (parameters, request
// bodies, responses), up to a bound that stops cycles.
func (p *parser) deref(v any) map[string]any {
	m, _ := v.(map[string]any)
	for i := 0; i < 16 && m != nil; i++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		t, ok := resolvePointer(p.root, ref)
		if !ok {
			p.warn("unresolved reference %q", ref)
			return nil
		}
		m, _ = t.(map[string]any)
	}
	return m
}

func (p *parser) operation(path, method string, item, raw map[string]any) (Op, [2]string, error) {
	op := Op{
		Method: strings.ToUpper(method),
		Path:   path,
	}
	op.Summary = p.texts.line(str(raw, "summary"), sanitize.SummaryMax)
	op.Description = p.texts.clean(str(raw, "description"), sanitize.DescriptionMax)
	if op.Summary == "" {
		op.Summary = sanitize.Summary(FirstSentence(op.Description))
	}
	if op.Summary == "" {
		op.Summary = op.Method + " " + sanitize.Line(path, 120)
	}
	for _, t := range list(raw, "tags") {
		if s, ok := t.(string); ok {
			if c := p.texts.line(s, sanitize.TagMax); c != "" {
				op.Tags = append(op.Tags, c)
			}
		}
	}
	op.Deprecated, _ = boolean(raw, "deprecated")
	switch op.Method {
	case "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE":
		op.Idempotent = true
	}
	if sec, ok := raw["security"].([]any); ok {
		s := securityList(sec)
		op.Security = &s
	}
	if _, ok := raw["servers"]; ok {
		op.Servers = p.servers(raw, nil)
	} else if _, ok := item["servers"]; ok {
		op.Servers = p.servers(item, nil)
	}
	if p.major == 2 {
		if s := list(raw, "schemes"); len(s) > 0 {
			op.Servers = p.servers(p.root, s)
		}
	}

	in := newSchemaBuilder(p, p.opts.InputDepth, true)
	props := map[string]any{}
	var required []any
	params := p.params(item, raw)

	// Swagger 2.0 body and formData parameters become the body.
	var bodySchema any
	var body *Body
	var bodyDesc string
	var formProps map[string]any
	var formReq []any
	var binary []string
	var wire []map[string]any
	for _, prm := range params {
		switch str(prm, "in") {
		case "body":
			bodySchema = in.convert(prm["schema"], 1)
			body = &Body{ContentType: p.consumes(raw, "application/json")}
			body.Required, _ = boolean(prm, "required")
			bodyDesc = str(prm, "description")
		case "formData":
			if formProps == nil {
				formProps = map[string]any{}
			}
			name := str(prm, "name")
			if skip, err := p.unsafeParam(op, path, prm); err != nil {
				return op, [2]string{}, err
			} else if skip {
				continue
			}
			formProps[name] = p.paramSchema(in, prm)
			if str(prm, "type") == "file" {
				binary = append(binary, name)
			}
			if r, _ := boolean(prm, "required"); r {
				formReq = append(formReq, name)
			}
		case "path", "query", "header", "cookie":
			if str(prm, "in") == "header" {
				switch strings.ToLower(str(prm, "name")) {
				case "accept", "content-type", "authorization":
					continue
				}
			}
			if skip, err := p.unsafeParam(op, path, prm); err != nil {
				return op, [2]string{}, err
			} else if skip {
				continue
			}
			wire = append(wire, prm)
		}
	}
	if formProps != nil {
		s := map[string]any{"type": "object", "properties": formProps}
		if len(formReq) > 0 {
			s["required"] = formReq
		}
		bodySchema = s
		ct := "application/x-www-form-urlencoded"
		if len(binary) > 0 || strings.Contains(p.consumes(raw, ""), "multipart/form-data") {
			ct = "multipart/form-data"
		}
		body = &Body{ContentType: ct, Required: len(formReq) > 0, Binary: binary}
	}
	if rb := p.deref(raw["requestBody"]); rb != nil && p.major == 3 {
		ct, media := pickMedia(obj(rb, "content"))
		if media != nil {
			body = &Body{ContentType: ct}
			body.Required, _ = boolean(rb, "required")
			if s, ok := media["schema"]; ok {
				bodySchema = in.convert(s, 1)
			} else {
				bodySchema = map[string]any{}
			}
			bodyDesc = str(rb, "description")
			if strings.HasPrefix(ct, "multipart/") {
				body.Binary = binaryProps(p.root, media["schema"])
			}
		}
	}

	// Property keys: a name used twice, or "body" beside a body, is
	// qualified with its location on every parameter that uses it.
	count := map[string]int{}
	for _, prm := range wire {
		count[keyName(prm)]++
	}
	for _, prm := range wire {
		name := str(prm, "name")
		where := str(prm, "in")
		key := name
		if count[keyName(prm)] > 1 || (body != nil && name == "body") {
			key = where + "." + name
		}
		if _, dup := props[key]; dup {
			p.warn("%s %s: parameter %q in %s is declared twice; the second is ignored", op.Method, path, name, where)
			continue
		}
		req, _ := boolean(prm, "required")
		if where == "path" {
			req = true
		}
		style, explode := paramStyle(prm, p.major)
		allowReserved, _ := boolean(prm, "allowReserved")
		param := Param{Name: name, Key: key, In: where, Style: style, Explode: explode, Required: req, AllowReserved: allowReserved}
		schema := p.paramSchema(in, prm)
		if v, ok := onlyValue(schema); ok && req {
			// Nothing for the caller to choose: sent as it is.
			param.Fixed = marshal(v)
			schema.(map[string]any)["default"] = v
		} else if req {
			required = append(required, key)
		}
		op.Params = append(op.Params, param)
		props[key] = schema
	}
	if body != nil {
		if bodySchema == nil {
			bodySchema = map[string]any{}
		}
		if d := p.texts.clean(bodyDesc, sanitize.SchemaTextMax); d != "" {
			if m, ok := bodySchema.(map[string]any); ok {
				if _, isRef := m["$ref"]; isRef {
					bodySchema = map[string]any{"allOf": []any{m}, "description": d}
				} else if _, has := m["description"]; !has {
					m["description"] = d
				}
			}
		}
		props["body"] = bodySchema
		if body.Required {
			required = append(required, "body")
		}
		op.Body = body
	}
	input := map[string]any{
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	}
	if len(required) > 0 {
		input["required"] = required
	}
	in.defsInto(input)
	op.Input = marshal(input)
	if len(in.refusedRequired) > 0 {
		return op, [2]string{}, fmt.Errorf(PolicyWarning+"refused: required body property %q breaks the name policy; fix the spec or hide the operation with --deny", clipName(in.refusedRequired[0]))
	}

	out := newSchemaBuilder(p, p.opts.OutputDepth, false)
	out.textDepth = 1
	if status, schema, example := p.okResponse(raw); status > 0 {
		op.OKStatus = status
		if schema != nil {
			s := out.convert(schema, 0)
			if m, ok := s.(map[string]any); ok {
				out.defsInto(m)
				op.Output = marshal(m)
			} else {
				op.Output = marshal(s)
			}
		}
		if example != nil {
			// Kept raw: only mock mode reads it, and mockExample applies
			// the outside-text policy then, once per operation.
			op.Example = marshal(example)
		}
	}

	id := str(raw, "operationId")
	ns, nm := p.idParts(id, op.Method, path, op.Tags)
	p.setKind(&op, raw, nm)
	return op, [2]string{ns, nm}, nil
}

// unsafeParam applies the name policy (sanitize.NameProblem) to one
// parameter: an optional parameter with a refused name is skipped (skip,
// with a warning); a required one refuses the operation (err), since no
// correct request can leave it out.
func (p *parser) unsafeParam(op Op, path string, prm map[string]any) (skip bool, err error) {
	name := str(prm, "name")
	problem := p.texts.nameProblem(name)
	if problem == "" {
		return false, nil
	}
	shown := clipName(name)
	req, _ := boolean(prm, "required")
	if req || str(prm, "in") == "path" {
		return false, fmt.Errorf(PolicyWarning+"refused: required %s parameter %q breaks the name policy (%s); fix the spec or hide the operation with --deny", str(prm, "in"), shown, problem)
	}
	p.warn(PolicyWarning+"%s %s: %s parameter %q dropped (%s); it cannot be sent or shown", op.Method, path, str(prm, "in"), shown, problem)
	return true, nil
}

// PolicyWarning starts every warning about text the outside-text policy
// dropped or refused (names, examples, patterns, enum members), so that
// doctor can list them.
const PolicyWarning = "text policy: "

// clipName shortens a name for a warning to the operator, who needs to
// find it in the spec: the first 40 characters, quoted by the caller with
// %q so nothing in it is invisible.
func clipName(name string) string {
	if r := []rune(name); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return name
}

func keyName(prm map[string]any) string {
	if str(prm, "in") == "header" {
		return strings.ToLower(str(prm, "name"))
	}
	return str(prm, "name")
}

// params merges path-level and operation-level parameters (the operation
// wins on the same name and location), following $refs.
func (p *parser) params(item, raw map[string]any) []map[string]any {
	var out []map[string]any
	index := map[string]int{}
	add := func(l []any) {
		for _, v := range l {
			prm := p.deref(v)
			if prm == nil || str(prm, "name") == "" && str(prm, "in") != "body" {
				continue
			}
			k := str(prm, "in") + "\x00" + str(prm, "name")
			if i, ok := index[k]; ok {
				out[i] = prm
				continue
			}
			index[k] = len(out)
			out = append(out, prm)
		}
	}
	add(list(item, "parameters"))
	add(list(raw, "parameters"))
	return out
}

// paramSchema is the input schema of one parameter, with its description,
// deprecation and example.
func (p *parser) paramSchema(b *schemaBuilder, prm map[string]any) any {
	var s any
	switch {
	case prm["schema"] != nil:
		s = b.convert(prm["schema"], 1)
	case obj(prm, "content") != nil:
		_, media := pickMedia(obj(prm, "content"))
		s = b.convert(media["schema"], 1)
	default:
		// Swagger 2.0: the parameter itself carries the schema keywords.
		inline := map[string]any{}
		for k, v := range prm {
			switch k {
			case "name", "in", "description", "required", "collectionFormat", "allowEmptyValue":
			default:
				inline[k] = v
			}
		}
		s = b.convert(inline, 1)
	}
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	if _, isRef := m["$ref"]; isRef {
		m = map[string]any{"allOf": []any{m}}
	}
	if d := p.texts.clean(str(prm, "description"), sanitize.SchemaTextMax); d != "" {
		m["description"] = d
	}
	if dep, _ := boolean(prm, "deprecated"); dep {
		m["deprecated"] = true
	}
	if ex, ok := prm["example"]; ok {
		if _, has := m["examples"]; !has {
			// Parameter examples are outside text too: cleaned, or dropped
			// when hostile, like schema examples.
			if cleaned := b.examples([]any{ex}); len(cleaned) > 0 {
				m["examples"] = cleaned
			}
		}
	}
	return m
}

// paramStyle returns the serialisation style and explode flag of a
// parameter, mapping Swagger 2.0's collectionFormat onto OpenAPI 3 styles.
func paramStyle(prm map[string]any, major int) (string, bool) {
	in := str(prm, "in")
	if major == 2 {
		switch str(prm, "collectionFormat") {
		case "multi":
			return "form", true
		case "ssv":
			return "spaceDelimited", false
		case "pipes":
			return "pipeDelimited", false
		case "tsv":
			return "tabDelimited", false
		}
		if in == "query" || in == "formData" {
			return "form", false
		}
		return "simple", false
	}
	style := str(prm, "style")
	if style == "" {
		switch in {
		case "query", "cookie":
			style = "form"
		default:
			style = "simple"
		}
	}
	explode, ok := boolean(prm, "explode")
	if !ok {
		explode = style == "form"
	}
	return style, explode
}

// consumes returns the first media type a 2.0 operation consumes.
func (p *parser) consumes(raw map[string]any, def string) string {
	l := list(raw, "consumes")
	if len(l) == 0 {
		l = list(p.root, "consumes")
	}
	var all []string
	for _, v := range l {
		if s, ok := v.(string); ok {
			all = append(all, s)
		}
	}
	for _, s := range all {
		if isJSON(s) {
			return s
		}
	}
	if len(all) > 0 {
		return strings.Join(all, ",")
	}
	return def
}

// pickMedia chooses the media type intentsrv sends or reads: JSON first,
// then forms, then text, then whatever comes first.
func pickMedia(content map[string]any) (string, map[string]any) {
	if len(content) == 0 {
		return "", nil
	}
	keys := sortedKeys(content)
	rank := func(ct string) int {
		ct = strings.ToLower(ct)
		switch {
		case ct == "application/json":
			return 0
		case isJSON(ct):
			return 1
		case ct == "application/x-www-form-urlencoded":
			return 2
		case ct == "multipart/form-data":
			return 3
		case strings.HasPrefix(ct, "text/"):
			return 4
		case ct == "*/*":
			return 5
		}
		return 6
	}
	sort.SliceStable(keys, func(i, j int) bool { return rank(keys[i]) < rank(keys[j]) })
	m, _ := content[keys[0]].(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	ct := keys[0]
	if ct == "*/*" {
		ct = "application/json"
	}
	return ct, m
}

func isJSON(ct string) bool {
	ct = strings.ToLower(ct)
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return ct == "application/json" || strings.HasSuffix(ct, "+json") || strings.HasSuffix(ct, "/json")
}

// binaryProps lists the properties of a multipart schema that are files.
func binaryProps(root map[string]any, schema any) []string {
	m, _ := schema.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		m, _ = resolveRef(root, ref).(map[string]any)
	}
	var out []string
	for _, name := range sortedKeys(obj(m, "properties")) {
		pm, _ := obj(m, "properties")[name].(map[string]any)
		if str(pm, "format") == "binary" || str(pm, "contentMediaType") != "" && str(pm, "type") == "string" {
			out = append(out, name)
		}
	}
	return out
}

// okResponse finds the first 2xx response: its status, schema and example.
func (p *parser) okResponse(raw map[string]any) (int, any, any) {
	resp := obj(raw, "responses")
	var codes []string
	for k := range resp {
		if len(k) == 3 && k[0] == '2' {
			codes = append(codes, k)
		}
	}
	sort.Strings(codes)
	for _, code := range codes {
		r := p.deref(resp[code])
		if r == nil {
			continue
		}
		status, err := strconv.Atoi(strings.ReplaceAll(strings.ToUpper(code), "XX", "00"))
		if err != nil {
			continue
		}
		if p.major == 2 {
			var example any
			if ex := obj(r, "examples"); ex != nil {
				for _, k := range sortedKeys(ex) {
					if isJSON(k) {
						example = ex[k]
						break
					}
				}
			}
			return status, r["schema"], example
		}
		ct, media := pickMedia(obj(r, "content"))
		if media == nil {
			return status, nil, nil
		}
		if ct != "" && !isJSON(ct) {
			// A non-JSON body is returned as text; its schema does not
			// describe the handler's JSON result.
			return status, nil, nil
		}
		var example any
		if ex, ok := media["example"]; ok {
			example = ex
		} else if exs := obj(media, "examples"); len(exs) > 0 {
			first := p.deref(exs[sortedKeys(exs)[0]])
			if v, ok := first["value"]; ok {
				example = v
			}
		}
		return status, media["schema"], example
	}
	return 0, nil, nil
}

// MethodKind is the kind an HTTP method implies: GET, HEAD, OPTIONS and
// TRACE read, DELETE destroys, anything else writes.
func MethodKind(method string) operations.Kind {
	switch method {
	case "GET", "HEAD", "OPTIONS", "TRACE":
		return operations.KindRead
	case "DELETE":
		return operations.KindDestructive
	}
	return operations.KindWrite
}

// KindFloor is the least kind an operation is served as unless the
// operator's overlay says otherwise: its method's (MethodKind), raised to
// destructive when the operation is named for a removal
// (operations.NamesRemoval): its name as an id segment ("delete_bucket"),
// its path's last literal segment (".../actions/delete",
// "/v1/{name}:purge", "/#Action=DeleteSubnet") or its summary ("Deletes
// the task file"). RPC-style APIs remove with POST, AWS's query APIs with
// GET. A read whose path names an RPC action ("/#Action=CreateImage",
// "/?Action=RunInstances": AWS's query APIs serve every action by GET as
// well as POST) reads only when the action's verb does (operations.NamesRead:
// Describe, Get, List, ...); any other is a write, so that a read-only
// server does not create an image through its GET. Raising is the safe
// error: a call that removes nothing previews once more than it needed,
// and a read taken for a write waits for the operator to allow writes. A
// spec may raise the floor further (x-intentsrv-kind) but not lower it;
// only an operator's overlay may.
func KindFloor(method, name, path, summary string) operations.Kind {
	kind := MethodKind(method)
	if kind == operations.KindDestructive {
		return kind
	}
	if operations.NamesRemoval(name) || operations.NamesRemoval(lastLiteral(path)) || operations.NamesRemoval(summary) {
		return operations.KindDestructive
	}
	if action := rpcAction(path); kind == operations.KindRead && action != "" && !operations.NamesRead(action) {
		return operations.KindWrite
	}
	return kind
}

// rpcAction is the action a path's fragment or query names
// ("CreateImage" of "/#Action=CreateImage", "DeleteBucket" of
// "/#X-Amz-Target=S3.DeleteBucket"), or "".
func rpcAction(path string) string {
	seg := path[strings.LastIndexByte(path, '/')+1:]
	i := strings.IndexAny(seg, "#?")
	if i < 0 {
		return ""
	}
	for _, kv := range strings.Split(seg[i+1:], "&") {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.EqualFold(key, "Action") && !strings.EqualFold(key, "X-Amz-Target") {
			continue
		}
		value = value[strings.LastIndexByte(value, '.')+1:]
		if value == "" || strings.ContainsAny(value, "{}") {
			return ""
		}
		return value
	}
	return ""
}

// lastLiteral returns the path's last segment when it is not a
// parameter, the custom method after a parameter's colon ("{name}:purge"),
// or the action a fragment or query names ("/#X-Amz-Target=S3.DeleteBucket",
// "/?Action=DeleteBucket", as AWS's descriptions write RPC operations);
// otherwise "".
func lastLiteral(path string) string {
	seg := path[strings.LastIndexByte(path, '/')+1:]
	if i := strings.LastIndexByte(seg, ':'); i >= 0 {
		seg = seg[i+1:]
	}
	if strings.ContainsAny(seg, "#?") {
		seg = seg[strings.LastIndexAny(seg, "=")+1:]
		seg = seg[strings.LastIndexByte(seg, '.')+1:]
	}
	if strings.ContainsAny(seg, "{}") {
		return ""
	}
	return seg
}

// setKind sets op's kind: KindFloor, raised by the spec's
// x-intentsrv-kind extension if it asks for more. The spec's author is
// not the operator, so a lower kind is ignored with a warning.
func (p *parser) setKind(op *Op, raw map[string]any, name string) {
	floor := KindFloor(op.Method, name, op.Path, op.Summary)
	op.Kind = floor
	k, ok := raw["x-intentsrv-kind"].(string)
	if !ok {
		return
	}
	kind := operations.Kind(strings.ToLower(k))
	if !kind.Valid() {
		p.warn("%s %s: x-intentsrv-kind %q is not read, write or destructive", op.Method, op.Path, k)
		return
	}
	var lowered bool
	if op.Kind, lowered = operations.Declared(floor, kind); lowered {
		why := "a spec cannot make a " + op.Method + " " + string(kind)
		if floor != MethodKind(op.Method) {
			why = "the operation is named for a removal, and a spec cannot make it " + string(kind)
		}
		p.warn("%s %s: x-intentsrv-kind %q ignored: %s; an operator overlay can (kind: %s)", op.Method, op.Path, k, why, kind)
	}
}

func securityList(l []any) []SecurityRequirement {
	out := make([]SecurityRequirement, 0, len(l))
	for _, v := range l {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		out = append(out, SecurityRequirement(sortedKeys(m)))
	}
	return out
}

func (p *parser) schemes() map[string]SecurityScheme {
	var defs map[string]any
	if p.major == 2 {
		defs = obj(p.root, "securityDefinitions")
	} else {
		defs = obj(obj(p.root, "components"), "securitySchemes")
	}
	if len(defs) == 0 {
		return nil
	}
	out := make(map[string]SecurityScheme, len(defs))
	for _, name := range sortedKeys(defs) { // deref warns: in name order
		m := p.deref(defs[name])
		if m == nil {
			continue
		}
		s := SecurityScheme{Type: str(m, "type"), In: str(m, "in"), Name: str(m, "name")}
		if s.Type == "http" {
			s.Scheme = strings.ToLower(str(m, "scheme"))
		}
		if s.Type == "basic" {
			s.Type, s.Scheme = "http", "basic"
		}
		out[name] = s
	}
	return out
}

var reServerVar = regexp.MustCompile(`\{([^{}]+)\}`)

// servers returns base URLs: OpenAPI 3 servers with variables at their
// defaults, or Swagger 2.0 scheme://host/basePath.
func (p *parser) servers(m map[string]any, schemes2 []any) []string {
	var out []string
	if p.major == 2 {
		host := str(p.root, "host")
		base := str(p.root, "basePath")
		schemes := schemes2
		if schemes == nil {
			schemes = list(p.root, "schemes")
		}
		var scheme string
		for _, s := range schemes {
			if s == "https" {
				scheme = "https"
				break
			}
			if s == "http" {
				scheme = "http"
			}
		}
		if host == "" {
			if base != "" || p.opts.SpecURL != "" {
				out = append(out, p.resolveServer(base))
			}
			return out
		}
		if scheme == "" {
			scheme = "https"
		}
		return []string{strings.TrimRight(scheme+"://"+host+base, "/")}
	}
	for _, v := range list(m, "servers") {
		s, ok := v.(map[string]any)
		if !ok {
			continue
		}
		u := str(s, "url")
		vars := obj(s, "variables")
		u = reServerVar.ReplaceAllStringFunc(u, func(tok string) string {
			name := tok[1 : len(tok)-1]
			if d, ok := obj(vars, name)["default"]; ok {
				return fmt.Sprint(d)
			}
			return tok
		})
		if r := p.resolveServer(u); r != "" {
			out = append(out, r)
		}
	}
	return out
}

func (p *parser) resolveServer(u string) string {
	if u == "" {
		u = "/"
	}
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	if pu.IsAbs() {
		return strings.TrimRight(u, "/")
	}
	if p.opts.SpecURL == "" {
		// Relative to a file: no host to send to; --base-url supplies it.
		return strings.TrimRight(u, "/")
	}
	base, err := url.Parse(p.opts.SpecURL)
	if err != nil {
		return ""
	}
	return strings.TrimRight(base.ResolveReference(pu).String(), "/")
}

// idParts derives the namespace and name of an operation (before the
// source prefix and collision handling).
func (p *parser) idParts(operationID, method, path string, tags []string) (string, string) {
	var ns, name string
	if operationID != "" {
		i := strings.LastIndexAny(operationID, "/.")
		if i > 0 && i < len(operationID)-1 {
			ns = operationID[:i]
			name = operationID[i+1:]
		} else {
			name = operationID
		}
	} else {
		words := []string{strings.ToLower(method)}
		for _, seg := range strings.Split(path, "/") {
			seg = strings.Trim(seg, "{}")
			if seg != "" {
				words = append(words, seg)
			}
		}
		name = strings.Join(words, "_")
	}
	if ns == "" {
		if len(tags) > 0 {
			ns = tags[0]
		} else {
			for _, seg := range strings.Split(path, "/") {
				if seg != "" && !strings.Contains(seg, "{") {
					ns = seg
					break
				}
			}
		}
	}
	nsParts := strings.FieldsFunc(ns, func(r rune) bool { return r == '/' || r == '.' })
	for i, s := range nsParts {
		nsParts[i] = segment(s)
	}
	if len(nsParts) == 0 {
		nsParts = []string{"api"}
	}
	return strings.Join(nsParts, "."), segment(name)
}

// segment turns free text into one id segment: Latin letters with
// diacritics folded to ASCII, camelCase split with "_" (an acronym's
// plural "s" stays with it: "URLsForIDs" is urls_for_ids), lower case,
// every run of other characters one "_".
func segment(s string) string {
	var b strings.Builder
	runes := []rune(foldLatin(s))
	under := true
	for i, r := range runes {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && i > 0 && !under {
				prev := runes[i-1]
				nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower && !acronymPlural(runes, i+1)) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			under = false
		default:
			if !under {
				b.WriteByte('_')
				under = true
			}
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		return "x"
	}
	return out
}

// acronymPlural reports whether runes[i] is a lone "s" ending a word: the
// plural of the acronym before it ("URLs", "IDs", "PRs").
func acronymPlural(runes []rune, i int) bool {
	if i >= len(runes) || runes[i] != 's' {
		return false
	}
	if i+1 == len(runes) {
		return true
	}
	next := runes[i+1]
	return !unicode.IsLetter(next) || unicode.IsUpper(next)
}

// latinFolds are letters that do not decompose into an ASCII letter and a
// diacritic.
var latinFolds = map[rune]string{
	'ß': "ss", 'ẞ': "SS", 'æ': "ae", 'Æ': "AE", 'œ': "oe", 'Œ': "OE",
	'ø': "o", 'Ø': "O", 'đ': "d", 'Đ': "D", 'ð': "d", 'Ð': "D",
	'ł': "l", 'Ł': "L", 'þ': "th", 'Þ': "TH", 'ı': "i", 'ħ': "h", 'Ħ': "H",
	'ŀ': "l", 'Ŀ': "L", 'ŧ': "t", 'Ŧ': "T", 'ĸ': "k", 'ſ': "s",
}

// foldLatin transliterates Latin letters with diacritics to ASCII ("Ü" to
// "U", "ß" to "ss"); other characters are left as they are.
func foldLatin(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	runes := []rune(s)
	for i, r := range runes {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		if f, ok := latinFolds[r]; ok {
			if len(f) > 1 && unicode.IsUpper(r) && i+1 < len(runes) && unicode.IsLower(runes[i+1]) {
				// "Æro" reads "Aero", not the camelCase "A" "ero".
				f = f[:1] + strings.ToLower(f[1:])
			}
			b.WriteString(f)
			continue
		}
		if unicode.Is(unicode.Latin, r) {
			// A precomposed letter: keep its base letter, drop the marks.
			if d := []rune(norm.NFD.String(string(r))); len(d) > 0 && d[0] < utf8.RuneSelf && unicode.IsLetter(d[0]) {
				b.WriteRune(d[0])
				continue
			}
		}
		if unicode.Is(unicode.Mn, r) {
			continue // a combining mark after a base letter
		}
		b.WriteRune(r)
	}
	return b.String()
}

// assignIDs builds ids from idParts, qualifies collisions on every side,
// and keeps ids within the length limit.
func (p *parser) assignIDs(ops []Op, parts [][2]string) {
	ids := make([]string, len(ops))
	for i := range ops {
		ns := p.name + "." + parts[i][0]
		ids[i] = operations.FitID(ns + "." + parts[i][1])
		ops[i].Namespace = ns
	}
	groups := func() map[string][]int {
		g := map[string][]int{}
		for i, id := range ids {
			g[id] = append(g[id], i)
		}
		return g
	}
	for pass := 0; pass < 2; pass++ {
		changed := false
		g := groups()
		// In id order, so the warnings come out the same on every parse.
		for _, id := range slices.Sorted(maps.Keys(g)) {
			idx := g[id]
			if len(idx) < 2 {
				continue
			}
			changed = true
			var where []string
			for _, i := range idx {
				where = append(where, ops[i].Method+" "+ops[i].Path)
				if pass == 0 {
					ids[i] = operations.FitID(id + "_" + strings.ToLower(ops[i].Method))
				} else {
					ids[i] = operations.FitID(id + "_" + operations.ShortHash(ops[i].Method+" "+ops[i].Path))
				}
			}
			msg := fmt.Sprintf("operation id %q is shared by %s; each is qualified", id, strings.Join(where, ", "))
			p.warn("%s", msg)
		}
		if !changed {
			break
		}
	}
	for i := range ops {
		ops[i].ID = ids[i]
	}
}

// blurbs maps namespaces to the descriptions of the tags they came from.
func (p *parser) blurbs(ops []Op) map[string]string {
	tagDesc := map[string]string{}
	for _, t := range list(p.root, "tags") {
		m, ok := t.(map[string]any)
		if !ok {
			continue
		}
		if d := sanitize.Summary(FirstSentence(sanitize.Description(str(m, "description")))); d != "" {
			tagDesc[segment(str(m, "name"))] = d
		}
	}
	out := map[string]string{}
	for _, op := range ops {
		last := op.Namespace[strings.LastIndexByte(op.Namespace, '.')+1:]
		if d, ok := tagDesc[last]; ok {
			out[op.Namespace] = d
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// FirstSentence returns the first sentence of s, trimmed: up to the first
// line break or the first period followed by a space. An operation with
// no summary is summarised by its description's first sentence.
func FirstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' {
			return s[:i+1]
		}
	}
	return s
}

// onlyValue returns the one value a parameter's schema admits, when it
// admits one: a const, or an enum of one member.
func onlyValue(schema any) (any, bool) {
	m, ok := schema.(map[string]any)
	if !ok {
		return nil, false
	}
	if v, ok := m["const"]; ok {
		return v, true
	}
	if e, ok := m["enum"].([]any); ok && len(e) == 1 {
		return e[0], true
	}
	return nil, false
}
