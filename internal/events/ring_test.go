package events

import (
	"fmt"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/event"
)

func rec(i int) event.Record {
	return event.Record{Type: event.App, Change: event.Add, Detail: event.AppNew, ObjectID: fmt.Sprintf("app-%d", i), Time: int64(i)}
}

func ids(es []Entry) []uint64 {
	out := make([]uint64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestRingDropsOldestAndCounts(t *testing.T) {
	r := NewRing(4)
	if lo, hi, got := r.Range(0, 10); lo != 0 || hi != 0 || got != nil {
		t.Fatalf("empty ring: %d %d %v", lo, hi, got)
	}
	for i := range 6 {
		r.Append(rec(i))
	}
	lo, hi, got := r.Range(0, 10)
	if lo != 2 || hi != 5 || fmt.Sprint(ids(got)) != "[2 3 4 5]" {
		t.Fatalf("range = %d %d %v", lo, hi, ids(got))
	}
	if got[0].Record.ObjectID != "app-2" {
		t.Fatalf("oldest kept record = %s", got[0].Record.ObjectID)
	}
	if r.Dropped() != 2 || r.Len() != 4 {
		t.Fatalf("dropped %d len %d", r.Dropped(), r.Len())
	}
	if _, _, got := r.Range(4, 1); fmt.Sprint(ids(got)) != "[4]" {
		t.Fatalf("range from 4 count 1 = %v", ids(got))
	}
	if _, _, got := r.Range(6, 10); len(got) != 0 {
		t.Fatalf("range past the end = %v", ids(got))
	}
}

func TestRingResizeKeepsNewest(t *testing.T) {
	r := NewRing(5)
	for i := range 5 {
		r.Append(rec(i))
	}
	r.Resize(2)
	if lo, hi, got := r.Range(0, 10); lo != 3 || hi != 4 || len(got) != 2 {
		t.Fatalf("after shrink: %d %d %v", lo, hi, ids(got))
	}
	if r.Dropped() != 3 {
		t.Fatalf("dropped = %d", r.Dropped())
	}
	r.Resize(10)
	r.Append(rec(5))
	if _, _, got := r.Range(0, 10); fmt.Sprint(ids(got)) != "[3 4 5]" || r.Capacity() != 10 {
		t.Fatalf("after grow: %v cap %d", ids(got), r.Capacity())
	}
	r.Resize(0) // ignored
	if r.Capacity() != 10 {
		t.Fatalf("Resize(0) changed the capacity to %d", r.Capacity())
	}
}

func TestSlowSubscriptionIsCutNotWaitedFor(t *testing.T) {
	r := NewRing(100)
	sub, _, err := r.subscribe("h", 0, 3, 10, 10, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		for i := range 50 { // nobody reads sub: this must not block
			r.Append(rec(i))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Append blocked on a slow subscription")
	}
	select {
	case <-sub.done:
	default:
		t.Fatal("slow subscription not closed")
	}
	if !r.unsubscribe(sub) {
		t.Fatal("subscription not reported slow")
	}
	if recs, slow := r.read(sub, 100); !slow || recs != nil {
		t.Fatalf("a cut subscription read %d records, slow %v", len(recs), slow)
	}
}

// A subscription reads what arrived since it opened, in batches, from the
// ring itself; one whose next record the ring overwrote is cut off.
func TestSubscriptionReadsTheRing(t *testing.T) {
	r := NewRing(10)
	r.Append(rec(0))
	sub, back, err := r.subscribe("h", 5, 100, 10, 10, time.Now())
	if err != nil || len(back) != 1 {
		t.Fatalf("subscribe: %v, back-log %d", err, len(back))
	}
	for i := 1; i <= 6; i++ {
		r.Append(rec(i))
	}
	select {
	case <-sub.wake:
	default:
		t.Fatal("no wake-up after appends")
	}
	first, _ := r.read(sub, 4)
	rest, _ := r.read(sub, 4)
	if len(first) != 4 || len(rest) != 2 || first[0].ID != 1 || rest[1].ID != 6 {
		t.Fatalf("read %v then %v, want IDs 1-4 then 5-6", first, rest)
	}
	if none, slow := r.read(sub, 4); len(none) != 0 || slow {
		t.Fatalf("read %v, slow %v after everything", none, slow)
	}
	for i := 7; i < 30; i++ { // the ring of 10 overwrites 7..19
		r.Append(rec(i))
	}
	if _, slow := r.read(sub, 4); !slow {
		t.Fatal("a subscription whose records were overwritten is not cut off")
	}
}

func TestSubscribeLimits(t *testing.T) {
	r := NewRing(10)
	for i := range 5 {
		r.Append(rec(i))
	}
	a, back, err := r.subscribe("a", 2, 10, 3, 2, time.Now())
	if err != nil || fmt.Sprint(ids(back)) != "[3 4]" {
		t.Fatalf("first: %v %v", ids(back), err)
	}
	if _, _, err := r.subscribe("a", 0, 10, 3, 2, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.subscribe("a", 0, 10, 3, 2, time.Now()); err != errTooManyForHost {
		t.Fatalf("third from host a: %v", err)
	}
	if _, _, err := r.subscribe("b", 0, 10, 3, 2, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.subscribe("c", 0, 10, 3, 2, time.Now()); err != errTooManyStreams {
		t.Fatalf("fourth stream: %v", err)
	}
	r.unsubscribe(a)
	if _, _, err := r.subscribe("c", 0, 10, 3, 2, time.Now()); err != nil {
		t.Fatalf("after a stream closed: %v", err)
	}
	r.closeStreams()
	if _, _, err := r.subscribe("d", 0, 10, 3, 2, time.Now()); err != errRingClosed {
		t.Fatalf("after close: %v", err)
	}
	r.Append(rec(9)) // still works with no streams
	if r.Len() != 6 {
		t.Fatalf("len %d", r.Len())
	}
}

func BenchmarkAppend(b *testing.B) {
	r := NewRing(DefaultRingCapacity)
	x := rec(1)
	b.ReportAllocs()
	for b.Loop() {
		r.Append(x)
	}
}

func TestRingGrowsToCapacityInOrder(t *testing.T) {
	r := NewRing(3000)
	for i := range 5000 {
		r.Append(rec(i))
	}
	lo, hi, got := r.Range(0, 5000)
	if lo != 2000 || hi != 4999 || len(got) != 3000 || r.Dropped() != 2000 {
		t.Fatalf("bounds %d %d, %d records, %d dropped", lo, hi, len(got), r.Dropped())
	}
	for i, e := range got {
		if e.ID != uint64(2000+i) || e.Record.ObjectID != fmt.Sprintf("app-%d", 2000+i) {
			t.Fatalf("record %d: id %d %s", i, e.ID, e.Record.ObjectID)
		}
	}
	r.Resize(1500)
	if lo, hi, got := r.Range(0, 5000); lo != 3500 || hi != 4999 || len(got) != 1500 || got[0].Record.ObjectID != "app-3500" {
		t.Fatalf("after shrink: %d %d %d", lo, hi, len(got))
	}
	r.Append(rec(5000))
	if lo, hi, _ := r.Range(0, 1); lo != 3501 || hi != 5000 {
		t.Fatalf("after shrink and append: %d %d", lo, hi)
	}
}
