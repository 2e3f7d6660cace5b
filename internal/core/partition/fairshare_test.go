package partition

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
)

// fairConfig is root with fair-share preemption (unless off) over the
// given children "name[:weight]", each with preemption.delay 1s.
func fairConfig(on bool, children ...string) string {
	var b strings.Builder
	b.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n")
	if on {
		b.WriteString("        properties: {paddock.fairshare.preemption: enabled}\n")
	}
	b.WriteString("        queues:\n")
	for _, c := range children {
		name, w, _ := strings.Cut(c, ":")
		fmt.Fprintf(&b, "          - name: %s\n", name)
		if w != "" {
			fmt.Fprintf(&b, "            properties: {preemption.delay: 1s, paddock.fairshare.weight: %q}\n", w)
		} else {
			b.WriteString("            properties: {preemption.delay: 1s}\n")
		}
	}
	return b.String()
}

// settle runs passes like an RM that confirms every release at once, the
// clock moving by PreemptionRetry between passes, until a pass changes
// nothing or limit passes ran. It returns the passes run and the victims.
func settle(t *testing.T, p *Partition, now time.Time, limit int) (int, int, time.Time) {
	t.Helper()
	victims, quiet := 0, 0
	for pass := 1; pass <= limit; pass++ {
		p.Schedule(now)
		out := p.Out.Take()
		for _, r := range out.Released {
			if r.Termination != PreemptedByScheduler {
				t.Fatalf("release %+v", r)
			}
			p.Release(r.AppID, r.AllocationKey, now)
			victims++
		}
		if err := p.Verify(); err != nil {
			t.Fatal(err)
		}
		if len(out.Released) == 0 && len(out.Allocations) == 0 {
			if quiet++; quiet == 3 {
				return pass, victims, now
			}
		} else {
			quiet = 0
		}
		now = now.Add(PreemptionRetry)
	}
	return limit, victims, now
}

func mustAddAsks(t *testing.T, p *Partition, appID string, n int, res resource.Vector, now time.Time) {
	t.Helper()
	for i := range n {
		x := &app.Allocation{Key: fmt.Sprintf("%s-%d", appID, i), AppID: appID, Res: res, PreemptOther: true, PreemptSelf: true}
		if err := p.AddAsk(x, now); err != nil {
			t.Fatal(err)
		}
	}
}

func queueVcore(t *testing.T, p *Partition, path string) int64 {
	t.Helper()
	q, ok := p.tree.Queue(path)
	if !ok {
		t.Fatalf("no queue %s", path)
	}
	return q.Allocated[resource.VCoreIndex]
}

