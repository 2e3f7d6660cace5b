package serve

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

type genSource struct{ gen atomic.Uint64 }

func (g *genSource) Snapshot(context.Context) (*snapshot.Snapshot, error) {
	return &snapshot.Snapshot{Generation: g.gen.Load()}, nil
}

func TestResponseCacheSharesOneRenderingPerGeneration(t *testing.T) {
	src := &genSource{}
	src.gen.Store(1)
	var renders atomic.Int64
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		renders.Add(1)
		if r.URL.Path == "/ws/v1/partition/missing/queues" {
			http.Error(w, "no such partition", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"gen":%d,"path":%q,"enc":%q}`, src.gen.Load(), r.URL.Path, r.Header.Get("Accept-Encoding"))
	})
	c := &responseCache{next: next, src: src}
	get := func(path, enc string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", path, nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		c.ServeHTTP(rec, req)
		return rec
	}

	var wg sync.WaitGroup
	bodies := make([]string, 50)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bodies[i] = get("/ws/v1/partition/default/queues", "").Body.String()
		}()
	}
	wg.Wait()
	if renders.Load() != 1 {
		t.Fatalf("50 concurrent readers of one generation: %d renderings", renders.Load())
	}
	for _, b := range bodies {
		if b != bodies[0] || b == "" {
			t.Fatalf("readers got different bodies: %q vs %q", b, bodies[0])
		}
	}
	if rec := get("/ws/v1/partition/default/queues", ""); rec.Header().Get("Content-Type") != "application/json" || rec.Code != 200 {
		t.Fatalf("cached response lost its header or status: %v %d", rec.Header(), rec.Code)
	}
	get("/ws/v1/partition/default/queues", "gzip")
	if renders.Load() != 2 {
		t.Fatalf("another encoding shares a rendering: %d", renders.Load())
	}

	// a new generation renders again
	src.gen.Store(2)
	if b := get("/ws/v1/partition/default/queues", "").Body.String(); b != `{"gen":2,"path":"/ws/v1/partition/default/queues","enc":""}` {
		t.Fatalf("after a state change: %s", b)
	}
	// errors are not kept; uncacheable paths always reach the handler
	before := renders.Load()
	for range 2 {
		if rec := get("/ws/v1/partition/missing/queues", ""); rec.Code != 404 {
			t.Fatalf("error status %d", rec.Code)
		}
		get("/ws/v1/events/batch", "")
		get("/ws/v1/scheduler/healthcheck", "")
	}
	if got := renders.Load() - before; got != 6 {
		t.Fatalf("errors and uncacheable paths rendered %d times, want 6", got)
	}
}
