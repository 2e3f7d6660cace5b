// Command kubernetes is Paddock's end-to-end harness on a real Kubernetes
// control plane. It builds (or reuses from its cache) etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, KWOK and the upstream YuniKorn
// shim built on Paddock, generates the certificates and keys they need,
// starts them on loopback, registers KWOK nodes, runs its scenarios with
// client-go and tears everything down, also when a scenario fails or the
// run is interrupted.
//
//	cd e2e/kubernetes && go run . [-nodes N] [-pods N] [-scenarios list]
//
// The comparison wave runs the same pods once through kube-scheduler and
// once through the shim on Paddock and prints a table: pods/s from
// creation to Bound, p50/p99 of that latency, the scheduler's CPU seconds
// and peak RSS (from /proc).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// options are the harness's flags.
type options struct {
	cache   string
	shimSrc string
	// referenceSrc is the reference core's source tree, or "" to leave
	// the reference out of the comparison (reference.go)
	referenceSrc string
	// contenders are the schedulers of the comparison, in the order run
	contenders string
	// profile, when set, is a directory for a CPU profile of each shim's
	// process over the first profileFor of its wave
	profile    string
	profileFor time.Duration
	work       string
	keep       bool
	portBase   int
	nodes      int
	pods       int
	namespaces int
	compare    bool
	scenarios  string
	qps        int
	streams    int
	waveWait   time.Duration
	skipBuild  bool
	deploy     string
	// lease is the failover scenarios' Lease (deploy/ha's default unless -lease)
	lease leaseTimes
	// haPace is Paddock's allocations a second to each HA replica's shim
	haPace int
	// haQPS is the HA replicas' shim client rate (kubernetes.qps and burst)
	haQPS int
}

func main() {
	var o options
	home, _ := os.UserHomeDir()
	cache := os.Getenv("PADDOCK_E2E_CACHE")
	if cache == "" {
		cache = filepath.Join(home, ".cache", "paddock-e2e")
	}
	shim := os.Getenv("K8SHIM_DIR")
	if shim == "" {
		shim = "../../../shared/peers/yunikorn-k8shim"
	}
	flag.StringVar(&o.cache, "cache", cache, "directory of the built programs and Go build state ($PADDOCK_E2E_CACHE)")
	flag.StringVar(&o.shimSrc, "shim", shim, "yunikorn-k8shim source tree ($K8SHIM_DIR)")
	ref := os.Getenv("YUNIKORN_CORE_DIR")
	if ref == "" {
		ref = "../../../shared/peers/yunikorn-core"
	}
	flag.StringVar(&o.referenceSrc, "reference", ref, "the reference yunikorn-core source tree, run as a third contender when present (\"\" for none; $YUNIKORN_CORE_DIR)")
	flag.StringVar(&o.profile, "profile", "", "a directory for a CPU profile of each shim (on Paddock, on the reference) over the start of its wave, read from its core's /debug/pprof/profile")
	flag.DurationVar(&o.profileFor, "profile-for", 30*time.Second, "how long each -profile profile runs")
	flag.StringVar(&o.contenders, "contenders", "kube-scheduler,paddock,yunikorn", "the comparison's schedulers, in the order run (kube-scheduler, paddock, yunikorn: the shim on the reference core)")
	flag.StringVar(&o.work, "work", "", "working directory for certificates, data and logs (default: a new temporary one)")
	flag.BoolVar(&o.keep, "keep", false, "keep the working directory (logs) after the run")
	flag.IntVar(&o.portBase, "ports", 16000, "first of the loopback ports used (etcd +379/+380, apiserver +443, Paddock REST +80, KWOK +81)")
	flag.IntVar(&o.nodes, "nodes", 100, "KWOK nodes")
	flag.IntVar(&o.pods, "pods", 1000, "pods of the comparison wave (80% from Deployments, 20% from Jobs)")
	flag.IntVar(&o.namespaces, "namespaces", 10, "namespaces (queues) of the comparison wave")
	flag.BoolVar(&o.compare, "compare", true, "run the wave through kube-scheduler and through the shim on Paddock and print the table")
	flag.StringVar(&o.scenarios, "scenarios", strings.Join(scenarioNames(), ","), "comma-separated scenarios to run after the comparison (\"\" for none)")
	flag.IntVar(&o.qps, "qps", 1000, "client QPS and burst of kube-controller-manager, kube-scheduler and the shim")
	flag.IntVar(&o.streams, "http2-streams", 0, "kube-apiserver --http2-max-streams-per-connection (0: its default, 100 streams, past which a client dials a new TLS connection per waiting request)")
	flag.DurationVar(&o.waveWait, "wave-timeout", 15*time.Minute, "longest a wave may take to be bound")
	o.lease = paddockLease
	flag.IntVar(&o.haQPS, "ha-qps", 200, "the failover scenarios' kubernetes.qps and kubernetes.burst of the shim")
	flag.IntVar(&o.haPace, "ha-pace", 50, "the failover scenarios' paddock.allocations.perSecond: about a quarter of their shim's 200 requests/s, the pace it binds at")
	flag.Var(&o.lease, "lease", "the failover scenarios' Lease: duration,renewDeadline,retryPeriod (kube-scheduler-ha runs its second pair on it too)")
	flag.BoolVar(&o.skipBuild, "no-build", false, "use the programs in the cache as they are")
	flag.StringVar(&o.deploy, "deploy", deployProcess, "how the shim and admission controller run: \"process\" (host processes, admin credentials) or \"chart\" (the upstream Helm chart's objects and RBAC, deploy/build-images' images run by podman with the chart's ServiceAccounts)")
	flag.Parse()
	if err := validate(o); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("e2e: PASS")
}

