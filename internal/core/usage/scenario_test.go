package usage

import (
	"strings"
	"testing"
)

const userLimitYAML = `
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: a
            limits:
              - limit: alice
                users: [alice]
                maxresources: {vcore: 4}
          - name: b
`

func TestUserLimitBlocksAndUnblocks(t *testing.T) {
	f := newFixture(t, userLimitYAML)
	f.wantHeadroom("alice", "", "root.a", 4000)
	f.wantHeadroom("alice", "", "root.b", -1) // no limit outside root.a
	f.wantHeadroom("bob", "", "root.a", -1)   // the limit names alice only

	f.alloc("alice", "", "root.a", "app1", cpu(3000))
	f.wantHeadroom("alice", "", "root.a", 1000)
	if f.m.Headroom("alice", "", "root.a").Allows(cpu(2000)) {
		t.Errorf("a 2 vcore ask fits in 1 vcore of headroom")
	}
	f.alloc("alice", "", "root.a", "app1", cpu(1000))
	f.wantHeadroom("alice", "", "root.a", 0)
	// Usage in another queue does not count against root.a.
	f.alloc("alice", "", "root.b", "app2", cpu(5000))
	f.wantHeadroom("alice", "", "root.a", 0)

	f.release("alice", "", "root.a", "app1", cpu(2000), false)
	f.wantHeadroom("alice", "", "root.a", 2000)
	if !f.m.Headroom("alice", "", "root.a").Allows(cpu(2000)) {
		t.Errorf("a 2 vcore ask does not fit in 2 vcore of headroom")
	}
	f.release("alice", "", "root.a", "app1", cpu(2000), true)
	f.wantHeadroom("alice", "", "root.a", 4000)
}

func TestWildcardUserIsPerUser(t *testing.T) {
	f := newFixture(t, `
partitions:
  - name: default
    queues:
      - name: root
        limits:
          - limit: bob
            users: [bob]
            maxresources: {vcore: 8}
          - limit: everyone else
            users: ["*"]
            maxresources: {vcore: 4}
        queues:
          - name: a
`)
	f.alloc("alice", "", "root.a", "app1", cpu(3000))
	f.wantHeadroom("alice", "", "root.a", 1000)
	// Another user has a wildcard limit of their own, not shared with alice.
	f.wantHeadroom("carol", "", "root.a", 4000)
	f.alloc("carol", "", "root.a", "app2", cpu(4000))
	f.wantHeadroom("carol", "", "root.a", 0)
	f.wantHeadroom("alice", "", "root.a", 1000)
	// A named limit replaces the wildcard one.
	f.alloc("bob", "", "root.a", "app3", cpu(5000))
	f.wantHeadroom("bob", "", "root.a", 3000)
}

const groupYAML = `
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: a
            limits:
              - limit: sue
                users: [sue]
                maxresources: {vcore: 8}
              - limit: dev
                groups: [dev]
                maxresources: {vcore: 4}
                maxapplications: 2
              - limit: the rest
                groups: ["*"]
                maxresources: {vcore: 3}
`

func TestWildcardGroupIsCumulative(t *testing.T) {
	f := newFixture(t, groupYAML)
	g1 := f.m.SelectGroup("u1", []string{"x"}, "root.a")
	g2 := f.m.SelectGroup("u2", []string{"y", "z"}, "root.a")
	if g1 != Wildcard || g2 != Wildcard {
		t.Fatalf("groups of users outside dev: %q, %q, want %q", g1, g2, Wildcard)
	}
	f.alloc("u1", g1, "root.a", "app1", cpu(2000))
	// u2 shares the wildcard group's 3 vcores with u1.
	f.wantHeadroom("u2", g2, "root.a", 1000)
	f.alloc("u2", g2, "root.a", "app2", cpu(1000))
	f.wantHeadroom("u1", g1, "root.a", 0)
	// A member of dev is not affected by the wildcard group's usage.
	f.wantHeadroom("u3", f.m.SelectGroup("u3", []string{"x", "dev"}, "root.a"), "root.a", 4000)
	// Releasing one user's usage frees the shared limit for the other.
	f.release("u2", g2, "root.a", "app2", cpu(1000), true)
	f.wantHeadroom("u1", g1, "root.a", 1000)
	g, ok := f.m.Group(Wildcard)
	if !ok || len(g.Applications) != 1 || g.Applications[0] != "app1" {
		t.Errorf("wildcard group tracker = %+v, %v; want app1 only", g, ok)
	}
}

