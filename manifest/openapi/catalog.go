package openapi

import (
	"encoding/json"

	"github.com/intentsrv/intentsrv/operations"
)

// catalogFormat changes whenever the Catalog layout or the way it is built
// changes; cached catalogs of another format are rebuilt.
const catalogFormat = 9

// Catalog is the parsed form of one OpenAPI document: everything needed to
// register and run its operations, and nothing else. It is plain data, safe
// to encode as JSON (the disk cache does).
type Catalog struct {
	// Format is catalogFormat at build time.
	Format int `json:"format"`
	// Source is the source name, the first id segment.
	Source string `json:"source"`
	// SpecVersion is the document's "swagger" or "openapi" version.
	SpecVersion string `json:"spec_version"`
	// Title is the document's info.title, sanitised.
	Title string `json:"title,omitempty"`
	// Servers are the base URLs the document names, best first; relative
	// URLs have been resolved against the spec's URL when it had one.
	Servers []string `json:"servers,omitempty"`
	// Security is the document-wide security requirement list.
	Security []SecurityRequirement `json:"security,omitempty"`
	// Schemes are the security schemes by name.
	Schemes map[string]SecurityScheme `json:"schemes,omitempty"`
	// Blurbs are one-line namespace descriptions taken from tag
	// descriptions, keyed by full namespace ("github.repos").
	Blurbs map[string]string `json:"blurbs,omitempty"`
	// Ops are the operations in path order.
	Ops []Op `json:"ops"`
	// Warnings are problems met while parsing that did not stop it.
	Warnings []string `json:"warnings,omitempty"`

	// cache links the catalog to its on-disk cache entry (nil when there
	// is none): which input schemas are known to compile.
	cache *cacheLink
}

// SecurityRequirement is one alternative of an OpenAPI security
// requirement list: every named scheme must be satisfied together.
type SecurityRequirement []string

// SecurityScheme is the part of an OpenAPI security scheme intentsrv acts
// on.
type SecurityScheme struct {
	// Type is "http", "apiKey", "oauth2", "openIdConnect" or "basic" (2.0).
	Type string `json:"type"`
	// Scheme is the HTTP auth scheme for type http ("bearer", "basic").
	Scheme string `json:"scheme,omitempty"`
	// In is where an API key goes: "header", "query" or "cookie".
	In string `json:"in,omitempty"`
	// Name is the API key's header, query or cookie name.
	Name string `json:"name,omitempty"`
}

// Param is one HTTP parameter of an operation.
type Param struct {
	// Name is the parameter's name on the wire.
	Name string `json:"name"`
	// Key is the property name in the input schema (Name, or "<in>.<name>"
	// when qualified).
	Key string `json:"key"`
	// In is "path", "query", "header" or "cookie".
	In string `json:"in"`
	// Style is the OpenAPI serialisation style ("form", "simple",
	// "spaceDelimited", "pipeDelimited", "deepObject", "label", "matrix").
	Style string `json:"style,omitempty"`
	// Explode is the OpenAPI explode flag, after defaults.
	Explode bool `json:"explode,omitempty"`
	// Required reports a required parameter.
	Required bool `json:"required,omitempty"`
	// AllowReserved keeps RFC 3986 reserved characters unescaped in query
	// values.
	AllowReserved bool `json:"allow_reserved,omitempty"`
	// Fixed is the one value the spec admits for a required parameter (an
	// enum of one member, or a const), as JSON: AWS's X-Amz-Target header
	// is "AWSGlue.ListCrawlers" for ListCrawlers and nothing else. The
	// request sends it when the arguments leave it out, so the input
	// schema does not require it of the caller (it is its default).
	Fixed json.RawMessage `json:"fixed,omitempty"`
}

// Body says how the "body" argument becomes the request body.
type Body struct {
	// ContentType is the media type sent, e.g. "application/json",
	// "application/x-www-form-urlencoded" or "multipart/form-data".
	ContentType string `json:"content_type"`
	// Required reports a required body.
	Required bool `json:"required,omitempty"`
	// Binary lists the properties of a multipart body sent as file parts.
	Binary []string `json:"binary,omitempty"`
}

// Op is one operation of a Catalog.
type Op struct {
	ID          string          `json:"id"`
	Namespace   string          `json:"namespace"`
	Summary     string          `json:"summary"`
	Description string          `json:"description,omitempty"`
	Tags        []string        `json:"tags,omitempty"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Kind        operations.Kind `json:"kind"`
	Idempotent  bool            `json:"idempotent,omitempty"`
	Deprecated  bool            `json:"deprecated,omitempty"`
	Params      []Param         `json:"params,omitempty"`
	Body        *Body           `json:"body,omitempty"`
	Input       json.RawMessage `json:"input"`
	Output      json.RawMessage `json:"output,omitempty"`
	// OKStatus is the 2xx status the output schema belongs to (mock mode
	// answers with it).
	OKStatus int `json:"ok_status,omitempty"`
	// Example is the spec's own example of a successful response, if any.
	Example json.RawMessage `json:"example,omitempty"`
	// Security overrides Catalog.Security when non-nil (an empty list means
	// no authentication).
	Security *[]SecurityRequirement `json:"security,omitempty"`
	// Servers override Catalog.Servers when present.
	Servers []string `json:"servers,omitempty"`
}
