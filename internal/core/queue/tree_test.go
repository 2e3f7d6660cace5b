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
