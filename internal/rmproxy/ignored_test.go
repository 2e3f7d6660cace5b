package rmproxy

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// A flood of input the service ignores with a warning becomes a bounded
// number of log lines per kind, and the next line written says how many
// were left out; nothing else changes (TestFailedBindingFloodOfUnknownKeys).
func TestIgnoredWarningsBounded(t *testing.T) {
	var buf bytes.Buffer
	r := newBindRig(t, "n1")
	r.s.SetHooks(Hooks{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	const n = 2000
	var rels []*si.AllocationRelease
	var nodes []*si.NodeInfo
	for i := range n {
		rels = append(rels, &si.AllocationRelease{PartitionName: "default", ApplicationID: "app1",
			AllocationKey: fmt.Sprint("ghost-", i), TerminationType: si.TerminationType_SCHEDULING_FAILED_ON_RM})
		nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("gone-", i), Action: si.NodeInfo_UPDATE})
	}
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: rels}})
	_ = r.s.UpdateNode(&si.NodeRequest{RmID: "rm1", Nodes: nodes})
	r.cycle()
	count := func(msg string) int { return strings.Count(buf.String(), msg) }
	for _, msg := range []string{"failed binding ignored", "update of an unknown node ignored"} {
		if got := count(msg); got < 1 || got > IgnoredLogBurst+1 {
			t.Errorf("%q written %d times for %d items, want 1 to %d", msg, got, n, IgnoredLogBurst+1)
		}
	}
	written := count("failed binding ignored")

	// later, one more: it is written, with the count of those left out
	r.clk.Advance(10 * time.Second)
	buf.Reset()
	_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: []*si.AllocationRelease{{
		PartitionName: "default", ApplicationID: "app1", AllocationKey: "ghost-last", TerminationType: si.TerminationType_SCHEDULING_FAILED_ON_RM,
	}}}})
	r.cycle()
	m := regexp.MustCompile(`failed binding ignored.* suppressed=(\d+)`).FindStringSubmatch(buf.String())
	if m == nil {
		t.Fatalf("no suppressed count in %q", buf.String())
	}
	if got, _ := strconv.Atoi(m[1]); got != n-written {
		t.Errorf("suppressed=%d, want %d (%d written of %d)", got, n-written, written, n)
	}
	if len(r.rec.rejAlloc) != 0 || len(r.rec.released) != 0 {
		t.Errorf("the RM heard of ignored input: %d rejected, %d released", len(r.rec.rejAlloc), len(r.rec.released))
	}
}

// BenchmarkIgnoredFlood: one request of 2,000 failed bindings of unknown
// keys, applied with a text logger (discarded): the cost of the warnings.
func BenchmarkIgnoredFlood(b *testing.B) {
	r := newBindRig(&testing.T{}, "n1")
	r.s.SetHooks(Hooks{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	rels := make([]*si.AllocationRelease, 2000)
	for i := range rels {
		rels[i] = &si.AllocationRelease{PartitionName: "default", ApplicationID: "app1",
			AllocationKey: fmt.Sprint("ghost-", i), TerminationType: si.TerminationType_SCHEDULING_FAILED_ON_RM}
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = r.s.UpdateAllocation(&si.AllocationRequest{RmID: "rm1", Releases: &si.AllocationReleasesRequest{AllocationsToRelease: rels}})
		r.clk.Advance(100 * time.Millisecond)
		r.s.Cycle()
	}
}
