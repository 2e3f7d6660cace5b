package callback

import (
	"testing"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

func TestNop(t *testing.T) {
	var cb Nop
	if err := cb.UpdateAllocation(&si.AllocationResponse{}); err != nil {
		t.Errorf("UpdateAllocation: %v", err)
	}
	if err := cb.UpdateApplication(&si.ApplicationResponse{}); err != nil {
		t.Errorf("UpdateApplication: %v", err)
	}
	if err := cb.UpdateNode(&si.NodeResponse{}); err != nil {
		t.Errorf("UpdateNode: %v", err)
	}
	if err := cb.Predicates(&si.PredicatesArgs{}); err != nil {
		t.Errorf("Predicates: %v", err)
	}
	if r := cb.PreemptionPredicates(&si.PreemptionPredicatesArgs{}); r == nil || !r.Success {
		t.Errorf("PreemptionPredicates = %v, want success", r)
	}
}
