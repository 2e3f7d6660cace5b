package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// opsNamespace holds the pod the start-up measurement binds.
const opsNamespace = "chart-ops"

// chartOperations measures what an operator of the chart sees, on the
// scheduler's container: the time from `podman run` to the shim
// registered (Paddock lists every node) and to the first pod bound; the
// chart's Service port serving /ws/v1/metrics to a Prometheus scrape;
// GOMEMLIMIT from the chart as the Go runtime's limit; the resident memory
// against the chart's requests and limits; and a stop by the container
// runtime (SIGTERM) ending it cleanly within terminationGracePeriodSeconds.
// It leaves the scheduler stopped.
func (c *cluster) chartOperations(ctx context.Context) error {
	if err := c.ensureNamespace(ctx, opsNamespace); err != nil {
		return err
	}
	t0 := time.Now()
	if err := c.startShim(ctx); err != nil {
		return err
	}
	registered := time.Since(t0)
	p := c.procs["shim"]
	startedAt, err := c.containerStarted(ctx, p.ctr)
	if err != nil {
		return err
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "first", Namespace: opsNamespace},
		Spec:       podTemplate(map[string]string{"e2e": "chart-ops"}, shimScheduler, resource.MustParse("100m"), resource.MustParse("64Mi")).Spec,
	}
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	if _, err := c.kube.CoreV1().Pods(opsNamespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	err = waitFor(ctx, "the first pod bound", 2*time.Minute, 20*time.Millisecond, func() (bool, error) {
		got, err := c.kube.CoreV1().Pods(opsNamespace).Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && got.Spec.NodeName != "", err
	})
	if err != nil {
		return err
	}
	bound := time.Since(t0)
	logf("   start-up: podman run to container started %s; to the shim registered with every node listed %s (%s after the container started); to the first pod bound %s (%s after)",
		startedAt.Sub(t0).Round(time.Millisecond), registered.Round(time.Millisecond), (registered - startedAt.Sub(t0)).Round(time.Millisecond),
		bound.Round(time.Millisecond), (bound - startedAt.Sub(t0)).Round(time.Millisecond))
	if err := c.deleteNamespaceNow(ctx, opsNamespace); err != nil {
		return err
	}
	metrics, err := c.scrapeThroughService(ctx)
	if err != nil {
		return err
	}
	if err := c.checkMemory(ctx, p, metrics); err != nil {
		return err
	}
	return c.checkShutdown(p)
}

// containerStarted is when the container runtime started the container.
func (c *cluster) containerStarted(ctx context.Context, k *container) (time.Time, error) {
	out, err := podmanCmd(ctx, k.conf, "inspect", "--format", "{{.State.StartedAt.Format \"2006-01-02T15:04:05.999999999Z07:00\"}}", k.name)
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339Nano, out)
}

// scrapeThroughService scrapes /ws/v1/metrics as Prometheus does, at the
// chart's yunikorn-service port (its target port resolved through the
// scheduler container's ports, as kube-proxy resolves it), checks the
// exposition parses as Prometheus' text format and returns the samples
// by name and labels.
func (c *cluster) scrapeThroughService(ctx context.Context) (map[string]float64, error) {
	svc, err := c.kube.CoreV1().Services(shimNamespace).Get(ctx, "yunikorn-service", metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	ct, err := c.chart.container(chartPods["shim"].deployment, chartPods["shim"].container)
	if err != nil {
		return nil, err
	}
	var port int32
	for _, sp := range svc.Spec.Ports {
		if sp.Name == "yunikorn-core" {
			if port, err = containerPort(ct, sp.TargetPort.StrVal); err != nil {
				return nil, err
			}
		}
	}
	if port == 0 {
		return nil, fmt.Errorf("the chart's yunikorn-service has no yunikorn-core port")
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/ws/v1/metrics", port)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	// Prometheus' scrape Accept header (text format fallback)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	ctype := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ctype, "text/plain") && !strings.HasPrefix(ctype, "application/openmetrics-text") {
		return nil, fmt.Errorf("GET %s: Content-Type %q is not a Prometheus exposition format", url, ctype)
	}
	samples, families, err := parseExposition(bufio.NewScanner(resp.Body))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	yk := 0
	for name := range families {
		if strings.HasPrefix(name, "yunikorn_") {
			yk++
		}
	}
	if yk == 0 {
		return nil, fmt.Errorf("GET %s: no yunikorn_ metric families", url)
	}
	logf("   metrics: Service yunikorn-service port %s -> %s: %s, %d families (%d yunikorn_), %d samples",
		"yunikorn-core", url, ctype, len(families), yk, len(samples))
	return samples, nil
}

// parseExposition reads Prometheus' text exposition format: each sample
// line is a name, optional labels in braces and a float value (and an
// optional timestamp); # TYPE lines name the families.
func parseExposition(sc *bufio.Scanner) (map[string]float64, map[string]string, error) {
	samples, families := map[string]float64{}, map[string]string{}
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			if f := strings.Fields(line); len(f) >= 4 && f[1] == "TYPE" {
				families[f[2]] = f[3]
			}
			continue
		}
		key, rest := line, ""
		if i := strings.IndexByte(line, '{'); i >= 0 {
			j := strings.LastIndexByte(line, '}')
			if j < i {
				return nil, nil, fmt.Errorf("line %d: unbalanced labels: %q", n, line)
			}
			key, rest = line[:j+1], line[j+1:]
		} else if f := strings.Fields(line); len(f) >= 2 {
			key, rest = f[0], strings.Join(f[1:], " ")
		}
		f := strings.Fields(rest)
		if len(f) < 1 || len(f) > 2 {
			return nil, nil, fmt.Errorf("line %d: not a sample: %q", n, line)
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: value: %w", n, err)
		}
		samples[key] = v
	}
	return samples, families, sc.Err()
}

