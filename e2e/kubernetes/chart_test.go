package main

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestParseExposition(t *testing.T) {
	text := `# HELP go_gc_gomemlimit_bytes Go runtime memory limit.
# TYPE go_gc_gomemlimit_bytes gauge
go_gc_gomemlimit_bytes 1.717986919e+09
# TYPE yunikorn_queue_app gauge
yunikorn_queue_app{queue="root.a b}",state="running"} 3 1700000000000
`
	samples, families, err := parseExposition(bufio.NewScanner(strings.NewReader(text)))
	if err != nil {
		t.Fatal(err)
	}
	if got := samples["go_gc_gomemlimit_bytes"]; got != 1717986919 {
		t.Errorf("go_gc_gomemlimit_bytes = %v", got)
	}
	if got := samples[`yunikorn_queue_app{queue="root.a b}",state="running"}`]; got != 3 {
		t.Errorf("labelled sample = %v, samples %v", got, samples)
	}
	if families["yunikorn_queue_app"] != "gauge" || len(families) != 2 {
		t.Errorf("families %v", families)
	}
	for _, bad := range []string{"a_metric", "a_metric one", "a{b=\"c\" 1", "a 1 2 3"} {
		if _, _, err := parseExposition(bufio.NewScanner(strings.NewReader(bad + "\n"))); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestResourceField(t *testing.T) {
	ct := &corev1.Container{Resources: corev1.ResourceRequirements{
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")},
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")},
	}}
	for _, c := range []struct {
		res, div, want string
	}{
		{"limits.memory", "", "2147483648"},
		{"limits.memory", "1Mi", "2048"},
		{"requests.cpu", "1m", "200"},
		{"requests.cpu", "", "1"}, // rounded up
	} {
		sel := &corev1.ResourceFieldSelector{Resource: c.res}
		if c.div != "" {
			sel.Divisor = resource.MustParse(c.div)
		}
		got, err := resourceField(ct, sel)
		if err != nil || got != c.want {
			t.Errorf("%s/%s = %q, %v; want %q", c.res, c.div, got, err, c.want)
		}
	}
	for _, bad := range []string{"limits.cpu", "memory", "requests."} {
		if got, err := resourceField(ct, &corev1.ResourceFieldSelector{Resource: bad}); err == nil {
			t.Errorf("%s = %q, want an error", bad, got)
		}
	}
}

func TestPodEnv(t *testing.T) {
	c := &cluster{o: options{portBase: 16000}}
	ct := &corev1.Container{Env: []corev1.EnvVar{
		{Name: "NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
		{Name: "GOMEMLIMIT", Value: "1717986919"},
	}}
	env, err := c.podEnv(corev1.PodSpec{}, ct)
	if err != nil {
		t.Fatal(err)
	}
	want := "KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=16443 NAMESPACE=yunikorn GOMEMLIMIT=1717986919"
	if got := strings.Join(env, " "); got != want {
		t.Errorf("env %q, want %q", got, want)
	}
	ct.Env = append(ct.Env, corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.uid"}}})
	if _, err := c.podEnv(corev1.PodSpec{}, ct); err == nil {
		t.Error("an unsupported field was accepted")
	}
}

func TestDecodeManifests(t *testing.T) {
	objs, err := decodeManifests([]byte(`---
# Source: yunikorn/templates/rbac.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: yunikorn-admin
---
# Source: only a comment
---
apiVersion: v1
kind: Service
metadata:
  name: yunikorn-service
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("%d objects", len(objs))
	}
	if _, ok := objs[0].(*corev1.ServiceAccount); !ok {
		t.Errorf("first is %T", objs[0])
	}
	if _, err := decodeManifests([]byte("apiVersion: v1\nkind: NoSuchKind\n")); err == nil {
		t.Error("an unknown kind was decoded")
	}
}

func TestCheckForbidden(t *testing.T) {
	c := &cluster{work: t.TempDir()}
	logs := filepath.Join(c.work, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(logs, name+".log"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("shim", "INFO bound\nWARN failed to delete pod: pods \"x\" not found\n")
	write("admissioncontroller", "INFO webhook registered\n")
	if err := c.checkForbidden(); err != nil {
		t.Errorf("clean logs: %v", err)
	}
	write("admissioncontroller", "E reflector: leases is forbidden: User \"system:serviceaccount:yunikorn:yunikorn-admission-controller\" cannot list resource \"leases\"\n")
	err := c.checkForbidden()
	if err == nil || !strings.Contains(err.Error(), "leases") {
		t.Errorf("a refused request not reported: %v", err)
	}
}

func TestOverrideEnv(t *testing.T) {
	env := []string{"KUBERNETES_SERVICE_HOST=127.0.0.1", "KUBERNETES_SERVICE_PORT=16443", "NAMESPACE=yunikorn"}
	got := overrideEnv(env, map[string]string{"KUBERNETES_SERVICE_PORT": "16090", "Z": "1", "A": "2=3"})
	want := []string{"KUBERNETES_SERVICE_HOST=127.0.0.1", "KUBERNETES_SERVICE_PORT=16090", "NAMESPACE=yunikorn", "A=2=3", "Z=1"}
	if !slices.Equal(got, want) {
		t.Errorf("overrideEnv = %q, want %q", got, want)
	}
	if got := overrideEnv(env, nil); !slices.Equal(got, env) {
		t.Errorf("overrideEnv(nil) = %q, want %q", got, env)
	}
}
