package clock

import (
	"sync"
	"testing"
	"time"
)

func TestVirtualMovesOnlyForward(t *testing.T) {
	start := time.Date(2011, 5, 1, 23, 0, 0, 0, time.UTC)
	v := NewVirtual(start)
	if !v.Now().Equal(start) {
		t.Fatalf("Now = %v, want %v", v.Now(), start)
	}
	if got := v.Advance(90 * time.Second); !got.Equal(start.Add(90 * time.Second)) {
		t.Fatalf("Advance = %v", got)
	}
	v.Set(start) // backwards: ignored
	if !v.Now().Equal(start.Add(90 * time.Second)) {
		t.Fatalf("clock moved backwards to %v", v.Now())
	}
	v.Advance(-time.Hour) // negative: ignored
	if !v.Now().Equal(start.Add(90 * time.Second)) {
		t.Fatalf("negative advance moved the clock to %v", v.Now())
	}
	v.Set(start.Add(time.Hour))
	if !v.Now().Equal(start.Add(time.Hour)) {
		t.Fatalf("Set forward = %v", v.Now())
	}
}

func TestVirtualConcurrentReaders(t *testing.T) {
	v := NewVirtual(time.Unix(0, 0))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := time.Unix(0, 0)
			for range 1000 {
				now := v.Now()
				if now.Before(last) {
					t.Errorf("time went backwards: %v after %v", now, last)
					return
				}
				last = now
			}
		}()
	}
	for range 1000 {
		v.Advance(time.Millisecond)
	}
	wg.Wait()
	if got := v.Now(); !got.Equal(time.Unix(1, 0).UTC()) {
		t.Fatalf("after 1000 ms Now = %v", got)
	}
}

func TestRealIsNow(t *testing.T) {
	before := time.Now()
	got := Real{}.Now()
	if got.Before(before) || got.After(time.Now()) {
		t.Fatalf("Real.Now = %v outside [%v, now]", got, before)
	}
}