// checkMemory compares the container's resident memory with the chart's
// requests and limits and checks that the Go runtime took GOMEMLIMIT from
// the chart's environment (the runtime's own figure, go_gc_gomemlimit_bytes).
func (c *cluster) checkMemory(ctx context.Context, p *proc, metrics map[string]float64) error {
	ct, err := c.chart.container(chartPods["shim"].deployment, chartPods["shim"].container)
	if err != nil {
		return err
	}
	want := ""
	for _, e := range ct.Env {
		if e.Name == "GOMEMLIMIT" {
			want = e.Value
		}
	}
	got, ok := metrics["go_gc_gomemlimit_bytes"]
	switch {
	case want == "":
		return fmt.Errorf("the chart's scheduler container sets no GOMEMLIMIT")
	case !ok:
		return fmt.Errorf("the scheduler's metrics have no go_gc_gomemlimit_bytes to check GOMEMLIMIT=%s against", want)
	case strconv.FormatFloat(got, 'f', 0, 64) != want:
		return fmt.Errorf("GOMEMLIMIT=%s from the chart, but the Go runtime's limit is %.0f", want, got)
	}
	limit, err := podmanCmd(ctx, p.ctr.conf, "inspect", "--format", "{{.HostConfig.Memory}}", p.ctr.name)
	if err != nil {
		return err
	}
	rss, err := procStatusKB(p.pid(), "VmRSS:")
	if err != nil {
		return err
	}
	req, lim := ct.Resources.Requests[corev1.ResourceMemory], ct.Resources.Limits[corev1.ResourceMemory]
	logf("   memory: GOMEMLIMIT=%s from the chart is the Go runtime's limit; RSS %d MiB after start-up against the chart's request %s and limit %s (podman's memory limit %s bytes, the kernel's cgroup limit %s)",
		want, rss/1024, req.String(), lim.String(), limit, cgroupMemoryLimit(p.pid()))
	return nil
}

// cgroupMemoryLimit is the memory limit of the cgroup a process is in, as
// the kernel reports it (cgroup v1 or v2), or why it is not known.
func cgroupMemoryLimit(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return err.Error()
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(l, ":", 3)
		if len(f) != 3 {
			continue
		}
		var file string
		switch {
		case f[0] == "0" && f[1] == "":
			file = filepath.Join("/sys/fs/cgroup", f[2], "memory.max")
		case strings.Contains(","+f[1]+",", ",memory,"):
			file = filepath.Join("/sys/fs/cgroup/memory", f[2], "memory.limit_in_bytes")
		default:
			continue
		}
		if v, err := os.ReadFile(file); err == nil {
			return strings.TrimSpace(string(v)) + " bytes"
		}
	}
	return "unknown (no memory cgroup file readable)"
}

func procStatusKB(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, field)
}

// checkShutdown stops the scheduler's container as the container runtime
// stops a pod (SIGTERM, SIGKILL after terminationGracePeriodSeconds) and
// checks that it ended by itself, with status 0, before the SIGKILL.
func (c *cluster) checkShutdown(p *proc) error {
	t := time.Now()
	if err := p.ctr.stop(0); err != nil {
		return err
	}
	<-p.done
	took := time.Since(t)
	if p.err != nil {
		return fmt.Errorf("the scheduler ended with %v after SIGTERM (%s)", p.err, took.Round(time.Millisecond))
	}
	if took >= p.ctr.grace {
		return fmt.Errorf("the scheduler took %s to end after SIGTERM, past terminationGracePeriodSeconds (%s)", took, p.ctr.grace)
	}
	logf("   shutdown: SIGTERM (podman stop) to exit status 0 in %s (terminationGracePeriodSeconds %s)",
		took.Round(time.Millisecond), p.ctr.grace)
	return nil
}

// checkForbidden fails the run when the API server refused the chart's
// pods anything: the chart's RBAC must be enough for Paddock.
func (c *cluster) checkForbidden() error {
	var found []string
	names := []string{"ha-a", "ha-b"} // the failover scenarios' replicas
	for name := range chartPods {
		names = append(names, name)
	}
	for _, name := range names {
		found = append(found, c.refused(name)...)
	}
	if len(found) > 0 {
		return fmt.Errorf("the chart's RBAC refused %d requests, the first: %s", len(found), found[0])
	}
	logf("chart mode: no request of the scheduler or admission controller refused by the chart's RBAC")
	return nil
}

// refused returns the lines of program name's log that tell of a request
// of a ServiceAccount refused by RBAC, each prefixed with name.
func (c *cluster) refused(name string) []string {
	b, err := os.ReadFile(filepath.Join(c.work, "logs", name+".log"))
	if err != nil {
		return nil
	}
	var found []string
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(l, []byte("forbidden")) && bytes.Contains(l, []byte("system:serviceaccount:")) {
			found = append(found, name+": "+string(l))
		}
	}
	return found
}
