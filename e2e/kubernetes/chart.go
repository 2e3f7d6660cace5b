package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// The -deploy modes: the shim and admission controller as host processes
// with the harness's admin credentials, or as a YuniKorn user runs them,
// from the upstream Helm chart (deploy/chart) with the images of
// deploy/build-images.
const (
	deployProcess = "process"
	deployChart   = "chart"
)

// chartRelease is the Helm release name: the chart's docs install it as
// "yunikorn" in the namespace "yunikorn".
const chartRelease = "yunikorn"

// chartPods maps the harness's process names to the chart's Deployment and
// container that run them.
var chartPods = map[string]chartPod{
	"shim":                {"yunikorn-scheduler", "yunikorn-scheduler-k8s"},
	"admissioncontroller": {"yunikorn-admission-controller", "yunikorn-admission-controller"},
}

// chartPod names a chart Deployment and the container of its pods that
// the harness runs.
type chartPod struct{ deployment, container string }

// chartInstall is what the rendered chart installed.
type chartInstall struct {
	deployments map[string]*appsv1.Deployment
	services    []*corev1.Service
	// restAddr is the scheduler's REST address: the chart's http1 port,
	// on the host network
	restAddr string
	conf     string // CONTAINERS_CONF
}

// repoDir is this checkout's root (the harness runs in e2e/kubernetes).
func repoDir() (string, error) { return filepath.Abs("../..") }

// buildChartMode builds Helm (build/helm) into bin and the two images with
// deploy/build-images.
func buildChartMode(ctx context.Context, o options, bin string) error {
	logf("go build -o %s helm.sh/helm/v3/cmd/helm (in build/helm)", filepath.Join(bin, "helm"))
	if err := goCmd(ctx, "build/helm", "build", "-o", filepath.Join(bin, "helm"), "helm.sh/helm/v3/cmd/helm"); err != nil {
		return err
	}
	repo, err := repoDir()
	if err != nil {
		return err
	}
	src, err := filepath.Abs(o.shimSrc)
	if err != nil {
		return err
	}
	logf("deploy/build-images %s", src)
	cmd := exec.CommandContext(ctx, filepath.Join(repo, "deploy", "build-images"), src)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("deploy/build-images: %w", err)
	}
	return nil
}

// renderChart runs `helm template` on the chart with the values a user
// sets to run Paddock (deploy/chart/values-paddock.yaml), then the values
// files of extra (paths in the checkout), and nothing else.
func (c *cluster) renderChart(ctx context.Context, extra ...string) ([]byte, error) {
	repo, err := repoDir()
	if err != nil {
		return nil, err
	}
	helmHome := filepath.Join(c.work, "helm")
	args := []string{"template", chartRelease, filepath.Join(repo, "deploy", "chart", "yunikorn"),
		"--namespace", shimNamespace, "-f", filepath.Join(repo, "deploy", "chart", "values-paddock.yaml")}
	for _, f := range extra {
		args = append(args, "-f", filepath.Join(repo, f))
	}
	logf("helm %s", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, "helm"), args...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+helmHome, "HELM_CONFIG_HOME="+helmHome, "HELM_DATA_HOME="+helmHome)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm template: %w: %s", err, stderr.String())
	}
	name := "chart.yaml"
	if len(extra) > 0 {
		name = "chart-" + strings.TrimSuffix(filepath.Base(extra[len(extra)-1]), ".yaml") + ".yaml"
	}
	return out, os.WriteFile(filepath.Join(c.work, name), out, 0o644)
}

// decodeManifests decodes a multi-document YAML stream into typed objects.
func decodeManifests(b []byte) ([]runtime.Object, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var objs []runtime.Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("chart manifest: %w", err)
		}
		if gvk == nil {
			return nil, fmt.Errorf("chart manifest without a kind")
		}
		objs = append(objs, obj)
	}
}

