package partition

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TestRequiredNodeAndQuotaDecisionsExplained: the required node and quota
// change rules are explained as the guaranteed and fair-share ones are: a
// required-node victim's release names the rule and the preemptor, and
// both rules' decisions are kept with their rule, queue and victims.
func TestRequiredNodeAndQuotaDecisionsExplained(t *testing.T) {
	t.Run("required node", func(t *testing.T) {
		p := mustPartition(t, breadthConfig)
		p.AddNode("n1", vec(4000, 4096), resource.Vector{}, nil, true)
		p.AddNode("n2", vec(4000, 4096), resource.Vector{}, nil, true) // room in the root
		p.AddApp(AppRequest{ID: "b", Queue: "root.b", User: "u"}, t0)
		p.AddApp(AppRequest{ID: "ds", Queue: "root.b", User: "u"}, t0)
		for i := range 4 {
			x := &app.Allocation{Key: fmt.Sprint("b", i), AppID: "b", NodeID: "n1", Res: vec(1000, 1024), PreemptSelf: true}
			if err := p.AddAllocation(x, t0); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.AddAsk(&app.Allocation{Key: "pod", AppID: "ds", Res: vec(1000, 1024), RequiredNode: "n1", Priority: 5}, t0); err != nil {
			t.Fatal(err)
		}
		p.Schedule(t0)
		out := p.Out.Take()
		if len(out.Released) != 1 {
			t.Fatalf("released %+v, want one victim", out.Released)
		}
		msg := out.Released[0].Message
		if !strings.HasPrefix(msg, "preempted by pod of application ds: required node rule: ask pod of application ds in root.b") ||
			!strings.Contains(msg, "takes 1 allocation(s) on node n1") {
			t.Errorf("release message %q", msg)
		}
		ds := p.PreemptDecisions()
		if len(ds) != 1 || ds[0].Rule != RuleRequiredNode || ds[0].AppID != "ds" || ds[0].Node != "n1" || len(ds[0].Victims) != 1 ||
			ds[0].Victims[0].AllocationKey != out.Released[0].AllocationKey || ds[0].Reason != strings.TrimPrefix(msg, "preempted by pod of application ds: ") {
			t.Errorf("decisions %+v", ds)
		}
	})
	t.Run("quota change", func(t *testing.T) {
		p := mustPartition(t, fmt.Sprintf(quotaYAML, 8))
		p.AddNode("n1", vec(16000, 16<<30), resource.Vector{}, nil, true)
		p.AddApp(AppRequest{ID: "a1", Queue: "root.a", User: "u"}, t0)
		for i := range 4 {
			p.AddAsk(&app.Allocation{Key: fmt.Sprint("k", i), AppID: "a1", Res: vec(2000, 1<<30), PreemptSelf: true}, t0)
		}
		p.Schedule(t0)
		p.Out.Take()
		c, err := config.Parse(fmt.Appendf(nil, quotaYAML, 4))
		if err != nil {
			t.Fatal(err)
		}
		now := t0.Add(time.Second)
		if err := p.Reconfigure(&c.Partitions[0], now); err != nil {
			t.Fatal(err)
		}
		p.Tick(now.Add(2 * time.Minute))
		out := p.Out.Take()
		if len(out.Released) != 2 {
			t.Fatalf("released %+v, want two victims", out.Released)
		}
		ds := p.PreemptDecisions()
		if len(ds) != 1 || ds[0].Rule != RuleQuotaChange || ds[0].Queue != "root.a" || len(ds[0].Victims) != 2 ||
			!strings.HasPrefix(ds[0].Reason, "quota change rule: root.a holds ") {
			t.Errorf("decisions %+v", ds)
		}
	})
}
