package app

import (
	"slices"
	"time"

	"github.com/paddock-sched/paddock/internal/resource"
)

// TaskGroup is the gang bookkeeping of one task group (REST
// placeholderData): how many placeholders were asked for, the resources of
// one, and how many were replaced by real asks or timed out.
type TaskGroup struct {
	Count       int
	MinResource resource.Vector
	Replaced    int
	TimedOut    int
}

func (a *App) taskGroup(name string) *TaskGroup {
	tg := a.TaskGroups[name]
	if tg == nil {
		tg = &TaskGroup{}
		a.TaskGroups[name] = tg
	}
	return tg
}

// Gang reports whether the application is gang scheduled.
func (a *App) Gang() bool { return a.PlaceholderAsk.AnyPositive() }

// LinkedCount is the number of real asks waiting for a placeholder swap.
func (a *App) LinkedCount() int { return a.linked }

// Placeholder returns an allocated, unreleased placeholder of the task
// group, or nil.
func (a *App) Placeholder(group string) *Allocation {
	if l := a.phs[group]; len(l) > 0 {
		return l[0]
	}
	return nil
}

// PlaceholdersOf returns the allocated, unreleased placeholders of a task
// group, in the order Placeholder offers them.
func (a *App) PlaceholdersOf(group string) []*Allocation {
	return slices.Clone(a.phs[group])
}

// Placeholders returns every allocated, unreleased placeholder.
func (a *App) Placeholders() []*Allocation {
	var out []*Allocation
	for _, l := range a.phs {
		out = append(out, l...)
	}
	return out
}

// dropPlaceholder forgets x as an available placeholder.
func (a *App) dropPlaceholder(x *Allocation) {
	if !x.Placeholder {
		return
	}
	l := a.phs[x.TaskGroup]
	for i, p := range l {
		if p == x {
			l = append(l[:i], l[i+1:]...)
			break
		}
	}
	if len(l) == 0 {
		delete(a.phs, x.TaskGroup)
	} else {
		a.phs[x.TaskGroup] = l
	}
}

// Link takes pending real ask x out of scheduling to replace placeholder
// ph: ph is marked released and waits for the RM's confirmation.
func (a *App) Link(x, ph *Allocation) { a.LinkOn(x, ph, "") }

// LinkOn is Link for a real ask that goes to node on ("": the
// placeholder's) once the RM confirms the placeholder's release: the RM
// refused the placeholder's node for it.
func (a *App) LinkOn(x, ph *Allocation, on string) {
	a.dequeue(x)
	link(x, ph)
	if on != "" && on != ph.NodeID {
		x.rare.on = on
	}
	ph.Released = true
	a.dropPlaceholder(ph)
	a.linked++
}

// Swap completes a replacement at now: placeholder ph leaves the
// application (its time goes to the History) and the real ask linked to it
// becomes an allocation on ph's node, or on the node it was linked on
// (LinkOn). It returns the real allocation, or nil when ph was not linked.
func (a *App) Swap(ph *Allocation, now time.Time) *Allocation {
	x := ph.ReplacedBy()
	h := HashKey(ph.Key)
	if y, _ := a.Find(ph.Key, h); x == nil || y != ph {
		return nil
	}
	node := ph.NodeID
	if on := x.ReplaceOn(); on != "" {
		node = on
	}
	a.all.remove(ph, h)
	a.ended(ph, now)
	a.allocated--
	a.Allocated.Dec(ph.Res)
	a.PlaceholderAllocated.Dec(ph.Res)
	link(x, nil)
	a.linked--
	// as the reference, a replacement counts once the RM confirmed it
	a.taskGroup(ph.TaskGroup).Replaced++
	x.NodeID = node
	x.PlaceholderUsed = true
	x.SetAvoid("")
	x.Allocated = ph.Allocated
	x.rebind(now)
	a.account(x)
	return x
}

// MarkReleased flags a placeholder the scheduler is releasing (timeout or
// incompatible real ask), so it is not used for a replacement.
func (a *App) MarkReleased(ph *Allocation) {
	ph.Released = true
	a.dropPlaceholder(ph)
}

// Replaced counts a placeholder of a task group the RM released as
// replaced without a replacement linked to it.
func (a *App) Replaced(group string) { a.taskGroup(group).Replaced++ }

// TimedOut counts a timed-out placeholder of a task group.
func (a *App) TimedOut(group string) { a.taskGroup(group).TimedOut++ }

// PlaceholderBack undoes the counts of a placeholder of a task group that
// came back as an ask after its removal counted it as timed out (its node
// was removed while the RM was binding it): adding the ask counted it as
// a new placeholder of the group, and it is neither.
func (a *App) PlaceholderBack(group string) {
	tg := a.taskGroup(group)
	if tg.Count > 0 {
		tg.Count--
	}
	if tg.TimedOut > 0 {
		tg.TimedOut--
	}
}

// Unlink returns real ask x, whose placeholder went away without a
// confirmed replacement, to the pending asks.
func (a *App) Unlink(x *Allocation) {
	if x.Replacing() == nil {
		return
	}
	link(x, nil)
	a.linked--
	a.enqueue(x)
}
