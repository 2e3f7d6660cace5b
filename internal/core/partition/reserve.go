package partition

import (
	"log/slog"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/core/node"
	"github.com/paddock-sched/paddock/internal/resource"
)

// ReservationDelay is how long an ask must have waited before it may
// reserve a node (reference §2.8).
const ReservationDelay = 2 * time.Second

// reservation holds a node for one ask that fits no node now, so that a
// stream of smaller asks cannot starve it: the node takes no other work,
// and the ask gets it as soon as enough is released there.
type reservation struct {
	app  *app.App
	ask  *app.Allocation
	node *node.Node
}

func reservationKey(appID, key string) string { return appID + "\x00" + key }

// SetReservations turns reservations on or off (DISABLE_RESERVATION).
// Turning them off drops every existing reservation; a change makes the
// next pass look at every ask again.
func (p *Partition) SetReservations(on bool) {
	if p.noReserve == !on {
		return
	}
	p.noReserve = !on
	p.dirty = true
	if !on {
		for _, k := range p.reservationKeys() {
			p.unreserve(k)
		}
	}
}

// Reservations returns the number of reserved nodes.
func (p *Partition) Reservations() int { return len(p.reserved) }

func (p *Partition) reservationKeys() []string {
	keys := make([]string, 0, len(p.reserved))
	for k := range p.reserved {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

func (p *Partition) unreserve(k string) {
	r, ok := p.reserved[k]
	if !ok {
		return
	}
	delete(p.reserved, k)
	delete(p.appReserved, r.app.ID)
	if l := p.log.Reservation; on(l) {
		debug(l, "reservation removed", slog.String("appID", r.app.ID), slog.String("allocationKey", r.ask.Key), slog.String("nodeID", r.node.ID))
	}
	if r.node.HeldFor(r.app.ID, r.ask.Key) {
		p.emitNode(event.Remove, event.NodeReservation, r.node.ID, r.ask.Key, "", &r.ask.Res, time.Time{})
		r.node.Reserve("", "")
		p.index.Update(r.node)
	}
	p.dirty = true
}

// unreserveAsk drops the reservation of an ask if it has one.
func (p *Partition) unreserveAsk(appID, key string) {
	if len(p.reserved) > 0 {
		p.unreserve(reservationKey(appID, key))
	}
}

// unreserveNode drops the reservation or gang hold on a node.
func (p *Partition) unreserveNode(n *node.Node) {
	for _, k := range p.reservationKeys() {
		if p.reserved[k].node == n {
			p.unreserve(k)
		}
	}
	if n.ReservedFor != "" && len(p.gangHolds) > 0 {
		p.dropGangHold(n)
	}
}

// tryReserved is the first step of a pass: every reserved ask that now
// fits its node, and its queues, is allocated there.
func (p *Partition) tryReserved(now time.Time) int {
	made := 0
	for _, k := range p.reservationKeys() {
		r := p.reserved[k]
		x := r.ask
		cur, ok := r.app.Allocation(x.Key)
		if !ok || cur != x || !x.Pending() {
			p.unreserve(k)
			continue
		}
		leaf := p.leafOf(r.app)
		if leaf == nil || !r.node.Schedulable && x.RequiredNode == "" || !x.Res.Fits(r.node.Available()) || blockingMax(leaf, &x.Res) != nil {
			continue
		}
		if p.blockingMaxApps(r.app, leaf) != nil || !p.admits(x, r.node, true) {
			continue
		}
		p.unreserve(k)
		p.allocate(r.app, leaf, x, r.node, now)
		made++
	}
	return made
}

// maybeReserve reserves a node for ask x of a when it has waited long
// enough, its application holds no reservation yet, and some node could
// hold it once enough is released there. It picks the eligible node with
// the smallest shortfall. It reports whether it reserved.
func (p *Partition) maybeReserve(a *app.App, x *app.Allocation, now time.Time) bool {
	if p.noReserve || x.RequiredNode != "" {
		return false
	}
	if at := x.Created.Add(ReservationDelay); now.Before(at) {
		p.wakeAt(at) // come back when the ask may reserve
		return false
	}
	if _, has := p.appReserved[a.ID]; has {
		return false
	}
	var best *node.Node
	bestGap := 0.0
	p.nodeIndex().Ascend(func(n *node.Node) bool {
		if !n.Eligible() || !x.Res.Fits(n.Capacity.Sub(n.Occupied)) {
			return true
		}
		if g := shortfall(x.Res, n.Available(), n.Capacity); (best == nil || g < bestGap) && p.admits(x, n, false) {
			best, bestGap = n, g
		}
		return true
	})
	if best == nil {
		return false
	}
	p.reserveNode(a, x, best)
	a.SetWhy(x, app.Reason{Kind: app.Reserved, Object: best.ID})
	return true
}

// reserveRequired reserves the node an ask is pinned to at once (no
// delay, reference §2.9) when the node is known (drained or not, as
// findNode), the application holds no other reservation and the node is
// not reserved for another required-node ask; a reservation or gang hold
// of a regular ask there is cancelled. It reports whether the ask holds
// the node.
func (p *Partition) reserveRequired(a *app.App, x *app.Allocation) bool {
	n, ok := p.nodes[x.RequiredNode]
	if p.noReserve || !ok {
		return false
	}
	k := reservationKey(a.ID, x.Key)
	if r, has := p.reserved[k]; has && r.node == n {
		a.SetWhy(x, app.Reason{Kind: app.Reserved, Object: n.ID})
		return true
	}
	if _, has := p.appReserved[a.ID]; has {
		return false
	}
	if n.ReservedFor != "" {
		for _, r := range p.reserved {
			if r.node == n && r.ask.RequiredNode != "" {
				return false
			}
		}
		p.unreserveNode(n)
	}
	p.reserveNode(a, x, n)
	a.SetWhy(x, app.Reason{Kind: app.Reserved, Object: n.ID})
	return true
}

// reserveNode reserves node n for ask x of a, which must hold no
// reservation and n must not be reserved.
func (p *Partition) reserveNode(a *app.App, x *app.Allocation, n *node.Node) {
	k := reservationKey(a.ID, x.Key)
	p.reserved[k] = &reservation{app: a, ask: x, node: n}
	p.appReserved[a.ID] = k
	n.Reserve(a.ID, x.Key)
	if l := p.log.Reservation; on(l) {
		debug(l, "node reserved", slog.String("appID", a.ID), slog.String("allocationKey", x.Key), slog.String("nodeID", n.ID),
			slog.String("resource", p.reg.Format(x.Res)))
	}
	p.emitNode(event.Add, event.NodeReservation, n.ID, x.Key, "", &x.Res, time.Time{})
	p.index.Update(n)
}

// shortfall is how far ask is from fitting avail, as a sum of fractions of
// the node's capacity.
func shortfall(ask, avail, capacity resource.Vector) float64 {
	var g float64
	for i := range ask {
		if d := ask[i] - avail[i]; d > 0 && capacity[i] > 0 {
			g += float64(d) / float64(capacity[i])
		}
	}
	return g
}

// admits reports whether the RM's predicates (if any) let x go to n: a
// node the RM refuses is neither reserved for an ask (allocate false: the
// ask does not fit there yet) nor given to it when the reservation is
// served (allocate true).
func (p *Partition) admits(x *app.Allocation, n *node.Node, allocate bool) bool {
	return p.predicate == nil || p.predicate(x, n.ID, allocate) == nil
}
