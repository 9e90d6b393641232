// Package gate checks an intentsrv server's surface the way a host sees it,
// so that a test or a CI step fails when the listing grows or an operation
// becomes unreachable.
//
// Run measures, over the real MCP tools/list result of the server:
//
//   - the number of tools;
//   - the tokens of the whole tools/list result and of each tool, counted
//     offline with tiktoken under o200k_base and cl100k_base (both are
//     reported; the larger is enforced unless Budgets.Encoding picks one);
//   - whether each tool name is legal for hosts (^[a-zA-Z0-9_-]{1,64}$),
//     still legal once a host adds its "mcp__<server>__" prefix, and free of
//     dots;
//   - the number of lines of each description;
//   - optionally, growth against a committed Baseline.
//
// It then checks that every visible operation is reachable through the four
// intent tools: describe returns its schema, find with its exact id ranks it
// first, and ask (reads) or act (writes) resolves it — act as far as its
// preview. Reachability never runs an operation's handler: ask and act are
// called under intent.WithProbe, which takes every step of the call but
// stops where the handler would run, so the check is safe over catalogs
// that call real APIs.
//
// Check wraps Run for go test: it reports each breach with t.Errorf and the
// figures with t.Logf. Flat measures what listing every operation as its
// own tool would cost, for comparison.
package gate
