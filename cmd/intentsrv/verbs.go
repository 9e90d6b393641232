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

	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
)

// verbCommand returns the CLI mirror of one intent tool. It runs the same
// handler in-process and prints the same envelope an agent gets, as
// indented JSON; the exit code is 0 when ok, 1 when not.
func verbCommand(verb string) func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		var f serverFlags
		synopsis := map[string]string{
			intent.ToolFind:     "find [flags] INTENT...",
			intent.ToolDescribe: "describe [flags] [ACTION]",
			intent.ToolAsk:      "ask [flags] ACTION [PARAMS_JSON]  |  ask --intent TEXT [--params JSON]",
			intent.ToolAct:      "act [flags] ACTION [PARAMS_JSON] [--plan-ref REF]  |  act --intent TEXT",
		}[verb]
		fs := newFlagSet(verb, synopsis, stderr)
		f.register(fs)
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
		if verb == intent.ToolAct && f.writes == "deny" && !flagSet(fs, "writes") {
			// The CLI is run by a person at a terminal: default act to the
			// confirm policy so it is usable, still previewing every write.
			f.writes = string(intent.WritesConfirm)
		}
		logger := f.logger(stderr)
		f.planKey = cliPlanKey()
		srv, _, err := f.build(ctx, logger)
		if err != nil {
			fmt.Fprintf(stderr, "intentsrv %s: %v\n", verb, err)
			return exitUsage
		}

		var raw []byte
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
					if operations.ValidID(rest[0]) {
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
					fmt.Fprintf(stderr, "intentsrv %s: --params is not a JSON object: %v\n", verb, err)
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

func flagSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}

func runList(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f serverFlags
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

// cliPlanKey returns the plan key for CLI commands: INTENTSRV_PLAN_KEY when
// set, else a random key kept in the user's config directory (mode 0600), so
// a preview printed by one "intentsrv act" can be confirmed by the next.
// The server itself never persists a key: unset means random per process.
func cliPlanKey() []byte {
	if k := os.Getenv("INTENTSRV_PLAN_KEY"); k != "" {
		return []byte(k)
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil
	}
	path := filepath.Join(dir, "intentsrv", "cli-plan.key")
	if b, err := os.ReadFile(path); err == nil && len(b) >= 32 {
		return b
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil
	}
	if err := os.WriteFile(path, key, 0o600); err != nil {
		return nil
	}
	return key
}
