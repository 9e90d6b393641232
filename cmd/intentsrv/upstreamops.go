package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/intentsrv/intentsrv/manifest/mcpsrc"
	"github.com/intentsrv/intentsrv/operations"
)

// upstreamsNamespace holds the operations that load and unload upstream
// MCP servers at run time (--allow-upstream-loading).
const upstreamsNamespace = "intentsrv.upstreams"

// errLoadingWithoutUpstreams refuses --allow-upstream-loading with no
// server to load.
var errLoadingWithoutUpstreams = errors.New("--allow-upstream-loading lets the agent load and unload the operator's configured MCP servers, and none is configured [upstream_loading_without_servers]; add --mcp-config FILE (entries marked \"disabled\": true start only when loaded) or drop the flag")

// registerLoadingFlag adds --allow-upstream-loading to fs.
func (s *sourceFlags) registerLoadingFlag(fs *flag.FlagSet) {
	fs.BoolVar(&s.allowLoading, "allow-upstream-loading", false,
		"serve intentsrv.upstreams.list (read), .load and .unload (writes): the agent may start and stop the configured MCP servers, \"disabled\" ones included; never a server outside the configuration")
}

// registerLoading adds the operations that list, load and unload the
// fleet's configured servers. Load and unload take a server name from the
// configuration (the schema's enum), so an agent can start only what the
// operator configured. They are writes: loading starts a process on the
// operator's machine and unloading ends one; neither destroys data, and
// each undoes the other, so neither is destructive.
func (s *sourceFlags) registerLoading(reg *operations.Registry, servers []mcpsrc.Server) error {
	var names []string
	for _, srv := range servers {
		if ns := srv.ID(); ns == "intentsrv" || strings.HasPrefix(ns, "intentsrv.") {
			return fmt.Errorf("mcp server %q serves its tools under %q, which --allow-upstream-loading reserves for intentsrv.upstreams.*; give it another namespace (intentsrv.yaml) or another name", srv.Name, ns)
		}
		names = append(names, srv.Name)
	}
	fleet := s.fleet
	nameSchema, _ := json.Marshal(map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"server"},
		"properties": map[string]any{"server": map[string]any{"type": "string", "enum": names,
			"description": "the server's name in the MCP configuration (intentsrv.upstreams.list shows each one's state)"}},
	})
	status := func(st mcpsrc.Status, err error) (json.RawMessage, error) {
		if err != nil {
			return nil, err
		}
		return json.Marshal(st)
	}
	return reg.RegisterAll([]operations.Operation{
		{
			ID: upstreamsNamespace + ".list", Source: "go", Kind: operations.KindRead, Idempotent: true,
			Summary:     "List the configured upstream MCP servers: state (ready, starting, failed, disabled, unloaded), transport, operation count",
			Description: "Every server of the operator's MCP configuration, running or not; a disabled or unloaded one can be started with intentsrv.upstreams.load.",
			Input:       json.RawMessage(`{"type":"object","additionalProperties":false}`),
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return json.Marshal(map[string]any{"servers": fleet.Status()})
			},
		},
		{
			ID: upstreamsNamespace + ".load", Source: "go", Kind: operations.KindWrite, Idempotent: true,
			Summary:     "Load (start) a configured upstream MCP server and serve its tools",
			Description: "Starts a server of the operator's MCP configuration that is not running (disabled or unloaded) and makes its tools findable; waits for its start.",
			Input:       nameSchema,
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return status(fleet.Load(ctx, serverArg(args)))
			},
		},
		{
			ID: upstreamsNamespace + ".unload", Source: "go", Kind: operations.KindWrite, Idempotent: true,
			Summary:     "Unload (stop) a running upstream MCP server; its tools leave the catalog until it is loaded again",
			Description: "Ends the server's session and process; intentsrv.upstreams.load starts it again.",
			Input:       nameSchema,
			Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
				return status(fleet.Unload(serverArg(args)))
			},
		},
	}, operations.RegisterOptions{})
}

// serverArg is the server name of validated load/unload arguments (the
// schema made it a configured name; the fleet checks it again).
func serverArg(args json.RawMessage) string {
	var in struct {
		Server string `json:"server"`
	}
	_ = json.Unmarshal(args, &in)
	return in.Server
}
