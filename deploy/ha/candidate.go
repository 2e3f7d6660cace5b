package main

import (
	"context"
	"sync/atomic"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
)

// candidate runs a replica for the Lease with client-go's leader elector,
// and watches the Lease meanwhile: when it sees the Lease released (a
// leader stopped gracefully and wrote an empty holder) or deleted while it
// does not lead, it starts a new attempt at once instead of waiting out the
// elector's retry period (up to 1.2 of it, with the elector's jitter). A
// new attempt reads the Lease afresh and acquires it only if it is free or
// expired, by the same optimistic write (the Lease's resourceVersion) as
// any attempt, so two replicas that see the release both try and one wins.
// A Lease that is held and renewed gives no new attempt: an attempt's
// clock for an expiry starts when it first reads the holder, and a new one
// would wait longer, not shorter.
type candidate struct {
	kube kubernetes.Interface
	// name and namespace are the Lease's
	name, namespace string
	// config is the elector's: lock, timings, ReleaseOnCancel; its
	// callbacks are run's own
	config leaderelection.LeaderElectionConfig
	// lead runs when the replica has acquired the Lease, on its own
	// goroutine, with a context that ends when the leadership does
	lead func(context.Context)
	// stopped runs once when a leadership that lead began has ended
	stopped func()
	// newLeader reports the holder whenever the elector sees it change
	newLeader func(identity string)
	// attempts counts the elector runs begun (the first and every one a
	// release started); read by the tests
	attempts atomic.Int32
}

// elector is a new elector on c.config whose callbacks record in won
// whether it acquired the Lease.
func (c *candidate) elector(won *atomic.Bool) (*leaderelection.LeaderElector, error) {
	cfg := c.config
	cfg.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(lctx context.Context) {
			won.Store(true)
			c.lead(lctx)
		},
		OnStoppedLeading: func() {
			if won.Load() {
				c.stopped()
			}
		},
		OnNewLeader: c.newLeader,
	}
	return leaderelection.NewLeaderElector(cfg)
}

// run runs for the Lease until ctx ends (a held Lease is then released) or
// until a leadership it won has ended; it tells which. Its error is the
// elector's configuration's.
func (c *candidate) run(ctx context.Context) (led bool, err error) {
	released := make(chan struct{}, 1)
	watch, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	c.watchReleases(watch, released)
	for {
		var won atomic.Bool
		el, err := c.elector(&won)
		if err != nil {
			return false, err
		}
		attempt, stop := context.WithCancel(ctx)
		c.attempts.Add(1)
		done := make(chan struct{})
		go func() {
			defer close(done)
			el.Run(attempt)
		}()
	wait:
		select {
		case <-done:
			stop()
			return won.Load(), nil
		case <-released:
			if won.Load() || el.IsLeader() {
				goto wait // its own release, or a stale event: it leads on
			}
			stop()
			<-done
			if won.Load() || ctx.Err() != nil {
				// it won just before the stop, which released it again
				return won.Load(), nil
			}
		}
	}
}

// watchReleases sends on released (without blocking) whenever the Lease is
// seen free: its holder empty, or the Lease deleted.
func (c *candidate) watchReleases(ctx context.Context, released chan<- struct{}) {
	name := c.name
	factory := informers.NewSharedInformerFactoryWithOptions(c.kube, 0, informers.WithNamespace(c.namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + name }))
	free := func(obj any) {
		l, ok := obj.(*coordinationv1.Lease)
		if !ok || l.Name != name {
			return
		}
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		if holder == "" {
			poke(released)
		}
	}
	_, _ = factory.Coordination().V1().Leases().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    free,
		UpdateFunc: func(_, obj any) { free(obj) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if l, ok := obj.(*coordinationv1.Lease); ok && l.Name == name {
				poke(released)
			}
		},
	})
	factory.Start(ctx.Done())
}

func poke(ch chan<- struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