func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte("#")) {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// installChart renders the chart and applies what the API server keeps:
// its ServiceAccounts, ClusterRoles, Roles, bindings, ConfigMaps, Secret and
// Services. Its Deployments are not applied (the nodes are KWOK's, which
// run nothing): their pods are run with podman by startChartPod.
func (c *cluster) installChart(ctx context.Context) error {
	for _, port := range []string{"9080", "9089"} {
		if err := portFree(port); err != nil {
			return err
		}
	}
	b, err := c.renderChart(ctx)
	if err != nil {
		return err
	}
	objs, err := decodeManifests(b)
	if err != nil {
		return err
	}
	if err := c.ensureNamespace(ctx, shimNamespace); err != nil {
		return err
	}
	in := &chartInstall{deployments: map[string]*appsv1.Deployment{}}
	if in.conf, err = podmanConf(c.work); err != nil {
		return err
	}
	kinds := map[string]int{}
	ns := shimNamespace
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *corev1.ServiceAccount:
			_, err = c.kube.CoreV1().ServiceAccounts(ns).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			_, err = c.kube.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRoleBinding:
			_, err = c.kube.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = c.kube.RbacV1().Roles(ns).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = c.kube.RbacV1().RoleBindings(ns).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.ConfigMap:
			_, err = c.kube.CoreV1().ConfigMaps(ns).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Secret:
			_, err = c.kube.CoreV1().Secrets(ns).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Service:
			in.services = append(in.services, o)
			_, err = c.kube.CoreV1().Services(ns).Create(ctx, o, metav1.CreateOptions{})
		case *appsv1.Deployment:
			in.deployments[o.Name] = o
		default:
			return fmt.Errorf("the chart renders a %T, which chart mode does not apply", obj)
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("applying the chart's %T: %w", obj, err)
		}
		kinds[strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")]++
	}
	var applied []string
	for k, n := range kinds {
		applied = append(applied, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(applied)
	logf("chart %s rendered and applied in namespace %s: %s", chartRelease, ns, strings.Join(applied, ", "))
	for name, p := range chartPods {
		if _, err := in.container(p.deployment, p.container); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	sched, _ := in.container(chartPods["shim"].deployment, chartPods["shim"].container)
	port, err := containerPort(sched, "http1")
	if err != nil {
		return err
	}
	in.restAddr = fmt.Sprintf("127.0.0.1:%d", port)
	for _, d := range in.deployments {
		for _, ct := range d.Spec.Template.Spec.Containers {
			if !isChartPod(d.Name, ct.Name) {
				logf("   container %s of %s not run: its image %s cannot be built without a registry", ct.Name, d.Name, ct.Image)
			}
		}
	}
	c.chart = in
	return nil
}

func isChartPod(deployment, container string) bool {
	for _, p := range chartPods {
		if p.deployment == deployment && p.container == container {
			return true
		}
	}
	return false
}

// container is a Deployment's container of the rendered chart.
func (in *chartInstall) container(deployment, name string) (*corev1.Container, error) {
	d, ok := in.deployments[deployment]
	if !ok {
		return nil, fmt.Errorf("the chart has no Deployment %s", deployment)
	}
	for i := range d.Spec.Template.Spec.Containers {
		if ct := &d.Spec.Template.Spec.Containers[i]; ct.Name == name {
			return ct, nil
		}
	}
	return nil, fmt.Errorf("the chart's Deployment %s has no container %s", deployment, name)
}

func containerPort(ct *corev1.Container, name string) (int32, error) {
	for _, p := range ct.Ports {
		if p.Name == name {
			return p.ContainerPort, nil
		}
	}
	return 0, fmt.Errorf("container %s has no port %s", ct.Name, name)
}

// portFree reports an error when a port the chart's pods take on the host
// network is in use.
func portFree(port string) error {
	l, err := net.Listen("tcp", ":"+port)
	if err != nil {
		return fmt.Errorf("port %s, which the chart's pods listen on, is taken: %w", port, err)
	}
	return l.Close()
}
