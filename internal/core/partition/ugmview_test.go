package partition

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// TestUserViewListsPendingApps: a user's groups map (the REST usage view)
// holds the applications that only have pending asks too, with the group
// they would be tracked against (reference §4), and forgets them when they
// go; an application that runs keeps its entry.
func TestUserViewListsPendingApps(t *testing.T) {
	p := mustPartition(t, `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            limits:
              - limit: dev
                groups: [dev]
                maxapplications: 5
`)
	if err := p.AddNode("n1", vec(1000, 1024), resource.Vector{}, nil, true); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"run", "wait", "none"} {
		if err := p.AddApp(AppRequest{ID: id, Queue: "root.a", User: "alice", Groups: []string{"dev"}}, t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.AddAsk(&app.Allocation{Key: "r1", AppID: "run", Res: vec(1000, 100)}, t0); err != nil {
		t.Fatal(err)
	}
	if err := p.AddAsk(&app.Allocation{Key: "w1", AppID: "wait", Res: vec(4000, 100)}, t0); err != nil {
		t.Fatal(err)
	}
	p.Schedule(t0)
	u, ok := p.Users().User("alice")
	if !ok {
		t.Fatal("alice has no usage view")
	}
	if diff := cmp.Diff(map[string]string{"run": "dev", "wait": "dev"}, u.Groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if got := len(p.Users().Users()); got != 1 {
		t.Errorf("%d users listed, want 1", got)
	}

	// a user whose only application waits has a view of her own
	if err := p.AddApp(AppRequest{ID: "bobs", Queue: "root.a", User: "bob", Groups: []string{"ops"}}, t0); err != nil {
		t.Fatal(err)
	}
	if err := p.AddAsk(&app.Allocation{Key: "b1", AppID: "bobs", Res: vec(4000, 100)}, t0); err != nil {
		t.Fatal(err)
	}
	b, ok := p.Users().User("bob")
	if !ok {
		t.Fatal("bob, with a pending application only, has no usage view")
	}
	if diff := cmp.Diff(map[string]string{"bobs": ""}, b.Groups); diff != "" {
		t.Errorf("bob's groups (-want +got):\n%s", diff)
	}
	if b.Queues.QueuePath != "root" || len(b.Queues.ResourceUsage) != 0 || len(b.Queues.RunningApplications) != 0 {
		t.Errorf("bob's queues %+v, want an empty root", b.Queues)
	}
	if names := userNames(p); !cmp.Equal(names, []string{"alice", "bob"}) {
		t.Errorf("users %v, want [alice bob]", names)
	}

	// the pending ask goes: so does the entry
	p.Release("bobs", "b1", t0)
	if _, ok := p.Users().User("bob"); ok {
		t.Error("bob still listed after his only ask went")
	}
	p.Release("wait", "w1", t0)
	u, _ = p.Users().User("alice")
	if diff := cmp.Diff(map[string]string{"run": "dev"}, u.Groups); diff != "" {
		t.Errorf("groups after the release (-want +got):\n%s", diff)
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
}

func userNames(p *Partition) []string {
	var out []string
	for _, u := range p.Users().Users() {
		out = append(out, u.UserName)
	}
	return out
}

// TestUserViewAfterAppStopsRunning: an application that ran, was released
// to nothing (it stops being tracked) and then takes a new ask is listed
// as waiting again, though the partition kept its running entry from an
// earlier ask; while it runs, each ask taken in leaves the view alone.
func TestUserViewAfterAppStopsRunning(t *testing.T) {
	p := mustPartition(t, benchConfig(1))
	if err := p.AddNode("n1", vec(1000, 1024), resource.Vector{}, nil, true); err != nil {
		t.Fatal(err)
	}
	if err := p.AddApp(AppRequest{ID: "app", Queue: "root.q0", User: "alice"}, t0); err != nil {
		t.Fatal(err)
	}
	view := func(step string, want map[string]string, running []string) {
		t.Helper()
		if err := p.Verify(); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		u, ok := p.Users().User("alice")
		if !ok {
			t.Fatalf("%s: alice has no usage view", step)
		}
		if diff := cmp.Diff(want, u.Groups); diff != "" {
			t.Errorf("%s: groups (-want +got):\n%s", step, diff)
		}
		if diff := cmp.Diff(running, u.Queues.RunningApplications); diff != "" {
			t.Errorf("%s: running (-want +got):\n%s", step, diff)
		}
	}
	for i, key := range []string{"k1", "k2"} {
		if err := p.AddAsk(&app.Allocation{Key: key, AppID: "app", Res: vec(100, 10)}, t0); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			view("first ask", map[string]string{"app": ""}, []string{})
		} else {
			view("ask while running", map[string]string{"app": ""}, []string{"app"})
		}
		if got := p.Schedule(t0); got != 1 {
			t.Fatalf("%s: allocated %d", key, got)
		}
	}
	p.Release("app", "k1", t0)
	p.Release("app", "k2", t0) // nothing left: the app stops running
	if _, ok := p.Users().User("alice"); ok {
		t.Fatal("alice still has a usage view with nothing running or waiting")
	}
	if err := p.AddAsk(&app.Allocation{Key: "k3", AppID: "app", Res: vec(100, 10)}, t0); err != nil {
		t.Fatal(err)
	}
	view("ask after stopping", map[string]string{"app": ""}, []string{})
}
