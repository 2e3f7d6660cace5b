package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"

	"github.com/paddock-sched/paddock/internal/bench"
	"github.com/paddock-sched/paddock/internal/cli"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/rmproxy"
	"github.com/paddock-sched/paddock/internal/serve"
)

func init() {
	paddock.Register(cli.Command{
		Name:    "bench",
		Summary: "measure this machine's allocation throughput at a cluster size (nodes x asks x applications)",
		Run:     runBench,
	})
}

func runBench(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("paddock bench", stderr)
	nodes := fs.Int("nodes", 0, "only scenarios with this many nodes (0: all of 1000, 5000, 10000)")
	asks := fs.Int("asks", 0, "only scenarios with this many asks (0: all of 10000, 100000)")
	quick := fs.Bool("quick", false, "a small smoke run (100 nodes, 2000 asks)")
	warmup := fs.Bool("warmup", true, "run the first scenario once unreported, so the process's heap has grown before measuring")
	scale := fs.Bool("scale", false, "only the scale scenario: 50,000 nodes, 1,000,000 asks, 100 apps (no warm-up; prints memory too)")
	apps := fs.Int("apps", 0, "only scenarios with this many applications (0: all of 2, 100, 1000)")
	cpuprof := fs.String("cpuprofile", "", "write a CPU profile of each scenario's measured part to this file (with more than one scenario, the scenario's number goes before the extension: cpu-1.pprof)")
	memprof := fs.String("memprofile", "", "write the allocations profile (all objects sampled) at the end of each scenario's measured part to this file, and the one at its start to FILE.base (go tool pprof -sample_index=alloc_objects -diff_base FILE.base FILE)")
	traceOut := fs.String("trace", "", "write a runtime execution trace of each scenario's measured part to this file (go tool trace; numbered as -cpuprofile)")
	memory := fs.Bool("memory", false, "also print, per scenario, the node registration time, heap per node and per ask and the peak RSS")
	overGRPC := fs.Bool("grpc", false, "run the RM over gRPC on loopback (Paddock's client package against its gRPC server, both in this process) instead of in process: the same asks, their encoding and decoding included")
	observed := fs.Bool("observed", false, "run paddock serve beside the scheduler, without listeners: its metrics hooks, its event history (filled to its capacity first, as in a server that has run a while), the engine's loggers (discarded), its health checker and history sampler: what operating it costs the hot path")
	see := fs.Bool("see-allocations", false, "register the RM as one whose Predicates answers depend on the allocations it heard of, as the Kubernetes shim's do (the default for a real RM): every allocation is delivered before the RM is asked about the next, one callback per allocation; without it the benchmark's RM, which refuses no node, keeps batched deliveries")
	nTags := fs.Int("tags", 0, "give every ask this many allocation tags (at most 8), as the Kubernetes shim tags pods: namespace, pod name, creation time, labels")
	cli.Describe(fs, "paddock bench [options]",
		"Measures allocation throughput end to end through the in-process Scheduler Interface: scenarios of\n"+
			"nodes and pending asks, each scheduled to completion, printing allocations per second, the latency\n"+
			"of the first allocation (from the first ask submitted to the RM callback), CPU time and heap\n"+
			"objects per allocation.")
	if code, stop := cli.ParseFlags(fs, args); stop {
		return code
	}
	var scs []bench.Scenario
	if *scale {
		scs = []bench.Scenario{bench.Scale}
		*warmup, *memory = false, true
	} else if *quick {
		scs = []bench.Scenario{{Nodes: 100, Asks: 2000, Apps: 2, Queues: 1}, {Nodes: 100, Asks: 2000, Apps: 100, Queues: 10, Mixed: true}}
	} else {
		for _, sc := range bench.Scenarios() {
			if (*nodes == 0 || sc.Nodes == *nodes) && (*asks == 0 || sc.Asks == *asks) && (*apps == 0 || sc.Apps == *apps) {
				scs = append(scs, sc)
			}
		}
	}
	for i := range scs {
		scs[i].SeeAllocations, scs[i].GRPC, scs[i].Tags = *see, *overGRPC, *nTags
	}
	if len(scs) == 0 {
		fmt.Fprintln(stderr, "paddock bench: no scenario matches")
		return exitUsage
	}
	var setup func(*rmproxy.Service) (func(), error)
	if *observed {
		setup = observe
	}
	if *warmup {
		if _, err := bench.RunWith(scs[0], setup); err != nil {
			fmt.Fprintf(stderr, "paddock bench: warm-up: %v\n", err)
			return 2
		}
	}
	for i, sc := range scs {
		if *cpuprof != "" || *memprof != "" || *traceOut != "" {
			bench.Measure = profiler(profileName(*cpuprof, i, len(scs)), profileName(*memprof, i, len(scs)), profileName(*traceOut, i, len(scs)), stderr)
		}
		r, err := bench.RunWith(sc, setup)
		bench.Measure = nil
		if err != nil {
			fmt.Fprintf(stderr, "paddock bench: %s: %v\n", sc.Name(), err)
			return 2
		}
		fmt.Fprintln(stdout, r)
		if *memory {
			fmt.Fprintln(stdout, r.Memory())
		}
	}
	return exitOK
}

