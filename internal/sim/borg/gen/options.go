package gen

import (
	"errors"
	"fmt"
	"regexp"
	"time"
)

// Options configure a generated trace.
type Options struct {
	// Seed selects the random trace; the same options give byte-identical
	// files.
	Seed uint64
	// Duration is the length of the trace window after its start at 600 s
	// (default 1 hour, at most 31 days).
	Duration time.Duration
	// Machines is the number of machines per cell (default 12,000).
	Machines int
	// Cells names the cells to generate. Empty: one cell, written in the
	// output directory itself; otherwise one directory per cell, each
	// with its own random stream derived from Seed and the cell's name.
	Cells []string
	// JobsPerHour is the job (collection) arrival rate of a cell. Default:
	// 3,300 per hour for 12,000 machines, scaled with Machines so a
	// smaller cell carries the same load per machine.
	JobsPerHour float64
	// InitialFill is the share of the cell's CPU requested by the tasks
	// running at trace start (0: the default 0.8; negative: none; at most
	// 0.95).
	InitialFill float64
	// ShardRows is the number of rows per shard file (default 1,000,000).
	ShardRows int64
}

// Defaults.
const (
	DefaultDuration    = time.Hour
	DefaultMachines    = 12000
	DefaultJobsPerHour = 3300.0 // for DefaultMachines machines
	DefaultInitialFill = 0.8
	DefaultShardRows   = 1_000_000
	// MaxDuration is the length of the published trace: May 2019.
	MaxDuration = 31 * 24 * time.Hour
	// MaxMachines bounds a cell far above the published cells' size.
	MaxMachines = 200_000
)

// WindowStart is the trace time at which the window starts: time 0 holds
// the state before it (machines, and tasks already running), as in the
// published traces.
const WindowStart = 600 * time.Second

// ErrBadOptions is wrapped by every rejection of Options.
var ErrBadOptions = errors.New("bad generator options")

var cellName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// withDefaults fills in the defaults and rejects bad values, naming them.
func (o Options) withDefaults() (Options, error) {
	if o.Duration == 0 {
		o.Duration = DefaultDuration
	}
	if o.Duration < 0 || o.Duration > MaxDuration {
		return o, fmt.Errorf("gen: %w: duration %s out of range (0, %s]", ErrBadOptions, o.Duration, MaxDuration)
	}
	if o.Machines == 0 {
		o.Machines = DefaultMachines
	}
	if o.Machines < 0 || o.Machines > MaxMachines {
		return o, fmt.Errorf("gen: %w: machines %d out of range 1-%d", ErrBadOptions, o.Machines, MaxMachines)
	}
	if o.JobsPerHour == 0 {
		o.JobsPerHour = DefaultJobsPerHour * float64(o.Machines) / DefaultMachines
	}
	if !(o.JobsPerHour > 0) || o.JobsPerHour > 1e7 {
		return o, fmt.Errorf("gen: %w: jobs per hour %g out of range (0, 1e7]", ErrBadOptions, o.JobsPerHour)
	}
	switch {
	case o.InitialFill == 0:
		o.InitialFill = DefaultInitialFill
	case o.InitialFill < 0:
		o.InitialFill = 0
	}
	if !(o.InitialFill >= 0) || o.InitialFill > 0.95 {
		return o, fmt.Errorf("gen: %w: initial fill %g out of range [0, 0.95]", ErrBadOptions, o.InitialFill)
	}
	if o.ShardRows == 0 {
		o.ShardRows = DefaultShardRows
	}
	if o.ShardRows < 0 {
		return o, fmt.Errorf("gen: %w: shard rows %d must be positive", ErrBadOptions, o.ShardRows)
	}
	seen := map[string]bool{}
	for _, c := range o.Cells {
		if !cellName.MatchString(c) {
			return o, fmt.Errorf("gen: %w: bad cell name %q: want 1-64 letters, digits, '-' or '_'", ErrBadOptions, c)
		}
		if seen[c] {
			return o, fmt.Errorf("gen: %w: cell %q named twice", ErrBadOptions, c)
		}
		seen[c] = true
	}
	return o, nil
}
