package partition

import (
	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
)

// Read-only accessors for the snapshot builder. They run on the engine's
// goroutine and change nothing.

// EachDoneApp calls fn for every terminated application still kept
// (Completed, Failed, Rejected, until they expire), in no particular order.
func (p *Partition) EachDoneApp(fn func(*app.App) bool) {
	for _, d := range p.done {
		if !fn(d.app) {
			return
		}
	}
}

// DoneCount is the number of terminated applications still kept.
func (p *Partition) DoneCount() int { return len(p.done) }

// EachReservation calls fn for every reserved node, in reservation key
// order: the application and ask holding it and the node.
func (p *Partition) EachReservation(fn func(appID, askKey, nodeID string) bool) {
	for _, k := range p.reservationKeys() {
		r := p.reserved[k]
		if !fn(r.app.ID, r.ask.Key, r.node.ID) {
			return
		}
	}
}

// Config is the partition's active configuration (read-only).
func (p *Partition) Config() *config.PartitionConfig { return p.cfg }
