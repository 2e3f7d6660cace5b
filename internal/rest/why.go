package rest

import (
	"net/http"
	"strconv"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
	"github.com/paddock-sched/paddock/internal/resource"
)

// reasonMessage says a typed pending reason in words.
func reasonMessage(r app.Reason) string {
	switch r.Kind {
	case app.NotTried:
		return "no scheduling pass has considered the ask yet"
	case app.QueueMax:
		return "queue " + r.Object + " would exceed its maximum resources"
	case app.MaxApplications:
		return "queue " + r.Object + " already runs its maximum number of applications"
	case app.NoNodeFits:
		return "no schedulable node has enough free resources"
	case app.RequiredNodeUnavailable:
		return "the required node " + r.Object + " cannot take the ask"
	case app.UserLimit:
		return "a user or group limit stops it: " + r.Object
	case app.WaitingForGang:
		return "waiting until the application's gang is placed or its placeholders time out"
	case app.Reserved:
		return "node " + r.Object + " is reserved for the ask until enough is released there"
	}
	return r.String()
}

// fit counts, over the schedulable unreserved nodes, those an ask fits and
// those short of each resource.
type fit struct {
	shortOn map[string]int
	fits    int
}

func fitOf(snap *snapshot.Snapshot, p *snapshot.Partition, res resource.Vector) fit {
	f := fit{shortOn: map[string]int{}}
	for _, n := range p.Nodes {
		if !n.Schedulable || n.ReservedFor != nil {
			continue
		}
		short := false
		for i, v := range res {
			if v > 0 && v > n.Available[i] {
				f.shortOn[p.ResourceName(i)]++
				short = true
			}
		}
		if !short {
			f.fits++
		}
	}
	return f
}

// why serves the why view: every pending ask of an application (or the
// one named by {allocation}) with its typed reason and, computed from the
// snapshot's nodes, how many nodes it fits and how many lack each resource.
func (s *server) why(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	a, ok := application(w, r, p)
	if !ok {
		return
	}
	out := WhyInfo{
		ApplicationID: a.ID, Partition: p.Name, QueueName: a.Queue, State: a.State.String(),
		Generation: snap.Generation, SnapshotTime: nanos(snap.Built), Asks: []WhyAsk{},
	}
	if a.BackoffUntil.After(snap.Built) {
		out.BackoffUntil = a.BackoffUntil.UnixNano()
	}
	for _, n := range p.Nodes {
		out.Nodes.Total++
		switch {
		case !n.Schedulable:
			out.Nodes.Unschedulable++
		case n.ReservedFor != nil:
			out.Nodes.Reserved++
		}
	}
	key := r.PathValue("allocation")
	fits := map[resource.Vector]fit{}
	for _, x := range a.Asks {
		if key != "" && x.Key != key {
			continue
		}
		f, ok := fits[x.Res]
		if !ok {
			f = fitOf(snap, p, x.Res)
			fits[x.Res] = f
		}
		out.Asks = append(out.Asks, WhyAsk{
			AllocationKey: x.Key, Resource: p.Map(x.Res), Priority: strconv.Itoa(int(x.Priority)),
			RequestTime: nanos(x.Created), Reason: x.Why.Kind.String(), Object: x.Why.Object,
			Message: reasonMessage(x.Why), ShortOn: f.shortOn, FitNodes: f.fits,
		})
	}
	if key != "" && len(out.Asks) == 0 {
		writeError(w, r, http.StatusNotFound, "Ask not found", "application "+a.ID+" has no pending ask "+key)
		return
	}
	writeJSON(w, r, out)
}
