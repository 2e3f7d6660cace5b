package partition

import (
	"testing"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/resource"
)

// The demand bound lets the partition's demand reach MaxQuantity exactly,
// rejects an ask or a resize that takes any type above it with the same
// reason and nothing changed, and deducts what a resized ask held, also in
// the types its new size no longer has.
func TestDemandBound(t *testing.T) {
	p := mustPartition(t, benchConfig(1))
	if err := p.AddApp(AppRequest{ID: "a", Queue: "root.q0", User: "u"}, t0); err != nil {
		t.Fatal(err)
	}
	const max = resource.MaxQuantity
	add := func(key string, res resource.Vector) error {
		return p.AddAsk(&app.Allocation{Key: key, AppID: "a", Res: res}, t0)
	}
	over := func(key string) string {
		return "allocation " + key + `: the total of asks and allocations of resource "memory" in partition default would exceed the maximum 2305843009213693952`
	}
	if err := add("k1", vec(1, max-10)); err != nil {
		t.Fatal(err)
	}
	if err := add("k2", vec(0, 11)); err == nil || err.Error() != over("k2") {
		t.Fatalf("k2: %v, want %q", err, over("k2"))
	}
	if err := add("k3", vec(max-1, 10)); err != nil {
		t.Fatalf("k3 (the demand reaches the maximum exactly): %v", err)
	}
	if err := p.UpdateAsk("a", "k3", vec(5, 11)); err == nil || err.Error() != over("k3") {
		t.Fatalf("k3 resized: %v, want %q", err, over("k3"))
	}
	if got := p.tree.Root.Pending; got != vec(max, max) {
		t.Fatalf("pending %v after a rejected resize", got[:2])
	}
	// k3's memory leaves the demand: k4 fits in its room
	if err := p.UpdateAsk("a", "k3", vec(max-1, 0)); err != nil {
		t.Fatalf("k3 resized to vcore only: %v", err)
	}
	if err := add("k4", vec(0, 10)); err != nil {
		t.Fatalf("k4: %v", err)
	}
	if err := add("k5", vec(0, 1)); err == nil || err.Error() != over("k5") {
		t.Fatalf("k5: %v, want %q", err, over("k5"))
	}
}
