package app

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/resource"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func vec(cpu, mem int64) resource.Vector {
	var v resource.Vector
	v[resource.VCoreIndex] = cpu
	v[resource.MemoryIndex] = mem
	return v
}

func ask(key string, prio int32, created int, res resource.Vector) *Allocation {
	return &Allocation{Key: key, Priority: prio, Created: t0.Add(time.Duration(created) * time.Second), Res: res}
}

// drain allocates asks in the app's order and returns their keys.
func drain(a *App) []string {
	var out []string
	for x := a.Next(); x != nil; x = a.Next() {
		a.Allocate(x, "n1", t0)
		out = append(out, x.Key)
	}
	return out
}

func TestAskOrderPriorityThenCreation(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	for _, x := range []*Allocation{
		ask("low-old", 0, 1, vec(1, 1)),
		ask("high-new", 10, 5, vec(2, 2)),
		ask("low-new", 0, 3, vec(1, 1)),
		ask("high-old", 10, 2, vec(1, 1)),
		ask("mid", 5, 0, vec(3, 3)),
		ask("low-oldest", 0, 0, vec(4, 4)),
	} {
		if err := a.AddAsk(x); err != nil {
			t.Fatal(err)
		}
	}
	if got := a.Priority(); got != 10 {
		t.Fatalf("Priority = %d, want 10", got)
	}
	want := []string{"high-old", "high-new", "mid", "low-oldest", "low-old", "low-new"}
	if got := drain(a); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if a.PendingCount() != 0 || a.AllocatedCount() != 6 || !a.Pending.IsZero() {
		t.Fatalf("pending %d %v allocated %d", a.PendingCount(), a.Pending, a.AllocatedCount())
	}
	if got := a.Priority(); got != math.MinInt32 {
		t.Fatalf("Priority with nothing pending = %d", got)
	}
	if want := vec(12, 12); a.Allocated != want {
		t.Fatalf("Allocated = %v, want %v", a.Allocated, want)
	}
}

func TestSameCreationTimeKeepsArrivalOrder(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	for i := range 5 {
		// alternate shapes so the asks land in two classes
		if err := a.AddAsk(ask(fmt.Sprint(i), 0, 0, vec(int64(1+i%2), 1))); err != nil {
			t.Fatal(err)
		}
	}
	if got := drain(a); !slices.Equal(got, []string{"0", "1", "2", "3", "4"}) {
		t.Fatalf("order %v", got)
	}
}

func TestBadAsksRejectedWithoutChange(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	if err := a.AddAsk(ask("a", 0, 0, vec(1, 1))); err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string]*Allocation{
		"duplicate": ask("a", 0, 0, vec(1, 1)),
		"empty":     ask("b", 0, 0, resource.Vector{}),
		"negative":  ask("c", 0, 0, vec(-1, 5)),
		"has node":  {Key: "d", NodeID: "n1", Res: vec(1, 1)},
	} {
		if err := a.AddAsk(x); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if a.PendingCount() != 1 || a.Pending != vec(1, 1) {
		t.Fatalf("state changed: %d pending, %v", a.PendingCount(), a.Pending)
	}
	if _, err := a.UpdateAsk("a", vec(0, 0)); err == nil {
		t.Fatal("update to empty accepted")
	}
	if _, err := a.UpdateAsk("zz", vec(1, 1)); err == nil {
		t.Fatal("update of unknown key accepted")
	}
}

func TestDeferAndEndPass(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	a.AddAsk(ask("big1", 5, 0, vec(100, 100)))
	a.AddAsk(ask("big2", 5, 1, vec(100, 100)))
	a.AddAsk(ask("small", 0, 2, vec(1, 1)))
	x := a.Next()
	if x.Key != "big1" {
		t.Fatalf("Next = %s", x.Key)
	}
	a.Defer(x) // the big class does not fit this pass
	if x := a.Next(); x == nil || x.Key != "small" {
		t.Fatalf("after defer Next = %v, want small", x)
	}
	a.Allocate(a.Next(), "n", t0)
	if x := a.Next(); x != nil {
		t.Fatalf("Next = %s, want nil (big class deferred)", x.Key)
	}
	a.EndPass()
	if x := a.Next(); x == nil || x.Key != "big1" {
		t.Fatalf("after EndPass Next = %v, want big1", x)
	}
}

