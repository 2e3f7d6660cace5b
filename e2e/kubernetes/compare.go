package main

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"
	"time"
)

// measured is one scheduler's run of the wave.
type measured struct {
	name  string
	r     result
	cpu   time.Duration // the scheduler's CPU over the wave
	total usage         // its CPU since start and peak RSS
	// planeCPU is the CPU of kube-apiserver, etcd, kube-controller-manager
	// and KWOK over the wave
	planeCPU time.Duration
	// peakSockets is the most sockets the scheduler held open at once
	// during the wave (sampled every 100 ms)
	peakSockets int
}

// contender is one scheduler of the comparison.
type contender struct {
	name, proc, scheduler, wave string
}

var contenders = map[string]contender{
	"kube-scheduler": {"kube-scheduler", "kube-scheduler", kubeScheduler, "ks"},
	"paddock":        {"shim + Paddock", "shim", shimScheduler, "pd"},
	"yunikorn":       {"shim + YuniKorn core", "reference", shimScheduler, "yk"},
}

func contenderByName(n string) (contender, bool) {
	c, ok := contenders[n]
	return c, ok
}

// controlPlane are the processes whose CPU a wave also costs.
var controlPlane = []string{"kube-apiserver", "etcd", "kube-controller-manager", "kwok"}

func (c *cluster) planeCPU() (time.Duration, error) {
	var sum time.Duration
	for _, n := range controlPlane {
		u, err := c.procs[n].usage()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", n, err)
		}
		sum += u.cpu
	}
	return sum, nil
}

// sampleSockets records the most sockets p holds at once until stop is
// closed, and sends it on the returned channel.
func sampleSockets(p *proc, stop <-chan struct{}) <-chan int {
	out := make(chan int, 1)
	go func() {
		peak := 0
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, p.sockets())
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// compare runs the same wave through kube-scheduler and through the shim on
// Paddock, each started fresh (so that its peak RSS is its own) and alone
// (the other is stopped, so that neither spends CPU on the other's pods),
// and prints the table.
func compare(ctx context.Context, c *cluster, o options) error {
	var rows []measured
	for _, name := range splitList(o.contenders) {
		s, _ := contenderByName(name)
		if s.proc == "reference" && o.referenceSrc == "" {
			continue
		}
		start := map[string]func() error{
			"kube-scheduler": c.startKubeScheduler,
			"shim":           func() error { return c.startShim(ctx) },
			"reference":      func() error { return c.startReference(ctx) },
		}[s.proc]
		for _, other := range []string{"kube-scheduler", "shim", "reference"} {
			c.stop(other) // one scheduler at a time: the two shims share a scheduler name
		}
		t := time.Now()
		if err := start(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if err := c.probe(ctx, s.scheduler); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		logf("%s ready in %s", s.name, since(t))
		p := c.procs[s.proc]
		before, err := p.usage()
		if err != nil {
			return err
		}
		planeBefore, err := c.planeCPU()
		if err != nil {
			return err
		}
		stopSampling := make(chan struct{})
		peakSockets := sampleSockets(p, stopSampling)
		w := wave{id: s.wave, scheduler: s.scheduler, pods: o.pods, namespaces: o.namespaces}
		logf("wave %s: %d pods in %d namespaces through %s", w.id, w.pods, w.namespaces, s.name)
		var guard func(context.Context) error
		if s.proc == "shim" {
			guard = c.stallGuard(w)
		}
		profiled := c.profileWave(ctx, name)
		r, err := c.runWave(ctx, w, guard)
		close(stopSampling)
		if err := <-profiled; err != nil {
			logf("%s: no profile: %v", s.name, err)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		after, err := p.usage()
		if err != nil {
			return err
		}
		planeAfter, err := c.planeCPU()
		if err != nil {
			return err
		}
		m := measured{name: s.name, r: r, cpu: after.cpu - before.cpu, total: after, planeCPU: planeAfter - planeBefore, peakSockets: <-peakSockets}
		rows = append(rows, m)
		logf("%s: %d pods bound, %.0f pods/s, p50 %s, p99 %s, CPU %s (control plane %s), at most %d sockets open",
			s.name, r.pods, r.rate(), r.p50, r.p99, m.cpu, m.planeCPU, m.peakSockets)
		if s.proc == "shim" {
			if err := c.checkPaddockUsage(ctx, 2*time.Minute); err != nil {
				return err
			}
			logf("Paddock's REST node usage equals the API server's on every node")
			if err := c.checkPlacement(ctx, w, 2*time.Minute); err != nil {
				return err
			}
			logf("placement: each of the %d namespaces is its own queue in Paddock, holding exactly its running pods", w.namespaces)
		}
		t = time.Now()
		if err := c.deleteWave(ctx, w); err != nil {
			return err
		}
		logf("wave %s removed in %s", w.id, since(t))
		if s.proc != "shim" {
			c.stop(s.proc) // the scenarios run the shim on Paddock
		}
	}
	c.restAddr = c.paddockREST()
	printTable(o, rows)
	return nil
}

func printTable(o options, rows []measured) {
	fmt.Printf("\nSame control plane, %d KWOK nodes, %d pods (Deployments 80%%, Jobs 20%%) in %d namespaces;\n", o.nodes, o.pods, o.namespaces)
	fmt.Printf("client QPS/burst %d/%d for kube-controller-manager, kube-scheduler and the shim; kube-apiserver HTTP/2 streams per connection %s.\n\n",
		o.qps, o.qps, map[bool]string{true: "100 (its default)", false: fmt.Sprint(o.streams)}[o.streams == 0])
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scheduler\tpods\tcreation span\tpods/s (created→Bound)\tp50\tp99\tmax\tCPU s (wave)\tCPU s (total)\tpeak RSS MiB\tcontrol plane CPU s (wave)\tpeak sockets\t")
	for _, m := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%.1f s\t%.0f\t%s\t%s\t%s\t%.1f\t%.1f\t%d\t%.1f\t%d\t\n", m.name, m.r.pods, m.r.created.Seconds(), m.r.rate(),
			m.r.p50.Round(time.Millisecond), m.r.p99.Round(time.Millisecond), m.r.max.Round(time.Millisecond),
			m.cpu.Seconds(), m.total.cpu.Seconds(), m.total.peakRSS>>20, m.planeCPU.Seconds(), m.peakSockets)
	}
	tw.Flush()
	fmt.Println()
}
