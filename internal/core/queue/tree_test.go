package queue

import (
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

func build(t *testing.T, yaml string) *Tree {
	t.Helper()
	c, err := config.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Build(resource.NewRegistry(), &c.Partitions[0])
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

const treeYAML = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: tenants
            parent: true
            resources: {max: {vcore: 10}}
            childtemplate:
              maxapplications: 7
              resources:
                max: {vcore: 2}
          - name: leaf
            submitacl: "alice"
            resources: {max: {vcore: 4}}
`

func TestDynamicQueuesFromTemplate(t *testing.T) {
	tr := build(t, treeYAML)
	q, err := tr.CreateDynamic("root.tenants.team1.dev")
	if err != nil {
		t.Fatal(err)
	}
	if !q.Leaf || q.Managed || q.MaxApps != 7 {
		t.Fatalf("leaf %v managed %v maxapps %d", q.Leaf, q.Managed, q.MaxApps)
	}
	if l, ok := q.Max.Limit(resource.VCoreIndex); !ok || l != 2000 {
		t.Fatalf("template max vcore = %d, %v", l, ok)
	}
	mid, ok := tr.Queue("root.tenants.team1")
	if !ok || mid.Leaf || mid.Managed {
		t.Fatalf("intermediate queue: %+v", mid)
	}
	if _, err := tr.CreateDynamic("root.leaf.child"); err == nil {
		t.Fatal("created a child under a leaf")
	}
	if _, err := tr.CreateDynamic("other.x"); err == nil {
		t.Fatal("created a queue outside root")
	}
	// empty dynamic queues go, deepest first, managed ones stay
	if n := tr.CleanUp(); n != 2 {
		t.Fatalf("CleanUp removed %d queues, want 2", n)
	}
	if _, ok := tr.Queue("root.tenants"); !ok {
		t.Fatal("managed parent removed")
	}
}

func TestHeadroomAndSubmitAccess(t *testing.T) {
	tr := build(t, treeYAML)
	tr.SetCluster(func() resource.Vector { var v resource.Vector; v[0] = 100000; v[1] = 1 << 40; return v }())
	q, _ := tr.Queue("root.leaf")
	var used resource.Vector
	used[0] = 3000
	q.Allocated = used
	h := q.Headroom()
	if l, _ := h.Limit(resource.VCoreIndex); l != 1000 {
		t.Fatalf("headroom vcore = %d, want 1000", l)
	}
	var ask resource.Vector
	ask[0] = 1500
	if q.FitsMax(ask) {
		t.Fatal("1.5 cores fit 1 core of headroom")
	}
	if !q.CanSubmit("alice", nil) || !q.CanSubmit("bob", nil) {
		t.Fatal("root's submitacl * grants everyone")
	}
}

func TestReconfigureRejectsLeafWithAppsBecomingParent(t *testing.T) {
	tr := build(t, treeYAML)
	if _, err := tr.CreateDynamic("root.tenants.x"); err != nil {
		t.Fatal(err)
	}
	c, _ := config.Parse([]byte(`
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: tenants
`))
	// tenants has a child: it cannot become a leaf
	if err := tr.Reconfigure(&c.Partitions[0]); err == nil {
		t.Fatal("parent with children became a leaf")
	}
	if q, _ := tr.Queue("root.tenants"); q.Leaf {
		t.Fatal("failed reconfigure changed the tree")
	}
	if q, _ := tr.Queue("root.leaf"); q.State != Active {
		t.Fatal("failed reconfigure drained a queue")
	}
}

// Leaf finds an application's leaf queue by its path, and the queue it
// keeps in the application is not used once that queue left the tree:
// a queue created again at the same path is the leaf.
func TestLeafAfterTheQueueIsRecreated(t *testing.T) {
	tr := build(t, treeYAML)
	q, err := tr.CreateDynamic("root.tenants.team1")
	if err != nil {
		t.Fatal(err)
	}
	a := app.Create("app1", "u", nil, nil, time.Time{})
	q.AddApp(a)
	if got := tr.Leaf(a); got != q {
		t.Fatalf("leaf %p, want %p", got, q)
	}
	if got := tr.Leaf(a); got != q {
		t.Fatalf("leaf found again %p, want %p", got, q)
	}
	q.RemoveApp(a)
	if !tr.Remove(q) {
		t.Fatal("empty dynamic queue not removed")
	}
	if got := tr.Leaf(a); got != nil {
		t.Fatalf("leaf of a removed queue: %p", got)
	}
	q2, err := tr.CreateDynamic("root.tenants.team1")
	if err != nil {
		t.Fatal(err)
	}
	if q2 == q {
		t.Fatal("the removed queue came back")
	}
	if got := tr.Leaf(a); got != q2 {
		t.Fatalf("leaf %p, want the new queue %p (removed %p)", got, q2, q)
	}
	leaf, _ := tr.Queue("root.leaf")
	a.QueuePath = leaf.Path // a path changed behind the tree's back
	if got := tr.Leaf(a); got != leaf {
		t.Fatalf("leaf %p, want %p", got, leaf)
	}
}

// The leaf's ordering follows every key it compares as asks are taken in:
// an older ask lowering an application's submission time, a higher
// priority; asks that change neither leave the order alone.
func TestOrderingFollowsAsksTakenIn(t *testing.T) {
	tr := build(t, treeYAML)
	leaf, _ := tr.Queue("root.leaf")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a1, a2 := app.Create("a1", "u", nil, nil, t0), app.Create("a2", "u", nil, nil, t0)
	leaf.AddApp(a1)
	leaf.AddApp(a2)
	var res resource.Vector
	res[resource.VCoreIndex] = 1
	add := func(a *app.App, key string, prio int32, created time.Time, top string) {
		t.Helper()
		x := &app.Allocation{Key: key, Res: res, Priority: prio, Created: created}
		if err := a.AddAsk(x); err != nil {
			t.Fatal(err)
		}
		leaf.AddPending(a, &x.Res, x.Res.Support(), x.Priority)
		if got := leaf.TopApp(); got == nil || got.ID != top {
			name := "none"
			if got != nil {
				name = got.ID
			}
			t.Fatalf("after %s the first application is %s, want %s", key, name, top)
		}
		if err := tr.Verify(); err != nil {
			t.Fatal(err)
		}
	}
	add(a1, "k1", 0, t0, "a1")
	add(a2, "k2", 0, t0, "a1")                   // same time: by ID
	add(a2, "k3", 0, t0.Add(-time.Hour), "a2")   // a2 submitted earlier now
	add(a2, "k4", 0, t0, "a2")                   // nothing changes
	add(a1, "k5", 5, t0, "a1")                   // a higher priority first
	add(a2, "k6", 5, t0.Add(-time.Minute), "a2") // same priority: a2 is older
}
