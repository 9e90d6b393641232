package intent

import (
	"context"
	"encoding/json"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/runs"
)

// startRun starts op as a run for runOrWait to wait on. Most calls end
// well within their wait, so the run is begun here (runs.Begin) and its
// work handed straight to a kept handler worker, which ends it: one
// handoff there and one back, instead of a new goroutine for the run that
// would hand the handler to a worker in turn. The call's deadline still
// ends the run on time when a handler ignores its context (its late
// result is dropped), and runs.cancel still ends it at once. When the run
// manager has no free slot, the run goes through runs.TryStart and waits
// for one, pending; when the process is at its bound of runs (--max-runs),
// nothing starts and the error says so.
//
// handOver hands the run over (runs.Run.Detach) before its work starts,
// so it is kept and has an id even when it ends at once: an MCP task
// names a run from the moment it is created (taskrpc.go).
func (s *Server) startRun(ctx context.Context, op *operations.Operation, args json.RawMessage, handOver bool) (*runs.Run, error) {
	run, rctx, ok := s.runs.Begin(ctx, callerOf(ctx), op.ID, s.opts.Timeout)
	if !ok {
		return startKept(ctx, s.runs, callerOf(ctx), op.ID, handOver, func(ctx context.Context) runs.Outcome {
			return outcomeOf(s.complete(ctx, op, args))
		})
	}
	if handOver {
		run.Detach() // the work has not started: the run cannot have ended
	}
	// Exactly one of the deadline (or a cancellation) and the worker ends
	// the run: stop reports whether the deadline's function was kept from
	// running. End releases rctx.
	stop := context.AfterFunc(rctx, func() {
		run.End(outcomeOf(s.operationFailure(op, doneError(rctx))))
	})
	s.workers.run(func() {
		env := s.completeOnWorker(rctx, op, args)
		if stop() {
			run.End(outcomeOf(env))
		}
	})
	return run, nil
}

// completeOnWorker is complete for a call already on a handler worker,
// under its deadline: the handler runs here, and a panic anywhere becomes
// an internal error instead of killing the worker.
func (s *Server) completeOnWorker(ctx context.Context, op *operations.Operation, args json.RawMessage) (env *Envelope) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("completing a call panicked", "operation", op.ID, "panic", r)
			env = envelopeOf(op, runs.Outcome{Failed: true})
		}
	}()
	v, err := recovered(ctx, func(ctx context.Context) (any, error) { return op.Handler(ctx, args) })
	return s.result(ctx, op, args, v, err)
}

func outcomeOf(env *Envelope) runs.Outcome {
	return runs.Outcome{Failed: !env.OK, Value: env}
}

// startKept is m.TryStart, and with handOver the run is handed over before
// its work may begin (handedOverFirst).
func startKept(ctx context.Context, m *runs.Manager, principal, operation string, handOver bool, work runs.Work) (*runs.Run, error) {
	if !handOver {
		return m.TryStart(ctx, principal, operation, work)
	}
	return handedOverFirst(func(w runs.Work) (*runs.Run, error) { return m.TryStart(ctx, principal, operation, w) }, work)
}

// handedOverFirst starts work through start, and hands the run over before
// the work may begin: the work waits until Detach has given the run its
// id, so a run that ends at once is still kept.
func handedOverFirst(start func(runs.Work) (*runs.Run, error), work runs.Work) (*runs.Run, error) {
	detached := make(chan struct{})
	run, err := start(func(ctx context.Context) runs.Outcome {
		select {
		case <-detached:
		case <-ctx.Done(): // cut by Close before it began
			return runs.Outcome{Failed: true}
		}
		return work(ctx)
	})
	if err != nil {
		return nil, err
	}
	run.Detach()
	close(detached)
	return run, nil
}
