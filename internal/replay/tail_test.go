package replay

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// tailFixture: one big machine; 400 one-task production jobs and 400
// one-task batch jobs submitted at 600 s, small enough to all fit at once;
// the tests take no limit on equivalence classes (800 jobs are 800
// classes), which would hold them back for the throughput, not the tail.
func tailFixture(t *testing.T) string {
	dir := t.TempDir()
	writeTable(t, dir, "machine_events", "0,1,0,p,1,1")
	var jobs, tasks []string
	for j := range 800 {
		prio := 9
		if j%2 == 1 {
			prio = 2
		}
		jobs = append(jobs, fmt.Sprintf("600000000,,%d,0,u%d,0,j,l", 100+j, j%7))
		tasks = append(tasks, fmt.Sprintf("600000000,,%d,0,,0,u%d,0,%d,0.0001,0.0001,0,0", 100+j, j%7, prio))
	}
	writeTable(t, dir, "job_events", jobs...)
	writeTable(t, dir, "task_events", tasks...)
	return dir
}

func quantile(d []time.Duration, q float64) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

// TestTail: with the default tail, production tasks the cell has room for
// wait a lognormal latency (p50 the 1 s submission latency, p90 about
// DefaultTailP90) while batch tasks do not; without it, all wait 1 s.
func TestTail(t *testing.T) {
	dir := tailFixture(t)
	prod := slices.Index(Tiers(), "production")
	s, err := Run(Options{Trace: dir, End: 1200 * time.Second, ClassRate: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Delays[prod]) != 400 || len(s.Delays[1]) != 400 {
		t.Fatalf("placed %d production, %d batch tasks, want 400 each", len(s.Delays[prod]), len(s.Delays[1]))
	}
	// the replay's delay is the latency rounded up to the next 1 s cycle
	if p50 := quantile(s.Delays[prod], 0.5); p50 < time.Second || p50 > 2*time.Second {
		t.Errorf("production p50 %s, want 1-2 s", p50)
	}
	if p90 := quantile(s.Delays[prod], 0.9); p90 < 15*time.Second || p90 > 40*time.Second {
		t.Errorf("production p90 %s, want about %s", p90, DefaultTailP90)
	}
	if mx := slices.Max(s.Delays[prod]); mx > DefaultTailMax+time.Second {
		t.Errorf("a production task waited %s, over the maximum %s", mx, DefaultTailMax)
	}
	if mx := slices.Max(s.Delays[1]); mx > 2*time.Second {
		t.Errorf("a batch task waited %s: batch is not a tail tier", mx)
	}
	if !strings.Contains(s.Model, "production, monitoring: latency lognormal, p50 1s, p90 25s, at most 1m30s") {
		t.Errorf("model %q does not describe the tail", s.Model)
	}

	for _, o := range []Options{{TailP90: -1}, {TailTiers: []string{}}, {Model: ModelLimits}} {
		o.Trace, o.End, o.ClassRate = dir, 1200*time.Second, -1
		s, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		if mx := slices.Max(s.Delays[prod]); mx > 2*time.Second {
			t.Errorf("%+v: a production task waited %s without the tail", o, mx)
		}
	}

	// the tail of batch alone: batch waits, production does not
	s, err = Run(Options{Trace: dir, End: 1200 * time.Second, ClassRate: -1, TailTiers: []string{"batch"}})
	if err != nil {
		t.Fatal(err)
	}
	if quantile(s.Delays[1], 0.9) < 15*time.Second || slices.Max(s.Delays[prod]) > 2*time.Second {
		t.Errorf("tail on batch only: batch p90 %s, production max %s", quantile(s.Delays[1], 0.9), slices.Max(s.Delays[prod]))
	}
}

// TestNormalOf: the draw is a standard normal, the same for the same key.
func TestNormalOf(t *testing.T) {
	var z []float64
	for i := range 20000 {
		z = append(z, normalOf(fmt.Sprintf("%d-%d-1", 6250000000+i/37, i%37)))
	}
	if normalOf("1-2-3") != normalOf("1-2-3") {
		t.Fatal("normalOf is not a function of its key")
	}
	slices.Sort(z)
	for _, c := range []struct{ q, want float64 }{{0.1, -z90}, {0.5, 0}, {0.9, z90}, {0.99, 2.326}} {
		if got := z[int(c.q*float64(len(z)))]; math.Abs(got-c.want) > 0.05 {
			t.Errorf("quantile %g of normalOf: %.3f, want %.3f", c.q, got, c.want)
		}
	}
}

func TestParseTiers(t *testing.T) {
	if got, err := ParseTiers(" Mid, production,,"); err != nil || !slices.Equal(got, []string{"mid", "production"}) {
		t.Errorf("ParseTiers = %v, %v", got, err)
	}
	if got, err := ParseTiers(""); err != nil || got != nil {
		t.Errorf("ParseTiers(\"\") = %v, %v", got, err)
	}
	if _, err := ParseTiers("prod"); err == nil || !strings.Contains(err.Error(), "production") {
		t.Errorf("ParseTiers(prod): %v", err)
	}
}
