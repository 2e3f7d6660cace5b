package main

import (
	"context"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// renewals is the Lease lock with each successful acquisition or renewal
// by this replica reported: the core's gate closes by itself at the
// attempt's start plus the renew deadline (LeadUntil). Other replicas
// time the Lease from when they see it change, which is after the attempt
// started; so the core stops deciding at least lease duration - renew
// deadline before any of them can acquire it, whatever happens to this
// process's renewals.
//
// A renewal that succeeds after the previous deadline passed (the API
// server slow to answer) ends a lapse: the core paused at the deadline and
// resumes with the new one. It is reported to lapsed with how late it
// came, so that a leader that keeps lapsing shows in its log.
type renewals struct {
	resourcelock.Interface
	deadline  time.Duration
	leadUntil func(time.Time)
	lapsed    func(late time.Duration)
	until     time.Time // the deadline last reported
}

func (r *renewals) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	start := time.Now()
	err := r.Interface.Create(ctx, ler)
	r.held(start, ler, err)
	return err
}

func (r *renewals) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	start := time.Now()
	err := r.Interface.Update(ctx, ler)
	r.held(start, ler, err)
	return err
}

// held moves the deadline after a write that left this replica holding
// the Lease (not the release, which writes an empty holder).
func (r *renewals) held(start time.Time, ler resourcelock.LeaderElectionRecord, err error) {
	if err != nil || ler.HolderIdentity == "" || ler.HolderIdentity != r.Identity() {
		return
	}
	if late := time.Since(r.until); !r.until.IsZero() && late > 0 && r.lapsed != nil {
		r.lapsed(late)
	}
	r.until = start.Add(r.deadline)
	r.leadUntil(r.until)
}
