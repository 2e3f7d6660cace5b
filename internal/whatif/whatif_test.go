package whatif

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/replay"
	"github.com/paddock-sched/paddock/internal/sim/borg/gen"
)

var (
	traceOnce sync.Once
	traceDir  string
	traceErr  error
)

// trace is a small synthetic trace shared by the tests.
func trace(t *testing.T) replay.Options {
	t.Helper()
	traceOnce.Do(func() {
		traceDir, traceErr = makeTempDir()
		if traceErr == nil {
			_, traceErr = gen.Generate(traceDir, gen.Options{Seed: 2, Machines: 120, Duration: 20 * time.Minute})
		}
	})
	if traceErr != nil {
		t.Fatal(traceErr)
	}
	return replay.Options{Trace: traceDir, Interval: 5 * time.Second}
}

// tight is the default configuration with a small maximum on the batch
// queue: 10 cores, far below what batch runs at trace start.
var tight = strings.Replace(replay.DefaultConfig,
	"          - name: batch\n            properties: {priority.offset: \"100\"}\n",
	"          - name: batch\n            properties: {priority.offset: \"100\"}\n            resources: {max: {vcore: 10}}\n", 1)

func TestTightQueueMax(t *testing.T) {
	if tight == replay.DefaultConfig {
		t.Fatal("the batch queue of the default configuration was not found")
	}
	r, err := Run(trace(t), Config{"default", ""}, Config{"tight batch", tight})
	if err != nil {
		t.Fatal(err)
	}
	a, b := r.A, r.B
	if a.Scheduled == 0 {
		t.Fatalf("nothing scheduled:\n%s", a)
	}
	batch := slicesIndex(replay.Tiers(), "batch")
	// B holds batch tasks back: fewer placed, more pending at the end,
	// less of the cluster allocated; the other tiers are not held back
	if !(b.Scheduled < a.Scheduled && b.PendingAtEnd > a.PendingAtEnd && len(b.Delays[batch]) < len(a.Delays[batch])) {
		t.Errorf("tight batch max: scheduled %d -> %d, pending at end %d -> %d, batch placed %d -> %d",
			a.Scheduled, b.Scheduled, a.PendingAtEnd, b.PendingAtEnd, len(a.Delays[batch]), len(b.Delays[batch]))
	}
	meanA, _, _, _ := a.Utilisation()
	meanB, _, _, _ := b.Utilisation()
	if meanB >= meanA {
		t.Errorf("mean CPU allocation %.3f -> %.3f, want lower", meanA, meanB)
	}
	prod := slicesIndex(replay.Tiers(), "production")
	if len(b.Delays[prod]) != len(a.Delays[prod]) {
		t.Errorf("production tasks placed %d -> %d: the batch max should not hold them back", len(a.Delays[prod]), len(b.Delays[prod]))
	}
	if r.SameDecisions() || r.Differences() == 0 {
		t.Fatal("different configurations, same decisions")
	}
	// the per-queue figures are there and say the same
	if len(a.QueueDelays["root.batch"]) != len(a.Delays[batch]) || len(b.QueueDelays["root.batch"]) != len(b.Delays[batch]) {
		t.Errorf("root.batch delays %d/%d, batch tier %d/%d", len(a.QueueDelays["root.batch"]), len(b.QueueDelays["root.batch"]),
			len(a.Delays[batch]), len(b.Delays[batch]))
	}
	out := r.String()
	for _, want := range []string{"scheduled", "pending at end", "preempted", "CPU mean", "memory peak",
		"scheduling delay per priority tier", "scheduling delay per queue", "root.batch p99",
		a.LogHash, b.LogHash, "different decisions"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if page := string(HTML(r)); !strings.Contains(page, "<svg") || strings.Count(page, "Fidelity score") != 2 {
		t.Error("report lacks the plots or a fidelity table per side")
	}
}

func TestIdenticalConfigs(t *testing.T) {
	r, err := Run(trace(t), Config{"a", tight}, Config{"b", tight})
	if err != nil {
		t.Fatal(err)
	}
	if !r.SameDecisions() || r.A.LogHash == "" {
		t.Fatalf("hashes %s and %s", r.A.LogHash, r.B.LogHash)
	}
	if n := r.Differences(); n != 0 {
		t.Fatalf("%d differences:\n%s", n, r)
	}
	for _, row := range r.Rows() {
		if diff(row) != "=" {
			t.Errorf("row %s/%s shows %q", row.Section, row.Name, diff(row))
		}
	}
	if !strings.Contains(r.String(), "same decisions: no differences") {
		t.Errorf("output:\n%s", r)
	}
}

// TestQueuesFromPlacement: delays are counted under the queue the
// placement rules chose, not the queue the replay asked for.
func TestQueuesFromPlacement(t *testing.T) {
	shared := `partitions:
  - name: default
    placementrules:
      - name: fixed
        value: root.shared
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: shared
`
	r, err := Run(trace(t), Config{"default", ""}, Config{"one shared queue", shared})
	if err != nil {
		t.Fatal(err)
	}
	// every delay (a task submitted in the window and placed) is counted
	// under the one queue
	if n := len(r.B.AllDelays()); len(r.B.QueueDelays) != 1 || len(r.B.QueueDelays["root.shared"]) != n || n == 0 {
		t.Errorf("B queues: %d delays, delays per queue %v", n, keys(r.B.QueueDelays))
	}
	if len(r.A.QueueDelays) < 3 {
		t.Errorf("A queues: %v, want one per tier that ran", keys(r.A.QueueDelays))
	}
	out := r.String()
	if !strings.Contains(out, "root.shared p50") || !strings.Contains(out, "root.production p50") {
		t.Errorf("output lacks the queues of both sides:\n%s", out)
	}
}

func TestBadConfig(t *testing.T) {
	_, err := Run(trace(t), Config{"default", ""}, Config{"broken", "partitions: [nonsense"})
	if err == nil || !strings.Contains(err.Error(), "configuration B (broken)") {
		t.Fatalf("error %v, want one naming configuration B", err)
	}
}

func TestDiffFormat(t *testing.T) {
	for _, c := range []struct {
		row  Row
		want string
	}{
		{Row{Kind: Count, A: 200, B: 150}, "-50 (-25.0%)"},
		{Row{Kind: Count, A: 0, B: 3}, "+3"},
		{Row{Kind: Delay, A: float64(time.Second), B: float64(3 * time.Second)}, "+2s"},
		{Row{Kind: Delay, A: float64(900 * time.Millisecond), B: float64(400 * time.Millisecond)}, "-500ms"},
		{Row{Kind: Share, A: 0.5, B: 0.25}, "-25.0 pt"},
		{Row{Kind: Share, A: 0.5, B: 0.5}, "="},
	} {
		if got := diff(c.row); got != c.want {
			t.Errorf("%+v: %q, want %q", c.row, got, c.want)
		}
	}
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func keys(m map[string][]time.Duration) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The scheduler's own wait comes first, then the modelled latency, then
// their sum.
func TestSchedulerWaitFirst(t *testing.T) {
	r, err := Run(trace(t), Config{"default", ""}, Config{"tight batch", tight})
	if err != nil {
		t.Fatal(err)
	}
	out := r.String()
	sched := strings.Index(out, SectionSchedAll)
	model := strings.Index(out, SectionModelAll)
	total := strings.Index(out, SectionDelayAll)
	if sched < 0 || model < sched || total < model {
		t.Errorf("sections at %d (scheduler), %d (model), %d (sum):\n%s", sched, model, total, out)
	}
	for _, row := range r.Rows() {
		if row.Section == SectionSchedTier && row.Name == "batch tasks" && row.A == 0 {
			t.Error("no scheduler wait for batch")
		}
	}
}

// Where the model draws, the comparison replays both sides under several
// seeds and gives B - A with an interval: zero for the same configuration,
// beyond the noise somewhere for two different ones.
func TestSeedIntervals(t *testing.T) {
	o := trace(t)
	if !o.RandomDraws() {
		t.Fatal("the default model draws a latency tail")
	}
	r, err := RunSeeds(o, Config{"default", ""}, Config{"tight batch", tight}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Seeds) != 3 || r.Seeds[0].A.LogHash != r.A.LogHash || r.Seeds[1].A.LogHash == r.A.LogHash {
		t.Fatalf("seeds %d; seed 0 is the result's A, seed 1 draws otherwise", len(r.Seeds))
	}
	ivs := r.Intervals()
	beyond := 0
	for _, iv := range ivs {
		if iv.N != 3 || iv.Lo > iv.Mean || iv.Mean > iv.Hi {
			t.Errorf("interval %+v", iv)
		}
		if iv.Beyond() {
			beyond++
		}
	}
	if len(ivs) == 0 || beyond == 0 {
		t.Errorf("%d intervals, %d beyond the noise", len(ivs), beyond)
	}
	if out := r.String(); !strings.Contains(out, "B - A over 3 seeds") {
		t.Errorf("output lacks the seed intervals:\n%s", out)
	}

	same, err := RunSeeds(o, Config{"a", tight}, Config{"b", tight}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range same.Intervals() {
		if iv.Mean != 0 || iv.Lo != 0 || iv.Hi != 0 || iv.Beyond() {
			t.Errorf("same configuration: %+v", iv)
		}
	}
	// without draws there is one replay per side
	o.TailTiers = []string{}
	if one, err := RunSeeds(o, Config{"a", ""}, Config{"b", tight}, 3); err != nil || len(one.Seeds) != 0 {
		t.Errorf("no draws: %v, %d seed pairs", err, len(one.Seeds))
	}
}
