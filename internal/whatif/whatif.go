// Package whatif replays one trace under two queue configurations and
// compares what the scheduler did: the scheduler's own wait, the modelled
// latency before it and their sum, per priority tier (and the sum per
// queue), tasks scheduled and pending, CPU and memory allocation,
// preemptions, and the decision-log hashes. Identical configurations give
// identical hashes and no differences. Where the replay's model draws
// random latencies, RunSeeds replays both sides under several seeds and
// gives each difference with an interval.
package whatif

import (
	"errors"
	"fmt"
	"sync"

	"github.com/paddock-sched/paddock/internal/replay"
)

// Config is one side of the comparison: a name for the report (usually the
// file name) and the queues.yaml text ("" is the replay's default).
type Config struct {
	Name string
	YAML string
}

// Result holds both replays (under the default seed) and, from RunSeeds,
// both under each seed.
type Result struct {
	A, B         *replay.Summary
	NameA, NameB string
	Seeds        []Pair
}

// Run replays o's trace with configuration a and with b, side by side on
// two goroutines (each replay owns its scheduler). o.Config, o.Log and
// o.Progress are ignored.
func Run(o replay.Options, a, b Config) (*Result, error) {
	o.Log, o.Progress = nil, nil
	var (
		wg         sync.WaitGroup
		sa, sb     *replay.Summary
		errA, errB error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		oa := o
		oa.Config = a.YAML
		sa, errA = replay.Run(oa)
	}()
	go func() {
		defer wg.Done()
		ob := o
		ob.Config = b.YAML
		sb, errB = replay.Run(ob)
	}()
	wg.Wait()
	if errA != nil {
		errA = fmt.Errorf("configuration A (%s): %w", a.Name, errA)
	}
	if errB != nil {
		errB = fmt.Errorf("configuration B (%s): %w", b.Name, errB)
	}
	if err := errors.Join(errA, errB); err != nil {
		return nil, err
	}
	return &Result{A: sa, B: sb, NameA: a.Name, NameB: b.Name}, nil
}

// SameDecisions reports whether both replays made the same decisions
// (their decision-log hashes are equal).
func (r *Result) SameDecisions() bool { return r.A.LogHash == r.B.LogHash }
