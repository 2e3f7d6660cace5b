package app

import (
	"math"
	"time"

	"github.com/paddock-sched/paddock/internal/resource"
)

// UnknownInstanceType is the instance type of an allocation whose node did
// not say its type.
const UnknownInstanceType = "UNKNOWN"

// Usage maps an instance type to resource·seconds (each resource quantity
// times the whole seconds it was held).
type Usage map[string]resource.Vector

// History sums what the application's ended allocations held over time,
// per instance type of their node (reference resourceHistory). It grows
// when an allocation ends, never on the scheduling path.
type History struct {
	// Used counts every real (non-placeholder) allocation, Preempted the
	// preempted ones again, Placeholder the gang placeholders.
	Used, Preempted, Placeholder Usage
}

// Clone returns a deep copy (empty maps as nil).
func (h History) Clone() History {
	return History{Used: h.Used.clone(), Preempted: h.Preempted.clone(), Placeholder: h.Placeholder.clone()}
}

func (u Usage) clone() Usage {
	if len(u) == 0 {
		return nil
	}
	out := make(Usage, len(u))
	for k, v := range u {
		out[k] = v
	}
	return out
}

// add adds res held for secs seconds on instance type inst, saturating at
// the int64 maximum.
func (u *Usage) add(inst string, res resource.Vector, secs int64) {
	if *u == nil {
		*u = Usage{}
	}
	v := (*u)[inst]
	for i, x := range res {
		if x <= 0 {
			continue
		}
		if secs > 0 && x > (math.MaxInt64-v[i])/secs {
			v[i] = math.MaxInt64
		} else {
			v[i] += x * secs
		}
	}
	(*u)[inst] = v
}

// ended records allocation x, which stops holding its resources at now.
func (a *App) ended(x *Allocation, now time.Time) {
	bound := x.bound()
	if bound.IsZero() {
		return
	}
	secs := int64(now.Sub(bound) / time.Second)
	if secs <= 0 {
		return
	}
	inst := x.InstanceType
	if inst == "" {
		inst = UnknownInstanceType
	}
	if x.Placeholder {
		a.History.Placeholder.add(inst, x.Res, secs)
		return
	}
	a.History.Used.add(inst, x.Res, secs)
	if x.Preempted {
		a.History.Preempted.add(inst, x.Res, secs)
	}
}
