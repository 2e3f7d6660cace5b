package replay

import (
	"container/heap"
	"math"
	"strconv"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/sim/borg"
)

// handle applies one trace event at trace time now.
func (s *sim) handle(ev borg.Event, now time.Duration) {
	switch ev.Kind {
	case borg.KindMachine:
		s.machine(ev.Machine)
	case borg.KindTask:
		s.task(ev.Task, now)
	case borg.KindJob:
		s.job(ev.Job, now)
	}
}

// job keeps the user of a 2019 collection: its instances do not name one.
// Otherwise job events carry nothing the replay needs: applications are
// created with their first task (2011 jobs have no priority of their own)
// and complete by themselves when their last task is gone.
func (s *sim) job(e borg.JobEvent, now time.Duration) {
	if !s.v2019 {
		return
	}
	switch e.Type {
	case borg.EventQueue:
		s.queueJob(e.JobID)
	case borg.EventEnable:
		s.enableJob(e.JobID, now)
	}
	if e.Type.Ends() {
		delete(s.jobUsers, e.JobID)
		delete(s.gated, e.JobID)
		return
	}
	if e.User != "" {
		s.jobUsers[e.JobID] = e.User
	}
}

func nodeID(machine int64) string { return strconv.FormatInt(machine, 10) }

func (s *sim) resources(cpu, mem float64) *si.Resource {
	c := int64(math.Round(cpu * s.opts.CPUScale))
	m := int64(math.Round(mem * s.opts.MemScale))
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: c}, "memory": {Value: m}}}
}

func (s *sim) machine(m borg.MachineEvent) {
	id := nodeID(m.MachineID)
	switch m.Type {
	case borg.MachineAdd:
		if s.nodes[m.MachineID] {
			return
		}
		if m.Absent.Has(borg.FieldCPU) || m.CPU <= 0 || m.Memory <= 0 {
			s.stats.SkippedMachines++
			return
		}
		s.nodes[m.MachineID] = true
		s.queued.nodes = append(s.queued.nodes, &si.NodeInfo{NodeID: id, Action: si.NodeInfo_CREATE,
			SchedulableResource: s.resources(m.CPU*s.opts.CPUOvercommit, m.Memory*s.opts.MemOvercommit), Attributes: map[string]string{"si/hostname": id}})
	case borg.MachineRemove:
		if !s.nodes[m.MachineID] {
			return
		}
		delete(s.nodes, m.MachineID)
		s.queued.nodes = append(s.queued.nodes, &si.NodeInfo{NodeID: id, Action: si.NodeInfo_DECOMISSION})
	case borg.MachineUpdate:
		if !s.nodes[m.MachineID] || m.Absent.Has(borg.FieldCPU) || m.CPU <= 0 {
			return
		}
		s.queued.nodes = append(s.queued.nodes, &si.NodeInfo{NodeID: id, Action: si.NodeInfo_UPDATE,
			SchedulableResource: s.resources(m.CPU*s.opts.CPUOvercommit, m.Memory*s.opts.MemOvercommit)})
	}
}

// app returns the application of a job, creating it with the tier of the
// task that first needs it.
func (s *sim) app(job int64, user string, tier int) string {
	if id, ok := s.apps[job]; ok {
		return id
	}
	id := "job-" + strconv.FormatInt(job, 10)
	s.apps[job] = id
	s.appJob[id] = job
	if user == "" {
		user = s.jobUsers[job]
	}
	if user == "" {
		user = "unknown"
	}
	user = sanitizeUser(user)
	if !s.users[user] {
		s.users[user] = true
		s.stats.Users++
	}
	s.queued.apps = append(s.queued.apps, &si.AddApplicationRequest{
		ApplicationID: id, QueueName: "root." + tiers[tier].queue,
		Ugi: &si.UserGroupInformation{User: user},
	})
	s.stats.Jobs++
	return id
}

// sanitizeUser makes a hashed trace user name a valid user name: the 2011
// hashes may contain '+', '/' and '='.
func sanitizeUser(u string) string {
	b := []byte(u)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' || b[0] == '-' {
		return "u" + string(b)
	}
	return string(b)
}

