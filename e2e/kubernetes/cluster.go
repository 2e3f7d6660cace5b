package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// The shim's namespace and ConfigMap (the upstream Helm chart's names).
const (
	shimNamespace = "yunikorn"
	shimConfigMap = "yunikorn-configs"
	shimScheduler = "yunikorn"
	kubeScheduler = "default-scheduler"
)

// Node shape of the KWOK nodes: small enough that the wave fills them to a
// good part, so that "none bound to a node without room" is a real check.
var (
	nodeCPU    = resource.MustParse("4")
	nodeMemory = resource.MustParse("16Gi")
	nodePods   = resource.MustParse("110")
)

type cluster struct {
	o     options
	bin   string
	work  string
	pki   *pki
	procs map[string]*proc
	kube  *kubernetes.Clientset
	// shimConf is the queues.yaml the shim is (re)started with.
	shimConf string
	// restAddr is the REST API of the scheduler core running (Paddock's,
	// or the reference's while it runs)
	restAddr string
	// chart is the installed chart in chart mode (-deploy chart)
	chart *chartInstall
	// haRBAC: deploy/ha/rbac.yaml has been applied (chart mode)
	haRBAC bool
}

func newCluster(o options, bin, work string) *cluster {
	c := &cluster{o: o, bin: bin, work: work, procs: map[string]*proc{}, shimConf: defaultQueues}
	c.restAddr = "127.0.0.1:" + c.port(80)
	return c
}

func (c *cluster) port(off int) string { return strconv.Itoa(c.o.portBase + off) }

func (c *cluster) apiServer() string { return "https://127.0.0.1:" + c.port(443) }

// restURL is the REST API of the scheduler core running: Paddock's (in
// its chart pod in chart mode), or the reference's while it runs.
func (c *cluster) restURL() string {
	return "http://" + c.restAddr
}

func (c *cluster) start(name string, env []string, args ...string) error {
	if _, ok := chartPods[name]; ok && c.chart != nil {
		return c.startChartPod(context.Background(), name)
	}
	if p := c.procs[name]; p != nil && !p.exited() {
		return fmt.Errorf("%s already running", name)
	}
	p, err := startProc(c.work, name, filepath.Join(c.bin, progOf(name)), env, args...)
	if err != nil {
		return err
	}
	c.procs[name] = p
	return nil
}

// progOf maps a process name to its program (the shim may run twice
// under different names).
func progOf(name string) string {
	if name == "reference" {
		return referenceProg
	}
	if strings.HasPrefix(name, "shim") {
		return "shim"
	}
	return name
}

func (c *cluster) stop(name string) {
	if p := c.procs[name]; p != nil {
		p.stop(10 * time.Second)
	}
}

func (c *cluster) stopAll() {
	for _, n := range []string{"admissioncontroller", "shim", "reference", "kube-scheduler", "kwok", "kube-controller-manager", "kube-apiserver", "etcd"} {
		c.stop(n)
	}
	for _, p := range c.procs {
		p.stop(5 * time.Second)
	}
}

// tailLogs prints the end of every log, for a failed run.
func (c *cluster) tailLogs() {
	for name, p := range c.procs {
		out, _ := exec.Command("tail", "-n", "15", p.log).Output()
		fmt.Printf("---- %s (%s)\n%s", name, p.log, out)
	}
}

func (c *cluster) checkPorts() error {
	for _, off := range []int{379, 380, 443, 80} {
		l, err := net.Listen("tcp", "127.0.0.1:"+c.port(off))
		if err != nil {
			return fmt.Errorf("port %s is taken (choose another -ports base): %w", c.port(off), err)
		}
		l.Close()
	}
	return nil
}

