package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/paddock-sched/paddock/internal/crash"
)

// childEnv makes the test binary run as paddock (TestMain): the crash
// tests start it as `paddock serve`.
const childEnv = "PADDOCK_TEST_AS_PADDOCK=1"

func TestMain(m *testing.M) {
	if os.Getenv("PADDOCK_TEST_AS_PADDOCK") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func smallCrash() crash.Options {
	return crash.Options{Command: []string{os.Args[0]}, Env: []string{childEnv}, Nodes: 500, Allocations: 5000, Apps: 20, Pending: 100, NewAsks: 20}
}

// TestSIGKILLRestartResync is the scaled-down kill-and-restart run
// (issue #18; `paddock crash` runs it at 10,000 nodes and 200,000
// allocations): after SIGKILL and a restart the RM's resync brings back
// every allocation once, on its node, with node sums and pending asks as
// the RM holds them, and new asks are allocated.
func TestSIGKILLRestartResync(t *testing.T) {
	res, err := crash.Run(context.Background(), smallCrash())
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	for _, p := range res.Problems {
		t.Error(p)
	}
	if res.Recovered != 5000+20 {
		t.Errorf("the restarted server shows %d allocations, want 5020", res.Recovered)
	}
	if res.FirstDecision < res.Serving {
		t.Errorf("first decision at %v, before the server served (%v)", res.FirstDecision, res.Serving)
	}
}

// TestSIGKILLRestartFindsLoss shows the checks find what a resync loses:
// the RM holds 3 allocations it does not resync.
func TestSIGKILLRestartFindsLoss(t *testing.T) {
	o := smallCrash()
	o.Nodes, o.Allocations, o.Pending, o.NewAsks = 50, 500, 10, 5
	o.Forget = 3
	res, err := crash.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, p := range res.Problems {
		if strings.HasSuffix(p, " lost") {
			lost++
		}
	}
	if lost != 3 || res.Recovered != 500-3+5 {
		t.Fatalf("recovered %d, problems %q: want 3 allocations lost", res.Recovered, res.Problems)
	}
}
