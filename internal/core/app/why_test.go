package app

import (
	"fmt"
	"testing"
	"time"
)

func TestAllocationLogCountsRepeatedReasons(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	x := ask("x", 0, 0, vec(1, 1))
	if err := a.AddAsk(x); err != nil {
		t.Fatal(err)
	}
	if l := a.Log(x); len(l) != 0 {
		t.Fatalf("log %v before any pass", l)
	}
	noFit := Reason{Kind: NoNodeFits}
	for pass := range 3 {
		a.Visit(t0.Add(time.Duration(pass) * time.Second))
		a.SetWhy(x, noFit)
	}
	l := a.Log(x)
	if len(l) != 1 || l[0].Reason != noFit || l[0].Count != 3 || !l[0].Last.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("log %+v, want NoNodeFits 3 times, last at +2s", l)
	}
	queueMax := Reason{Kind: QueueMax, Object: "root.a"}
	a.Visit(t0.Add(5 * time.Second))
	a.SetWhyAll(queueMax)
	a.Visit(t0.Add(6 * time.Second))
	a.SetWhy(x, noFit)
	l = a.Log(x)
	if len(l) != 2 || l[0].Reason != noFit || l[0].Count != 4 || l[1].Reason != queueMax || l[1].Count != 1 {
		t.Fatalf("log %+v, want NoNodeFits 4 then QueueMax 1, latest first", l)
	}
	// repeating a known reason allocates nothing
	if n := testing.AllocsPerRun(100, func() { a.SetWhy(x, queueMax) }); n != 0 {
		t.Fatalf("%v allocations per repeated reason", n)
	}
}

func TestAllocationLogOfALaterAsk(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	x, y := ask("x", 0, 0, vec(1, 1)), ask("y", 0, 1, vec(1, 1)) // one class
	if err := a.AddAsk(x); err != nil {
		t.Fatal(err)
	}
	noFit := Reason{Kind: NoNodeFits}
	for range 5 {
		a.SetWhy(x, noFit)
	}
	if err := a.AddAsk(y); err != nil {
		t.Fatal(err)
	}
	if l := a.Log(y); len(l) != 0 {
		t.Fatalf("log of y %+v: nothing happened since it joined", l)
	}
	a.SetWhy(x, noFit)
	a.SetWhy(x, noFit)
	if l := a.Log(y); len(l) != 1 || l[0].Count != 2 {
		t.Fatalf("log of y %+v, want NoNodeFits twice", l)
	}
	if l := a.Log(x); len(l) != 1 || l[0].Count != 7 {
		t.Fatalf("log of x %+v, want NoNodeFits 7 times", l)
	}
}

func TestAllocationLogIsBounded(t *testing.T) {
	a := Create("app", "u", nil, nil, t0)
	x := ask("x", 0, 0, vec(1, 1))
	if err := a.AddAsk(x); err != nil {
		t.Fatal(err)
	}
	for i := range MaxLog + 3 {
		a.Visit(t0.Add(time.Duration(i) * time.Second))
		a.SetWhy(x, Reason{Kind: QueueMax, Object: fmt.Sprint("root.q", i)})
	}
	l := a.Log(x)
	if len(l) != MaxLog {
		t.Fatalf("%d entries, want %d", len(l), MaxLog)
	}
	// the three oldest went; the newest is first
	if l[0].Reason.Object != fmt.Sprint("root.q", MaxLog+2) || l[MaxLog-1].Reason.Object != "root.q3" {
		t.Fatalf("log %+v", l)
	}
}