func TestRemoveAndUpdateKeepAccounting(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	a := Create("app", "u", nil, nil, t0)
	live := map[string]*Allocation{}
	for i := range 2000 {
		switch op := rng.IntN(6); {
		case op < 3:
			x := ask(fmt.Sprint("k", i), int32(rng.IntN(3)), rng.IntN(50), vec(int64(1+rng.IntN(3)), 1))
			if err := a.AddAsk(x); err != nil {
				t.Fatal(err)
			}
			live[x.Key] = x
		case op == 3:
			if x := a.Next(); x != nil {
				a.Allocate(x, "n", t0)
			}
		case op == 4:
			for k := range live {
				a.Remove(k, t0)
				delete(live, k)
				break
			}
		default:
			for k := range live {
				if _, err := a.UpdateAsk(k, vec(int64(1+rng.IntN(3)), 2)); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
		var pend, alloc resource.Vector
		np, na := 0, 0
		for _, x := range live {
			if x.Pending() {
				pend = pend.Add(x.Res)
				np++
			} else {
				alloc = alloc.Add(x.Res)
				na++
			}
		}
		if pend != a.Pending || alloc != a.Allocated || np != a.PendingCount() || na != a.AllocatedCount() {
			t.Fatalf("step %d: app says pending %v/%d allocated %v/%d, recomputed %v/%d %v/%d",
				i, a.Pending, a.PendingCount(), a.Allocated, a.AllocatedCount(), pend, np, alloc, na)
		}
	}
	// whatever is left comes out in priority, then creation order
	var last *Allocation
	for x := a.Next(); x != nil; x = a.Next() {
		if last != nil && (x.Priority > last.Priority || x.Priority == last.Priority && askBefore(x, last)) {
			t.Fatalf("%s (p%d %v) after %s (p%d %v)", x.Key, x.Priority, x.Created, last.Key, last.Priority, last.Created)
		}
		a.Allocate(x, "n", t0)
		last = x
	}
}

func TestStateMachine(t *testing.T) {
	cases := []struct {
		from State
		ev   Event
		to   State
		ok   bool
	}{
		{New, RejectEvent, Rejected, true},
		{New, RunEvent, Accepted, true},
		{Resuming, RunEvent, Accepted, true},
		{Accepted, RunEvent, Running, true},
		{Completing, RunEvent, Running, true},
		{Accepted, CompleteEvent, Completing, true},
		{Running, CompleteEvent, Completing, true},
		{Completing, CompleteEvent, Completed, true},
		{Running, FailEvent, Failing, true},
		{Failing, FailEvent, Failed, true},
		{Accepted, ResumeEvent, Resuming, true},
		{Completed, ExpireEvent, Expired, true},
		{Rejected, ExpireEvent, Expired, true},
		{Running, RejectEvent, Running, false},
		{Completed, RunEvent, Completed, false},
		{Running, ResumeEvent, Running, false},
		{New, CompleteEvent, New, false},
		{Running, ExpireEvent, Running, false},
	}
	for _, c := range cases {
		a := Create("a", "u", nil, nil, t0)
		a.State = c.from
		changed, err := a.Fire(c.ev, t0.Add(time.Second))
		if (err == nil) != c.ok || a.State != c.to {
			t.Errorf("%s --%s--> %s err=%v, want %s ok=%v", c.from, c.ev, a.State, err, c.to, c.ok)
		}
		if c.ok && !changed {
			t.Errorf("%s --%s--> not reported as a change", c.from, c.ev)
		}
	}
	a := Create("a", "u", nil, nil, t0)
	a.Fire(RunEvent, t0.Add(time.Second))
	a.Fire(RunEvent, t0.Add(2*time.Second))
	if changed, _ := a.Fire(RunEvent, t0.Add(3*time.Second)); changed {
		t.Fatal("Running -> Running reported as a change")
	}
	// the log holds the transitions, New not among them (the reference's)
	if !a.StartTime.Equal(t0.Add(2*time.Second)) || len(a.StateLog) != 2 || a.StateLog[0].State != Accepted || a.StateLog[1].State != Running {
		t.Fatalf("start %v log %v", a.StartTime, a.StateLog)
	}
}

func BenchmarkNextAllocate(b *testing.B) {
	a := Create("app", "u", nil, nil, t0)
	for i := range b.N {
		a.AddAsk(ask(fmt.Sprint(i), 0, i, vec(1000, 1<<30)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a.Allocate(a.Next(), "n", t0)
	}
}

func TestMaxAllocatedIsAHighWaterMark(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	for _, x := range []*Allocation{ask("a", 0, 0, vec(2, 10)), ask("b", 0, 1, vec(1, 30)), ask("c", 0, 2, vec(4, 1))} {
		if err := a.AddAsk(x); err != nil {
			t.Fatal(err)
		}
	}
	step := func(want resource.Vector) {
		t.Helper()
		if a.MaxAllocated != want {
			t.Fatalf("MaxAllocated = %v, want %v (allocated %v)", a.MaxAllocated, want, a.Allocated)
		}
	}
	if !a.MaxAllocated.IsZero() {
		t.Fatalf("MaxAllocated = %v before any allocation", a.MaxAllocated)
	}
	a.Allocate(a.Next(), "n1", t0) // a
	step(vec(2, 10))
	a.Allocate(a.Next(), "n1", t0) // b
	step(vec(3, 40))
	a.Remove("a", t0) // allocated 1,30: the mark stays
	step(vec(3, 40))
	a.Allocate(a.Next(), "n1", t0) // c: allocated 5,31; vcore goes up, memory stays
	step(vec(5, 40))
	if _, err := a.UpdateAsk("b", vec(1, 50)); err != nil { // resize: allocated 5,51
		t.Fatal(err)
	}
	step(vec(5, 51))
	a.Remove("b", t0)
	a.Remove("c", t0)
	if !a.Allocated.IsZero() {
		t.Fatalf("allocated %v after releasing everything", a.Allocated)
	}
	step(vec(5, 51))
	// a recovered allocation counts too
	if err := a.AddAllocation(&Allocation{Key: "r", NodeID: "n1", Res: vec(6, 1)}); err != nil {
		t.Fatal(err)
	}
	step(vec(6, 51))
}

// A requeued allocation is a pending ask again in its creation-time place,
// its totals move back, a placeholder is no longer available for a
// replacement and its task group does not count it twice.
func TestRequeue(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	for _, x := range []*Allocation{ask("old", 0, 1, vec(1, 1)), ask("new", 0, 2, vec(1, 1))} {
		if err := a.AddAsk(x); err != nil {
			t.Fatal(err)
		}
	}
	ph := &Allocation{Key: "ph", Created: t0, Res: vec(2, 2), Placeholder: true, TaskGroup: "tg"}
	if err := a.AddAsk(ph); err != nil {
		t.Fatal(err)
	}
	old, _ := a.Allocation("old")
	if err := a.Requeue(old, t0); err == nil {
		t.Error("requeue of a pending ask: want an error")
	}
	a.Allocate(ph, "n1", t0)
	a.Allocate(old, "n1", t0)
	old.SetAvoid("n9")
	if err := a.Requeue(old, t0.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := a.Requeue(ph, t0.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if !old.Pending() || old.NodeID != "" || !old.Allocated.IsZero() || a.AllocatedCount() != 0 || a.PendingCount() != 3 {
		t.Errorf("after requeue: pending %v node %q, app %d allocated %d pending", old.Pending(), old.NodeID, a.AllocatedCount(), a.PendingCount())
	}
	if a.Allocated.AnyPositive() || a.PlaceholderAllocated.AnyPositive() || a.Pending != vec(4, 4) {
		t.Errorf("totals: allocated %v placeholders %v pending %v", a.Allocated, a.PlaceholderAllocated, a.Pending)
	}
	if a.Placeholder("tg") != nil || a.TaskGroups["tg"].Count != 1 {
		t.Errorf("placeholder still available (%v) or task group recounted (%d)", a.Placeholder("tg"), a.TaskGroups["tg"].Count)
	}
	if len(a.History.Used) == 0 || len(a.History.Placeholder) == 0 {
		t.Errorf("the time held is not in the history: %+v", a.History)
	}
	if got := drain(a); !slices.Equal(got, []string{"ph", "old", "new"}) {
		t.Errorf("order after requeue %v, want [ph old new]", got)
	}
	if old.Avoid() != "" {
		t.Errorf("avoid %q kept after the next placement", old.Avoid())
	}
}

// An application fed and drained in turns (asks arriving while passes
// run) reuses the class that emptied: the FIFO keeps its room, so a new
// ask of the same shape costs no class, and order and reasons start afresh.
func TestEmptiedClassIsReused(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	asks := make([]*Allocation, 64)
	for i := range asks {
		asks[i] = ask(fmt.Sprint("k", i), 0, i, vec(1000, 1<<30))
	}
	feed := func() {
		for _, x := range asks {
			a.enqueue(x)
		}
		a.SetWhy(asks[0], Reason{Kind: NoNodeFits})
		for x := a.Next(); x != nil; x = a.Next() {
			a.dequeue(x)
		}
	}
	feed()
	if n := testing.AllocsPerRun(20, feed); n != 0 {
		t.Errorf("feeding and draining an application allocates %v objects, want 0", n)
	}
	// a reused class starts empty: no reasons from its previous asks
	x := ask("fresh", 0, 100, vec(1000, 1<<30))
	a.enqueue(x)
	if got := a.Log(x); len(got) != 0 {
		t.Errorf("a fresh ask in a reused class has the log %v", got)
	}
	if a.Next() != x || a.PendingCount() != 1 {
		t.Errorf("the reused class does not hold exactly the fresh ask")
	}
}

// holds, the in-place comparison enqueue makes with the last class, agrees
// with building the key: asks differing in any one of its fields join
// different classes, asks equal in all of them one class.
func TestClassKeyHolds(t *testing.T) {
	base := Allocation{Key: "k", Res: vec(1, 2), Priority: 3, RequiredNode: "n", TaskGroup: "tg", Placeholder: true}
	variants := []func(*Allocation){
		func(x *Allocation) {},
		func(x *Allocation) { x.Res[resource.MemoryIndex]++ },
		func(x *Allocation) { x.Res[5] = 1 },
		func(x *Allocation) { x.Priority++ },
		func(x *Allocation) { x.RequiredNode = "m" },
		func(x *Allocation) { x.TaskGroup = "" },
		func(x *Allocation) { x.Placeholder = false },
		func(x *Allocation) { x.Key, x.Seq, x.Created = "other", 9, t0 }, // not part of the key
	}
	k := keyOf(&base)
	for i, change := range variants {
		x := base
		change(&x)
		if got, want := k.holds(&x), keyOf(&x) == k; got != want {
			t.Errorf("variant %d: holds %v, keys equal %v", i, got, want)
		}
	}
	a := Create("app", "u", nil, nil, t0)
	for i, change := range variants {
		x := base
		change(&x)
		x.Key = fmt.Sprint("k", i)
		if err := a.AddAsk(&x); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.classes) != len(variants)-1 {
		t.Errorf("%d classes for %d keys", len(a.classes), len(variants)-1)
	}
}

// An ask created before every pending ask of its class heads the class,
// and the class takes its place among the others by it, also when asks
// that left the class (removed, moved by a resize) are still in its FIFO.
func TestOlderAskHeadsItsClass(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	for _, x := range []*Allocation{
		ask("b-5", 0, 5, vec(2, 2)),
		ask("a-3", 0, 3, vec(1, 1)),
		ask("a-4", 0, 4, vec(1, 1)),
		ask("a-6", 0, 6, vec(1, 1)),
	} {
		if err := a.AddAsk(x); err != nil {
			t.Fatal(err)
		}
	}
	// a-3 leaves by removal and a-4 by a resize into b's class: both
	// stay in a's FIFO as stale entries before a-6
	if _, ok := a.Remove("a-3", t0); !ok {
		t.Fatal("a-3 not removed")
	}
	if _, err := a.UpdateAsk("a-4", vec(2, 2)); err != nil {
		t.Fatal(err)
	}
	if got := a.Next(); got == nil || got.Key != "a-4" {
		t.Fatalf("next %v, want a-4 (created at 4, now in b's class)", got)
	}
	for _, x := range []*Allocation{
		ask("a-2", 0, 2, vec(1, 1)), // before every live ask of a: a heads the app
		ask("a-7", 0, 7, vec(1, 1)),
		ask("b-1", 0, 1, vec(2, 2)), // b heads again
	} {
		if err := a.AddAsk(x); err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"a-2": "a-2", "a-7": "a-2", "b-1": "b-1"}[x.Key]; a.Next().Key != want {
			t.Fatalf("after %s next %s, want %s", x.Key, a.Next().Key, want)
		}
	}
	want := []string{"b-1", "a-2", "a-4", "b-5", "a-6", "a-7"}
	if got := drain(a); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// TestEmptiedClassIsFresh uses a class to the full (asks out of order,
// reasons, told marks, a deferral), empties it, and checks that the class
// kept for reuse is a new class of its key with its storage kept, and that
// an ask taken in next starts from it as from a new one.
func TestEmptiedClassIsFresh(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	xs := []*Allocation{ask("b", 1, 2, vec(1, 1)), ask("a", 1, 1, vec(1, 1)), ask("c", 1, 3, vec(1, 1))}
	for _, x := range xs {
		if err := a.AddAsk(x); err != nil {
			t.Fatal(err)
		}
	}
	c := xs[0].class
	a.Visit(t0)
	a.SetWhy(xs[0], Reason{Kind: NoNodeFits})
	a.Tell(xs[0], ToldQuota, func(*Allocation) {})
	a.Defer(xs[0])
	a.EndPass()
	if got := drain(a); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("drained %v", got)
	}
	if a.spare != c {
		t.Fatalf("the emptied class is not kept")
	}
	want := class{key: c.key, asks: c.asks[:0], log: c.log[:0], index: -1}
	if fmt.Sprintf("%+v", *c) != fmt.Sprintf("%+v", want) || cap(c.asks) == 0 {
		t.Fatalf("emptied class %+v, want %+v with room kept", *c, want)
	}
	for _, e := range c.asks[:cap(c.asks)] {
		if e != (entry{}) {
			t.Fatalf("an emptied class still holds ask %s", e.a.Key)
		}
	}
	y := ask("d", 1, 4, vec(1, 1))
	if err := a.AddAsk(y); err != nil {
		t.Fatal(err)
	}
	if y.class != c || a.Next() != y || a.Why(y) != (Reason{}) || c.told != [toldKinds]int32{} {
		t.Fatalf("the reused class does not start afresh: %+v", *c)
	}
}
