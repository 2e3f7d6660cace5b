package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestBenchQuick(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "-quick"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "2000 allocs") || !strings.Contains(lines[1], "allocs/s") ||
		!strings.Contains(lines[0], "ms  first ") || !strings.Contains(lines[0], "cpu-ns/alloc") {
		t.Fatalf("output:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"bench", "-quick", "-memory"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "nodes registered in ") || !strings.Contains(lines[1], "B/ask") {
		t.Fatalf("output with -memory:\n%s", out.String())
	}
	if code := run([]string{"bench", "-nodes", "7"}, &out, &errb); code != 1 {
		t.Fatalf("no matching scenario: exit %d", code)
	}
}

// TestBenchProfiles checks -cpuprofile, -memprofile and -trace write one
// profile or trace per scenario, numbered when there are several.
func TestBenchProfiles(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "-quick", "-cpuprofile", dir + "/cpu.pprof", "-memprofile", dir + "/mem.pprof", "-trace", dir + "/run.trace"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"cpu-1.pprof", "cpu-2.pprof", "mem-1.pprof", "mem-1.pprof.base", "mem-2.pprof", "mem-2.pprof.base", "run-1.trace", "run-2.trace"} {
		st, err := os.Stat(dir + "/" + f)
		if err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v (size %v)", f, err, st)
		}
	}
	for _, f := range []string{"run-1.trace", "run-2.trace"} {
		if b, _ := os.ReadFile(dir + "/" + f); !bytes.HasPrefix(b, []byte("go 1.")) {
			t.Fatalf("%s is no execution trace: %q", f, b[:min(len(b), 16)])
		}
	}
	if got := profileName("cpu.pprof", 0, 1); got != "cpu.pprof" {
		t.Fatalf("one scenario: %s", got)
	}
}

// TestBenchPaths runs the quick scenarios with serve's observers, with
// the RM over gRPC (with and without tags) and with an RM whose node
// checks see its allocations (one delivery per allocation, handed over as
// each is placed): every ask is allocated on each path, and the gRPC,
// tagged and see-allocations scenarios say so in their names.
func TestBenchPaths(t *testing.T) {
	for _, flags := range [][]string{{"-observed"}, {"-grpc"}, {"-see-allocations"}, {"-grpc", "-tags", "6"}} {
		var out, errb bytes.Buffer
		has := func(f string) bool { return slices.Contains(flags, f) }
		if code := run(append([]string{"bench", "-quick"}, flags...), &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", flags, code, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("%s: output:\n%s", flags, out.String())
		}
		for _, l := range lines {
			if !strings.Contains(l, "2000 allocs") || strings.Contains(l, "/grpc") != has("-grpc") ||
				strings.Contains(l, "/see-allocations") != has("-see-allocations") || strings.Contains(l, "/tags=6") != has("-tags") {
				t.Errorf("%s: %s", flags, l)
			}
		}
	}
}
