package gen

import (
	"cmp"
	"errors"
	"math"
	"path/filepath"
	"slices"

	"github.com/paddock-sched/paddock/internal/sim/borg"
)

// Generate writes a synthetic trace into dir: one cell in dir itself, or
// with Options.Cells one directory per cell. It returns a report per cell.
// Bad options are rejected before anything is written.
func Generate(dir string, o Options) ([]*Report, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	cells := o.Cells
	if len(cells) == 0 {
		cells = []string{""}
	}
	var reps []*Report
	for _, name := range cells {
		d := dir
		if name != "" {
			d = filepath.Join(dir, name)
		}
		w, err := newJSONWriter(d, o.ShardRows)
		if err != nil {
			return reps, err
		}
		rep, err := generate(o, name, w)
		if err != nil {
			return reps, err
		}
		rep.Dir = d
		rep.MachineFiles, rep.JobFiles, rep.TaskFiles = w.machines.files, w.jobs.files, w.tasks.files
		reps = append(reps, rep)
	}
	return reps, nil
}

type machine struct {
	id               int64
	cpu, mem         float64
	freeCPU, freeMem float64
	up               bool
	platform, sw     string
	tasks            []*task
}

type job struct {
	id             int64
	tier           int
	prio           int32
	class          int8
	user           int
	name, logical  string
	scheduler      borg.Scheduler
	vscale         borg.VerticalScaling
	cpu, mem       float64 // per-task request
	service        bool
	base           float64 // typical run length, seconds
	live           int     // tasks not done
	scheduled      bool
	killed, failed bool
	waiting        []*task // tasks held until the batch scheduler enables the job
	cpuUse, memUse float64 // request × run time inside the window
}

const (
	statePending = iota // submitted, waiting for a machine
	stateRunning
	stateWaiting // between an eviction or failure and its resubmission
	stateDone
)

type task struct {
	j        *job
	index    int64
	state    uint8
	gen      uint32 // bumped whenever planned actions become stale
	machine  int    // index into cell.machines, -1 none
	slot     int    // position in the machine's task list
	tries    int    // placement attempts of the current submission
	attempts int    // submissions so far
	start    int64  // µs, start of the current run
}

// cell generates one cell's trace.
type cell struct {
	o        Options
	m        *model
	out      sink
	end      int64 // µs, end of the window
	acts     actHeap
	seq      uint64
	machines []machine
	jobID    int64
	live     map[*job]struct{}
	cpuUse   tailShare // per job
	memUse   tailShare
	users    [usersPerCell]bool
	names    [usersPerCell]string
	rep      *Report
	err      error

	// what the generator holds, for the test that memory does not grow
	// with the number of events
	liveTasks, peakTasks, peakActs int
}

func generate(o Options, name string, out sink) (*Report, error) {
	return newCell(o, name, out).generate()
}

func newCell(o Options, name string, out sink) *cell {
	return &cell{
		o: o, m: newModel(o.Seed, name), out: out,
		end:   (WindowStart + o.Duration).Microseconds(),
		live:  map[*job]struct{}{},
		jobID: 300_000_000_000,
		rep: &Report{Cell: name, Seed: o.Seed, Start: WindowStart, End: WindowStart + o.Duration,
			Machines: o.Machines, JobsPerHour: o.JobsPerHour},
	}
}

// generate writes the cell's trace: the state at time 0, then every event
// of the window in time order.
func (c *cell) generate() (rep *Report, err error) {
	defer func() { err = errors.Join(err, c.out.close()) }()
	c.initial()
	start := WindowStart.Microseconds()
	perHour := float64(c.o.Machines)
	c.push(action{at: start + c.m.exp(c.o.JobsPerHour), kind: actArrival})
	c.push(action{at: start + c.m.exp(removalsPerMachineHour*perHour), kind: actMachineDown, m: -1})
	c.push(action{at: start + c.m.exp(updatesPerMachineHour*perHour), kind: actMachineUpdate, m: -1})
	for len(c.acts) > 0 && c.err == nil {
		c.do(c.acts.pop())
	}
	if c.err != nil {
		return nil, c.err
	}
	c.finish()
	return c.rep, nil
}

