// Package openapi turns an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or
// 3.1; JSON or YAML; from a file or a URL) into registry operations that run
// over HTTP, or in mock mode answer from the spec's examples and schemas.
//
// Loading happens in two steps. Parse reads the document and builds a
// Catalog: a plain, serialisable description of every operation (id,
// sanitised texts, input and output JSON Schemas with $defs hoisted, and how
// each argument maps onto the HTTP request). Catalog.Operations then binds
// the catalog to an executor (HTTP client, base URL, credentials from the
// environment, mock mode) and returns []operations.Operation ready for
// Registry.Register. Load does both and keeps the catalog in an on-disk
// cache keyed by the spec's SHA-256, so a second start skips parsing. The
// entry also records which input schemas compiled when a previous start
// registered them (Catalog.RecordCompiled); Catalog.Compiled tells the
// caller which operations may be registered with their compilation
// deferred to first use.
//
// The parser walks the decoded JSON/YAML tree itself rather than building
// libopenapi's full model: on GitHub's 13 MB spec libopenapi's model build
// took about 0.55 s and held about 190 MB of live heap, which alone breaks the
// 200 MB peak-RSS budget; the tree walk needs a fraction of both.
//
// # Operation ids
//
// An id is "<source>.<namespace>.<name>". With an operationId such as
// "repos/get" or "pets.list" the part before the last "/" or "." is the
// namespace; a camelCase operationId ("listPets") takes its namespace from
// the operation's first tag, else from the first literal path segment.
// Without an operationId the name is the method and the path words
// ("get_pets_pet_id"). Segments are lower-cased, runs of other characters
// become "_", and an id longer than 128 characters is cut and suffixed with
// a short hash. When two operations get the same id, both (all) of them are
// qualified with their method, and when that is not enough with a hash of
// method and path; each collision is logged.
//
// # Input schema
//
// The input is one object: one property per path, query, header and cookie
// parameter, plus "body" for the request body. When two parameters share a
// name (say query "id" and header "id"), or a parameter is called "body" and
// the operation has a body, each of the clashing parameters is keyed
// "<in>.<name>" instead ("query.id", "header.id"); the body stays "body".
// Header parameters named Accept, Content-Type or Authorization are ignored,
// as OpenAPI says. Component schemas are hoisted into the operation's $defs;
// a schema nested deeper than the depth cap is replaced by a permissive
// schema carrying "x-intentsrv-cut": true and a description saying so.
package openapi
