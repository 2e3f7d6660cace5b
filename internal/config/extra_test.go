package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseExtra(t *testing.T) {
	e, w := ParseExtra(nil)
	if d := cmp.Diff(DefaultExtra(), e); d != "" || len(w) != 0 {
		t.Errorf("empty map (-want +got):\n%s warnings %v", d, w)
	}
	e, w = ParseExtra(map[string]string{
		"log.level": "WARN", "log.core.scheduler.level": "-1", "log.rmproxy.level": "9",
		"health.checkInterval": "0", "event.trackingEnabled": "false", "event.requestCapacity": "50",
		"event.ringBufferCapacity": "-3", "event.maxStreams": "x", "event.RESTResponseSize": "20",
		"event.ringbufferCapacity":   "7", // wrong case: not the reference's key (doc drift)
		"service.schedulingInterval": "1s",
	})
	want := DefaultExtra()
	want.LogLevels = map[string]int{"": 1, "core.scheduler": -1}
	want.HealthCheckInterval = 0
	want.EventTrackingEnabled = false
	want.EventRequestCapacity = 50
	want.EventRESTResponseSize = 20
	if d := cmp.Diff(want, e); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var keys []string
	for _, p := range w {
		keys = append(keys, p.Key)
	}
	if d := cmp.Diff([]string{"event.maxStreams", "event.ringBufferCapacity", "log.rmproxy.level"}, keys); d != "" {
		t.Errorf("warning keys (-want +got):\n%s", d)
	}
	if e, _ := ParseExtra(map[string]string{"health.checkInterval": "10s"}); e.HealthCheckInterval != 10*time.Second {
		t.Errorf("interval = %v", e.HealthCheckInterval)
	}
	if !DefaultExtra().PredicatesSeeAllocations {
		t.Error("by default an RM's Predicates is taken to depend on the allocations it heard of")
	}
	if e, w := ParseExtra(map[string]string{"paddock.predicates.seeAllocations": "false"}); e.PredicatesSeeAllocations || len(w) != 0 {
		t.Errorf("seeAllocations false: %v, warnings %v", e.PredicatesSeeAllocations, w)
	}
	if e, w := ParseExtra(map[string]string{"paddock.predicates.seeAllocations": "maybe"}); !e.PredicatesSeeAllocations || len(w) != 1 {
		t.Errorf("seeAllocations maybe: %v (want the default kept), warnings %v", e.PredicatesSeeAllocations, w)
	}
}