// push plans an action; actions after the window are dropped.
func (c *cell) push(a action) {
	if a.at > c.end {
		return
	}
	c.seq++
	a.seq = c.seq
	c.acts.push(a)
	c.peakActs = max(c.peakActs, len(c.acts))
}

func (c *cell) do(a action) {
	t := a.t
	if t != nil && t.gen != a.gen {
		return // the task moved on since this was planned
	}
	switch a.kind {
	case actArrival:
		c.arrive(a.at)
		c.push(action{at: a.at + c.m.exp(c.o.JobsPerHour), kind: actArrival})
	case actEnable:
		c.enable(a.j, a.at)
	case actPlace:
		if t.state == statePending {
			c.place(t, a.at)
		}
	case actEnd:
		c.endRun(t, a.at, a.typ)
	case actResubmit:
		c.resubmit(t, a.at)
	case actKillPending:
		if t.state == statePending && t.attempts == 1 {
			c.emitTask(t, a.at, borg.EventKill)
			c.done(t, a.at, borg.EventKill)
		}
	case actMachineDown:
		c.machineDown(a.at)
	case actMachineUp:
		c.machineUp(int(a.m), a.at)
	case actMachineUpdate:
		i := c.m.rng.IntN(len(c.machines))
		if mc := &c.machines[i]; mc.up {
			c.emitMachine(mc, a.at, borg.MachineUpdate)
		}
		c.push(action{at: a.at + c.m.exp(updatesPerMachineHour*float64(len(c.machines))), kind: actMachineUpdate, m: -1})
	}
}

// initial writes the state at trace time 0: every machine, and jobs whose
// tasks run until the requested CPU reaches InitialFill of the cell's.
func (c *cell) initial() {
	c.machines = make([]machine, c.o.Machines)
	id := int64(100_000)
	for i := range c.machines {
		s := c.m.weighted(shapeWeights())
		id += 1 + int64(c.m.rng.IntN(1000))
		c.machines[i] = machine{id: id, cpu: shapes[s].cpu, mem: shapes[s].mem,
			freeCPU: shapes[s].cpu, freeMem: shapes[s].mem, up: true,
			platform: c.m.hashName("platform", int64(s)), sw: c.m.hashName("switch", int64(i/machinesPerSwitch))}
		c.rep.CPUCapacity += shapes[s].cpu
		c.rep.MemCapacity += shapes[s].mem
		c.emitMachine(&c.machines[i], 0, borg.MachineAdd)
	}
	target := c.o.InitialFill * c.rep.CPUCapacity
	var cpu, mem float64
	for fails := 0; cpu < target && fails < 50 && c.err == nil; {
		j := c.newJob(true)
		c.rep.InitialJobs++
		c.emitJob(j, 0, borg.EventSubmit)
		n := c.m.tasks()
		j.live = n
		placed := 0
		for i := range n {
			t := c.newTask(j, i)
			c.emitTask(t, 0, borg.EventSubmit)
			if idx := c.pick(j.cpu, j.mem); idx >= 0 && cpu < target {
				c.run(t, idx, 0, true)
				cpu += j.cpu
				mem += j.mem
				placed++
				continue
			}
			c.schedulePlace(t, WindowStart.Microseconds())
		}
		c.rep.InitialTasks += int64(placed)
		c.rep.Tasks += int64(n)
		if placed == 0 {
			fails++
		} else {
			fails = 0
		}
	}
	c.rep.InitialCPU = cpu / max(c.rep.CPUCapacity, 1e-9)
	c.rep.InitialMem = mem / max(c.rep.MemCapacity, 1e-9)
}

func shapeWeights() []float64 {
	ws := make([]float64, len(shapes))
	for i, s := range shapes {
		ws[i] = s.share
	}
	return ws
}

