package usage

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/resource"
)

func TestBadInputChangesNothing(t *testing.T) {
	f := newFixture(t, groupYAML)
	f.alloc("bob", "dev", "root.a", "app1", cpu(1000))
	neg := cpu(-1)
	huge := cpu(math.MaxInt64)
	tests := []struct {
		name string
		call func() error
	}{
		{"allocate without user", func() error { return f.m.Allocate("", "dev", "root.a", "app2", cpu(1)) }},
		{"allocate without app", func() error { return f.m.Allocate("bob", "dev", "root.a", "", cpu(1)) }},
		{"allocate empty path", func() error { return f.m.Allocate("bob", "dev", "", "app2", cpu(1)) }},
		{"allocate path outside root", func() error { return f.m.Allocate("bob", "dev", "other.a", "app2", cpu(1)) }},
		{"allocate path with empty name", func() error { return f.m.Allocate("bob", "dev", "root..a", "app2", cpu(1)) }},
		{"allocate path ending in a dot", func() error { return f.m.Allocate("bob", "dev", "root.a.", "app2", cpu(1)) }},
		{"allocate negative", func() error { return f.m.Allocate("bob", "dev", "root.a", "app2", neg) }},
		{"allocate for another user", func() error { return f.m.Allocate("sue", "dev", "root.a", "app1", cpu(1)) }},
		{"allocate in another queue", func() error { return f.m.Allocate("bob", "dev", "root.b", "app1", cpu(1)) }},
		{"allocate against another group", func() error { return f.m.Allocate("bob", "", "root.a", "app1", cpu(1)) }},
		{"allocate overflowing an app", func() error { return f.m.Allocate("bob", "dev", "root.a", "app1", huge) }},
		{"allocate overflowing a user", func() error { return f.m.Allocate("bob", "", "root.b", "app3", huge) }},
		{"allocate overflowing a group", func() error { return f.m.Allocate("eve", "dev", "root.b", "app3", huge) }},
		{"release unknown app", func() error { return f.m.Release("bob", "dev", "root.a", "nope", cpu(1), false) }},
		{"release more than held", func() error { return f.m.Release("bob", "dev", "root.a", "app1", cpu(1001), false) }},
		{"release more than held when done", func() error { return f.m.Release("bob", "dev", "root.a", "app1", cpu(1001), true) }},
		{"release negative", func() error { return f.m.Release("bob", "dev", "root.a", "app1", neg, false) }},
		{"release for another user", func() error { return f.m.Release("sue", "dev", "root.a", "app1", cpu(1), true) }},
		{"release in another queue", func() error { return f.m.Release("bob", "dev", "root", "app1", cpu(1), true) }},
		{"release against another group", func() error { return f.m.Release("bob", "*", "root.a", "app1", cpu(1), true) }},
		{"release without app", func() error { return f.m.Release("bob", "dev", "root.a", "", cpu(1), true) }},
	}
	before := snapshot(f.m)
	f.events = nil
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err == nil {
				t.Fatalf("no error")
			}
			f.verify()
			if d := cmp.Diff(before, snapshot(f.m)); d != "" {
				t.Errorf("state changed (-before +after):\n%s", d)
			}
			if len(f.events) != 0 {
				t.Errorf("events emitted: %v", f.events)
			}
		})
	}
}

type state struct {
	Users  []UserDAO
	Groups []GroupDAO
	Levels []string
}

func snapshot(m *Manager) state {
	s := state{Users: m.Users(), Groups: m.Groups()}
	for p := range m.levels {
		s.Levels = append(s.Levels, p)
	}
	slices.Sort(s.Levels)
	return s
}

func TestConfigureRejectsBadTrees(t *testing.T) {
	good := parseRoot(t, groupYAML)
	limited := func(ls ...config.Limit) *config.QueueConfig {
		return &config.QueueConfig{Name: "root", Queues: []config.QueueConfig{{Name: "a", Limits: ls}}}
	}
	tests := []struct {
		name string
		root *config.QueueConfig
	}{
		{"nil root", nil},
		{"top queue not root", &config.QueueConfig{Name: "top"}},
		{"empty child name", &config.QueueConfig{Name: "root", Queues: []config.QueueConfig{{Name: ""}}}},
		{"dotted child name", &config.QueueConfig{Name: "root", Queues: []config.QueueConfig{{Name: "a.b"}}}},
		{"duplicate queue", &config.QueueConfig{Name: "root", Queues: []config.QueueConfig{{Name: "a"}, {Name: "a"}}}},
		{"empty user", limited(config.Limit{Users: []string{""}, MaxApplications: 1})},
		{"empty group", limited(config.Limit{Groups: []string{""}, MaxApplications: 1})},
		{"duplicate user", limited(config.Limit{Users: []string{"u"}, MaxApplications: 1}, config.Limit{Users: []string{"u"}, MaxApplications: 2})},
		{"duplicate wildcard user", limited(config.Limit{Users: []string{"*", "*"}, MaxApplications: 1})},
		{"duplicate group", limited(config.Limit{Groups: []string{"g", "g"}, MaxApplications: 1})},
		{"negative quantity", limited(config.Limit{Users: []string{"u"}, Max: config.Quantities{"vcore": -1}})},
	}
	f := newFixture(t, "")
	if err := f.m.Configure(good); err != nil {
		t.Fatal(err)
	}
	f.alloc("bob", "dev", "root.a", "app1", cpu(1000))
	before := snapshot(f.m)
	f.events = nil
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := f.m.CheckConfigure(tt.root); err == nil {
				t.Errorf("CheckConfigure accepted it")
			}
			if err := f.m.Configure(tt.root); err == nil {
				t.Fatalf("Configure accepted it")
			}
			f.verify()
			if d := cmp.Diff(before, snapshot(f.m)); d != "" {
				t.Errorf("state changed (-before +after):\n%s", d)
			}
			f.wantHeadroom("bob", "dev", "root.a", 3000)
			if len(f.events) != 0 {
				t.Errorf("events emitted: %v", f.events)
			}
		})
	}
}

