package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/paddock-sched/paddock/internal/crash"
)

// built is the paddock binary the crash tests kill and restart: built
// once from this checkout by paddockBinary, with the race detector when
// the tests have it, in a directory TestMain removes.
var built struct {
	once sync.Once
	dir  string
	exe  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// paddockBinary builds the paddock binary on first use.
func paddockBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "paddock-harness-test-"); built.err == nil {
			built.exe, built.err = buildPaddock(context.Background(), built.dir, raceEnabled)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.exe
}

func smallCrash(t *testing.T) crash.Options {
	return crash.Options{Command: []string{paddockBinary(t)}, Nodes: 500, Allocations: 5000, Apps: 20, Pending: 100, NewAsks: 20}
}

// TestSIGKILLRestartResync is the scaled-down kill-and-restart run
// (issue #18; `paddock-harness crash` runs it at 10,000 nodes and 200,000
// allocations): after SIGKILL and a restart the RM's resync brings back
// every allocation once, on its node, with node sums and pending asks as
// the RM holds them, and new asks are allocated.
func TestSIGKILLRestartResync(t *testing.T) {
	if testing.Short() {
		t.Skip("builds paddock and kills and restarts it at 500 nodes: the full tier (scripts/test.sh) runs it")
	}
	res, err := crash.Run(context.Background(), smallCrash(t))
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
	if testing.Short() {
		t.Skip("builds paddock and kills and restarts it: the full tier (scripts/test.sh) runs it")
	}
	o := smallCrash(t)
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
