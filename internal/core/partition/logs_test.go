package partition

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TestDecisionLogs: the engine logs its decisions at debug level under the
// reference's logger names, so log.core.scheduler.<name>.level (and its
// parents) switch them on one subsystem at a time; at the default level
// nothing is logged.
func TestDecisionLogs(t *testing.T) {
	run := func(extra map[string]string) string {
		var buf bytes.Buffer
		logs := logging.NewText(&buf)
		if err := logs.Apply(extra); err != nil {
			t.Fatal(err)
		}
		p := mustPartition(t, twoQueues)
		p.SetLoggers(NewLoggers(logs.Logger))
		if err := p.AddNode("n1", vec(4000, 4096), resource.Vector{}, nil, true); err != nil {
			t.Fatal(err)
		}
		if err := p.AddApp(AppRequest{ID: "app1", Queue: "root.a", User: "alice"}, t0); err != nil {
			t.Fatal(err)
		}
		if err := p.AddAsk(&app.Allocation{Key: "k1", AppID: "app1", Res: vec(1000, 100)}, t0); err != nil {
			t.Fatal(err)
		}
		if p.Schedule(t0) != 1 {
			t.Fatal("not allocated")
		}
		return buf.String()
	}
	if out := run(nil); strings.Contains(out, "level=DEBUG") {
		t.Errorf("debug lines at the default level:\n%s", out)
	}
	out := run(map[string]string{"log.core.scheduler.allocation.level": "debug"})
	if !regexp.MustCompile(`level=DEBUG msg=allocated logger=core.scheduler.allocation appID=app1 allocationKey=k1 nodeID=n1`).MatchString(out) {
		t.Errorf("no allocation line:\n%s", out)
	}
	if strings.Contains(out, "logger=core.scheduler.node") || strings.Contains(out, "logger=core.scheduler.application ") {
		t.Errorf("other subsystems log at debug too:\n%s", out)
	}
	// a parent key applies to every subsystem below it
	out = run(map[string]string{"log.core.scheduler.level": "-1"})
	for _, want := range []string{
		"msg=\"node added\" logger=core.scheduler.node nodeID=n1",
		"msg=\"application added\" logger=core.scheduler.partition appID=app1",
		"msg=\"application state changed\" logger=core.scheduler.application appID=app1 from=New to=Accepted",
		"msg=allocated logger=core.scheduler.allocation",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// TestAppSummaryLog: an application that ran writes the reference's
// YK_APP_SUMMARY line at info level when it ends, with its times in unix
// milliseconds and its resource·seconds per instance type.
func TestAppSummaryLog(t *testing.T) {
	var buf bytes.Buffer
	logs := logging.NewText(&buf)
	p := mustPartition(t, twoQueues)
	p.SetLoggers(NewLoggers(logs.Logger))
	if err := p.AddNode("n1", vec(4000, 4096), resource.Vector{}, map[string]string{"si/instance-type": "m5"}, true); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"app1", "idle"} {
		if err := p.AddApp(AppRequest{ID: id, Queue: "root.a", User: "alice"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.AddAsk(&app.Allocation{Key: "k1", AppID: "app1", Res: vec(1000, 100)}, t0); err != nil {
		t.Fatal(err)
	}
	p.Schedule(t0)
	p.Release("app1", "k1", t0.Add(10*time.Second))
	p.Tick(t0.Add(10*time.Second + CompletingTimeout))
	if a, _ := p.App("app1"); a.State != app.Completed {
		t.Fatalf("app1 is %s", a.State)
	}
	out := buf.String()
	ms := func(d time.Duration) string { return strconv.FormatInt(t0.Add(d).UnixMilli(), 10) }
	want := `level=INFO msg=YK_APP_SUMMARY: logger=core.scheduler.application.usage ApplicationSummary="ApplicationID: app1, SubmissionTime: ` +
		ms(0) + `, StartTime: ` + ms(0) + `, FinishTime: ` + ms(10*time.Second+CompletingTimeout) +
		`, User: alice, Queue: root.a, State: Completed, RmID: rm, ResourceUsage: map[m5:map[memory:1000 vcore:10000]], PreemptedResource: map[], PlaceholderResource: map[]"`
	if !strings.Contains(out, want) {
		t.Errorf("no summary line\n%s\nin:\n%s", want, out)
	}
	if n := strings.Count(out, "YK_APP_SUMMARY"); n != 1 {
		t.Errorf("%d summary lines, want 1 (an application that never ran has none)", n)
	}
}
