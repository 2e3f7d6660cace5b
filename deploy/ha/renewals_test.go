package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// lockStub is a Lease lock whose writes fail when err is set.
type lockStub struct {
	resourcelock.Interface
	err error
}

func (l *lockStub) Create(context.Context, resourcelock.LeaderElectionRecord) error { return l.err }
func (l *lockStub) Update(context.Context, resourcelock.LeaderElectionRecord) error { return l.err }
func (l *lockStub) Identity() string                                                { return "me" }

// Only a successful write that leaves this replica holding the Lease
// moves the core's deadline, to the write's start plus the renew
// deadline; a failed one, the release (empty holder) and another
// holder's record do not.
func TestRenewalsMoveTheDeadline(t *testing.T) {
	var got []time.Time
	stub := &lockStub{}
	r := &renewals{Interface: stub, deadline: 2 * time.Second, leadUntil: func(t time.Time) { got = append(got, t) }}
	before := time.Now()
	if err := r.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	if len(got) != 1 || got[0].Before(before.Add(2*time.Second)) || got[0].After(after.Add(2*time.Second)) {
		t.Fatalf("deadlines %v, want one within [%v, %v] + 2s", got, before, after)
	}
	_ = r.Create(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"})
	if len(got) != 2 {
		t.Fatalf("an acquiring Create did not move the deadline: %v", got)
	}
	_ = r.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: ""})
	_ = r.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "other"})
	stub.err = errors.New("apiserver unreachable")
	_ = r.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"})
	if len(got) != 2 {
		t.Fatalf("a release, another holder or a failed renewal moved the deadline: %v", got)
	}
}

// A renewal that succeeds after the deadline the previous one set is
// reported as the end of a lapse, with how late it came; renewals in time
// are not.
func TestRenewalsReportLapses(t *testing.T) {
	var lapses []time.Duration
	r := &renewals{Interface: &lockStub{}, deadline: time.Hour, leadUntil: func(time.Time) {},
		lapsed: func(late time.Duration) { lapses = append(lapses, late) }}
	ler := resourcelock.LeaderElectionRecord{HolderIdentity: "me"}
	_ = r.Create(context.Background(), ler)
	_ = r.Update(context.Background(), ler)
	if len(lapses) != 0 {
		t.Fatalf("renewals in time reported as lapses: %v", lapses)
	}
	r.until = time.Now().Add(-time.Second) // the last deadline passed a second ago
	_ = r.Update(context.Background(), ler)
	if len(lapses) != 1 || lapses[0] < time.Second {
		t.Fatalf("a renewal after the deadline: lapses %v, want one, late by a second or more", lapses)
	}
}