// fairWeightsCase: b holds the whole 8-vcore node, a arrives asking for
// all of it; weights a:b.
func fairWeightsCase(t *testing.T, on bool, wa, wb string) *Partition {
	t.Helper()
	p := mustPartition(t, fairConfig(on, "a:"+wa, "b:"+wb))
	if err := p.AddNode("n1", vec(8000, 8<<30), resource.Vector{}, nil, true); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if err := p.AddApp(AppRequest{ID: id, Queue: "root." + id, User: "u"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	mustAddAsks(t, p, "b", 8, vec(1000, 1<<30), t0)
	p.Schedule(t0)
	p.Out.Take()
	now := t0.Add(time.Minute)
	mustAddAsks(t, p, "a", 8, vec(1000, 1<<30), now)
	settle(t, p, now.Add(2*time.Second), 100)
	return p
}

// TestFairShareWeights: weights 3:1 give 75/25 of the node, 1:1 half each,
// and without the property nothing is preempted (no guarantees are set).
func TestFairShareWeights(t *testing.T) {
	for _, tc := range []struct {
		on     bool
		wa, wb string
		a, b   int64
	}{
		{true, "3", "1", 6000, 2000},
		{true, "1", "3", 2000, 6000},
		{true, "1", "1", 4000, 4000},
		{false, "3", "1", 0, 8000},
	} {
		p := fairWeightsCase(t, tc.on, tc.wa, tc.wb)
		if a, b := queueVcore(t, p, "root.a"), queueVcore(t, p, "root.b"); a != tc.a || b != tc.b {
			t.Errorf("on=%v weights %s:%s: a=%d b=%d, want %d/%d", tc.on, tc.wa, tc.wb, a, b, tc.a, tc.b)
		}
	}
}

// TestFairShareVictimOrder: victims go lowest priority first, then
// youngest.
func TestFairShareVictimOrder(t *testing.T) {
	p := mustPartition(t, fairConfig(true, "a", "b"))
	p.AddNode("n1", vec(4000, 4<<30), resource.Vector{}, nil, true)
	p.AddApp(AppRequest{ID: "a", Queue: "root.a", User: "u"}, t0)
	p.AddApp(AppRequest{ID: "b", Queue: "root.b", User: "u"}, t0)
	add := func(key string, prio int32, at time.Duration) {
		x := &app.Allocation{Key: key, AppID: "b", NodeID: "n1", Res: vec(1000, 1<<30), Priority: prio, Created: t0.Add(at), PreemptSelf: true}
		if err := p.AddAllocation(x, t0); err != nil {
			t.Fatal(err)
		}
	}
	add("old-low", 0, 0)
	add("new-low", 0, time.Second)
	add("new-high", 5, 2*time.Second)
	add("old-high", 5, 0)
	p.Out.Take()
	now := t0.Add(time.Minute)
	p.AddAsk(&app.Allocation{Key: "x", AppID: "a", Res: vec(2000, 2<<30), Priority: 5, PreemptOther: true}, now)
	p.Schedule(now.Add(2 * time.Second))
	var got []string
	for _, r := range p.Out.Take().Released {
		got = append(got, r.AllocationKey)
	}
	if strings.Join(got, ",") != "new-low,old-low" {
		t.Fatalf("victims %v, want new-low,old-low", got)
	}
}

// TestFairShareVolcano3841: 100 equal-weight per-user queues, one user
// holding 70 % of the cluster, 99 users arriving with more demand than a
// hundredth each. Within a bounded number of passes every user holds at
// least 1/100 of the cluster minus one allocation, the first keeps at
// least its hundredth, and further passes preempt nothing (no loops).
func TestFairShareVolcano3841(t *testing.T) {
	users := make([]string, 100)
	for i := range users {
		users[i] = fmt.Sprintf("u%02d", i)
	}
	p := mustPartition(t, fairConfig(true, users...))
	for i := range 100 {
		p.AddNode(fmt.Sprintf("n%03d", i), vec(10000, 10<<30), resource.Vector{}, nil, true)
	}
	for _, u := range users {
		p.AddApp(AppRequest{ID: u, Queue: "root." + u, User: u}, t0)
	}
	one := vec(1000, 1<<30)
	mustAddAsks(t, p, "u00", 700, one, t0)
	p.Schedule(t0)
	p.Out.Take()
	if got := queueVcore(t, p, "root.u00"); got != 700000 {
		t.Fatalf("u00 holds %d", got)
	}
	now := t0.Add(time.Minute)
	for _, u := range users[1:] {
		mustAddAsks(t, p, u, 20, one, now)
	}
	passes, victims, now := settle(t, p, now.Add(2*time.Second), 400)
	t.Logf("%d passes, %d victims", passes, victims)
	if passes >= 400 {
		t.Fatalf("not settled after %d passes", passes)
	}
	for _, u := range users {
		if got := queueVcore(t, p, "root."+u); got < 10000-1000 {
			t.Errorf("%s holds %d vcore, want at least 9000", u, got)
		}
	}
	if got := queueVcore(t, p, "root.u00"); got < 10000 {
		t.Errorf("u00 holds %d, below its share", got)
	}
	if _, more, _ := settle(t, p, now.Add(time.Hour), 20); more != 0 {
		t.Errorf("%d more victims once settled", more)
	}
}

// TestFairShareExplained: a fair-share preemption's victims' releases and
// events carry the rule and both queues' shares, the preemptor's
// application gets an event naming its victims, the partition keeps the
// decision, and a dry run answered the same beforehand; a queue at its
// fair share is told why nothing would be preempted.
func TestFairShareExplained(t *testing.T) {
	p := mustPartition(t, fairConfig(true, "a:3", "b"))
	var events []string
	p.SetEventSink(func(r *event.Record) {
		if r.Type == event.Request {
			events = append(events, r.ObjectID+"|"+r.ReferenceID+"|"+r.Message)
		}
	})
	p.AddNode("n1", vec(4000, 4<<30), resource.Vector{}, nil, true)
	p.AddApp(AppRequest{ID: "a", Queue: "root.a", User: "u"}, t0)
	p.AddApp(AppRequest{ID: "b", Queue: "root.b", User: "u"}, t0)
	mustAddAsks(t, p, "b", 4, vec(1000, 1<<30), t0)
	p.Schedule(t0)
	p.Out.Take()
	now := t0.Add(time.Minute)
	mustAddAsks(t, p, "a", 1, vec(1000, 1<<30), now)
	p.Schedule(now)
	p.Out.Take()
	if _, err := p.ExplainPreemption("a", "nope", now); err == nil {
		t.Error("dry run of an unknown ask: want an error")
	}
	early, err := p.ExplainPreemption("a", "a-0", now)
	if err != nil || early.Would || !strings.Contains(early.Why, "preemption.delay") {
		t.Errorf("dry run within the delay = %+v, %v", early, err)
	}
	now = now.Add(2 * time.Second)
	dry, err := p.ExplainPreemption("a", "a-0", now)
	if err != nil || !dry.Would || dry.Decision.Rule != RuleFairShare || len(dry.Decision.Victims) != 1 || dry.Decision.Victims[0].AllocationKey != "b-0" {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if len(p.PreemptDecisions()) != 0 || p.Out.Placements() {
		t.Fatal("the dry run changed something")
	}
	p.Schedule(now)
	out := p.Out.Take()
	if len(out.Released) != 1 || out.Released[0].AllocationKey != "b-0" {
		t.Fatalf("released %+v", out.Released)
	}
	want := "fair share rule: ask a-0 of application a in root.a below root (root.a at 0.2500 of the parent, fair share 0.7500, with the ask) takes 1 allocation(s) on node n1 from root.b at 1.0000 of the parent, fair share 0.2500"
	if msg := out.Released[0].Message; msg != "preempted by a-0 of application a: "+want {
		t.Errorf("release message %q", msg)
	}
	ds := p.PreemptDecisions()
	if len(ds) != 1 || ds[0].Reason != want || ds[0].Reason != dry.Decision.Reason || ds[0].Preemptor.Share != 0.25 || ds[0].VictimQueues[0].Target != 0.25 {
		t.Errorf("decisions %+v", ds)
	}
	joined := strings.Join(events, "\n")
	for _, w := range []string{"a-0|a|Preempting 1 allocation(s) by the " + want, "b-0|b|Preempted by a-0 from application a in root.a: " + want} {
		if !strings.Contains(joined, w) {
			t.Errorf("events lack %q:\n%s", w, joined)
		}
	}
	// a second ask of a would put a above its share of 0.75 once b-0 goes
	p.Release("b", "b-0", now)
	p.Schedule(now)
	if x, _ := p.apps["a"].Allocation("a-0"); x.NodeID != "n1" {
		t.Fatalf("a-0 not placed: %+v", x)
	}
	for _, k := range []string{"m1", "m2", "m3"} {
		p.AddAsk(&app.Allocation{Key: k, AppID: "a", Res: vec(1000, 1<<30), PreemptOther: true}, now)
	}
	settle(t, p, now.Add(time.Hour), 50)
	if got := queueVcore(t, p, "root.a"); got != 3000 {
		t.Fatalf("a holds %d, want its 3/4", got)
	}
	key := ""
	for _, k := range []string{"m1", "m2", "m3"} {
		if x, _ := p.apps["a"].Allocation(k); x.Pending() {
			key = k
		}
	}
	none, err := p.ExplainPreemption("a", key, now.Add(48*time.Hour))
	if err != nil || none.Would || !strings.Contains(none.Why, "not by fair share under root") {
		t.Errorf("dry run at the fair share = %+v, %v", none, err)
	}
}