func TestUserLimitTakesPrecedenceOverGroup(t *testing.T) {
	f := newFixture(t, `
partitions:
  - name: default
    queues:
      - name: root
        limits:
          - limit: dev overall
            groups: [dev]
            maxresources: {vcore: 10}
        queues:
          - name: a
            limits:
              - limit: sue
                users: [sue]
                maxresources: {vcore: 8}
              - limit: dev
                groups: [dev]
                maxresources: {vcore: 4}
`)
	sueGroup := f.m.SelectGroup("sue", []string{"dev"}, "root.a")
	if sueGroup != "dev" {
		t.Fatalf("sue's group = %q, want dev", sueGroup)
	}
	// Sue's own limit on root.a replaces dev's 4; dev's 10 on root still
	// applies as sue has no limit of her own there.
	f.wantHeadroom("sue", "dev", "root.a", 8000)
	f.wantHeadroom("bob", "dev", "root.a", 4000)
	f.alloc("sue", "dev", "root.a", "app1", cpu(5000))
	f.wantHeadroom("sue", "dev", "root.a", 3000)
	// Sue's usage still counts for the group, which is now over its limit.
	f.wantHeadroom("bob", "dev", "root.a", -1000)
	f.alloc("sue", "dev", "root.a", "app1", cpu(3000))
	f.wantHeadroom("sue", "dev", "root.a", 0)
	f.release("sue", "dev", "root.a", "app1", cpu(6000), false)
	// dev at root: 10 - 2; sue at root.a: 8 - 2.
	f.wantHeadroom("sue", "dev", "root.a", 6000)
	f.alloc("bob", "dev", "root.a", "app2", cpu(2000))
	f.wantHeadroom("sue", "dev", "root.a", 6000)
	f.alloc("bob", "dev", "root.a", "app2", cpu(4000))
	// dev at root: 10 - 8 now binds sue.
	f.wantHeadroom("sue", "dev", "root.a", 2000)
}

func TestSelectGroupFromHierarchy(t *testing.T) {
	f := newFixture(t, `
partitions:
  - name: default
    queues:
      - name: root
        limits:
          - limit: root groups
            groups: [g1, g5]
            maxapplications: 10
        queues:
          - name: a
            limits:
              - limit: a groups
                groups: [g2, g3]
                maxapplications: 5
            queues:
              - name: b
          - name: c
            limits:
              - limit: c groups
                groups: [g4]
                maxapplications: 5
              - limit: c rest
                groups: ["*"]
                maxapplications: 5
`)
	tests := []struct {
		name   string
		groups []string
		leaf   string
		want   string
	}{
		{"nearest level wins", []string{"g1", "g3"}, "root.a.b", "g3"},
		{"configuration order wins over the user's order", []string{"g3", "g2"}, "root.a", "g2"},
		{"continues upwards", []string{"g1"}, "root.a.b", "g1"},
		{"root configuration order", []string{"g5", "g1"}, "root.a", "g1"},
		{"wildcard at the first level with limits", []string{"g1"}, "root.c", "*"},
		{"named before wildcard", []string{"g1", "g4"}, "root.c", "g4"},
		{"no match", []string{"x"}, "root.a.b", ""},
		{"no groups", nil, "root.c", ""},
		{"dynamic queue below a configured one", []string{"g2"}, "root.a.b.dyn.x", "g2"},
		{"unknown path", []string{"g1"}, "other", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := f.m.SelectGroup("u", tt.groups, tt.leaf); got != tt.want {
				t.Errorf("SelectGroup(%v, %s) = %q, want %q", tt.groups, tt.leaf, got, tt.want)
			}
		})
	}
}

