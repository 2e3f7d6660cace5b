package grpcserver

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// order makes a session's three streams behave as one ordered channel
// where it matters: asks and allocations of an application this session
// has not yet forwarded, and allocations on a node it has not yet
// forwarded, are parked until that application or node has been handed
// to the scheduler, so that an RM sending UpdateApplication and at once
// UpdateAllocation is not refused because the second stream was faster.
//
// The scheduler applies requests in the order it is handed them, so
// forwarding the application first is enough. Parked items keep the
// order of their stream: a later item of the same application (or, for
// items without one, the same allocation key) waits behind a parked one,
// releases included. An item waits at most Options.ParkTimeout and at most
// Options.ParkLimit items wait per RM; beyond either bound the oldest item
// is forwarded as it is and the scheduler rejects it with its usual
// reason. Nothing is dropped and nothing is forwarded twice.
type order struct {
	// mu is held while a decision is made and carried out (the request
	// handed to the scheduler), so that the decisions of the three
	// streams and the timer are applied in the order they are made. Never
	// take Server.mu while holding it.
	mu       sync.Mutex
	apps     map[string]struct{} // applications forwarded and not removed
	nodes    map[string]struct{} // nodes created and not decommissioned
	parked   []parkedItem        // oldest first
	held     map[string]int      // conflict key -> parked items with it
	needApp  map[string]int      // application -> parked items waiting for it
	needNode map[string]int      // node -> parked items waiting for it
	stop     func() bool         // the expiry timer, if set
	timerAt  time.Time
	count    atomic.Int64 // len(parked), for RMStatus without mu
}

// parkedItem is one ask, allocation or release waiting for its turn.
type parkedItem struct {
	alloc    *si.Allocation
	release  *si.AllocationRelease
	key      string // conflict key: same key, same order
	app      string // the application it waited for when parked, or ""
	node     string // the node it waited for when parked, or ""
	deadline time.Time
	forced   bool // forwarded at the next flush whatever it waits for
}

func newOrder() *order {
	return &order{apps: map[string]struct{}{}, nodes: map[string]struct{}{}, held: map[string]int{},
		needApp: map[string]int{}, needNode: map[string]int{}}
}

// conflictKey orders items of one application (or one allocation key when
// the item names no application).
func conflictKey(appID, allocKey string) string {
	if appID != "" {
		return appID
	}
	return "\x00" + allocKey
}

// needs returns the application and node x waits for, "" when known (or
// not needed: foreign allocations need only their node, and an item that
// names no application is forwarded for the scheduler to judge).
func (o *order) needs(x *si.Allocation) (app, node string) {
	if x.NodeID != "" {
		if _, ok := o.nodes[x.NodeID]; !ok {
			node = x.NodeID
		}
	}
	if _, foreign := x.AllocationTags[common.Foreign]; foreign || x.ApplicationID == "" {
		return "", node
	}
	if _, ok := o.apps[x.ApplicationID]; !ok {
		app = x.ApplicationID
	}
	return app, node
}

func (o *order) mustPark(x *si.Allocation) bool {
	if len(o.parked) > 0 && o.held[conflictKey(x.ApplicationID, x.AllocationKey)] > 0 {
		return true
	}
	app, node := o.needs(x)
	return app != "" || node != ""
}

// allocation forwards what of req can go now and parks the rest.
func (s *Server) allocation(ss *session, req *si.AllocationRequest) error {
	o := ss.ord
	o.mu.Lock()
	defer o.mu.Unlock()
	park := false
	for _, x := range req.Allocations {
		if x != nil && o.mustPark(x) {
			park = true
			break
		}
	}
	if !park && len(o.parked) > 0 {
		for _, r := range req.Releases.GetAllocationsToRelease() {
			if r != nil && o.held[conflictKey(r.ApplicationID, r.AllocationKey)] > 0 {
				park = true
				break
			}
		}
	}
	if !park {
		return s.api.UpdateAllocation(req)
	}
	now := s.opts.Clock.Now()
	deadline := now.Add(s.opts.ParkTimeout)
	var out []*si.Allocation
	for _, x := range req.Allocations {
		if x == nil {
			continue
		}
		if !o.mustPark(x) {
			out = append(out, x)
			continue
		}
		app, node := o.needs(x)
		o.add(parkedItem{alloc: x, key: conflictKey(x.ApplicationID, x.AllocationKey), app: app, node: node, deadline: deadline})
	}
	var rel []*si.AllocationRelease
	for _, r := range req.Releases.GetAllocationsToRelease() {
		if r == nil {
			continue
		}
		if k := conflictKey(r.ApplicationID, r.AllocationKey); o.held[k] > 0 {
			o.add(parkedItem{release: r, key: k, deadline: deadline})
			continue
		}
		rel = append(rel, r)
	}
	if len(out) > 0 || len(rel) > 0 {
		fwd := &si.AllocationRequest{RmID: req.RmID, Allocations: out}
		if len(rel) > 0 {
			fwd.Releases = &si.AllocationReleasesRequest{AllocationsToRelease: rel}
		}
		if err := s.api.UpdateAllocation(fwd); err != nil {
			return err
		}
	}
	// beyond the bound the oldest items go as they are
	for i := 0; i < len(o.parked)-s.opts.ParkLimit; i++ {
		o.parked[i].forced = true
	}
	err := s.flushLocked(ss, req.RmID, now)
	s.armLocked(ss, now)
	return err
}