func (c *cluster) startControlPlane(ctx context.Context) error {
	if err := c.checkPorts(); err != nil {
		return err
	}
	var err error
	if c.pki, err = makePKI(filepath.Join(c.work, "pki"), c.apiServer()); err != nil {
		return err
	}
	etcdURL := "http://127.0.0.1:" + c.port(379)
	peer := "http://127.0.0.1:" + c.port(380)
	if err := c.start("etcd", nil,
		"--name=e2e", "--data-dir="+filepath.Join(c.work, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=e2e="+peer, "--unsafe-no-fsync", "--quota-backend-bytes=8589934592",
		"--log-level=warn"); err != nil {
		return err
	}
	p := c.pki
	if err := c.start("kube-apiserver", nil,
		"--etcd-servers="+etcdURL, "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+c.port(443), "--tls-cert-file="+p.serving, "--tls-private-key-file="+p.servingKey,
		"--client-ca-file="+p.ca, "--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+p.saPub, "--service-account-signing-key-file="+p.saKey,
		"--service-cluster-ip-range=10.96.0.0/16", "--authorization-mode=RBAC",
		// pods are created before the default service account exists
		"--disable-admission-plugins=ServiceAccount",
		// a webhook Service resolves to its endpoints, not its (unrouted) cluster IP
		"--enable-aggregator-routing=true",
		// API priority and fairness would queue the schedulers' requests: the
		// comparison measures the schedulers, so it is off and the in-flight
		// limits are raised instead
		"--enable-priority-and-fairness=false", "--max-requests-inflight=4000", "--max-mutating-requests-inflight=2000",
		// the kubernetes Service's endpoints would be a loopback address
		"--endpoint-reconciler-type=none",
		// streams per HTTP/2 connection: 0 keeps kube-apiserver's default
		// (100); past it a Go client dials a new TLS connection per
		// waiting request (see docs/kubernetes.md)
		"--http2-max-streams-per-connection="+strconv.Itoa(c.o.streams),
		// a wave's pods are deleted by collection; one worker (the
		// default) outlasts the request timeout at 500 pods a namespace
		"--delete-collection-workers=8",
		"--profiling=false", "--v=1"); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", p.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 5000, 5000
	if c.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	if err := waitFor(ctx, "kube-apiserver /readyz", 2*time.Minute, 200*time.Millisecond, func() (bool, error) {
		if c.procs["kube-apiserver"].exited() || c.procs["etcd"].exited() {
			return false, fmt.Errorf("exited")
		}
		body, err := c.kube.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", err
	}); err != nil {
		return err
	}
	q := strconv.Itoa(c.o.qps)
	if err := c.start("kube-controller-manager", nil,
		"--kubeconfig="+p.kubeconfig, "--leader-elect=false", "--secure-port=0",
		"--kube-api-qps="+q, "--kube-api-burst="+q,
		"--service-account-private-key-file="+p.saKey, "--root-ca-file="+p.ca,
		"--use-service-account-credentials=false",
		"--concurrent-deployment-syncs=10", "--concurrent-replicaset-syncs=10", "--concurrent-job-syncs=10",
		"--concurrent-gc-syncs=50", "--v=1"); err != nil {
		return err
	}
	return c.startKwok(ctx)
}

// startKwok starts KWOK for the nodes labelled type=kwok, with the stages
// kwokctl would give it (the kwok program alone has none): nodes become
// Ready and keep a lease, pods become Running, pods of Jobs Succeed, and
// deleted pods are removed. Every parallelism field is set, as a
// configuration file gets no defaults for the ones it leaves out.
func (c *cluster) startKwok(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kwok")
	cmd.Dir = "build/kwok"
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("locating the KWOK module (for its stages): %w", err)
	}
	stages := filepath.Join(strings.TrimSpace(string(out)), "kustomize", "stage")
	docs := []string{`apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  manageNodesWithLabelSelector: type=kwok
  nodeLeaseDurationSeconds: 40
  podPlayStageParallelism: 16
  nodePlayStageParallelism: 8
  nodeLeaseParallelism: 8
  podsOnNodeSyncParallelism: 4
  enablePodsOnNodeSyncListPager: true
  enablePodsOnNodeSyncStreamWatch: false
`}
	for _, f := range []string{"node/fast/node-initialize.yaml", "node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
		"pod/fast/pod-ready.yaml", "pod/fast/pod-complete.yaml", "pod/fast/pod-delete.yaml"} {
		b, err := os.ReadFile(filepath.Join(stages, f))
		if err != nil {
			return fmt.Errorf("KWOK stage: %w", err)
		}
		docs = append(docs, string(b))
	}
	conf := filepath.Join(c.work, "kwok.yaml")
	if err := os.WriteFile(conf, []byte(strings.Join(docs, "\n---\n")), 0o644); err != nil {
		return err
	}
	return c.start("kwok", nil, "--kubeconfig="+c.pki.kubeconfig, "--config="+conf)
}