// newJob draws a job of a tier drawn from the arrival or initial mix.
func (c *cell) newJob(initial bool) *job {
	m := c.m
	tr := m.tier(initial)
	tm := &tiers[tr]
	c.jobID += 1 + int64(m.rng.IntN(2000))
	j := &job{id: c.jobID, tier: tr, prio: tm.prios[m.weighted(tm.prioW)], class: int8(m.weighted(tm.classW[:]))}
	j.user = int(m.user.Uint64())
	c.users[j.user] = true
	j.name = m.hashName("job", j.id)
	j.logical = m.hashName("logical", int64(j.user)*1000+int64(m.rng.IntN(20)))
	if m.rng.Float64() < tm.batchSched {
		j.scheduler = borg.SchedulerBatch
	}
	if tr >= tierMid {
		j.vscale = borg.VerticalScaling(1 + m.rng.IntN(3))
	}
	j.cpu, j.mem = m.request()
	if tr == tierMonitoring {
		j.cpu, j.mem = round4(max(minReq, j.cpu*0.3)), round4(max(minReq, j.mem*0.3))
	}
	svc := tm.service
	if initial {
		svc = tm.initSvc
	}
	j.service = m.rng.Float64() < svc
	j.base = m.runLength(j.service, initial)
	c.live[j] = struct{}{}
	c.rep.Jobs++
	return j
}

// arrive submits a new job and its tasks.
func (c *cell) arrive(at int64) {
	j := c.newJob(false)
	c.rep.Arrivals++
	c.rep.ArrivalTiers[j.tier]++
	c.emitJob(j, at, borg.EventSubmit)
	queued := j.scheduler == borg.SchedulerBatch
	if queued {
		c.emitJob(j, at, borg.EventQueue)
		c.push(action{at: at + c.m.seconds(enableMedian, 1.5), kind: actEnable, j: j})
	}
	n := c.m.tasks()
	j.live = n
	c.rep.Tasks += int64(n)
	tm := &tiers[j.tier]
	for i := range n {
		t := c.newTask(j, i)
		c.emitTask(t, at, borg.EventSubmit)
		if queued {
			j.waiting = append(j.waiting, t)
		} else {
			c.schedulePlace(t, at)
		}
		if c.m.rng.Float64() < tm.killPend {
			c.push(action{at: at + c.m.seconds(600, 1.5), kind: actKillPending, t: t, gen: t.gen})
		}
	}
}

func (c *cell) newTask(j *job, i int) *task {
	c.liveTasks++
	c.peakTasks = max(c.peakTasks, c.liveTasks)
	return &task{j: j, index: int64(i), machine: -1, attempts: 1}
}

// enable lets the batch scheduler release a queued job.
func (c *cell) enable(j *job, at int64) {
	c.emitJob(j, at, borg.EventEnable)
	for _, t := range j.waiting {
		if t.state == statePending {
			c.schedulePlace(t, at)
		}
	}
	j.waiting = nil
}

// schedulePlace plans the first placement attempt after the tier's
// scheduling delay.
func (c *cell) schedulePlace(t *task, at int64) {
	tm := &tiers[t.j.tier]
	c.push(action{at: at + c.m.seconds(tm.delay, tm.delaySigma), kind: actPlace, t: t, gen: t.gen})
}

// pick returns a machine that is up and has room for the request, trying
// a few at random, or -1.
func (c *cell) pick(cpu, mem float64) int {
	for range placeTries {
		i := c.m.rng.IntN(len(c.machines))
		mc := &c.machines[i]
		if mc.up && mc.freeCPU >= cpu && mc.freeMem >= mem {
			return i
		}
	}
	return -1
}

func (c *cell) place(t *task, at int64) {
	idx := c.pick(t.j.cpu, t.j.mem)
	if idx >= 0 {
		c.run(t, idx, at, false)
		return
	}
	t.tries++
	if g := tiers[t.j.tier].giveUp; g > 0 && t.tries >= g {
		c.emitTask(t, at, borg.EventKill)
		c.done(t, at, borg.EventKill)
		return
	}
	wait := min(retryMax, retryBase*math.Pow(2, float64(t.tries-1)))
	c.push(action{at: at + int64(wait*1e6), kind: actPlace, t: t, gen: t.gen})
}

