package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// saMountPath is where a pod's service-account credentials are mounted and
// where client-go's in-cluster configuration reads them.
const saMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// tokenLifetime is the lifetime of the TokenRequest token a chart pod
// gets: longer than any run, as the harness does not refresh it the way a
// kubelet does.
const tokenLifetime = 24 * time.Hour

// defaultGrace is Kubernetes' terminationGracePeriodSeconds when a pod
// leaves it out (the chart does).
const defaultGrace = 30 * time.Second

// startChartPod runs the chart's container for the harness's process name
// with podman, as the chart's pod runs it: its image, environment,
// resource limits, Secret volumes and the in-cluster credentials of its
// ServiceAccount, on the host network.
func (c *cluster) startChartPod(ctx context.Context, name string) error {
	p, err := c.runChartPod(ctx, name, chartPods[name], "", nil)
	if err != nil {
		return err
	}
	c.procs[name] = p
	return nil
}

// runChartPod runs a pod of the chart's Deployment cp.deployment (its
// container cp.container) as process name, as startChartPod does; a
// replica of the Deployment gives suffix (its container's name is then
// unique) and env, which replaces the kubelet's values of those variables
// (the API server's address, say) or adds to them.
func (c *cluster) runChartPod(ctx context.Context, name string, cp chartPod, suffix string, env map[string]string) (*proc, error) {
	if p := c.procs[name]; p != nil && !p.exited() {
		return nil, fmt.Errorf("%s already running", name)
	}
	d := c.chart.deployments[cp.deployment]
	spec := d.Spec.Template.Spec
	ct, err := c.chart.container(cp.deployment, cp.container)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(c.work, "pods", cp.container+suffix)
	args, err := c.podmanArgs(ctx, spec, ct, dir, env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	k := &container{name: "paddock-e2e-" + cp.container + suffix, conf: c.chart.conf, grace: defaultGrace}
	if g := spec.TerminationGracePeriodSeconds; g != nil {
		k.grace = time.Duration(*g) * time.Second
	}
	// a container of an earlier run the harness could not remove
	_, _ = podmanCmd(ctx, k.conf, "rm", "-f", "--ignore", k.name)
	args = append([]string{"run", "--name", k.name}, args...)
	p, err := startProc(c.work, name, "podman", []string{"CONTAINERS_CONF=" + k.conf}, args...)
	if err != nil {
		return nil, err
	}
	p.ctr = k
	return p, nil
}

// podmanArgs are the `podman run` arguments (after the name) for a chart
// container; dir receives the files mounted into it.
func (c *cluster) podmanArgs(ctx context.Context, spec corev1.PodSpec, ct *corev1.Container, dir string, over map[string]string) ([]string, error) {
	args := []string{"--rm", "--runtime", "runc", "--network", "host", "--pull", "never"}
	env, err := c.podEnv(spec, ct)
	if err != nil {
		return nil, err
	}
	for _, e := range overrideEnv(env, over) {
		args = append(args, "--env", e)
	}
	// the cluster DNS names of the chart's Services (their pods are all on
	// this host)
	for _, s := range c.chart.services {
		for _, h := range []string{s.Name, s.Name + "." + shimNamespace, s.Name + "." + shimNamespace + ".svc",
			s.Name + "." + shimNamespace + ".svc.cluster.local"} {
			args = append(args, "--add-host", h+":127.0.0.1")
		}
	}
	if m, ok := ct.Resources.Limits[corev1.ResourceMemory]; ok {
		args = append(args, "--memory", strconv.FormatInt(m.Value(), 10), "--memory-swap", strconv.FormatInt(m.Value(), 10))
	}
	if cpu, ok := ct.Resources.Limits[corev1.ResourceCPU]; ok {
		// podman refuses more CPUs than the machine has
		n := min(float64(cpu.MilliValue())/1000, float64(runtime.NumCPU()))
		args = append(args, "--cpus", strconv.FormatFloat(n, 'f', 3, 64))
	}
	if cpu, ok := ct.Resources.Requests[corev1.ResourceCPU]; ok {
		// the kubelet's conversion of a CPU request to shares
		args = append(args, "--cpu-shares", strconv.FormatInt(max(2, cpu.MilliValue()*1024/1000), 10))
	}
	if u := runAsUser(spec, ct); u != "" {
		args = append(args, "--user", u)
	}
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		sa, err := c.serviceAccountFiles(ctx, spec.ServiceAccountName, filepath.Join(dir, "serviceaccount"))
		if err != nil {
			return nil, err
		}
		args = append(args, "--volume", sa+":"+saMountPath+":ro")
	}
	for _, m := range ct.VolumeMounts {
		src, err := c.volumeFiles(ctx, spec, m.Name, filepath.Join(dir, "volumes", m.Name))
		if err != nil {
			return nil, err
		}
		opt := ""
		if m.ReadOnly {
			opt = ":ro"
		}
		args = append(args, "--volume", src+":"+m.MountPath+opt)
	}
	if len(ct.Command) > 0 {
		args = append(args, "--entrypoint", ct.Command[0])
	}
	args = append(args, ct.Image)
	if len(ct.Command) > 1 {
		args = append(args, ct.Command[1:]...)
	}
	return append(args, ct.Args...), nil
}