func (o *order) add(it parkedItem) {
	o.parked = append(o.parked, it)
	o.held[it.key]++
	if it.app != "" {
		o.needApp[it.app]++
	}
	if it.node != "" {
		o.needNode[it.node]++
	}
	o.count.Store(int64(len(o.parked)))
}

func (o *order) remove(it parkedItem) {
	dec(o.held, it.key)
	if it.app != "" {
		dec(o.needApp, it.app)
	}
	if it.node != "" {
		dec(o.needNode, it.node)
	}
}

func dec(m map[string]int, k string) {
	if m[k] <= 1 {
		delete(m, k)
		return
	}
	m[k]--
}

// applications records the applications of a forwarded request and
// forwards what was waiting for them.
func (s *Server) applications(ss *session, req *si.ApplicationRequest) error {
	o := ss.ord
	o.mu.Lock()
	defer o.mu.Unlock()
	wake := false
	for _, a := range req.New {
		if a == nil {
			continue
		}
		o.apps[a.ApplicationID] = struct{}{}
		wake = wake || o.needApp[a.ApplicationID] > 0
	}
	for _, r := range req.Remove {
		if r != nil {
			delete(o.apps, r.ApplicationID)
		}
	}
	if !wake {
		return nil
	}
	now := s.opts.Clock.Now()
	err := s.flushLocked(ss, req.RmID, now)
	s.armLocked(ss, now)
	return err
}

// nodesForwarded records the nodes of a forwarded request and forwards
// what was waiting for them.
func (s *Server) nodesForwarded(ss *session, req *si.NodeRequest) error {
	o := ss.ord
	o.mu.Lock()
	defer o.mu.Unlock()
	wake := false
	for _, n := range req.Nodes {
		if n == nil {
			continue
		}
		switch n.Action {
		case si.NodeInfo_CREATE, si.NodeInfo_CREATE_DRAIN:
			o.nodes[n.NodeID] = struct{}{}
			wake = wake || o.needNode[n.NodeID] > 0
		case si.NodeInfo_DECOMISSION:
			delete(o.nodes, n.NodeID)
		}
	}
	if !wake {
		return nil
	}
	now := s.opts.Clock.Now()
	err := s.flushLocked(ss, req.RmID, now)
	s.armLocked(ss, now)
	return err
}

// flushLocked forwards, oldest first, every parked item whose application
// and node are known, whose time is up or that was forced out, unless an
// older item with the same conflict key stays parked. Consecutive items
// travel in one request, in their stream's order (a request applies its
// allocations before its releases, so an allocation after a release
// starts a new one).
func (s *Server) flushLocked(ss *session, rmID string, now time.Time) error {
	o := ss.ord
	if len(o.parked) == 0 {
		return nil
	}
	var blocked map[string]struct{}
	var reqs []*si.AllocationRequest
	var cur *si.AllocationRequest
	keep := o.parked[:0]
	for _, it := range o.parked {
		_, isBlocked := blocked[it.key]
		ready := !isBlocked && (it.forced || !now.Before(it.deadline))
		if !ready && !isBlocked {
			if it.alloc != nil {
				app, node := o.needs(it.alloc)
				ready = app == "" && node == ""
			} else {
				ready = true // a release waits only for the items before it
			}
		}
		if !ready {
			if blocked == nil {
				blocked = map[string]struct{}{}
			}
			blocked[it.key] = struct{}{}
			keep = append(keep, it)
			continue
		}
		o.remove(it)
		if it.alloc != nil {
			if cur == nil || cur.Releases != nil {
				cur = &si.AllocationRequest{RmID: rmID}
				reqs = append(reqs, cur)
			}
			cur.Allocations = append(cur.Allocations, it.alloc)
			continue
		}
		if cur == nil {
			cur = &si.AllocationRequest{RmID: rmID}
			reqs = append(reqs, cur)
		}
		if cur.Releases == nil {
			cur.Releases = &si.AllocationReleasesRequest{}
		}
		cur.Releases.AllocationsToRelease = append(cur.Releases.AllocationsToRelease, it.release)
	}
	clear(o.parked[len(keep):])
	o.parked = keep
	o.count.Store(int64(len(o.parked)))
	for _, r := range reqs {
		if err := s.api.UpdateAllocation(r); err != nil {
			return err
		}
	}
	return nil
}

// armLocked keeps one timer for the oldest parked item's deadline.
func (s *Server) armLocked(ss *session, now time.Time) {
	o := ss.ord
	if len(o.parked) == 0 {
		if o.stop != nil {
			o.stop()
			o.stop = nil
		}
		return
	}
	at := o.parked[0].deadline
	if o.stop != nil && o.timerAt.Equal(at) {
		return
	}
	if o.stop != nil {
		o.stop()
	}
	o.timerAt = at
	o.stop = s.opts.AfterFunc(max(at.Sub(now), 0), func() { s.expireParked(ss) })
}

// expireParked forwards the parked items whose time is up.
func (s *Server) expireParked(ss *session) {
	e := ss.entry
	e.fwd.RLock()
	defer e.fwd.RUnlock()
	s.mu.Lock()
	current := e.sess == ss && ss.state != RMStopped && !s.closing
	s.mu.Unlock()
	o := ss.ord
	o.mu.Lock()
	o.stop = nil
	if !current {
		o.mu.Unlock()
		return
	}
	now := s.opts.Clock.Now()
	err := s.flushLocked(ss, e.id, now)
	s.armLocked(ss, now)
	o.mu.Unlock()
	if err != nil {
		s.failStream(ss, kindAllocation, apiStatus("parked allocations of rm "+e.id, err))
	}
}
