package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// admissionPort is the admission controller's HTTPS port, fixed in its
// main package (upstream's 9089).
const admissionPort = 9089

const admissionService = "yunikorn-admission-controller-service"

// hostIP is a non-loopback address of this machine: the API server reaches
// a webhook Service through its endpoints (aggregator routing), and an
// endpoint may not be a loopback address.
func hostIP() (string, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "", err
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
			return ipn.IP.String(), nil
		}
	}
	return "", fmt.Errorf("no non-loopback IPv4 address for the webhook endpoint")
}

// admissionScenario starts the upstream admission controller, which
// registers its webhooks with the API server; a ConfigMap change that
// Paddock's /ws/v1/validate-conf refuses is then rejected by the API
// server, and a valid one goes through.
func admissionScenario(ctx context.Context, c *cluster) error {
	l, err := net.Listen("tcp", fmt.Sprintf(":%d", admissionPort))
	if err != nil {
		return fmt.Errorf("the admission controller's fixed port %d is taken: %w", admissionPort, err)
	}
	l.Close()
	ip, err := hostIP()
	if err != nil {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: admissionService, Namespace: shimNamespace},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromInt32(admissionPort)}}},
	}
	if _, err := c.kube.CoreV1().Services(shimNamespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	port := int32(admissionPort)
	proto := corev1.ProtocolTCP
	ready := true
	name := ""
	es := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: admissionService + "-e2e", Namespace: shimNamespace,
			Labels: map[string]string{discoveryv1.LabelServiceName: admissionService}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}},
	}
	if _, err := c.kube.DiscoveryV1().EndpointSlices(shimNamespace).Create(ctx, es, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// the Secret the admission controller keeps its CA in; the upstream
	// Helm chart creates it empty and the controller fills it
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "admission-controller-secrets", Namespace: shimNamespace}, Type: corev1.SecretTypeOpaque}
	if _, err := c.kube.CoreV1().Secrets(shimNamespace).Create(ctx, sec, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	env := []string{"KUBECONFIG=" + c.pki.kubeconfig, "NAMESPACE=" + shimNamespace}
	if err := c.start("admissioncontroller", env); err != nil {
		return err
	}
	defer func() {
		c.stop("admissioncontroller")
		bg := context.Background()
		_ = c.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(bg, "yunikorn-admission-controller-validations", metav1.DeleteOptions{})
		_ = c.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(bg, "yunikorn-admission-controller-mutations", metav1.DeleteOptions{})
	}()
	err = waitFor(ctx, "the admission controller's validating webhook registered", 2*time.Minute, time.Second, func() (bool, error) {
		if c.procs["admissioncontroller"].exited() {
			return false, fmt.Errorf("admission controller exited: %v", c.procs["admissioncontroller"].err)
		}
		l, err := c.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, v := range l.Items {
			for _, h := range v.Webhooks {
				if strings.Contains(h.Name, "validate-conf") && len(h.ClientConfig.CABundle) > 0 {
					return true, nil
				}
			}
		}
		return false, fmt.Errorf("%d validating webhook configurations", len(l.Items))
	})
	if err != nil {
		return err
	}
	// a queue with a negative maxapplications is refused by Paddock
	bad := queuesWith(`        queues:
          - name: e2e-bad
            maxapplications: -1
`)
	var refusal error
	err = waitFor(ctx, "the API server refuses an invalid queues.yaml", time.Minute, 2*time.Second, func() (bool, error) {
		refusal = c.writeShimConfig(ctx, bad)
		if refusal == nil {
			_ = c.writeShimConfig(ctx, c.shimConf)
			return false, fmt.Errorf("accepted (webhook not reached yet?)")
		}
		return apierrors.IsForbidden(refusal) || apierrors.IsInvalid(refusal) || strings.Contains(refusal.Error(), "denied"), refusal
	})
	if err != nil {
		return err
	}
	// the reason is Paddock's: the controller assumes a ConfigMap valid
	// when the scheduler is unreachable or answers oddly
	reason, err := c.validateConf(ctx, bad)
	if err != nil {
		return err
	}
	if reason == "" || !strings.Contains(refusal.Error(), reason) {
		return fmt.Errorf("the API server's refusal %q does not carry Paddock's reason %q", refusal, reason)
	}
	logf("   invalid ConfigMap refused with Paddock's /ws/v1/validate-conf reason: %v", refusal)
	good := queuesWith(`        queues:
          - name: e2e-good
            maxapplications: 10
`)
	if err := c.writeShimConfig(ctx, good); err != nil {
		return fmt.Errorf("a valid queues.yaml refused: %w", err)
	}
	err = waitFor(ctx, "the valid change reached Paddock", time.Minute, time.Second, func() (bool, error) {
		var q struct {
			MaxRunningApps uint64 `json:"maxRunningApps"`
		}
		err := c.rest(ctx, "/ws/v1/partition/default/queue/root.e2e-good", &q)
		return err == nil && q.MaxRunningApps == 10, err
	})
	if err != nil {
		return err
	}
	logf("   valid ConfigMap accepted and hot-reloaded by Paddock")
	return c.writeShimConfig(ctx, c.shimConf)
}

// validateConf posts queues.yaml to Paddock's /ws/v1/validate-conf and
// returns its reason for refusing it ("" when it is allowed).
func (c *cluster) validateConf(ctx context.Context, queues string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.restURL()+"/ws/v1/validate-conf", strings.NewReader(queues))
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		Allowed bool   `json:"allowed"`
		Reason  string `json:"reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", fmt.Errorf("validate-conf: %s: %w", resp.Status, err)
	}
	if v.Allowed {
		return "", nil
	}
	return v.Reason, nil
}
