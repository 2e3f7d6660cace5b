package metrics

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// CachedHandler serves the exposition like Handler, but gathers and
// renders at most once per ttl: scrapes within ttl share the values and
// the encoded body (one per requested format and compression). Many
// concurrent readers then cost one snapshot, one runtime read, one /proc
// read and one encoding per ttl instead of one each.
func (m *Metrics) CachedHandler(ttl time.Duration) http.Handler {
	if ttl <= 0 {
		return m.Handler()
	}
	g := prometheus.GathererFunc(cached(m.reg.Gather, ttl, time.Now))
	h := promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorLog: slogPrinter{m.log}, ErrorHandling: promhttp.ContinueOnError})
	return &renderCache{h: h, ttl: ttl, now: time.Now, entries: map[string]*rendered{}}
}

// maxRendered bounds the distinct (format, compression) renderings kept.
const maxRendered = 16

// renderCache keeps the responses of h per Accept and Accept-Encoding for
// ttl. Only successful responses are kept.
type renderCache struct {
	h   http.Handler
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	at      time.Time
	entries map[string]*rendered
}

type rendered struct {
	header http.Header
	code   int
	body   []byte
}

func (r *rendered) Header() http.Header         { return r.header }
func (r *rendered) WriteHeader(code int)        { r.code = code }
func (r *rendered) Write(b []byte) (int, error) { r.body = append(r.body, b...); return len(b), nil }

func (c *renderCache) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	key := req.Header.Get("Accept") + "\x00" + req.Header.Get("Accept-Encoding")
	c.mu.Lock()
	if now := c.now(); now.Sub(c.at) >= c.ttl {
		clear(c.entries)
		c.at = now
	}
	e := c.entries[key]
	if e == nil {
		e = &rendered{header: http.Header{}, code: http.StatusOK}
		c.h.ServeHTTP(e, req)
		if e.code == http.StatusOK && len(c.entries) < maxRendered {
			c.entries[key] = e
		}
	}
	c.mu.Unlock()
	for k, v := range e.header {
		w.Header()[k] = v
	}
	w.WriteHeader(e.code)
	_, _ = w.Write(e.body)
}

// cached wraps f so that calls within ttl of the last successful one
// return its result; concurrent callers wait for one call.
func cached[T any](f func() (T, error), ttl time.Duration, now func() time.Time) func() (T, error) {
	var (
		mu   sync.Mutex
		last T
		at   time.Time
		ok   bool
	)
	return func() (T, error) {
		mu.Lock()
		defer mu.Unlock()
		if ok && now().Sub(at) < ttl {
			return last, nil
		}
		v, err := f()
		if err != nil {
			return v, err
		}
		last, at, ok = v, now(), true
		return v, nil
	}
}
