package usage

import "testing"

// Issue 14 item 11: a reload that removes the limits tracking a group
// drops its tracker (REST /usage/group/{g} then answers 404); the
// applications stay tracked for their user, and a later allocation or
// release for them names no group.
func TestReloadDropsGroupTracker(t *testing.T) {
	const withLimit = `
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: a
            limits:
              - limit: dev
                groups: [dev]
                maxresources: {vcore: 4}
`
	f := newFixture(t, withLimit)
	if g := f.m.SelectGroup("alice", []string{"dev"}, "root.a"); g != "dev" {
		t.Fatalf("selected %q, want dev", g)
	}
	f.alloc("alice", "dev", "root.a", "app1", cpu(1000))
	if _, ok := f.m.Group("dev"); !ok {
		t.Fatal("no tracker for group dev")
	}
	f.configure(`
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: a
`)
	f.verify()
	if _, ok := f.m.Group("dev"); ok {
		t.Error("group dev is still tracked after its limit was removed")
	}
	if g, ok := f.m.GroupOf("app1"); !ok || g != "" {
		t.Errorf("app1 tracked against %q (tracked %v), want no group", g, ok)
	}
	if u, ok := f.m.User("alice"); !ok || len(u.Groups) != 1 || u.Groups["app1"] != "" {
		t.Errorf("user alice: %+v, want app1 without a group", u)
	}
	f.alloc("alice", "", "root.a", "app1", cpu(1000))
	f.release("alice", "", "root.a", "app1", cpu(2000), true)
	// a group limit that stays keeps its tracker
	f = newFixture(t, withLimit)
	f.alloc("alice", "dev", "root.a", "app1", cpu(1000))
	f.configure(withLimit)
	if _, ok := f.m.Group("dev"); !ok {
		t.Error("group dev dropped although its limit stays")
	}
}
