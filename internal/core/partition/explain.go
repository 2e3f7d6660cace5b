package partition

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Explained preemption: every decision records its rule, preemptor,
// victims and both sides' shares when it is made; the partition keeps the
// last MaxPreemptDecisions for REST, and the preemptor's application gets
// an event naming them. A dry run (ExplainPreemption) answers what would be
// preempted for an ask now, and why, or why nothing.

// PreemptRule names why a preemption was decided.
type PreemptRule string

// The rules.
const (
	// RuleGuaranteed: the preemptor's queue is below its guarantee and the
	// victims' queues above theirs (reference §2.12).
	RuleGuaranteed PreemptRule = "guaranteed"
	// RuleFairShare: the preemptor's queue is below its fair share under a
	// parent with paddock.fairshare.preemption, the victims' queues above.
	RuleFairShare PreemptRule = "fair share"
	// RuleRequiredNode: an ask that must run on one node (a DaemonSet
	// pod) makes room there (reference §2.14).
	RuleRequiredNode PreemptRule = "required node"
	// RuleQuotaChange: a queue above its lowered max gives back the excess
	// (reference §2.15).
	RuleQuotaChange PreemptRule = "quota change"
)

// MaxPreemptDecisions is how many decisions a partition keeps.
const MaxPreemptDecisions = 64

// QueueShare is a queue's standing when a decision was made. Basis says
// what Share is measured against: "fair share" (Share and Target are
// dominant shares of the fair-share parent's capacity, Target the queue's
// fair share), "guaranteed" (Share is the largest used/guaranteed over the
// guaranteed types, Target 1) or "" when neither applies.
type QueueShare struct {
	Queue         string
	Basis         string
	Share, Target float64
}

func (s QueueShare) String() string {
	switch s.Basis {
	case "fair share":
		return s.Queue + " at " + ratio(s.Share) + " of the parent, fair share " + ratio(s.Target)
	case "guaranteed":
		return s.Queue + " at " + ratio(s.Share) + " of its guaranteed"
	}
	return s.Queue + " (no guarantee)"
}

func ratio(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }

// DecisionVictim is one victim of a decision.
type DecisionVictim struct {
	AppID, AllocationKey, Queue string
	Priority                    int32
	Res                         resource.Vector
}

// PreemptDecision is one preemption decision with its reasons.
type PreemptDecision struct {
	Time time.Time
	Rule PreemptRule
	// The preemptor (empty for quota change) and the node it waits for.
	AppID, AllocationKey, Node string
	// Queue is the preemptor's queue (for quota change, the queue over
	// its max).
	Queue string
	// Level is the fair-share parent (fair-share rule only).
	Level string
	// Preemptor and VictimQueues are the shares at decision time.
	Preemptor    QueueShare
	VictimQueues []QueueShare
	Victims      []DecisionVictim
	// Reason is the whole explanation in one sentence.
	Reason string
}

// PreemptDecisions returns the last decisions, oldest first. Its elements
// are never written again: snapshots share it (and must not append to it).
func (p *Partition) PreemptDecisions() []PreemptDecision { return slices.Clip(p.decisions) }

// record keeps d among the last MaxPreemptDecisions. It appends past the
// end of what earlier readers hold, never over it, and copies the window
// to a new array of twice the window only when the array is full: one
// copy per MaxPreemptDecisions decisions rather than one per decision.
func (p *Partition) record(d PreemptDecision) {
	if len(p.decisions) == cap(p.decisions) {
		keep := p.decisions[max(0, len(p.decisions)-MaxPreemptDecisions+1):]
		p.decisions = append(make([]PreemptDecision, 0, 2*MaxPreemptDecisions), keep...)
	} else if len(p.decisions) == MaxPreemptDecisions {
		p.decisions = p.decisions[1:]
	}
	p.decisions = append(p.decisions, d)
}

// guaranteedShare is q's standing against its guarantee.
func guaranteedShare(q *queue.Queue, extra resource.Vector) QueueShare {
	s := QueueShare{Queue: q.Path}
	for i := range q.Allocated {
		if g, ok := q.Guaranteed.Limit(resource.Index(i)); ok {
			used := float64(q.Allocated[i] - q.Preempting[i] + extra[i])
			f := 1.0
			if g > 0 {
				f = used / float64(g)
			} else if used <= 0 {
				f = 0
			}
			s.Basis, s.Target, s.Share = "guaranteed", 1, max(s.Share, f)
		}
	}
	return s
}

