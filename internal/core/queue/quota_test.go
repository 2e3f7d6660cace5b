package queue

import (
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/resource"
)

func TestUpdateQuotaTrigger(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	q := newQueue("a", nil, true)
	q.Max = resource.Quota{}.With(resource.VCoreIndex, 4)
	q.Props.QuotaPreemptionDelay = time.Minute
	used := func(n int64) { q.Allocated[resource.VCoreIndex] = n }
	steps := []struct {
		name    string
		used    int64
		delay   time.Duration
		enabled bool
		at      time.Duration // offset of now from t0
		want    time.Duration // trigger offset from t0; -1: none
	}{
		{"at max: nothing", 4, time.Minute, true, 0, -1},
		{"over max: now + delay", 6, time.Minute, true, 10 * time.Second, 70 * time.Second},
		{"still over later: first time kept", 8, time.Minute, true, 30 * time.Second, 70 * time.Second},
		{"longer delay shifts by the difference", 8, 2 * time.Minute, true, 40 * time.Second, 130 * time.Second},
		{"shorter delay shifts back", 8, 30 * time.Second, true, 50 * time.Second, 40 * time.Second},
		{"disabled clears", 8, 30 * time.Second, false, 60 * time.Second, -1},
		{"enabled again: from now", 8, 30 * time.Second, true, 70 * time.Second, 100 * time.Second},
		{"back at max clears", 4, 30 * time.Second, true, 80 * time.Second, -1},
		{"over an unlimited type only: nothing", 0, 30 * time.Second, true, 90 * time.Second, -1},
	}
	for _, s := range steps {
		used(s.used)
		if s.name == "over an unlimited type only: nothing" {
			q.Allocated[resource.MemoryIndex] = 1 << 40
		}
		q.Props.QuotaPreemptionDelay = s.delay
		pending := q.UpdateQuotaTrigger(s.enabled, t0.Add(s.at))
		got := q.QuotaPreemption.At
		if s.want < 0 {
			if pending || !got.IsZero() {
				t.Fatalf("%s: trigger at %v (pending %v), want none", s.name, got, pending)
			}
			continue
		}
		if !pending || !got.Equal(t0.Add(s.want)) {
			t.Fatalf("%s: trigger at %v (pending %v), want t0+%v", s.name, got, pending, s.want)
		}
	}
}

func TestOverAndOverGuaranteed(t *testing.T) {
	q := newQueue("a", nil, true)
	q.Max = resource.Quota{}.With(resource.VCoreIndex, 4)
	q.Guaranteed = resource.Quota{}.With(resource.VCoreIndex, 2)
	var used resource.Vector
	used[resource.VCoreIndex] = 7
	used[resource.MemoryIndex] = 100
	over := q.Over(used)
	if over[resource.VCoreIndex] != 3 || over[resource.MemoryIndex] != 0 {
		t.Fatalf("over %v", over)
	}
	mask := resource.Mask(1<<resource.VCoreIndex | 1<<resource.MemoryIndex)
	og := q.OverGuaranteed(used, mask)
	if og[resource.VCoreIndex] != 5 || og[resource.MemoryIndex] != 100 {
		t.Fatalf("over guaranteed %v", og)
	}
	used[resource.VCoreIndex] = 1
	if og := q.OverGuaranteed(used, mask); og[resource.VCoreIndex] != 0 {
		t.Fatalf("below guarantee: %v", og)
	}
	if og := q.OverGuaranteed(used, 1<<resource.VCoreIndex); og[resource.MemoryIndex] != 0 {
		t.Fatalf("outside the mask: %v", og)
	}
}
