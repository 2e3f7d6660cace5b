package main

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// testCandidate is a candidate for the Lease ns/paddock on kube whose
// retry period is an hour: after its first try, only a release it sees
// makes it try again within a test's life.
func testCandidate(kube *fake.Clientset, id string) (*candidate, chan string, chan string) {
	events, leaders := make(chan string, 8), make(chan string, 8)
	return &candidate{
		kube: kube, name: "paddock", namespace: "ns",
		config: leaderelection.LeaderElectionConfig{
			Lock: &resourcelock.LeaseLock{
				LeaseMeta:  metav1.ObjectMeta{Name: "paddock", Namespace: "ns"},
				Client:     kube.CoordinationV1(),
				LockConfig: resourcelock.ResourceLockConfig{Identity: id},
			},
			LeaseDuration:   4 * time.Hour,
			RenewDeadline:   3 * time.Hour,
			RetryPeriod:     time.Hour,
			ReleaseOnCancel: true,
			Name:            "paddock",
		},
		lead:      func(context.Context) { events <- "lead" },
		stopped:   func() { events <- "stopped" },
		newLeader: func(id string) { leaders <- id },
	}, events, leaders
}

// next waits for a candidate's next callback; the bound only keeps a
// broken candidate from hanging the test (its retry period is an hour).
func next(t *testing.T, events chan string, who string) string {
	t.Helper()
	select {
	case e := <-events:
		return e
	case <-time.After(time.Minute):
		t.Fatalf("%s: no callback", who)
		return ""
	}
}

type runResult struct {
	led bool
	err error
}

func start(ctx context.Context, c *candidate) chan runResult {
	out := make(chan runResult, 1)
	go func() {
		led, err := c.run(ctx)
		out <- runResult{led, err}
	}()
	return out
}

// aLeads starts candidate a on kube and waits until it leads.
func aLeads(t *testing.T, kube *fake.Clientset) (chan string, chan runResult, context.CancelFunc) {
	t.Helper()
	a, aEvents, _ := testCandidate(kube, "a")
	actx, stopA := context.WithCancel(context.Background())
	aDone := start(actx, a)
	if e := next(t, aEvents, "a"); e != "lead" {
		stopA()
		t.Fatalf("a: %s, want lead", e)
	}
	return aEvents, aDone, stopA
}

// A standby whose elector waits out an hour-long retry period takes the
// Lease as soon as the leader releases it, in a second attempt; the old
// leader's run ends as a leadership (stopped called once), the standby's
// does not while it leads.
func TestStandbyRunsAgainOnRelease(t *testing.T) {
	kube := fake.NewClientset()
	aEvents, aDone, stopA := aLeads(t, kube)
	defer stopA()
	b, bEvents, bLeaders := testCandidate(kube, "b")
	bctx, stopB := context.WithCancel(context.Background())
	defer stopB()
	bDone := start(bctx, b)
	// b reads the Lease held by a, then waits for its retry
	if id := next(t, bLeaders, "b"); id != "a" {
		t.Fatalf("b saw %q lead, want a", id)
	}
	select {
	case e := <-bEvents:
		t.Fatalf("b: %s while a holds the Lease", e)
	default:
	}
	stopA() // a graceful stop: a releases the Lease
	if e := next(t, aEvents, "a"); e != "stopped" {
		t.Fatalf("a: %s, want stopped", e)
	}
	if r := <-aDone; !r.led || r.err != nil {
		t.Fatalf("a's run: %+v, want led", r)
	}
	if e := next(t, bEvents, "b"); e != "lead" {
		t.Fatalf("b: %s, want lead", e)
	}
	if got := b.attempts.Load(); got != 2 {
		t.Fatalf("b made %d attempts, want 2 (the first, and one on the release)", got)
	}
	if h := holder(t, kube); h != "b" {
		t.Fatalf("the Lease's holder is %q, want b", h)
	}
	select {
	case r := <-bDone:
		t.Fatalf("b's run ended while it leads: %+v", r)
	default:
	}
	stopB()
	if r := <-bDone; !r.led || r.err != nil {
		t.Fatalf("b's run: %+v, want led", r)
	}
}

// A standby stopped before it ever led ends its run without a leadership
// and without calling stopped.
func TestStandbyStopsWithoutLeading(t *testing.T) {
	kube := fake.NewClientset()
	_, _, stopA := aLeads(t, kube)
	defer stopA()
	b, bEvents, bLeaders := testCandidate(kube, "b")
	bctx, stopB := context.WithCancel(context.Background())
	bDone := start(bctx, b)
	if id := next(t, bLeaders, "b"); id != "a" {
		t.Fatalf("b saw %q lead, want a", id)
	}
	stopB()
	if r := <-bDone; r.led || r.err != nil {
		t.Fatalf("b's run: %+v, want not led", r)
	}
	select {
	case e := <-bEvents:
		t.Fatalf("b: %s, never having led", e)
	default:
	}
	if h := holder(t, kube); h != "a" {
		t.Fatalf("the Lease's holder is %q, want a", h)
	}
}

// An invalid configuration is an error of run, not a panic.
func TestCandidateBadConfig(t *testing.T) {
	c, _, _ := testCandidate(fake.NewClientset(), "a")
	c.config.RenewDeadline = c.config.LeaseDuration
	if _, err := c.run(context.Background()); err == nil {
		t.Fatal("a renew deadline equal to the lease duration was accepted")
	}
}

func holder(t *testing.T, kube *fake.Clientset) string {
	t.Helper()
	l, err := kube.CoordinationV1().Leases("ns").Get(context.Background(), "paddock", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