func (s *sim) task(e borg.TaskEvent, now time.Duration) {
	id := taskID{e.JobID, e.TaskIndex}
	t := s.tasks[id]
	switch {
	case e.Type == borg.EventSubmit:
		if t != nil && t.ended && t.allocAt >= 0 {
			// the trace ended its run (an eviction, a failure, a kill)
			// and submits it again: our run ends now as well, and the
			// new submission is a new ask that must find room again
			s.endRun(t, now)
		}
		if t != nil && (t.sent || t.allocAt >= 0) {
			t.traceSubmit = now // the trace's own delay counts from here
			return              // already pending or running with us
		}
		if t == nil {
			t = &task{}
			s.tasks[id] = t
		}
		t.traceSubmit = now
		t.tier = tierOf(s.traceVersion2019(), e.Priority)
		t.app = s.app(e.JobID, e.User, t.tier)
		t.job, t.index, t.user = e.JobID, e.TaskIndex, e.User
		t.nextGen()
		t.submit, t.traceRun, t.duration, t.ended, t.allocAt, t.node = now, -1, -1, false, -1, ""
		t.cpu, t.mem, t.prio = e.CPURequest, e.MemRequest, e.Priority
		t.spread = e.DifferentMachines
		t.recover = ""
		s.byKey[t.key] = t
		if now == 0 {
			s.initial = append(s.initial, t) // sent once the initial state is known
			return
		}
		s.send(t)
	case t == nil:
		return // the task was submitted before the window we read
	case e.Type == borg.EventSchedule:
		if now == 0 {
			if e.MachineID != borg.NoMachine {
				t.recover = nodeID(e.MachineID)
			}
			t.traceRun = 0
			return
		}
		t.traceRun = now
		if t.traceSubmit > 0 && t.traceSubmit >= s.opts.Start {
			s.stats.traceDelay(t.tier, now-t.traceSubmit)
			t.traceSubmit = -1 // one delay per submission
		}
	case e.Type.Ends():
		if t.ended {
			return
		}
		t.ended = true
		if t.traceRun >= 0 {
			t.duration = now - t.traceRun
		}
		switch {
		case t.allocAt >= 0 && t.duration >= 0:
			s.scheduleRelease(t)
		case t.allocAt >= 0:
			// it never ran in the trace but runs with us: it ends now
			t.duration = now - t.allocAt
			s.scheduleRelease(t)
		case t.sent && t.duration < 0:
			// cancelled while pending in the trace: withdraw the ask
			s.withdraw(t)
		}
	}
}

// send submits the ask of a task: queued for the next cycle, or held for
// the submission latency when the task was submitted in the window.
func (s *sim) send(t *task) {
	t.sent = true
	s.stats.Submitted++
	s.stats.pendingNow++
	if s.opts.SubmitLatency > 0 && t.submit > 0 {
		// the job's tasks reach the scheduler one after another, each
		// TaskLatency after the previous one
		at := max(t.submit+s.opts.SubmitLatency, s.jobBusy[t.app])
		s.jobBusy[t.app] = at + s.opts.taskLatency(t.tier)
		// a task of a tail tier may take longer on its own, without
		// holding back the job's next tasks (tail.go)
		at += s.opts.tailExtra(t.tier, t.key)
		t.held = true
		s.relSeq++
		heap.Push(&s.held, release{at: at, seq: s.relSeq, t: t, gen: t.gen})
		return
	}
	if s.gate(t) {
		t.held = true
		return
	}
	s.queueAsk(t, t.submit)
}

// queueAsk queues the ask of a task for the next cycle; at is when the
// model lets it reach the scheduler, where the scheduler's own wait starts.
func (s *sim) queueAsk(t *task, at time.Duration) {
	t.reachAt = at
	s.queued.asks = append(s.queued.asks, &si.Allocation{
		AllocationKey: t.key, ApplicationID: t.app, Priority: t.prio,
		ResourcePerAlloc: s.askResources(t),
	})
}

// askResources turns a task's request into resources, its tier's share of
// it under the resource model; an empty request becomes the smallest
// positive one (the scheduler refuses empty asks).
func (s *sim) askResources(t *task) *si.Resource {
	rs := s.opts.reservation(t.tier)
	if s.startsAtLimit(t) {
		rs = Reservation{CPU: 1, Mem: 1} // until its reservation starts (reserve.go)
	}
	r, empty := s.chargeOf(t, rs)
	if empty {
		s.stats.ZeroRequests++
	}
	return r
}

// chargeOf is the share rs of t's request as resources; an empty CPU
// request (empty says so) or memory request becomes the smallest positive
// one.
func (s *sim) chargeOf(t *task, rs Reservation) (r *si.Resource, empty bool) {
	r = s.resources(t.cpu*rs.CPU, t.mem*rs.Mem)
	if r.Resources["vcore"].Value <= 0 {
		r.Resources["vcore"].Value = 1
		empty = true
	}
	if r.Resources["memory"].Value <= 0 {
		r.Resources["memory"].Value = 1 << 20
	}
	return r, empty
}

// charge is chargeOf's resources.
func (s *sim) charge(t *task, rs Reservation) *si.Resource {
	r, _ := s.chargeOf(t, rs)
	return r
}

func (s *sim) withdraw(t *task) {
	if !t.held { // a held ask never reached the scheduler
		s.queued.release = append(s.queued.release, &si.AllocationRelease{
			ApplicationID: t.app, AllocationKey: t.key, TerminationType: si.TerminationType_STOPPED_BY_RM,
		})
	}
	t.sent, t.held = false, false
	delete(s.byKey, t.key)
	s.stats.Withdrawn++
	s.stats.pendingNow--
}

// emitInitial sends the trace's initial state: tasks running at the start
// of the trace are recovered as allocations on their machines, the others
// become asks.
func (s *sim) emitInitial() {
	for _, t := range s.initial {
		if t.gen == 0 || t.sent || t.allocAt >= 0 {
			continue
		}
		if t.recover == "" || t.ended && t.duration < 0 {
			if !t.ended {
				s.send(t)
			}
			continue
		}
		t.allocAt = 0
		s.placeOn(t, t.recover)
		s.queued.asks = append(s.queued.asks, &si.Allocation{
			AllocationKey: t.key, ApplicationID: t.app, Priority: t.prio, NodeID: t.recover,
			ResourcePerAlloc: s.askResources(t),
		})
		s.stats.Recovered++
		s.stats.running++
		if t.ended {
			s.scheduleRelease(t)
		}
	}
	s.initial = nil
}