// observe starts beside svc what paddock serve runs beside its service:
// serve.Start itself, with no listener and its logs discarded (the metrics
// hooks, the event history, the engine's loggers, the health checker and
// the history's sampler), the event history filled to its capacity first,
// as in a server that has run a while. It returns the server's shutdown.
func observe(svc *rmproxy.Service) (func(), error) {
	s, err := serve.Start(serve.Options{Service: svc, Logs: logging.NewText(io.Discard)})
	if err != nil {
		return nil, err
	}
	ev := s.Events()
	for i := range ev.Ring().Capacity() {
		ev.AppendFrom(nil, &event.Record{Type: event.App, Change: event.Add, Detail: event.AppAlloc, ObjectID: "warm-up", ReferenceID: strconv.Itoa(i)})
	}
	return func() { _ = s.Shutdown(context.Background()) }, nil
}

// profileName is the profile file of scenario i of n: name itself for a
// single scenario, else with i+1 before the extension ("" stays "").
func profileName(name string, i, n int) string {
	if name == "" || n == 1 {
		return name
	}
	ext := filepath.Ext(name)
	return fmt.Sprintf("%s-%d%s", strings.TrimSuffix(name, ext), i+1, ext)
}

// profiler returns the bench.Measure hook that profiles one scenario's
// measured part: CPU into cpu, allocations into mem and mem.base, an
// execution trace into tr (any may be "").
func profiler(cpu, mem, tr string, stderr io.Writer) func() func() {
	return func() func() {
		stopTrace := record(tr, "trace", trace.Start, trace.Stop, stderr)
		stopCPU := record(cpu, "cpu profile", pprof.StartCPUProfile, pprof.StopCPUProfile, stderr)
		if mem != "" {
			runtime.MemProfileRate = 1
			writeHeap(mem+".base", stderr)
		}
		return func() {
			stopTrace()
			stopCPU()
			if mem != "" {
				writeHeap(mem, stderr)
				runtime.MemProfileRate = 512 * 1024
			}
		}
	}
}

// record starts writing what (a CPU profile, an execution trace) into the
// file name with start, none when name is "", and returns what stops it
// (stop, then the file closed); a failure is told on stderr.
func record(name, what string, start func(io.Writer) error, stop func(), stderr io.Writer) func() {
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	if err == nil {
		if err = start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "paddock bench: %s: %v\n", what, err)
		return func() {}
	}
	return func() {
		stop()
		f.Close()
	}
}

// writeHeap writes the allocations profile to name (after a collection:
// the profile shows allocations as of the last one).
func writeHeap(name string, stderr io.Writer) {
	runtime.GC()
	f, err := os.Create(name)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	if err != nil {
		fmt.Fprintf(stderr, "paddock bench: memory profile: %v\n", err)
	}
}