func TestMultiGroupUser(t *testing.T) {
	f := newFixture(t, `
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: a
            limits:
              - {limit: dev, groups: [dev], maxresources: {vcore: 4}}
          - name: b
            limits:
              - {limit: test, groups: [test], maxresources: {vcore: 6}}
`)
	groups := []string{"dev", "test"}
	ga, gb := f.m.SelectGroup("joe", groups, "root.a"), f.m.SelectGroup("joe", groups, "root.b")
	if ga != "dev" || gb != "test" {
		t.Fatalf("joe's groups: %q in root.a, %q in root.b; want dev, test", ga, gb)
	}
	f.alloc("joe", ga, "root.a", "app1", cpu(1000))
	f.alloc("joe", gb, "root.b", "app2", cpu(2000))
	f.wantHeadroom("joe", ga, "root.a", 3000)
	f.wantHeadroom("joe", gb, "root.b", 4000)
	u, ok := f.m.User("joe")
	if !ok || u.Groups["app1"] != "dev" || u.Groups["app2"] != "test" || len(u.Groups) != 2 {
		t.Errorf("joe's application groups = %v, want app1:dev app2:test", u.Groups)
	}
	dev, _ := f.m.Group("dev")
	test, _ := f.m.Group("test")
	if dev.Queues.ResourceUsage["vcore"] != 1000 || test.Queues.ResourceUsage["vcore"] != 2000 {
		t.Errorf("group usage dev %v, test %v; want 1000 and 2000 vcore", dev.Queues.ResourceUsage, test.Queues.ResourceUsage)
	}
	// The group is fixed per application: a later call with another group
	// is refused.
	if err := f.m.Allocate("joe", "test", "root.a", "app1", cpu(1)); err == nil {
		t.Errorf("allocating app1 against another group succeeded")
	}
}

func TestMaxApplicationsAtSeveralLevels(t *testing.T) {
	f := newFixture(t, `
partitions:
  - name: default
    queues:
      - name: root
        limits:
          - {limit: all users, users: ["*"], maxapplications: 3}
        queues:
          - name: a
            limits:
              - {limit: one each, users: ["*"], maxapplications: 1}
              - {limit: dev, groups: [dev], maxapplications: 2}
          - name: b
`)
	f.wantRun("alice", "dev", "root.a", "app1", true)
	f.alloc("alice", "dev", "root.a", "app1", cpu(0))
	f.wantRun("alice", "dev", "root.a", "app1", true) // already running
	f.wantRun("alice", "dev", "root.a", "app2", false)
	f.wantRun("alice", "", "root.b", "app2", true)
	f.alloc("alice", "", "root.b", "app2", cpu(100))
	f.alloc("alice", "", "root.b", "app3", cpu(100))
	f.wantRun("alice", "", "root.b", "app4", false) // root: 3 of 3
	ok, reason := f.m.CanRunApp("alice", "", "root.b", "app4")
	if ok || !strings.Contains(reason, "root") || !strings.Contains(reason, "alice") {
		t.Errorf("refusal reason %q should name the user and the queue root", reason)
	}
	// The group limit on root.a: bob may run one, carol is then blocked
	// by dev although her own wildcard limit would allow it.
	f.alloc("bob", "dev", "root.a", "app5", cpu(0))
	f.wantRun("carol", "dev", "root.a", "app6", false)
	f.wantRun("carol", "", "root.a", "app6", true)
	// Finishing an application unblocks.
	f.release("bob", "dev", "root.a", "app5", cpu(0), true)
	f.wantRun("carol", "dev", "root.a", "app6", true)
	f.release("alice", "", "root.b", "app3", cpu(100), true)
	f.wantRun("alice", "", "root.b", "app4", true)
}

