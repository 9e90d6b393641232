package intent

import "time"

// handlerWorkers runs operation handlers on goroutines kept between calls.
// A fresh goroutine starts with a small stack that grows, by copying, while
// a handler decodes its arguments and encodes its result: a few
// microseconds per call, a twentieth of an ask on the wire. A worker that
// finished a handler waits up to idleWorker for the next one, then exits.
// A call that finds no idle worker starts one, so handlers never queue
// here, and a handler that hangs keeps its worker as it kept its goroutine.
type handlerWorkers struct {
	work chan func() // unbuffered: a handoff only to a worker waiting for one
}

// idleWorker is how long an idle worker waits for a handler before it exits.
const idleWorker = 10 * time.Second

func newHandlerWorkers() *handlerWorkers {
	return &handlerWorkers{work: make(chan func())}
}

// run runs fn on an idle worker, or on a new one when none is idle. fn must
// not panic (guard's function recovers).
func (w *handlerWorkers) run(fn func()) {
	select {
	case w.work <- fn:
	default:
		go w.loop(fn)
	}
}

func (w *handlerWorkers) loop(fn func()) {
	idle := time.NewTimer(idleWorker)
	defer idle.Stop()
	for {
		fn()
		idle.Reset(idleWorker)
		select {
		case fn = <-w.work:
		case <-idle.C:
			return
		}
	}
}