// run starts a task on a machine and plans how its run ends. A task
// running at trace start (initial) has run for a while already: only a
// share of its run is left, counted from the window's start.
func (c *cell) run(t *task, idx int, at int64, initial bool) {
	mc := &c.machines[idx]
	j := t.j
	mc.freeCPU -= j.cpu
	mc.freeMem -= j.mem
	t.machine, t.slot = idx, len(mc.tasks)
	mc.tasks = append(mc.tasks, t)
	t.state = stateRunning
	t.start = at
	c.emitTask(t, at, borg.EventSchedule)
	if !j.scheduled {
		j.scheduled = true
		c.emitJob(j, at, borg.EventSchedule)
	}
	m := c.m
	dur := j.base * m.lognormal(1, taskRunSigma)
	from := at
	if initial {
		dur *= m.rng.Float64()
		from = WindowStart.Microseconds()
		t.start = from
	}
	tm := &tiers[j.tier]
	var typ borg.EventType
	switch u := m.rng.Float64(); {
	case u < tm.evict:
		typ, dur = borg.EventEvict, dur*m.rng.Float64()
	case u < tm.evict+tm.fail:
		typ, dur = borg.EventFail, dur*m.rng.Float64()
	case j.service && m.rng.Float64() < 0.85:
		typ = borg.EventKill // services end when their owners stop them
	case !j.service && m.rng.Float64() < 0.1:
		typ = borg.EventKill
	default:
		typ = borg.EventFinish
	}
	c.push(action{at: from + max(1, int64(dur*1e6)), kind: actEnd, typ: typ, t: t, gen: t.gen})
}

// endRun ends a task's run the way it was planned.
func (c *cell) endRun(t *task, at int64, typ borg.EventType) {
	c.emitTask(t, at, typ)
	c.vacate(t, at)
	switch {
	case typ == borg.EventEvict:
		c.waitResubmit(t, at)
	case typ == borg.EventFail && t.attempts < maxAttempts && c.m.rng.Float64() < 0.75:
		c.waitResubmit(t, at)
	default:
		c.done(t, at, typ)
	}
}

// vacate takes a running task off its machine.
func (c *cell) vacate(t *task, at int64) {
	mc := &c.machines[t.machine]
	j := t.j
	mc.freeCPU += j.cpu
	mc.freeMem += j.mem
	last := mc.tasks[len(mc.tasks)-1]
	mc.tasks[t.slot] = last
	last.slot = t.slot
	mc.tasks[len(mc.tasks)-1] = nil
	mc.tasks = mc.tasks[:len(mc.tasks)-1]
	secs := float64(at-t.start) / 1e6
	j.cpuUse += j.cpu * secs
	j.memUse += j.mem * secs
	t.machine = -1
	t.gen++
}

func (c *cell) waitResubmit(t *task, at int64) {
	t.state = stateWaiting
	c.push(action{at: at + c.m.seconds(resubmitAfter, 1), kind: actResubmit, t: t, gen: t.gen})
}

func (c *cell) resubmit(t *task, at int64) {
	t.attempts++
	t.tries = 0
	t.state = statePending
	c.emitTask(t, at, borg.EventSubmit)
	c.schedulePlace(t, at)
}

// done ends a task for good; the job ends with its last task.
func (c *cell) done(t *task, at int64, typ borg.EventType) {
	c.liveTasks--
	t.state = stateDone
	t.gen++
	j := t.j
	j.failed = j.failed || typ == borg.EventFail
	j.killed = j.killed || typ == borg.EventKill
	j.live--
	if j.live > 0 {
		return
	}
	end := borg.EventFinish
	switch {
	case j.failed:
		end = borg.EventFail
	case j.killed:
		end = borg.EventKill
	}
	c.emitJob(j, at, end)
	c.retire(j)
}

