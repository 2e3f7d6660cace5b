package usage

import (
	"testing"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/resource"
)

// parseRoot parses a queues.yaml document and returns its first
// partition's root queue.
func parseRoot(t testing.TB, yaml string) *config.QueueConfig {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml))
	if err != nil {
		t.Fatalf("parse config: %v", err)
	}
	return &cfg.Partitions[0].Queues[0]
}

// fixture is a manager with recorded events.
type fixture struct {
	t      testing.TB
	m      *Manager
	reg    *resource.Registry
	events []Event
}

func newFixture(t testing.TB, yaml string) *fixture {
	t.Helper()
	f := &fixture{t: t, reg: resource.NewRegistry()}
	f.m = New(f.reg)
	f.m.OnEvent(func(e *Event) { f.events = append(f.events, *e) })
	if yaml != "" {
		f.configure(yaml)
	}
	f.events = nil
	return f
}

func (f *fixture) configure(yaml string) {
	f.t.Helper()
	if err := f.m.Configure(parseRoot(f.t, yaml)); err != nil {
		f.t.Fatalf("configure: %v", err)
	}
	f.verify()
}

// cpu is a vector of n millicores.
func cpu(n int64) resource.Vector {
	var v resource.Vector
	v[resource.VCoreIndex] = n
	return v
}

func (f *fixture) alloc(user, group, path, app string, res resource.Vector) {
	f.t.Helper()
	if err := f.m.Allocate(user, group, path, app, res); err != nil {
		f.t.Fatalf("allocate %s/%s in %s: %v", user, app, path, err)
	}
	f.verify()
}

func (f *fixture) release(user, group, path, app string, res resource.Vector, done bool) {
	f.t.Helper()
	if err := f.m.Release(user, group, path, app, res, done); err != nil {
		f.t.Fatalf("release %s/%s in %s: %v", user, app, path, err)
	}
	f.verify()
}

func (f *fixture) verify() {
	f.t.Helper()
	if err := f.m.Verify(); err != nil {
		f.t.Fatalf("verify: %v", err)
	}
}

// headroomCPU is the vcore headroom, or -1 when vcore is unlimited.
func (f *fixture) headroomCPU(user, group, path string) int64 {
	f.t.Helper()
	n, ok := f.m.Headroom(user, group, path).Limit(resource.VCoreIndex)
	if !ok {
		return -1
	}
	return n
}

func (f *fixture) wantHeadroom(user, group, path string, want int64) {
	f.t.Helper()
	if got := f.headroomCPU(user, group, path); got != want {
		f.t.Errorf("headroom of %s/%q in %s = %d, want %d (-1: unlimited)", user, group, path, got, want)
	}
}

func (f *fixture) wantRun(user, group, path, app string, want bool) {
	f.t.Helper()
	ok, reason := f.m.CanRunApp(user, group, path, app)
	if ok != want {
		f.t.Errorf("CanRunApp(%s, %q, %s, %s) = %v (%s), want %v", user, group, path, app, ok, reason, want)
	}
	if !ok && reason == "" {
		f.t.Errorf("CanRunApp(%s, %q, %s, %s) refused without a reason", user, group, path, app)
	}
}
