package rest

import (
	"net/http"

	core "github.com/paddock-sched/paddock/internal/core/partition"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
)

// Paddock's own preemption endpoints (docs/preemption.md): the last
// decisions with their reasons, read from the snapshot, and a dry run for
// one pending ask, answered by the live scheduler.

// Explainer answers preemption dry runs (rmproxy.Service implements it).
type Explainer interface {
	ExplainPreemption(rmID, partition, appID, key string) (core.PreemptDryRun, error)
}

// QueueShareInfo is a queue's standing when a decision was made: basis
// "fair share" (share and target are dominant shares of the fair-share
// parent's capacity, target the queue's fair share), "guaranteed" (share
// is used over guaranteed, target 1) or "".
type QueueShareInfo struct {
	Queue  string  `json:"queue"`
	Basis  string  `json:"basis,omitempty"`
	Share  float64 `json:"share"`
	Target float64 `json:"target"`
}

// PreemptVictimInfo is one victim of a decision.
type PreemptVictimInfo struct {
	ApplicationID string           `json:"applicationID"`
	AllocationKey string           `json:"allocationKey"`
	Queue         string           `json:"queueName"`
	Priority      int32            `json:"priority"`
	Resource      map[string]int64 `json:"resource"`
}

// PreemptDecisionInfo is one preemption decision with its reasons.
type PreemptDecisionInfo struct {
	Time          int64               `json:"time"`
	Rule          string              `json:"rule"`
	ApplicationID string              `json:"applicationID,omitempty"`
	AllocationKey string              `json:"allocationKey,omitempty"`
	Node          string              `json:"nodeID,omitempty"`
	Queue         string              `json:"queueName"`
	Level         string              `json:"fairShareParent,omitempty"`
	Preemptor     QueueShareInfo      `json:"preemptorShare"`
	VictimQueues  []QueueShareInfo    `json:"victimShares"`
	Victims       []PreemptVictimInfo `json:"victims"`
	Reason        string              `json:"reason"`
}

// PreemptDryRunInfo answers a dry run: the decision that would be made, or
// why none would be.
type PreemptDryRunInfo struct {
	WouldPreempt bool                 `json:"wouldPreempt"`
	Decision     *PreemptDecisionInfo `json:"decision,omitempty"`
	Why          string               `json:"why,omitempty"`
}

func shareInfo(s core.QueueShare) QueueShareInfo {
	return QueueShareInfo{Queue: s.Queue, Basis: s.Basis, Share: s.Share, Target: s.Target}
}

func decisionInfo(p *snapshot.Partition, d core.PreemptDecision) PreemptDecisionInfo {
	out := PreemptDecisionInfo{
		Time: d.Time.UnixNano(), Rule: string(d.Rule), ApplicationID: d.AppID, AllocationKey: d.AllocationKey, Node: d.Node,
		Queue: d.Queue, Level: d.Level, Preemptor: shareInfo(d.Preemptor), VictimQueues: []QueueShareInfo{},
		Victims: []PreemptVictimInfo{}, Reason: d.Reason,
	}
	for _, s := range d.VictimQueues {
		out.VictimQueues = append(out.VictimQueues, shareInfo(s))
	}
	for _, v := range d.Victims {
		out.Victims = append(out.Victims, PreemptVictimInfo{ApplicationID: v.AppID, AllocationKey: v.AllocationKey, Queue: v.Queue, Priority: v.Priority, Resource: p.Map(v.Res)})
	}
	return out
}

// preemptions serves the partition's last preemption decisions, newest
// first.
func (s *server) preemptions(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	out := make([]PreemptDecisionInfo, 0, len(p.Preemptions))
	for i := len(p.Preemptions) - 1; i >= 0; i-- {
		out = append(out, decisionInfo(p, p.Preemptions[i]))
	}
	writeJSON(w, r, out)
}

// preemptDryRun serves what would be preempted for one pending ask now,
// and why, or why nothing would be.
func (s *server) preemptDryRun(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	a, ok := application(w, r, p)
	if !ok {
		return
	}
	ex, ok := s.src.(Explainer)
	if !ok {
		writeError(w, r, http.StatusNotImplemented, "Dry run unavailable", "this server cannot run preemption dry runs")
		return
	}
	res, err := ex.ExplainPreemption(p.RMID, p.Name, a.ID, r.PathValue("allocation"))
	if err != nil {
		// the snapshot knew the application: the ask is unknown, or it
		// went since
		writeError(w, r, http.StatusNotFound, "Allocation not found", err.Error())
		return
	}
	out := PreemptDryRunInfo{WouldPreempt: res.Would, Why: res.Why}
	if res.Would {
		d := decisionInfo(p, res.Decision)
		out.Decision = &d
	}
	writeJSON(w, r, out)
}
