package rmproxy

import (
	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/resource/siconv"
)

// prepared is what the caller of UpdateAllocation converted of its
// request's asks before queueing it: the conversion reads no core state,
// so it runs on the RM's goroutine (or the gRPC stream's) while the
// service goroutine, which does all of the core's work, applies earlier
// requests. The service goroutine uses a prepared ask as it would the one
// it makes itself (askIntake.add) and converts the others as before.
type prepared struct {
	// reg is the RM's registry the vectors were converted with; they are
	// used only while the RM still has it (a new registration makes a new
	// one, in which the same names may have other indexes).
	reg *resource.Registry
	// asks are the asks made for the request's allocations, by index; nil
	// where the service goroutine converts it: a nil or foreign
	// allocation, or a resource siconv.Known does not convert (a name not
	// interned yet, a bad quantity).
	asks []*app.Allocation
	// hashes are the app.HashKey of the asks' keys, by index (0 where asks
	// is nil), so that the service goroutine does not read the keys to
	// file them.
	hashes []uint64
}

// prepare converts the asks of req with reg, the RM's registry: their
// vectors through the allocation-free path only (siconv.Known: it neither
// interns nor fails), and the fields add fills, in blocks of allocBlock.
// It returns nil when nothing is prepared.
func prepare(reg *resource.Registry, req *si.AllocationRequest) *prepared {
	if reg == nil || len(req.Allocations) == 0 {
		return nil
	}
	pr := &prepared{reg: reg, asks: make([]*app.Allocation, len(req.Allocations)), hashes: make([]uint64, len(req.Allocations))}
	var (
		blk   []app.Allocation
		last  *si.Resource // the last resource message converted, vector lastV
		lastV resource.Vector
		made  bool
	)
	for i, x := range req.Allocations {
		if x == nil {
			continue
		}
		if _, foreign := x.AllocationTags[common.Foreign]; foreign {
			continue
		}
		var res resource.Vector
		if r := x.ResourcePerAlloc; r != nil && r == last {
			res = lastV
		} else if r != nil {
			v, ok := siconv.Known(reg, r)
			if !ok {
				continue
			}
			res, last, lastV = v, r, v
		}
		if len(blk) == 0 {
			blk = make([]app.Allocation, min(len(req.Allocations)-i, allocBlock))
		}
		al := &blk[0]
		blk = blk[1:]
		fillAsk(al, x, res)
		pr.asks[i] = al
		pr.hashes[i] = app.HashKey(x.AllocationKey)
		made = true
	}
	if !made {
		return nil
	}
	return pr
}

// fillAsk fills the zero allocation al with the ask x of resources res.
// Fields are set one by one: a literal would be built and then copied
// whole.
func fillAsk(al *app.Allocation, x *si.Allocation, res resource.Vector) {
	al.Key, al.AppID, al.NodeID = x.AllocationKey, x.ApplicationID, x.NodeID
	al.Res = res
	al.Priority = x.Priority
	al.Placeholder, al.TaskGroup, al.Originator = x.Placeholder, x.TaskGroupName, x.Originator
	al.Tags = x.AllocationTags
	al.RequiredNode = requiredNode(x.AllocationTags)
	al.PreemptSelf, al.PreemptOther = true, true
	al.Origin = x
	if pp := x.PreemptionPolicy; pp != nil {
		al.PreemptSelf, al.PreemptOther = pp.AllowPreemptSelf, pp.AllowPreemptOther
	}
	al.Created = creationTime(x.AllocationTags)
}

// ask is the prepared ask of the request's allocation i, nil for none, and
// its key's hash.
func (pr *prepared) ask(i int) (*app.Allocation, uint64) {
	if pr == nil {
		return nil, 0
	}
	return pr.asks[i], pr.hashes[i]
}