func TestReloadChangesLiveTrackers(t *testing.T) {
	f := newFixture(t, userLimitYAML)
	f.alloc("alice", "", "root.a", "app1", cpu(3000))
	f.alloc("bob", "", "root.a", "app2", cpu(3000))
	f.events = nil

	// Change alice's limit and add a wildcard user limit.
	f.configure(`
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: a
            limits:
              - {limit: alice, users: [alice], maxresources: {vcore: 6}}
              - {limit: others, users: ["*"], maxresources: {vcore: 5}}
          - name: b
`)
	f.wantHeadroom("alice", "", "root.a", 3000)
	f.wantHeadroom("bob", "", "root.a", 2000)
	want := []Event{
		{Type: UserLimit, Change: Set, ObjectID: "*", ReferenceID: "root.a"},
		{Type: UserLimit, Change: Set, ObjectID: "alice", ReferenceID: "root.a"},
	}
	if !equalEvents(f.events, want) {
		t.Errorf("reload events = %v, want %v", f.events, want)
	}
	u, _ := f.m.User("bob")
	if got := u.Queues.Children[0].MaxResources["vcore"]; got != 5000 {
		t.Errorf("bob's REST view shows max vcore %d on root.a, want the wildcard 5000", got)
	}

	// Remove every limit and drop queue a from the configuration while
	// trackers still hold usage in it.
	f.events = nil
	f.configure(`
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: b
`)
	f.wantHeadroom("alice", "", "root.a", -1)
	want = []Event{
		{Type: UserLimit, Change: Remove, ObjectID: "*", ReferenceID: "root.a"},
		{Type: UserLimit, Change: Remove, ObjectID: "alice", ReferenceID: "root.a"},
	}
	if !equalEvents(f.events, want) {
		t.Errorf("reload events = %v, want %v", f.events, want)
	}
	// Reloading the same configuration emits nothing.
	f.events = nil
	f.configure(`
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: b
`)
	if len(f.events) != 0 {
		t.Errorf("an unchanged reload emitted %v", f.events)
	}
	f.release("alice", "", "root.a", "app1", cpu(3000), true)
	f.release("bob", "", "root.a", "app2", cpu(0), true)
	if n := len(f.m.levels); n != 0 {
		t.Errorf("%d queue levels left after all usage and limits are gone", n)
	}
}

func TestEmptyTrackersAreRemoved(t *testing.T) {
	f := newFixture(t, groupYAML)
	f.alloc("bob", "dev", "root.a", "app1", cpu(1000))
	f.alloc("bob", "dev", "root.a.x", "app2", cpu(1000))
	f.release("bob", "dev", "root.a", "app1", cpu(1000), false)
	// Usage is zero but app1 still runs (it may have pending asks).
	if _, ok := f.m.User("bob"); !ok {
		t.Fatalf("bob's tracker went away while his applications run")
	}
	if ok, _ := f.m.CanRunApp("bob", "dev", "root.a", "app1"); !ok {
		t.Errorf("a running application with zero usage is not allowed to run")
	}
	f.release("bob", "dev", "root.a.x", "app2", cpu(0), true) // releases what app2 still holds
	u, _ := f.m.User("bob")
	if len(u.Queues.Children) != 1 || len(u.Queues.Children[0].Children) != 0 {
		t.Errorf("bob's tree still has the dynamic queue root.a.x: %+v", u.Queues)
	}
	if _, ok := f.m.levels["root.a.x"]; ok {
		t.Errorf("the level of root.a.x is kept without usage or limits")
	}
	if !f.m.RemoveApp("app1") {
		t.Errorf("RemoveApp(app1) reported it was not tracked")
	}
	f.verify()
	if len(f.m.Users()) != 0 || len(f.m.Groups()) != 0 {
		t.Errorf("trackers left: users %v, groups %v", f.m.Users(), f.m.Groups())
	}
	if f.m.RemoveApp("app1") {
		t.Errorf("RemoveApp of an application no longer tracked reported true")
	}
	if len(f.m.levels) != 2 { // root and root.a (limits)
		t.Errorf("levels left: %d, want root and root.a", len(f.m.levels))
	}
}

