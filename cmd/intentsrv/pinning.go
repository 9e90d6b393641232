package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/intentsrv/intentsrv/gate"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/manifest/pin"
	"github.com/intentsrv/intentsrv/operations"
)

// defaultLockFile is where intentsrv lock writes when --out is not given.
const defaultLockFile = "intentsrv.lock.json"

// pinning holds the lock file a server is checked against (--lock) and
// what drifted from it. It is safe for concurrent use: upstreams re-list
// their tools at any time.
type pinning struct {
	path   string
	strict bool
	file   *pin.File
	log    *slog.Logger

	mu    sync.Mutex
	drift map[string]pin.State // operation id -> drifted or new, when last registered
}

// registerLockFlags adds --lock and --strict-lock to fs.
func (s *sourceFlags) registerLockFlags(fs *flag.FlagSet) {
	fs.StringVar(&s.pins.path, "lock", "", "check every operation against this lock file (intentsrv lock); drift is logged and shown in describe's overview")
	fs.BoolVar(&s.pins.strict, "strict-lock", false, "with --lock: refuse operations that drifted from the lock or are not in it (code lock_drift)")
}

// open loads the lock file, if one was given.
func (p *pinning) open(log *slog.Logger) error {
	if p.strict && p.path == "" {
		return fmt.Errorf("--strict-lock needs --lock FILE (write one with intentsrv lock)")
	}
	if p.path == "" {
		return nil
	}
	f, err := pin.Load(p.path)
	if err != nil {
		return err
	}
	p.file, p.log, p.drift = f, log, map[string]pin.State{}
	return nil
}

// apply checks ops against the lock as they are about to be registered:
// each drifted or new one is logged, remembered for describe's overview
// and doctor, and under --strict-lock replaced by a refusal that shows
// none of its new text. Without a lock it returns ops unchanged.
func (p *pinning) apply(ops []operations.Operation) []operations.Operation {
	if p.file == nil {
		return ops
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range ops {
		op := &ops[i]
		st := p.file.Check(op)
		if st == pin.Pinned {
			delete(p.drift, op.ID)
			continue
		}
		if p.drift[op.ID] != st {
			p.log.Warn("operation differs from the lock file", "operation", op.ID, "source", op.Source, "state", st, "lock", p.path, "refused", p.strict)
		}
		p.drift[op.ID] = st
		if p.strict {
			*op = refused(*op, st, p.path)
		}
	}
	return ops
}

// refused is op as --strict-lock serves it: its id, source and kind stay;
// its text and schema, which may carry what the change slipped in, go;
// every call answers lock_drift.
func refused(op operations.Operation, st pin.State, lockPath string) operations.Operation {
	what := "changed since"
	if st == pin.New {
		what = "is not in"
	}
	msg := fmt.Sprintf("%s %s the lock file %s; --strict-lock refuses it", op.ID, what, lockPath)
	op.Summary = "refused by --strict-lock: this operation " + what + " the lock file"
	op.Description = ""
	op.Examples = nil
	op.Input = json.RawMessage(`{"type":"object"}`)
	op.Output = nil
	refusal := &operations.Error{Code: string(intent.CodeLockDrift), Message: msg,
		Fix:     "the operator reviews the change (intentsrv doctor --lock FILE), refreshes the lock with intentsrv lock, and restarts",
		Details: map[string]string{"operation": op.ID, "state": string(st), "lock": lockPath}}
	// A write refuses at its preview too: no plan_ref for a call that
	// cannot run.
	op.Preview = func(context.Context, json.RawMessage) (any, error) { return nil, refusal }
	op.Handler = func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, refusal }
	return op
}

// applyRegistered pins the operations already in reg whose sources are
// not upstream MCP servers (those pass through apply on every listing).
func (p *pinning) applyRegistered(reg *operations.Registry) error {
	if p.file == nil {
		return nil
	}
	for _, op := range reg.All() {
		if strings.HasPrefix(op.Source, "mcp:") {
			continue
		}
		out := p.apply([]operations.Operation{*op})
		if !p.strict || p.file.Check(op) == pin.Pinned {
			continue
		}
		reg.Remove(op.ID)
		if err := reg.Register(out[0]); err != nil {
			return fmt.Errorf("--strict-lock: %w", err)
		}
	}
	return nil
}