// overrideEnv is env (NAME=value entries) with the values of over
// replacing those of the same names, and over's other names added in
// name order.
func overrideEnv(env []string, over map[string]string) []string {
	out := make([]string, 0, len(env)+len(over))
	seen := map[string]bool{}
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		if v, ok := over[name]; ok {
			e, seen[name] = name+"="+v, true
		}
		out = append(out, e)
	}
	names := make([]string, 0, len(over))
	for name := range over {
		if !seen[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		out = append(out, name+"="+over[name])
	}
	return out
}

// podEnv is the container's environment as the kubelet sets it: its env
// entries (values, and the downward API's fields and resources) and the
// API server's address.
func (c *cluster) podEnv(spec corev1.PodSpec, ct *corev1.Container) ([]string, error) {
	env := []string{"KUBERNETES_SERVICE_HOST=127.0.0.1", "KUBERNETES_SERVICE_PORT=" + c.port(443)}
	for _, e := range ct.Env {
		v := e.Value
		switch f := e.ValueFrom; {
		case f == nil:
		case f.FieldRef != nil:
			switch f.FieldRef.FieldPath {
			case "metadata.namespace":
				v = shimNamespace
			case "spec.serviceAccountName":
				v = spec.ServiceAccountName
			case "status.podIP", "status.hostIP":
				v = "127.0.0.1"
			default:
				return nil, fmt.Errorf("env %s: field %s is not supported by chart mode", e.Name, f.FieldRef.FieldPath)
			}
		case f.ResourceFieldRef != nil:
			q, err := resourceField(ct, f.ResourceFieldRef)
			if err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			v = q
		default:
			return nil, fmt.Errorf("env %s: only values, fields and resources are supported by chart mode", e.Name)
		}
		env = append(env, e.Name+"="+v)
	}
	return env, nil
}

func resourceField(ct *corev1.Container, r *corev1.ResourceFieldSelector) (string, error) {
	var list corev1.ResourceList
	var res string
	switch {
	case len(r.Resource) > 7 && r.Resource[:7] == "limits.":
		list, res = ct.Resources.Limits, r.Resource[7:]
	case len(r.Resource) > 9 && r.Resource[:9] == "requests.":
		list, res = ct.Resources.Requests, r.Resource[9:]
	default:
		return "", fmt.Errorf("resource %q", r.Resource)
	}
	q, ok := list[corev1.ResourceName(res)]
	if !ok {
		return "", fmt.Errorf("resource %q is not set", r.Resource)
	}
	div := r.Divisor
	if div.IsZero() {
		div = resource.MustParse("1")
	}
	// rounded up, as the downward API does
	return strconv.FormatInt((q.MilliValue()+div.MilliValue()-1)/div.MilliValue(), 10), nil
}

