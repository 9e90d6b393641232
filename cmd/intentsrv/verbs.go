package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
)

// verbCommand returns the CLI mirror of one intent tool. It runs the same
// handler in-process and prints the same envelope an agent gets, as
// indented JSON; the exit code is 0 when ok, 1 when not.
func verbCommand(verb string) func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		var f serverFlags
		defer f.src.close() // ends upstream MCP servers, if any were started
		synopsis := map[string]string{
			intent.ToolFind:     "find [flags] INTENT...",
			intent.ToolDescribe: "describe [flags] [ACTION]",
			intent.ToolAsk:      "ask [flags] ACTION [PARAMS_JSON]  |  ask --intent TEXT [--params JSON]",
			intent.ToolAct:      "act [flags] ACTION [PARAMS_JSON] [--plan-ref REF]  |  act --intent TEXT",
		}[verb]
		fs := newFlagSet(verb, synopsis, stderr)
		f.register(fs)
		// A person runs these at a terminal: quieter logs, and act previews
		// writes instead of refusing them (every write still needs its
		// plan_ref under confirm).
		setDefault(fs, "log-level", "warn")
		if verb == intent.ToolAct {
			setDefault(fs, "writes", string(intent.WritesConfirm))
		}
		var in intent.Input
		var params, rawInput, namespace string
		var limit int
		fs.StringVar(&in.Action, "action", "", "operation id")
		fs.StringVar(&params, "params", "", "operation arguments (or find/describe filters) as a JSON object")
		fs.StringVar(&in.Intent, "intent", "", "what you want, in plain words")
		fs.StringVar(&rawInput, "input", "", `the whole condensed input as JSON, exactly as an agent sends it ("-" reads stdin)`)
		if verb == intent.ToolAct {
			fs.StringVar(&in.PlanRef, "plan-ref", "", "plan_ref from a preview, to execute it")
		}
		if verb == intent.ToolFind || verb == intent.ToolDescribe {
			fs.StringVar(&namespace, "namespace", "", "restrict to a namespace")
			fs.IntVar(&limit, "limit", 0, "how many results")
		}
		rest, code, ok := parseFlags(fs, args)
		if !ok {
			return code
		}
		logger := f.logger(stderr)
		f.planKey, f.planStore = cliPlans()
		f.blockCalls = true
		srv, _, err := f.build(ctx, logger)
		if err != nil {
			fmt.Fprintf(stderr, "intentsrv %s: %v\n", verb, err)
			return exitUsage
		}

		var raw []byte
		if rawInput != "" && (len(rest) > 0 || in.Action != "" || in.Intent != "" || params != "") {
			fmt.Fprintf(stderr, "intentsrv %s: --input carries the whole input; give it alone, without other arguments\n", verb)
			return exitUsage
		}
		if rawInput != "" {
			if rawInput == "-" {
				raw, err = io.ReadAll(stdin)
				if err != nil {
					fmt.Fprintf(stderr, "intentsrv %s: read stdin: %v\n", verb, err)
					return exitUsage
				}
			} else {
				raw = []byte(rawInput)
			}
		} else {
			switch verb {
			case intent.ToolFind:
				if in.Intent == "" {
					in.Intent = strings.Join(rest, " ")
				}
			default:
				if len(rest) > 0 && in.Action == "" && in.Intent == "" {
					// The first word is an operation id only when it looks
					// like one (dotted): "ask who is assigned to 42" is an
					// intent, "ask helpdesk.tickets.get {...}" an action.
					if operations.ValidID(strings.ToLower(rest[0])) && strings.Contains(rest[0], ".") {
						in.Action = rest[0]
						rest = rest[1:]
					} else {
						in.Intent = strings.Join(rest, " ")
						rest = nil
					}
				}
				if len(rest) > 0 && params == "" {
					params = rest[0]
					rest = rest[1:]
				}
				if len(rest) > 0 {
					fmt.Fprintf(stderr, "intentsrv %s: unexpected arguments %q\n", verb, rest)
					return exitUsage
				}
			}
			m := map[string]any{}
			if params != "" {
				d := json.NewDecoder(strings.NewReader(params))
				d.UseNumber()
				if err := d.Decode(&m); err != nil {
					fmt.Fprintf(stderr, "intentsrv %s: params %q are not a JSON object: %v\n", verb, params, err)
					return exitUsage
				}
			}
			if namespace != "" {
				m["namespace"] = namespace
			}
			if limit > 0 {
				m["limit"] = limit
			}
			if len(m) > 0 {
				in.Params, _ = json.Marshal(m)
			}
			raw, _ = json.Marshal(in)
		}
		env := srv.Call(ctx, verb, raw)
		var buf bytes.Buffer
		if err := json.Indent(&buf, env.JSON(), "", "  "); err != nil {
			buf.Write(env.JSON())
		}
		buf.WriteByte('\n')
		stdout.Write(buf.Bytes())
		if !env.OK {
			return exitFail
		}
		return exitOK
	}
}

// setDefault changes a registered flag's default value (and its help).
func setDefault(fs *flag.FlagSet, name, value string) {
	if fl := fs.Lookup(name); fl != nil {
		_ = fl.Value.Set(value)
		fl.DefValue = value
	}
}

func runList(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f serverFlags
	defer f.src.close() // ends upstream MCP servers, if any were started
	fs := newFlagSet("list", "list [flags]", stderr)
	f.register(fs)
	var withKind bool
	fs.BoolVar(&withKind, "kind", false, "print each operation's kind after its id")
	if _, code, ok := parseFlags(fs, args); !ok {
		return code
	}
	srv, _, err := f.build(ctx, f.logger(stderr))
	if err != nil {
		fmt.Fprintf(stderr, "intentsrv list: %v\n", err)
		return exitUsage
	}
	for _, op := range srv.Registry().All() {
		if !srv.Visible(op) {
			continue
		}
		if withKind {
			fmt.Fprintf(stdout, "%s\t%s\n", op.ID, op.Kind)
		} else {
			fmt.Fprintln(stdout, op.ID)
		}
	}
	return exitOK
}

// cliPlans returns the plan key and store for CLI commands. The key is
// INTENTSRV_PLAN_KEY when set, else a random key kept in the user's config
// directory (mode 0600), so a preview printed by one "intentsrv act" can be
// confirmed by the next; the record of executed plan_refs sits beside it,
// so each still executes at most once. The server never persists a key:
// unset means random per process.
func cliPlans() ([]byte, intent.PlanStore) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return []byte(os.Getenv("INTENTSRV_PLAN_KEY")), nil
	}
	dir = filepath.Join(dir, "intentsrv")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return []byte(os.Getenv("INTENTSRV_PLAN_KEY")), nil
	}
	store := &filePlanStore{path: filepath.Join(dir, "cli-plans-used"), now: time.Now}
	if k := os.Getenv("INTENTSRV_PLAN_KEY"); k != "" {
		return []byte(k), store
	}
	path := filepath.Join(dir, "cli-plan.key")
	if b, err := os.ReadFile(path); err == nil && len(b) >= 32 {
		return b, store
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, nil
	}
	if err := os.WriteFile(path, key, 0o600); err != nil {
		return nil, nil
	}
	return key, store
}
