package intent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentsrv/intentsrv/operations"
)

// notes is a tiny service used to exercise every verb and code.
type notes struct {
	mu    sync.Mutex
	next  int
	items map[int]note
}

type note struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Body  string `json:"body,omitempty"`
}

type noteID struct {
	ID int `json:"id" jsonschema:"description=note id,minimum=1"`
}

type noteList struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"description=max notes,minimum=1,maximum=1000"`
	Cursor string `json:"cursor,omitempty" jsonschema:"description=paging cursor"`
}

type notePage struct {
	Items      []note `json:"items"`
	NextCursor string `json:"next_cursor,omitempty"`
}

type newNote struct {
	Title string `json:"title" jsonschema:"description=title,minLength=1"`
	Body  string `json:"body,omitempty" jsonschema:"description=text"`
}

type empty struct{}

func newTestRegistry(t testing.TB) (*operations.Registry, *notes) {
	t.Helper()
	n := &notes{next: 1, items: map[int]note{}}
	for i := 0; i < 300; i++ {
		n.add(fmt.Sprintf("note number %d", i), strings.Repeat("lorem ipsum dolor sit amet ", 4))
	}
	r := operations.NewRegistry()
	r.SetNamespaceBlurb("notes", "Personal notes")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(operations.Add(r, operations.Operation{ID: "notes.get", Summary: "Get one note by id", Kind: operations.KindRead},
		func(ctx context.Context, in noteID) (note, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			x, ok := n.items[in.ID]
			if !ok {
				return note{}, operations.NotFound(fmt.Sprintf("note %d", in.ID), "list notes with notes.list")
			}
			return x, nil
		}))
	must(operations.Add(r, operations.Operation{ID: "notes.list", Summary: "List notes, newest last", Kind: operations.KindRead},
		func(ctx context.Context, in noteList) (notePage, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			limit := in.Limit
			if limit == 0 {
				limit = 20
			}
			start := 0
			fmt.Sscan(in.Cursor, &start)
			var p notePage
			for id := start + 1; id < n.next && len(p.Items) < limit; id++ {
				p.Items = append(p.Items, n.items[id])
			}
			if last := start + len(p.Items); last < n.next-1 {
				p.NextCursor = fmt.Sprint(last)
			}
			return p, nil
		}))
	must(operations.Add(r, operations.Operation{ID: "notes.create", Summary: "Create a note", Kind: operations.KindWrite},
		func(ctx context.Context, in newNote) (note, error) { return n.add(in.Title, in.Body), nil }))
	must(operations.Add(r, operations.Operation{ID: "notes.delete", Summary: "Delete a note forever", Kind: operations.KindDestructive},
		func(ctx context.Context, in noteID) (map[string]bool, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			if _, ok := n.items[in.ID]; !ok {
				return nil, operations.NotFound(fmt.Sprintf("note %d", in.ID), "")
			}
			delete(n.items, in.ID)
			return map[string]bool{"deleted": true}, nil
		}))
	raw := func(id, summary string, h operations.Handler) {
		must(r.Register(operations.Operation{ID: id, Summary: summary, Kind: operations.KindRead, Handler: h}))
	}
	raw("faults.panic", "Crash on purpose", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) { panic("boom") })
	raw("faults.hang", "Never return", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	raw("faults.garbage", "Return bytes that are not JSON", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage("{not json"), nil
	})
	raw("faults.blob", "Return one huge string", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		return json.Marshal(map[string]string{"blob": strings.Repeat("word ", 20000)})
	})
	for _, code := range []string{"rate_limited", "unauthorized", "upstream_unavailable", "upstream_error"} {
		code := code
		raw("faults."+code, "Fail with "+code, func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			return nil, &operations.Error{Code: code, Message: "backend said " + code, Fix: "wait and retry"}
		})
	}
	must(operations.Add(r, operations.Operation{ID: "ping.now", Summary: "Report the server clock", Kind: operations.KindRead},
		func(ctx context.Context, _ empty) (map[string]string, error) {
			return map[string]string{"now": time.Unix(0, 0).UTC().Format(time.RFC3339)}, nil
		}))
	return r, n
}

func (n *notes) add(title, body string) note {
	n.mu.Lock()
	defer n.mu.Unlock()
	x := note{ID: n.next, Title: title, Body: body}
	n.items[n.next] = x
	n.next++
	return x
}

func newTestServer(t testing.TB, opts Options) (*Server, *notes) {
	t.Helper()
	r, n := newTestRegistry(t)
	if opts.Timeout == 0 {
		opts.Timeout = 2 * time.Second
	}
	s, err := New(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, n
}

// call runs tool with input given as a JSON string.
func call(t testing.TB, s *Server, tool, input string) *Envelope {
	t.Helper()
	return s.Call(context.Background(), tool, []byte(input))
}

// data decodes an envelope's data.
func data(t testing.TB, env *Envelope) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(env.Data, &m); err != nil {
		t.Fatalf("data is not an object: %s", env.Data)
	}
	return m
}

func details(t testing.TB, env *Envelope) map[string]any {
	t.Helper()
	b, _ := json.Marshal(env.Details)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("details are not an object: %s", b)
	}
	return m
}
