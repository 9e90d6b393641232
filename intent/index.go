package intent

import (
	"strings"

	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/router"
)

// catalogIndex is what the verbs search: the router over the visible
// operations, the visible namespaces, and nsPrefixes, each namespace and
// every dotted prefix of one (find with a namespace filter must not scan
// the catalog). It is immutable once built, except that its router is
// built in the background: the router index is most of a warm start (two
// thirds of it on GitHub's spec) and nothing before an agent's first
// intent needs it.
type catalogIndex struct {
	// rt is set, or rtPanic is, before ready is closed.
	rt         *router.Router
	rtPanic    any
	ready      chan struct{}
	visibleOps int
	// writesHidden counts the registry's operations that change state
	// and that the write policy hides: none means a read-only server has
	// nothing to refuse, and a write verb is answered by the reads.
	writesHidden int
	// policy holds the visible operations, for Filter.Only in searches of
	// rt (nil when the policies hide nothing); reads holds the visible
	// reads, what intent-only ask may run. Both are set before ready is
	// closed. A mask filters rt's searches with a bit per operation; the
	// built-ins' router, given one, calls the predicate instead.
	policy, reads *router.Mask
	namespaces    []operations.Namespace
	nsPrefixes    map[string]bool
}

// visibleFilter is the filter of the server's policies for searches of
// c's router (namespace unset); readsFilter is intent-only ask's: the
// visible reads. Both wait for the router.
func (c *catalogIndex) visibleFilter() router.Filter {
	c.router()
	return router.Filter{Only: c.policy}
}

func (c *catalogIndex) readsFilter() router.Filter {
	c.router()
	return router.Filter{Only: c.reads}
}

// router waits for the router; a panic of its build is raised in the
// caller, where Do turns it into an internal_error.
func (c *catalogIndex) router() *router.Router {
	<-c.ready
	if c.rtPanic != nil {
		panic(c.rtPanic)
	}
	return c.rt
}

// buildIndex indexes the registry's operations as they are now: the
// visible ones, and the writes that only the write policy hides, so that a
// search among reads can tell that a request asks for a write (the
// router's Result.Hidden) instead of running the closest read. Every
// search passes the policy as its filter (visibleFilter, a mask of
// s.visible): a hidden write is never listed, suggested or run.
// Operations an allow or deny glob removes are not indexed at all. The
// router is ready when its router method returns.
func (s *Server) buildIndex() *catalogIndex {
	var visible, indexed []*operations.Operation
	writesHidden := 0
	for _, op := range s.reg.All() {
		// A reserved id (runs.*) is refused at New; one an upstream
		// brings later is not served.
		if isReservedID(op.ID) {
			continue
		}
		switch {
		case s.visible(op):
			visible = append(visible, op)
			indexed = append(indexed, op)
		case op.Kind.IsWrite() && s.allowedID(op.ID):
			writesHidden++
			indexed = append(indexed, op)
		}
	}
	idx := &catalogIndex{ready: make(chan struct{}), visibleOps: len(visible), writesHidden: writesHidden}
	go func() {
		defer close(idx.ready)
		defer func() { idx.rtPanic = recover() }()
		rt := router.New(indexed, router.Options{Synonyms: s.opts.Synonyms})
		if s.policyFilter() != nil {
			idx.policy = rt.Mask(s.visible)
		}
		idx.reads = rt.Mask(func(op *operations.Operation) bool {
			return (op.Kind == operations.KindRead || op.Kind == "") && s.visible(op)
		})
		idx.rt = rt
	}()
	idx.namespaces = s.builtins.addNamespace(s.reg.Namespaces(s.visible))
	idx.nsPrefixes = make(map[string]bool, 2*len(idx.namespaces))
	for _, n := range idx.namespaces {
		for p := n.Name; p != ""; {
			idx.nsPrefixes[p] = true
			i := strings.LastIndexByte(p, '.')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	return idx
}

// index is the current index.
func (s *Server) index() *catalogIndex { return s.idx.Load() }

// Reindex rebuilds the router and namespace index from the registry, for a
// registry whose operations changed after New (an upstream MCP server's
// tools changed). Calls under way keep the index they started with; later
// calls see the new one. It is safe to call concurrently with everything.
func (s *Server) Reindex() {
	s.reindexMu.Lock()
	defer s.reindexMu.Unlock()
	s.idx.Store(s.buildIndex())
	// Descriptor data is cached per operation value; drop the entries of
	// operations the registry no longer holds, so an upstream that changes
	// its tools often does not grow the cache without bound.
	s.infos.Range(func(k, _ any) bool {
		op := k.(*operations.Operation)
		if cur, ok := s.reg.Get(op.ID); !ok || cur != op {
			s.infos.Delete(k)
		}
		return true
	})
}
