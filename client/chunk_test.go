package client

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/google/go-cmp/cmp"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/grpcserver"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// sizes is a scheduler that notes the size of every allocation request
// the server hands it.
type sizes struct {
	*rmproxy.Service
	mu       sync.Mutex
	asks     []int
	releases []int
	keys     []string
}

func (s *sizes) UpdateAllocation(req *si.AllocationRequest) error {
	s.mu.Lock()
	s.asks = append(s.asks, len(req.Allocations))
	s.releases = append(s.releases, len(req.Releases.GetAllocationsToRelease()))
	for _, x := range req.Allocations {
		s.keys = append(s.keys, x.AllocationKey)
	}
	s.mu.Unlock()
	return s.Service.UpdateAllocation(req)
}

// A request of more than Chunk asks goes as several messages in a row,
// in order, the releases with the last; a smaller one goes whole.
func TestLargeRequestGoesInChunks(t *testing.T) {
	svc := rmproxy.New(clock.Real{})
	t.Cleanup(svc.Stop)
	api := &sizes{Service: svc}
	srv := grpcserver.New(api, grpcserver.Options{})
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	c, err := Dial(bounded(t, 10*time.Second), addr.String(), Options{CallTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	if _, err := c.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, &nodeRecorder{}); err != nil {
		t.Fatal(err)
	}
	req := func(n int, prefix string) *si.AllocationRequest {
		r := &si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{
			{ApplicationID: "gone", AllocationKey: prefix + "-r1"}, {ApplicationID: "gone", AllocationKey: prefix + "-r2"}}}}
		for i := range n {
			// no application: the server hands it on at once (and the
			// scheduler rejects it)
			r.Allocations = append(r.Allocations, &si.Allocation{AllocationKey: fmt.Sprint(prefix, i),
				ResourcePerAlloc: &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 1}}}})
		}
		return r
	}
	if err := c.UpdateAllocation(req(2*Chunk+44, "a")); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateAllocation(req(Chunk, "b")); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 2*Chunk + 44 {
		want = append(want, fmt.Sprint("a", i))
	}
	for i := range Chunk {
		want = append(want, fmt.Sprint("b", i))
	}
	eventually(t, "every ask handed on", func() bool {
		api.mu.Lock()
		defer api.mu.Unlock()
		return len(api.keys) == len(want)
	})
	api.mu.Lock()
	defer api.mu.Unlock()
	if d := cmp.Diff([]int{Chunk, Chunk, 44, Chunk}, api.asks); d != "" {
		t.Errorf("asks per message (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{0, 0, 2, 2}, api.releases); d != "" {
		t.Errorf("releases per message (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, api.keys); d != "" {
		t.Errorf("asks out of order (-want +got):\n%s", d)
	}
}