// drifted lists the registered operations that differ from the lock now,
// by state.
func (p *pinning) drifted(reg *operations.Registry) (drifted, added []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, st := range p.drift {
		if _, ok := reg.Get(id); !ok {
			continue // removed since
		}
		if st == pin.Drifted {
			drifted = append(drifted, id)
		} else {
			added = append(added, id)
		}
	}
	slices.Sort(drifted)
	slices.Sort(added)
	return drifted, added
}

// health is the lock's line in describe's overview: nil when nothing
// differs.
func (p *pinning) health(reg *operations.Registry) *intent.SourceHealth {
	if p.file == nil || reg == nil {
		return nil
	}
	d, n := p.drifted(reg)
	if len(d)+len(n) == 0 {
		return nil
	}
	return &intent.SourceHealth{Source: "lock:" + p.path, State: "drifted", Operations: len(d) + len(n), Error: driftText(d, n, 8)}
}

// driftText names up to limit ids of each list.
func driftText(drifted, added []string, limit int) string {
	var parts []string
	if len(drifted) > 0 {
		parts = append(parts, "changed: "+listIDs(drifted, limit))
	}
	if len(added) > 0 {
		parts = append(parts, "not in the lock: "+listIDs(added, limit))
	}
	return strings.Join(parts, "; ")
}

// listIDs joins up to limit ids and counts the rest.
func listIDs(ids []string, limit int) string {
	s := strings.Join(ids[:min(len(ids), limit)], ", ")
	if len(ids) > limit {
		s += fmt.Sprintf(" and %d more", len(ids)-limit)
	}
	return s
}

// breachLock is the gate's check name for operations that differ from
// --lock.
const breachLock = "lock"

// lockBreaches are the gate's breaches for --lock: one per operation that
// changed or is not in the lock (a pinned one no longer served is not a
// breach: a server may be down while the gate runs). Upstreams are waited
// for, so their own lists are judged rather than the cache's.
func (s *sourceFlags) lockBreaches(ctx context.Context, reg *operations.Registry) []gate.Breach {
	p := &s.pins
	if p.file == nil {
		return nil
	}
	if s.fleet != nil {
		s.fleet.Wait(ctx)
	}
	d := p.file.Compare(reg.All())
	var out []gate.Breach
	for _, id := range d.Drifted {
		out = append(out, gate.Breach{Check: breachLock, Subject: id, Message: id + " changed since " + p.path + " was written; review it and refresh the lock with intentsrv lock"})
	}
	for _, id := range d.New {
		out = append(out, gate.Breach{Check: breachLock, Subject: id, Message: id + " is not in " + p.path + "; review it and refresh the lock with intentsrv lock"})
	}
	return out
}

// runLock implements "intentsrv lock": it loads the configured sources as
// serve would, waits for every upstream, and writes a lock file pinning
// every operation.
func runLock(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f serverFlags
	defer f.src.close()
	fs := newFlagSet("lock", "lock [--out FILE] [source flags]", stderr)
	f.register(fs)
	out := fs.String("out", defaultLockFile, "the lock file to write")
	rest, code, ok := parseFlags(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 || f.src.pins.path != "" || f.src.pins.strict {
		fmt.Fprintln(stderr, "intentsrv lock: writes the lock file named by --out; --lock and --strict-lock are for serve and doctor, and no arguments are taken")
		return exitUsage
	}
	log := f.logger(stderr)
	reg, _, err := buildRegistry(ctx, &f.src, log)
	if err != nil {
		fmt.Fprintf(stderr, "intentsrv lock: %v\n", err)
		return 1
	}
	if fl := f.src.fleet; fl != nil {
		fl.Wait(ctx)
		for _, st := range fl.Status() {
			if st.State != "ready" && st.State != "disabled" {
				fmt.Fprintf(stderr, "intentsrv lock: upstream %s is %s%s; a lock without its tools would flag them all as new. Fix it (intentsrv doctor) or mark it \"disabled\": true\n",
					st.Server, st.State, strings.TrimSuffix(" ("+st.Error+")", " ()"))
				return 1
			}
		}
	}
	file := pin.Build(reg.All())
	if err := file.Write(*out); err != nil {
		fmt.Fprintf(stderr, "intentsrv lock: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "pinned %d operations in %s\n", len(file.Operations), *out)
	return 0
}