func validate(o options) error {
	if o.nodes < 1 || o.pods < 1 || o.namespaces < 1 {
		return fmt.Errorf("-nodes, -pods and -namespaces must be positive")
	}
	if o.haQPS <= 0 {
		return fmt.Errorf("-ha-qps must be above 0, got %d", o.haQPS)
	}
	if o.haPace < 0 {
		return fmt.Errorf("-ha-pace must be 0 (no bound) or more, got %d", o.haPace)
	}
	if o.deploy != deployProcess && o.deploy != deployChart {
		return fmt.Errorf("-deploy must be %q or %q", deployProcess, deployChart)
	}
	if o.qps < 1 {
		return fmt.Errorf("-qps must be positive")
	}
	for _, s := range splitList(o.contenders) {
		if _, ok := contenderByName(s); !ok {
			return fmt.Errorf("unknown contender %q (known: kube-scheduler, paddock, yunikorn)", s)
		}
	}
	for _, s := range splitList(o.scenarios) {
		if _, ok := scenarioByName(s); !ok {
			return fmt.Errorf("unknown scenario %q (known: %s)", s, strings.Join(scenarioNames(), ", "))
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func run(ctx context.Context, o options) (err error) {
	start := time.Now()
	bin := filepath.Join(o.cache, "bin")
	o.referenceSrc = referenceIn(o)
	if !o.skipBuild {
		t := time.Now()
		if err := buildAll(ctx, o, bin); err != nil {
			return fmt.Errorf("build: %w", err)
		}
		logf("built in %s", since(t))
	}
	work := o.work
	if work == "" {
		if work, err = os.MkdirTemp("", "paddock-k8s-e2e."); err != nil {
			return err
		}
	}
	if !o.keep {
		defer os.RemoveAll(work)
	} else {
		logf("keeping %s", work)
	}
	c := newCluster(o, bin, work)
	defer func() {
		if err != nil {
			c.tailLogs()
		}
		c.stopAll()
	}()
	t := time.Now()
	if err := c.startControlPlane(ctx); err != nil {
		return err
	}
	logf("control plane up in %s", since(t))
	t = time.Now()
	if err := c.addNodes(ctx, o.nodes); err != nil {
		return err
	}
	logf("%d KWOK nodes Ready in %s", o.nodes, since(t))
	if o.deploy == deployChart {
		if err := c.installChart(ctx); err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		if err := c.chartOperations(ctx); err != nil {
			return fmt.Errorf("chart operations: %w", err)
		}
		defer func() {
			if rerr := c.checkForbidden(); rerr != nil && err == nil {
				err = rerr
			}
		}()
	}

	if o.compare {
		if err := compare(ctx, c, o); err != nil {
			return fmt.Errorf("comparison: %w", err)
		}
	}
	var failed []string
	for _, name := range splitList(o.scenarios) {
		s, _ := scenarioByName(name)
		t := time.Now()
		logf("== scenario %s", name)
		if err := c.ensureShim(ctx); err != nil {
			return fmt.Errorf("scenario %s: shim: %w", name, err)
		}
		if err := s.run(ctx, c); err != nil {
			logf("-- FAIL %s (%s): %v", name, since(t), err)
			failed = append(failed, name)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		logf("-- PASS %s (%s)", name, since(t))
	}
	logf("total %s", since(start))
	if len(failed) > 0 {
		return fmt.Errorf("scenarios failed: %s", strings.Join(failed, ", "))
	}
	return ctx.Err()
}

func logf(format string, args ...any) {
	fmt.Printf("%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

func since(t time.Time) time.Duration { return time.Since(t).Round(10 * time.Millisecond) }
