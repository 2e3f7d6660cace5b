package metrics

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestCachedCallsOncePerTTL(t *testing.T) {
	clock := time.Unix(0, 0)
	calls := 0
	fail := false
	f := cached(func() (int, error) {
		calls++
		if fail {
			return 0, errors.New("boom")
		}
		return calls, nil
	}, time.Second, func() time.Time { return clock })
	if v, _ := f(); v != 1 {
		t.Fatalf("first = %d", v)
	}
	clock = clock.Add(500 * time.Millisecond)
	if v, _ := f(); v != 1 || calls != 1 {
		t.Fatalf("within ttl: %d after %d calls", v, calls)
	}
	clock = clock.Add(600 * time.Millisecond)
	if v, _ := f(); v != 2 {
		t.Fatalf("after ttl = %d", v)
	}
	clock = clock.Add(2 * time.Second)
	fail = true
	if _, err := f(); err == nil {
		t.Fatal("error not passed on")
	}
	fail = false
	if v, _ := f(); v != 4 {
		t.Fatalf("an error must not be cached: %d", v)
	}
}

func TestCachedHandlerServesTheExposition(t *testing.T) {
	m := New(nil, nil)
	h := m.CachedHandler(time.Hour)
	scrape := func() string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/ws/v1/metrics", nil))
		return rec.Body.String()
	}
	first := scrape()
	if !strings.Contains(first, `yunikorn_scheduler_application_submission_total{result="new"} 0`) {
		t.Fatalf("exposition:\n%s", first)
	}
	m.appNew.Add(3)
	if !strings.Contains(scrape(), `yunikorn_scheduler_application_submission_total{result="new"} 0`) {
		t.Fatal("a scrape within the ttl gathered again")
	}
	if !strings.Contains(scrapeUncached(m), `yunikorn_scheduler_application_submission_total{result="new"} 3`) {
		t.Fatal("uncached handler does not see the change")
	}
}

func TestCachedHandlerKeepsEncodingsApart(t *testing.T) {
	m := New(nil, nil)
	h := m.CachedHandler(time.Hour)
	get := func(enc string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/ws/v1/metrics", nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		h.ServeHTTP(rec, req)
		return rec
	}
	plain, zipped := get(""), get("gzip")
	if plain.Header().Get("Content-Encoding") != "" || !strings.Contains(plain.Body.String(), "go_goroutines") {
		t.Fatalf("plain response: %v", plain.Header())
	}
	if zipped.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip response: %v", zipped.Header())
	}
	if again := get(""); again.Body.String() != plain.Body.String() {
		t.Fatal("cached plain body differs")
	}
}

func scrapeUncached(m *Metrics) string {
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/ws/v1/metrics", nil))
	return rec.Body.String()
}
