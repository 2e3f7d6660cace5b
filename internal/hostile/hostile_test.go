package hostile

import (
	"context"
	"testing"
)

// TestShortRun is the normal suite's hostile-RM run over gRPC: a few
// thousand random and hostile SI messages, every batch checked. The long
// run (1,000,000 messages) is `paddock-harness hostile -messages 1000000`, with
// the figures in docs/reliability.md.
func TestShortRun(t *testing.T) {
	res, err := Run(context.Background(), Options{Messages: 3000, Batch: 100, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	for _, p := range res.Problems {
		t.Error(p)
	}
	if res.ProblemCount != 0 {
		t.Fatalf("%d problems", res.ProblemCount)
	}
	// the run did send the hostile mix and was checked along the way
	if res.Messages < 3000 || res.Batches < 25 {
		t.Errorf("%d messages in %d batches, want at least 3000 in 25", res.Messages, res.Batches)
	}
	if res.Raw == 0 || res.Garbage == 0 || res.Registrations <= 2 || res.Refused == 0 {
		t.Errorf("the hostile part did not run: %+v", res)
	}
}