func TestConfigureBuildsPathsWithoutParse(t *testing.T) {
	f := newFixture(t, "")
	root := &config.QueueConfig{Name: "root", Queues: []config.QueueConfig{{Name: "a", Queues: []config.QueueConfig{
		{Name: "b", Limits: []config.Limit{{Users: []string{"u"}, Max: config.Quantities{"vcore": 2000, "gpu": 0}}}},
	}}}}
	if err := f.m.Configure(root); err != nil {
		t.Fatal(err)
	}
	f.wantHeadroom("u", "", "root.a.b", 2000)
	gpu, ok := f.reg.Index("gpu")
	if !ok {
		t.Fatalf("gpu was not interned")
	}
	var ask resource.Vector
	ask[gpu] = 1
	if f.m.Headroom("u", "", "root.a.b.c").Allows(ask) {
		t.Errorf("a gpu ask fits although the limit sets gpu to 0")
	}
}

func TestRESTView(t *testing.T) {
	f := newFixture(t, `
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: default
            limits:
              - {limit: u1, users: [user1], maxresources: {vcore: 100, memory: 50G}, maxapplications: 10}
          - name: test
            limits:
              - {limit: t, groups: [tester], maxresources: {vcore: 10}, maxapplications: 2}
`)
	mem := func(v resource.Vector, n int64) resource.Vector { v[resource.MemoryIndex] = n; return v }
	f.alloc("user1", "", "root.default", "app1", mem(cpu(6000), 6000))
	f.alloc("user1", "tester", "root.test", "app2", mem(cpu(6000), 6000))
	users, _ := json.Marshal(f.m.Users())
	wantUsers := `[{"userName":"user1","groups":{"app1":"","app2":"tester"},"queues":{
	  "queuePath":"root","resourceUsage":{"memory":12000,"vcore":12000},"runningApplications":["app1","app2"],"children":[
	    {"queuePath":"root.default","resourceUsage":{"memory":6000,"vcore":6000},"runningApplications":["app1"],
	     "maxResources":{"memory":50000000000,"vcore":100000},"maxApplications":10,"children":[]},
	    {"queuePath":"root.test","resourceUsage":{"memory":6000,"vcore":6000},"runningApplications":["app2"],"children":[]}]}}]`
	if d := cmp.Diff(decode(t, wantUsers), decode(t, string(users))); d != "" {
		t.Errorf("users JSON (-want +got):\n%s", d)
	}
	g, ok := f.m.Group("tester")
	if !ok {
		t.Fatal("group tester is not tracked")
	}
	group, _ := json.Marshal(g)
	wantGroup := `{"groupName":"tester","applications":["app2"],"queues":{
	  "queuePath":"root","resourceUsage":{"memory":6000,"vcore":6000},"runningApplications":["app2"],"children":[
	    {"queuePath":"root.test","resourceUsage":{"memory":6000,"vcore":6000},"runningApplications":["app2"],
	     "maxResources":{"vcore":10000},"maxApplications":2,"children":[]}]}}`
	if d := cmp.Diff(decode(t, wantGroup), decode(t, string(group))); d != "" {
		t.Errorf("group JSON (-want +got):\n%s", d)
	}
	if _, ok := f.m.User("nobody"); ok {
		t.Errorf("User(nobody) found a tracker")
	}
	if _, ok := f.m.Group("nobody"); ok {
		t.Errorf("Group(nobody) found a tracker")
	}
	// The view is a copy: changing it or the manager affects neither.
	u, _ := f.m.User("user1")
	u.Groups["app1"] = "x"
	u.Queues.ResourceUsage["vcore"] = 1
	u.Queues.Children[0].RunningApplications[0] = "y"
	again, _ := f.m.User("user1")
	if again.Groups["app1"] != "" || again.Queues.ResourceUsage["vcore"] != 12000 || again.Queues.Children[0].RunningApplications[0] != "app1" {
		t.Errorf("editing a view changed the manager: %+v", again)
	}
	f.alloc("user1", "", "root.default", "app1", cpu(1000))
	if u.Queues.Children[0].ResourceUsage["vcore"] != 6000 {
		t.Errorf("a later allocation changed an earlier view")
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}
