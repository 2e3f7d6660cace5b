package gen

import (
	"fmt"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/sim/borg"
)

// Report is what the generator wrote for one cell: the row counts the
// reader must see, and the figures the trace is calibrated on.
type Report struct {
	Cell        string // "" for a single unnamed cell
	Dir         string
	Seed        uint64
	Start, End  time.Duration // the trace window
	Machines    int
	JobsPerHour float64 // the arrival rate asked for

	// Sum of the machines' normalised capacities.
	CPUCapacity, MemCapacity float64

	// Rows and shard files per table.
	MachineRows, JobRows, TaskRows    int64
	MachineFiles, JobFiles, TaskFiles int

	// Events by type (indexed by borg.MachineEventType and borg.EventType).
	MachineEvents [4]int64
	JobEvents     [12]int64
	TaskEvents    [12]int64

	Jobs  int64 // distinct jobs (collections)
	Tasks int64 // distinct tasks (instances)
	Users int   // distinct users

	// The state at trace time 0: jobs submitted, tasks running, and the
	// share of the cell's CPU and memory those tasks request.
	InitialJobs, InitialTasks int64
	InitialCPU, InitialMem    float64

	// Jobs submitted during the window, in all and per tier (TierNames).
	Arrivals     int64
	ArrivalTiers [numTiers]int64

	// Share of all requested CPU·time and memory·time inside the window
	// that the top 1% of jobs hold.
	Top1CPU, Top1Mem float64
}

// ArrivalsPerHour is the measured job arrival rate in the window.
func (r *Report) ArrivalsPerHour() float64 {
	h := (r.End - r.Start).Hours()
	if h <= 0 {
		return 0
	}
	return float64(r.Arrivals) / h
}

// String summarises the cell.
func (r *Report) String() string {
	var b strings.Builder
	name := r.Cell
	if name == "" {
		name = "(single cell)"
	}
	fmt.Fprintf(&b, "cell           %s in %s, seed %d, window %s .. %s\n", name, r.Dir, r.Seed, r.Start, r.End)
	fmt.Fprintf(&b, "machines       %d (capacity %.0f CPU, %.0f memory normalised); events:", r.Machines, r.CPUCapacity, r.MemCapacity)
	for t := borg.MachineAdd; t <= borg.MachineUpdate; t++ {
		fmt.Fprintf(&b, " %d %s", r.MachineEvents[t], t)
	}
	fmt.Fprintf(&b, "\njobs           %d (%d at trace start, %d arrived: %.0f per hour; %d users)\n",
		r.Jobs, r.InitialJobs, r.Arrivals, r.ArrivalsPerHour(), r.Users)
	fmt.Fprintf(&b, "tier mix       ")
	for i, n := range r.ArrivalTiers {
		fmt.Fprintf(&b, "%s %.1f%%  ", TierNames[i], 100*share(n, r.Arrivals))
	}
	fmt.Fprintf(&b, "\ntasks          %d (%d running at trace start: %.0f%% of the CPU, %.0f%% of the memory)\n",
		r.Tasks, r.InitialTasks, 100*r.InitialCPU, 100*r.InitialMem)
	fmt.Fprintf(&b, "task events   ")
	for t := borg.EventSubmit; t <= borg.EventUpdateRunning; t++ {
		if n := r.TaskEvents[t]; n > 0 {
			fmt.Fprintf(&b, " %d %s", n, t)
		}
	}
	fmt.Fprintf(&b, "\nheavy tail     the top 1%% of jobs hold %.1f%% of the requested CPU-time and %.1f%% of the memory-time\n",
		100*r.Top1CPU, 100*r.Top1Mem)
	fmt.Fprintf(&b, "rows           %d machine_events (%d files), %d collection_events (%d), %d instance_events (%d)\n",
		r.MachineRows, r.MachineFiles, r.JobRows, r.JobFiles, r.TaskRows, r.TaskFiles)
	return b.String()
}

func share(n, total int64) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total)
}