// runAsUser is the user:group the pod's security context asks for, or ""
// for the image's USER.
func runAsUser(spec corev1.PodSpec, ct *corev1.Container) string {
	var uid, gid *int64
	if s := spec.SecurityContext; s != nil {
		uid, gid = s.RunAsUser, s.RunAsGroup
	}
	if s := ct.SecurityContext; s != nil {
		if s.RunAsUser != nil {
			uid = s.RunAsUser
		}
		if s.RunAsGroup != nil {
			gid = s.RunAsGroup
		}
	}
	if uid == nil {
		return ""
	}
	if gid == nil {
		return strconv.FormatInt(*uid, 10)
	}
	return fmt.Sprintf("%d:%d", *uid, *gid)
}

// serviceAccountFiles writes what the kubelet's projected service-account
// volume holds: a TokenRequest token of the ServiceAccount, the cluster's
// CA and the namespace.
func (c *cluster) serviceAccountFiles(ctx context.Context, sa, dir string) (string, error) {
	if sa == "" {
		sa = "default"
	}
	secs := int64(tokenLifetime / time.Second)
	tr, err := c.kube.CoreV1().ServiceAccounts(shimNamespace).CreateToken(ctx, sa,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &secs}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("TokenRequest for ServiceAccount %s: %w", sa, err)
	}
	if err := c.checkIdentity(ctx, sa, tr.Status.Token); err != nil {
		return "", err
	}
	return dir, writeFiles(dir, map[string][]byte{
		"token": []byte(tr.Status.Token), "ca.crt": c.pki.caPEM, "namespace": []byte(shimNamespace),
	})
}

// checkIdentity asks the API server who the token is (SelfSubjectReview):
// the ServiceAccount, in none of the groups that bypass RBAC.
func (c *cluster) checkIdentity(ctx context.Context, sa, token string) error {
	cfg := &rest.Config{Host: c.apiServer(), BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: c.pki.caPEM}}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	r, err := kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("SelfSubjectReview with the token of %s: %w", sa, err)
	}
	want := "system:serviceaccount:" + shimNamespace + ":" + sa
	if u := r.Status.UserInfo; u.Username != want || slices.Contains(u.Groups, "system:masters") {
		return fmt.Errorf("the token of %s is %s in %v, want %s without system:masters", sa, u.Username, u.Groups, want)
	}
	logf("   credentials: a TokenRequest token of %s, which the API server knows as %s in %v", sa, r.Status.UserInfo.Username, r.Status.UserInfo.Groups)
	return nil
}

// volumeFiles writes a pod volume's files (Secret and ConfigMap volumes,
// as the kubelet materialises them) and returns their directory.
func (c *cluster) volumeFiles(ctx context.Context, spec corev1.PodSpec, name, dir string) (string, error) {
	for _, v := range spec.Volumes {
		if v.Name != name {
			continue
		}
		files := map[string][]byte{}
		switch {
		case v.Secret != nil:
			s, err := c.kube.CoreV1().Secrets(shimNamespace).Get(ctx, v.Secret.SecretName, metav1.GetOptions{})
			if err != nil {
				return "", fmt.Errorf("volume %s: %w", name, err)
			}
			files = s.Data
		case v.ConfigMap != nil:
			cm, err := c.kube.CoreV1().ConfigMaps(shimNamespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				return "", fmt.Errorf("volume %s: %w", name, err)
			}
			for k, s := range cm.Data {
				files[k] = []byte(s)
			}
		default:
			return "", fmt.Errorf("volume %s: only Secret and ConfigMap volumes are supported by chart mode", name)
		}
		return dir, writeFiles(dir, files)
	}
	return "", fmt.Errorf("no volume %s in the pod", name)
}

// writeFiles replaces dir with the given files, readable by the image's
// user.
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