func TestEvents(t *testing.T) {
	f := newFixture(t, groupYAML)
	f.alloc("bob", "dev", "root.a", "app1", cpu(1000))
	f.alloc("bob", "dev", "root.a", "app1", cpu(0)) // no resource event for nothing
	f.release("bob", "dev", "root.a", "app1", cpu(400), false)
	f.release("bob", "dev", "root.a", "app1", cpu(100), true)
	want := []Event{
		{Type: AppLink, Change: Set, ObjectID: "dev", ReferenceID: "app1"},
		{Type: UserResource, Change: Add, ObjectID: "bob", ReferenceID: "root.a", Resource: cpu(1000)},
		{Type: GroupResource, Change: Add, ObjectID: "dev", ReferenceID: "root.a", Resource: cpu(1000)},
		{Type: UserResource, Change: Remove, ObjectID: "bob", ReferenceID: "root.a", Resource: cpu(400)},
		{Type: GroupResource, Change: Remove, ObjectID: "dev", ReferenceID: "root.a", Resource: cpu(400)},
		// Done: everything the app still holds goes, not only the 100.
		{Type: UserResource, Change: Remove, ObjectID: "bob", ReferenceID: "root.a", Resource: cpu(600)},
		{Type: GroupResource, Change: Remove, ObjectID: "dev", ReferenceID: "root.a", Resource: cpu(600)},
		{Type: AppLink, Change: Remove, ObjectID: "dev", ReferenceID: "app1"},
	}
	if !equalEvents(f.events, want) {
		t.Errorf("events:\n got %v\nwant %v", f.events, want)
	}
	if UserResource.String() != "UG_USER_RESOURCE" || AppLink.String() != "UG_APP_LINK" || Remove.String() != "REMOVE" {
		t.Errorf("event names: %s %s %s", UserResource, AppLink, Remove)
	}
}

func TestInitialConfigureEvents(t *testing.T) {
	f := newFixture(t, "")
	f.configure(groupYAML)
	want := []Event{
		{Type: UserLimit, Change: Set, ObjectID: "sue", ReferenceID: "root.a"},
		{Type: GroupLimit, Change: Set, ObjectID: "*", ReferenceID: "root.a"},
		{Type: GroupLimit, Change: Set, ObjectID: "dev", ReferenceID: "root.a"},
	}
	if !equalEvents(f.events, want) {
		t.Errorf("events:\n got %v\nwant %v", f.events, want)
	}
}

func equalEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A kept entry stands for the application's look-up while it runs; once
// the application stopped, the entry is not used: the next allocation
// starts the application again, and the limits see only what it holds.
func TestKeptEntryFollowsTheApplication(t *testing.T) {
	f := newFixture(t, userLimitYAML)
	e, err := f.m.AllocateAs(nil, "alice", "", "root.a", "app1", cpu(1000))
	if err != nil || e == nil {
		t.Fatalf("first allocation: entry %v, error %v", e, err)
	}
	e2, err := f.m.AllocateAs(e, "alice", "", "root.a", "app1", cpu(2000))
	if err != nil || e2 != e {
		t.Fatalf("second allocation: entry %p (kept %p), error %v", e2, e, err)
	}
	f.wantHeadroom("alice", "", "root.a", 1000)
	c2000, c1000 := cpu(2000), cpu(1000)
	if f.m.AllowsAs(e, "alice", "", "root.a", "app1", &c2000) || !f.m.AllowsAs(e, "alice", "", "root.a", "app1", &c1000) {
		t.Errorf("with the kept entry, 1 vcore of headroom allows 2 vcores or refuses 1")
	}
	// a kept entry of another application is not taken for app2
	if got, _ := f.m.AllocateAs(e, "alice", "", "root.a", "app2", cpu(500)); got == e {
		t.Errorf("app2's allocation returned app1's entry")
	}
	f.release("alice", "", "root.a", "app2", cpu(500), true)
	f.release("alice", "", "root.a", "app1", cpu(3000), true)
	f.wantHeadroom("alice", "", "root.a", 4000)
	// app1 runs again: its old entry is stopped and not used
	e3, err := f.m.AllocateAs(e, "alice", "", "root.a", "app1", cpu(500))
	if err != nil || e3 == nil || e3 == e {
		t.Fatalf("restart: entry %p (stopped %p), error %v", e3, e, err)
	}
	f.wantHeadroom("alice", "", "root.a", 3500)
	c4000 := cpu(4000)
	if f.m.AllowsAs(e, "alice", "", "root.a", "app1", &c4000) != f.m.Allows("alice", "", "root.a", "app1", c4000) {
		t.Errorf("a stopped entry answers differently from the look-up")
	}
	if err := f.m.CheckEntry("app1", e3); err != nil {
		t.Error(err)
	}
	f.verify()
}