func (c *cell) retire(j *job) {
	c.cpuUse.add(j.cpuUse)
	c.memUse.add(j.memUse)
	delete(c.live, j)
}

// machineDown removes a random machine that is up: its tasks are evicted
// and resubmitted, and it comes back after a while.
func (c *cell) machineDown(at int64) {
	c.push(action{at: at + c.m.exp(removalsPerMachineHour*float64(len(c.machines))), kind: actMachineDown, m: -1})
	i := c.m.rng.IntN(len(c.machines))
	mc := &c.machines[i]
	if !mc.up {
		return
	}
	mc.up = false
	for len(mc.tasks) > 0 {
		t := mc.tasks[len(mc.tasks)-1]
		c.emitTask(t, at, borg.EventEvict)
		c.vacate(t, at)
		c.waitResubmit(t, at)
	}
	c.emitMachine(mc, at, borg.MachineRemove)
	c.push(action{at: at + c.m.seconds(downMedian, downSigma), kind: actMachineUp, m: int32(i)})
}

func (c *cell) machineUp(i int, at int64) {
	mc := &c.machines[i]
	mc.up = true
	mc.freeCPU, mc.freeMem = mc.cpu, mc.mem
	c.emitMachine(mc, at, borg.MachineAdd)
}

// finish counts what runs past the window and the top 1% shares.
func (c *cell) finish() {
	for i := range c.machines {
		for _, t := range c.machines[i].tasks {
			secs := float64(c.end-t.start) / 1e6
			t.j.cpuUse += t.j.cpu * secs
			t.j.memUse += t.j.mem * secs
		}
	}
	left := make([]*job, 0, len(c.live))
	for j := range c.live {
		left = append(left, j)
	}
	slices.SortFunc(left, func(a, b *job) int { return cmp.Compare(a.id, b.id) })
	for _, j := range left {
		c.retire(j)
	}
	c.rep.Top1CPU = c.cpuUse.top1()
	c.rep.Top1Mem = c.memUse.top1()
	for _, u := range c.users {
		if u {
			c.rep.Users++
		}
	}
}

func (c *cell) emitMachine(mc *machine, at int64, typ borg.MachineEventType) {
	if c.err != nil {
		return
	}
	e := borg.MachineEvent{Time: at, MachineID: mc.id, Type: typ, Platform: mc.platform, Switch: mc.sw}
	if typ != borg.MachineRemove {
		e.CPU, e.Memory = mc.cpu, mc.mem
	}
	c.err = c.out.machine(&e)
	c.rep.MachineRows++
	c.rep.MachineEvents[typ]++
}

func (c *cell) userName(u int) string {
	if c.names[u] == "" {
		c.names[u] = c.m.hashName("user", int64(u))
	}
	return c.names[u]
}

func (c *cell) emitJob(j *job, at int64, typ borg.EventType) {
	if c.err != nil {
		return
	}
	e := borg.JobEvent{Time: at, JobID: j.id, Type: typ, User: c.userName(j.user),
		SchedClass: j.class, JobName: j.name, LogicalJobName: j.logical, Priority: j.prio,
		VerticalScaling: j.vscale, Scheduler: j.scheduler}
	c.err = c.out.job(&e)
	c.rep.JobRows++
	c.rep.JobEvents[typ]++
}

func (c *cell) emitTask(t *task, at int64, typ borg.EventType) {
	if c.err != nil {
		return
	}
	j := t.j
	e := borg.TaskEvent{Time: at, JobID: j.id, TaskIndex: t.index, Type: typ, SchedClass: j.class,
		Priority: j.prio, CPURequest: j.cpu, MemRequest: j.mem, AllocInstanceIndex: borg.NoAllocIndex}
	if t.machine >= 0 {
		e.MachineID = c.machines[t.machine].id
	}
	c.err = c.out.task(&e)
	c.rep.TaskRows++
	c.rep.TaskEvents[typ]++
}