// explain builds the decision for plan, made for ask x of a in leaf, from
// the state before the victims are marked.
func (p *Partition) explain(a *app.App, x *app.Allocation, leaf *queue.Queue, plan preemptPlan, rule PreemptRule, now time.Time) PreemptDecision {
	d := PreemptDecision{Time: now, Rule: rule, AppID: a.ID, AllocationKey: x.Key, Queue: leaf.Path}
	if plan.node != nil {
		d.Node = plan.node.ID
	}
	seen := map[*queue.Queue]bool{}
	for _, v := range plan.victims {
		vleaf := p.leafOf(p.apps[v.AppID])
		d.Victims = append(d.Victims, DecisionVictim{AppID: v.AppID, AllocationKey: v.Key, Queue: vleaf.Path, Priority: v.Priority, Res: v.Res})
		side := vleaf
		if f := plan.fair; f != nil {
			for side.Parent != f.parent {
				side = side.Parent
			}
		}
		if seen[side] {
			continue
		}
		seen[side] = true
		switch f := plan.fair; {
		case f != nil:
			d.VictimQueues = append(d.VictimQueues, QueueShare{Queue: side.Path, Basis: "fair share", Share: f.used(side, resource.Vector{}), Target: f.fraction(side)})
		case rule == RuleGuaranteed:
			d.VictimQueues = append(d.VictimQueues, guaranteedShare(side, resource.Vector{}))
		default:
			d.VictimQueues = append(d.VictimQueues, QueueShare{Queue: side.Path})
		}
	}
	switch f := plan.fair; {
	case f != nil:
		d.Level = f.parent.Path
		d.Preemptor = QueueShare{Queue: f.ask.Path, Basis: "fair share", Share: f.askUsed, Target: f.askFair}
	case rule == RuleGuaranteed:
		d.Preemptor = guaranteedShare(leaf, x.Res)
	default:
		d.Preemptor = QueueShare{Queue: leaf.Path}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s rule: ask %s of application %s in %s", rule, x.Key, a.ID, leaf.Path)
	if d.Level != "" {
		fmt.Fprintf(&b, " below %s", d.Level)
	}
	fmt.Fprintf(&b, " (%s, with the ask)", d.Preemptor)
	if d.Node != "" {
		fmt.Fprintf(&b, " takes %d allocation(s) on node %s", len(d.Victims), d.Node)
	}
	if len(d.VictimQueues) > 0 {
		b.WriteString(" from ")
		for i, s := range d.VictimQueues {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(s.String())
		}
	}
	d.Reason = b.String()
	return d
}

// noteDecision records the decision for plan, made for ask x of a in
// leaf, and tells the preemptor's application; it returns the reason the
// victims' releases and events carry. Call it before the victims are
// marked: the shares are those the decision saw.
func (p *Partition) noteDecision(a *app.App, x *app.Allocation, leaf *queue.Queue, plan preemptPlan, now time.Time) string {
	rule := RuleGuaranteed
	switch {
	case x.RequiredNode != "":
		rule = RuleRequiredNode
	case plan.fair != nil:
		rule = RuleFairShare
	}
	d := p.explain(a, x, leaf, plan, rule, now)
	p.record(d)
	if p.sink != nil {
		p.emitRequest(x.Key, a.ID, "Preempting "+strconv.Itoa(len(plan.victims))+" allocation(s) by the "+d.Reason, x.Res, now)
	}
	return d.Reason
}

// recordQuota records a quota-change decision of queue q.
func (p *Partition) recordQuota(q *queue.Queue, victims []*app.Allocation, excess resource.Vector, now time.Time) {
	d := PreemptDecision{Time: now, Rule: RuleQuotaChange, Queue: q.Path, Preemptor: QueueShare{Queue: q.Path}}
	for _, v := range victims {
		d.Victims = append(d.Victims, DecisionVictim{AppID: v.AppID, AllocationKey: v.Key, Queue: p.leafOf(p.apps[v.AppID]).Path, Priority: v.Priority, Res: v.Res})
	}
	d.Reason = fmt.Sprintf("quota change rule: %s holds %s over its max; %d allocation(s) released", q.Path, p.reg.Format(excess), len(victims))
	p.record(d)
}

// PreemptDryRun answers what would be preempted for an ask now: Decision
// when Would, else Why nothing would be.
type PreemptDryRun struct {
	Would    bool
	Decision PreemptDecision
	Why      string
}

// ExplainPreemption is a dry run of preemption for pending ask key of
// application appID at now: the decision the scheduler would make, or why
// it would make none. It changes nothing in the partition (the RM's
// PreemptionPredicates, when installed, are asked as for a real
// decision). Unknown applications and keys are errors.
func (p *Partition) ExplainPreemption(appID, key string, now time.Time) (PreemptDryRun, error) {
	a, x, err := p.allocationOf(appID, key)
	if err != nil {
		return PreemptDryRun{}, err
	}
	leaf := p.leafOf(a)
	no := func(format string, args ...any) (PreemptDryRun, error) {
		return PreemptDryRun{Why: fmt.Sprintf(format, args...)}, nil
	}
	switch {
	case !x.Pending():
		return no("ask %s is not pending", key)
	case leaf == nil:
		return no("application %s has no queue", appID)
	case !p.preemptionEnabled():
		return no("preemption is disabled for partition %s", p.Name)
	case x.Placeholder:
		return no("ask %s is a gang placeholder: a gang preempts as a whole, by the guaranteed rule only", key)
	case x.RequiredNode != "":
		return no("ask %s must run on node %s: it preempts there only, by the required node rule, once no node is free", key, x.RequiredNode)
	case !x.PreemptOther:
		return no("ask %s does not allow preempting others (allowPreemptOther is false)", key)
	case x.Victims() > 0:
		return no("ask %s already waits for %d victim(s) to go", key, x.Victims())
	}
	if due := x.Created.Add(leaf.Props.PreemptionDelay); now.Before(due) {
		return no("ask %s waits for its queue's preemption.delay (%s) until %s", key, leaf.Props.PreemptionDelay, due.Format(time.RFC3339))
	}
	fits := ""
	blocked := blockingMax(leaf, &x.Res) != nil
	p.nodeIndex().Ascend(func(n *node.Node) bool {
		if !blocked && n.Schedulable && (n.ReservedFor == "" || n.HeldFor(x.AppID, x.Key)) && x.Res.Fits(n.Available()) {
			fits = n.ID
			return false
		}
		return true
	})
	if fits != "" {
		return no("ask %s fits node %s now: nothing needs preempting", key, fits)
	}
	plan, ok := p.planPreemption(leaf, x, now)
	if ok {
		rule := RuleGuaranteed
		if plan.fair != nil {
			rule = RuleFairShare
		}
		return PreemptDryRun{Would: true, Decision: p.explain(a, x, leaf, plan, rule, now)}, nil
	}
	var b strings.Builder
	g := guaranteedShare(leaf, x.Res)
	if underGuarantee(leaf, x.Res) {
		fmt.Fprintf(&b, "%s is below its guarantee (%s, with the ask) but no node has enough eligible victims", leaf.Path, g)
	} else {
		fmt.Fprintf(&b, "not by the guaranteed rule: %s is not below a guarantee (%s, with the ask)", leaf.Path, g)
	}
	top := fenceRoot(leaf, x.Res)
	for c := leaf; c.Parent != nil && c != top; c = c.Parent {
		if !c.Parent.Props.FairSharePreemption {
			continue
		}
		lvl, ok := p.fairLevelFor(c.Parent, c, x)
		s := QueueShare{Queue: c.Path, Basis: "fair share", Share: lvl.askUsed, Target: lvl.askFair}
		if ok {
			fmt.Fprintf(&b, "; fair share under %s: %s, with the ask, but no node has enough victims in siblings above their fair shares", c.Parent.Path, s)
		} else {
			fmt.Fprintf(&b, "; not by fair share under %s: %s, with the ask, would be above it", c.Parent.Path, s)
		}
	}
	if !anyFairParent(leaf) {
		b.WriteString("; no parent of the queue has paddock.fairshare.preemption enabled")
	}
	b.WriteString(" (victims must have a priority no higher than the ask's, be outside the ask's queue and fence, not be opted out by preemption.policy disabled or be protected by a recent preemption)")
	return no("%s", b.String())
}
