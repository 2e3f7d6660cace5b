package replay

// The scheduler's work per equivalence class.
//
// Borg's scheduler does not score every task: "tasks in a Borg job usually
// have identical requirements and constraints, so rather than determining
// feasibility for every pending task on every machine, and scoring all the
// feasible machines, Borg only does feasibility and scoring for one task
// per equivalence class – a group of tasks with identical requirements"
// (Verma et al., EuroSys 2015, §3.4). So a job of 2,000 identical tasks
// costs it about as much as one task, while 2,000 tasks of 100 jobs, such
// as the free tasks a burst of preemptions sends back to the pending
// queue, cost it 100 times as much. The trace shows the two apart: Borg
// places a fresh job of 1,000 to 2,000 free tasks within one second, and
// takes 15 s (median) to place again the free tasks evicted in a burst.
//
// The model counts that work as a second token bucket beside the asks'
// (throughput.go): an ask goes through when an ask token is left and its
// class was let through in this cycle already, or a class token is left
// to let its class through. A class is a job's tasks of one priority with
// the same CPU and memory request and the same different-machines flag
// (the trace's fields; it has no other constraints). ClassRate and
// ClassBurst are read off the calibration shards by the ask bucket's rule,
// counting in each second the distinct classes of the tasks placed (a
// class placed over several seconds counts in each): parts 0-1's busiest
// 80 s placed 4.3 classes a second, and their busiest 10 s (of trace time
// from a multiple of 10 s, as for the asks) 107, 64 more than 10 s of that
// rate. Parts 2-3 give 5.7/s and 57 the same way.

// DefaultClassRate is the reclaim model's scheduler throughput in
// equivalence classes a second (parts 0-1's busiest 80 s).
const DefaultClassRate = 4.3

// DefaultClassBurst is how many classes the scheduler takes at once after
// a quiet spell (parts 0-1's busiest 10 s less 10 s of DefaultClassRate).
const DefaultClassBurst = 64.0

// classKey is a task's equivalence class.
type classKey struct {
	job       int64
	prio      int32
	cpu, mem  float64
	different bool
}

func classOf(t *task) classKey {
	return classKey{job: t.job, prio: t.prio, cpu: t.cpu, mem: t.mem, different: t.spread}
}

// pickByClass chooses, in orderRoundRobin's order, the ready asks the ask
// tokens and the class tokens allow, and spends those tokens. It returns
// which asks, by index.
func (s *sim) pickByClass(live []readyAsk) []bool {
	open := map[classKey]bool{}
	pick := make([]bool, len(live))
	for _, i := range orderRoundRobin(live) {
		if s.tokens < 1 {
			break
		}
		k := classOf(live[i].t)
		if !open[k] {
			if s.classTokens < 1 {
				continue
			}
			s.classTokens--
			open[k] = true
		}
		s.tokens--
		pick[i] = true
	}
	return pick
}