// addNodes registers n KWOK nodes and waits until all are Ready.
func (c *cluster) addNodes(ctx context.Context, n int) error {
	err := parallel(ctx, n, 32, func(i int) error {
		want := kwokNode(fmt.Sprintf("kwok-%04d", i))
		n, err := c.kube.CoreV1().Nodes().Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		if err != nil || len(n.Status.Allocatable) > 0 {
			return err
		}
		// a status the create did not keep
		n.Status = want.Status
		_, err = c.kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return err
	}
	return c.waitNodesReady(ctx, n)
}

func (c *cluster) waitNodesReady(ctx context.Context, n int) error {
	return waitFor(ctx, fmt.Sprintf("%d nodes Ready", n), 5*time.Minute, time.Second, func() (bool, error) {
		nodes, err := c.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
		if err != nil {
			return false, err
		}
		ready := 0
		for _, nd := range nodes.Items {
			for _, cd := range nd.Status.Conditions {
				if cd.Type == corev1.NodeReady && cd.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return ready >= n, fmt.Errorf("%d of %d Ready", ready, n)
	})
}

func kwokNode(name string) *corev1.Node {
	rl := corev1.ResourceList{corev1.ResourceCPU: nodeCPU, corev1.ResourceMemory: nodeMemory, corev1.ResourcePods: nodePods}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{"type": "kwok", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		},
		Status: corev1.NodeStatus{Capacity: rl, Allocatable: rl},
	}
}

// parallel runs f(0..n-1) on workers goroutines and returns the first
// error.
func parallel(ctx context.Context, n, workers int, f func(i int) error) error {
	idx := make(chan int)
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			var first error
			for i := range idx {
				if first == nil {
					first = f(i)
				}
			}
			errs <- first
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		idx <- i
	}
	close(idx)
	var first error
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// startKubeScheduler starts kube-scheduler with its client limits raised to
// -qps (its defaults, 50/s and burst 100, would be the bottleneck).
func (c *cluster) startKubeScheduler() error {
	conf := filepath.Join(c.work, "kube-scheduler.yaml")
	q := c.o.qps
	y := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
  qps: %d
  burst: %d
leaderElection:
  leaderElect: false
`, c.pki.kubeconfig, q, q)
	if err := os.WriteFile(conf, []byte(y), 0o644); err != nil {
		return err
	}
	return c.start("kube-scheduler", nil, "--config="+conf, "--secure-port=0", "--v=1")
}

// defaultQueues is the shim's queues.yaml: pods go to the queue named by
// their queue label or annotation if there is one, else to a queue named
// after their namespace, created on demand under root.
const defaultQueues = `partitions:
  - name: default
    placementrules:
      - name: provided
        create: true
      - name: tag
        value: namespace
        create: true
    queues:
      - name: root
        submitacl: '*'
`

// writeShimConfig creates or replaces the shim's ConfigMap.
func (c *cluster) writeShimConfig(ctx context.Context, queues string) error {
	cms := c.kube.CoreV1().ConfigMaps(shimNamespace)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: shimConfigMap, Namespace: shimNamespace},
		Data: map[string]string{
			"queues.yaml":      queues,
			"kubernetes.qps":   strconv.Itoa(c.o.qps),
			"kubernetes.burst": strconv.Itoa(c.o.qps),
			"log.level":        "INFO",
			"admissionController.webHook.schedulerServiceAddress": "127.0.0.1:" + c.port(80),
			"admissionController.filtering.processNamespaces":     "^adm-",
		},
	}
	if c.chart != nil {
		// the chart's pods reach the scheduler at the default address
		delete(cm.Data, "admissionController.webHook.schedulerServiceAddress")
	}
	old, err := cms.Get(ctx, shimConfigMap, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	cm.ResourceVersion = old.ResourceVersion
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

func (c *cluster) ensureNamespace(ctx context.Context, name string) error {
	_, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// startShim starts the shim on Paddock and waits until Paddock lists every
// Ready node.
func (c *cluster) startShim(ctx context.Context) error {
	return c.startShimAs(ctx, "shim", c.paddockREST())
}

// paddockREST is the REST address of the shim on Paddock: the chart's
// container port in chart mode.
func (c *cluster) paddockREST() string {
	if c.chart != nil {
		return c.chart.restAddr
	}
	return "127.0.0.1:" + c.port(80)
}

// startShimAs starts process name, the shim on Paddock or on the
// reference core, whose core serves REST at restAddr, and waits until
// the core lists every Ready node; the harness's REST reads go there.
func (c *cluster) startShimAs(ctx context.Context, name, restAddr string) error {
	if err := c.ensureNamespace(ctx, shimNamespace); err != nil {
		return err
	}
	if err := c.writeShimConfig(ctx, c.shimConf); err != nil {
		return err
	}
	env := []string{"KUBECONFIG=" + c.pki.kubeconfig, "NAMESPACE=" + shimNamespace,
		"PADDOCK_REST_ADDR=" + restAddr}
	if err := c.start(name, env); err != nil {
		return err
	}
	c.restAddr = restAddr
	return waitFor(ctx, "the core lists the nodes", 3*time.Minute, 500*time.Millisecond, func() (bool, error) {
		if c.procs[name].exited() {
			return false, fmt.Errorf("%s exited: %v", name, c.procs[name].err)
		}
		var nodes []restNode
		if err := c.rest(ctx, "/ws/v1/partition/default/nodes", &nodes); err != nil {
			return false, err
		}
		n := 0
		for _, nd := range nodes {
			if nd.Schedulable {
				n++
			}
		}
		return n >= c.o.nodes, fmt.Errorf("%d of %d nodes", n, c.o.nodes)
	})
}

// ensureShim starts the shim when it is not running.
func (c *cluster) ensureShim(ctx context.Context) error {
	if p := c.procs["shim"]; p != nil && !p.exited() {
		return nil
	}
	return c.startShim(ctx)
}

// errNotFound is a REST read of an object the core does not know (404).
var errNotFound = errors.New("not found")

// restNode is the part of Paddock's /ws/v1 node the harness reads.
type restNode struct {
	NodeID      string           `json:"nodeID"`
	Allocated   map[string]int64 `json:"allocated"`
	Occupied    map[string]int64 `json:"occupied"`
	Capacity    map[string]int64 `json:"capacity"`
	Schedulable bool             `json:"schedulable"`
	Allocations []struct {
		AllocationKey string `json:"allocationKey"`
	} `json:"allocations"`
}

func (c *cluster) rest(ctx context.Context, path string, into any) error {
	return restJSON(ctx, c.restURL(), path, into)
}

// restJSON decodes the JSON of a GET of path from the REST API at base
// ("http://host:port").
func restJSON(ctx context.Context, base, path string, into any) error {
	body, err := getREST(ctx, base, path)
	if err != nil {
		return err
	}
	defer body.Close()
	return json.NewDecoder(body).Decode(into)
}

// getREST GETs path from the REST API at base and returns the body of a
// 200 answer, which the caller closes; a 404 is errNotFound.
func getREST(ctx context.Context, base, path string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK {
		return resp.Body, nil
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("GET %s%s: %w", base, path, errNotFound)
	}
	return nil, fmt.Errorf("GET %s%s: %s", base, path, resp.Status)
}
