package rmproxy

import (
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

func (r *bindRig) ask(keys ...string) {
	var asks []*si.Allocation
	for _, k := range keys {
		asks = append(asks, &si.Allocation{AllocationKey: k, ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(1000, 1<<30)})
	}
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: asks})
}

func (r *bindRig) release(appID, key string, tt si.TerminationType) {
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{
		AllocationsToRelease: []*si.AllocationRelease{{PartitionName: "default", ApplicationID: appID, AllocationKey: key, TerminationType: tt}},
	}})
}

func (r *bindRig) releasedKeys() map[string]si.TerminationType {
	out := map[string]si.TerminationType{}
	for _, rel := range r.rec.released {
		out[rel.AllocationKey] = rel.TerminationType
	}
	return out
}

// Issue 14 item 1: the RM's own STOPPED_BY_RM releases are confirmed in
// AllocationResponse.released, for one key and for the whole application
// (its allocations; pending asks are not allocations).
func TestRMReleasesAreEchoed(t *testing.T) {
	r := newBindRig(t, "n1")
	r.ask("k1", "k2", "k3")
	r.cycle()
	r.ask("big")
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Allocations: []*si.Allocation{
		{AllocationKey: "huge", ApplicationID: "app1", PartitionName: "default", ResourcePerAlloc: res(64000, 1<<30)},
	}})
	r.cycle()
	r.release("app1", "k1", si.TerminationType_STOPPED_BY_RM)
	r.cycle()
	got := r.releasedKeys()
	if len(got) != 1 || got["k1"] != si.TerminationType_STOPPED_BY_RM {
		t.Fatalf("released %v, want k1 STOPPED_BY_RM", got)
	}
	r.release("app1", "", si.TerminationType_STOPPED_BY_RM)
	r.cycle()
	got = r.releasedKeys()
	for _, k := range []string{"k1", "k2", "k3", "big"} {
		if got[k] != si.TerminationType_STOPPED_BY_RM {
			t.Errorf("%s: released %v, want STOPPED_BY_RM (all: %v)", k, got[k], got)
		}
	}
	if _, ok := got["huge"]; ok {
		t.Errorf("the pending ask huge was echoed as a released allocation")
	}
	if len(r.rec.released) != 4 {
		t.Errorf("%d releases echoed, want 4: %v", len(r.rec.released), r.rec.released)
	}
}
