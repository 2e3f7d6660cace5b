package serve

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

// cachedPrefixes are the REST reads answered purely from a snapshot:
// their responses can be shared by every request that sees the same
// snapshot generation.
var cachedPrefixes = []string{"/ws/v1/clusters", "/ws/v1/partitions", "/ws/v1/partition/", "/ws/v1/scheduler/node-utilizations"}

// maxCachedResponses and maxCachedBytes bound what is kept for one
// generation.
const (
	maxCachedResponses = 4096
	maxCachedBytes     = 64 << 20
)

// responseCache shares the responses of snapshot-based REST reads between
// requests that see the same snapshot generation: a thousand readers of
// the same page cost one rendering per snapshot, not a thousand. The data
// is exactly what the handler would have produced for that snapshot, so
// caching adds no staleness.
type responseCache struct {
	next http.Handler
	src  interface {
		Snapshot(ctx context.Context) (*snapshot.Snapshot, error)
	}

	mu      sync.Mutex
	gen     uint64
	entries map[string]*cachedResponse
	bytes   int
}

type cachedResponse struct {
	ready  chan struct{} // closed once rendered
	header http.Header
	code   int
	body   []byte
}

func (c *cachedResponse) Header() http.Header  { return c.header }
func (c *cachedResponse) WriteHeader(code int) { c.code = code }
func (c *cachedResponse) Write(b []byte) (int, error) {
	c.body = append(c.body, b...)
	return len(b), nil
}

func cacheable(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	for _, p := range cachedPrefixes {
		if strings.HasPrefix(r.URL.Path, p) {
			return true
		}
	}
	return false
}

func (c *responseCache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !cacheable(r) {
		c.next.ServeHTTP(w, r)
		return
	}
	snap, err := c.src.Snapshot(r.Context())
	if err != nil {
		c.next.ServeHTTP(w, r) // the handler reports the error
		return
	}
	key := r.URL.RequestURI() + "\x00" + r.Header.Get("Accept-Encoding") + "\x00" + r.Header.Get("Accept")
	c.mu.Lock()
	if snap.Generation > c.gen || c.entries == nil {
		c.gen, c.entries, c.bytes = snap.Generation, map[string]*cachedResponse{}, 0
	}
	e, found := c.entries[key]
	owner := false
	if !found && snap.Generation == c.gen && len(c.entries) < maxCachedResponses && c.bytes < maxCachedBytes {
		e = &cachedResponse{ready: make(chan struct{}), header: http.Header{}, code: http.StatusOK}
		c.entries[key] = e
		owner = true
	}
	c.mu.Unlock()
	switch {
	case owner:
		c.next.ServeHTTP(e, r)
		close(e.ready)
		c.mu.Lock()
		if c.entries[key] == e {
			if e.code != http.StatusOK {
				delete(c.entries, key) // errors are not shared
			} else {
				c.bytes += len(e.body)
			}
		}
		c.mu.Unlock()
	case found:
		select {
		case <-e.ready:
		case <-r.Context().Done():
			return
		}
	default:
		c.next.ServeHTTP(w, r)
		return
	}
	h := w.Header()
	for k, v := range e.header {
		h[k] = v
	}
	h.Set("Content-Length", strconv.Itoa(len(e.body)))
	w.WriteHeader(e.code)
	_, _ = w.Write(e.body)
}
