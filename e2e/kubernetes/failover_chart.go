package main

import (
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The HA install a chart user makes (docs/high-availability.md): the
// chart rendered with deploy/ha/values-ha.yaml on top of
// values-paddock.yaml, and deploy/ha/rbac.yaml applied in the release
// namespace. In chart mode the failover scenarios run their two replicas
// as the chart's scheduler pods (its image, with its ServiceAccount's
// token), so the Lease, the settle's list and every write go through RBAC.
const (
	haValues = "deploy/ha/values-ha.yaml"
	haRBAC   = "deploy/ha/rbac.yaml"
)

// schedulerDefaults is the chart's ConfigMap of the scheduler's defaults.
const schedulerDefaults = "yunikorn-defaults"

// installHA renders the chart with the HA values, replaces the chart's
// yunikorn-defaults with the rendered one, checks that the scheduler's
// Deployment keeps its replicas on different nodes, and applies the
// Lease's RBAC. restore puts the earlier yunikorn-defaults back (the
// scenarios after run one scheduler without leader election).
func (c *cluster) installHA(ctx context.Context) (restore func(), err error) {
	b, err := c.renderChart(ctx, haValues)
	if err != nil {
		return nil, err
	}
	objs, err := decodeManifests(b)
	if err != nil {
		return nil, err
	}
	var defaults *corev1.ConfigMap
	var sched *appsv1.Deployment
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.ConfigMap:
			if o.Name == schedulerDefaults {
				defaults = o
			}
		case *appsv1.Deployment:
			if o.Name == chartPods["shim"].deployment {
				sched = o
			}
		}
	}
	if defaults == nil || sched == nil {
		return nil, fmt.Errorf("the chart with %s renders no %s ConfigMap or %s Deployment", haValues, schedulerDefaults, chartPods["shim"].deployment)
	}
	if defaults.Data[keyLeaderElection] != "true" {
		return nil, fmt.Errorf("the chart with %s leaves %s = %q", haValues, keyLeaderElection, defaults.Data[keyLeaderElection])
	}
	if a := sched.Spec.Template.Spec.Affinity; a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) == 0 {
		return nil, fmt.Errorf("the chart with %s does not keep the scheduler's replicas apart (no required pod anti-affinity)", haValues)
	}
	cms := c.kube.CoreV1().ConfigMaps(shimNamespace)
	old, err := cms.Get(ctx, schedulerDefaults, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	before := maps.Clone(old.Data)
	old.Data = defaults.Data
	if _, err := cms.Update(ctx, old, metav1.UpdateOptions{}); err != nil {
		return nil, err
	}
	// the replicas run as the HA render's pods (its resources, affinity)
	single := c.chart.deployments[sched.Name]
	c.chart.deployments[sched.Name] = sched
	restore = func() {
		c.chart.deployments[sched.Name] = single
		cm, err := cms.Get(context.Background(), schedulerDefaults, metav1.GetOptions{})
		if err == nil {
			cm.Data = before
			_, err = cms.Update(context.Background(), cm, metav1.UpdateOptions{})
		}
		if err != nil {
			logf("   restoring %s: %v", schedulerDefaults, err)
		}
	}
	sa := sched.Spec.Template.Spec.ServiceAccountName
	if !c.haRBAC {
		denied, err := c.leaseAccess(ctx, sa)
		if err != nil {
			restore()
			return nil, err
		}
		logf("   without %s the chart's RBAC denies %s: %v", haRBAC, sa, denied)
	}
	if err := c.applyHARBAC(ctx); err != nil {
		restore()
		return nil, err
	}
	c.haRBAC = true
	if denied, err := c.leaseAccess(ctx, sa); err != nil || len(denied) > 0 {
		restore()
		return nil, fmt.Errorf("with %s the chart's RBAC still denies %s: %v (%v)", haRBAC, sa, denied, err)
	}
	logf("   chart with %s: %s updated (%s=true), replicas kept apart; %s applied", haValues, schedulerDefaults, keyLeaderElection, haRBAC)
	return restore, nil
}

// applyHARBAC applies deploy/ha/rbac.yaml as its comment says: in the
// release namespace, its binding's subject moved there.
func (c *cluster) applyHARBAC(ctx context.Context) error {
	repo, err := repoDir()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(repo, haRBAC))
	if err != nil {
		return err
	}
	objs, err := decodeManifests(b)
	if err != nil {
		return fmt.Errorf("%s: %w", haRBAC, err)
	}
	rbac := c.kube.RbacV1()
	for _, o := range objs {
		switch o := o.(type) {
		case *rbacv1.Role:
			_, err = rbac.Roles(shimNamespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			for i := range o.Subjects {
				if o.Subjects[i].Kind == rbacv1.ServiceAccountKind {
					o.Subjects[i].Namespace = shimNamespace
				}
			}
			_, err = rbac.RoleBindings(shimNamespace).Create(ctx, o, metav1.CreateOptions{})
		default:
			return fmt.Errorf("%s holds a %T", haRBAC, o)
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("applying %s: %w", haRBAC, err)
		}
	}
	return nil
}

// startChartReplica runs replica r as a pod of the chart's scheduler
// Deployment: its image, its ServiceAccount's token, the API server
// (through r's proxy when the pair goes through proxies), a REST port and
// a Lease identity of its own.
func (h *haPair) startChartReplica(r *haReplica) (*proc, error) {
	port := h.c.port(443)
	if h.viaProxy {
		var err error
		if _, port, err = net.SplitHostPort(r.proxy.addr); err != nil {
			return nil, err
		}
	}
	return h.c.runChartPod(context.Background(), r.name, chartPods["shim"], "-"+r.name, map[string]string{
		"KUBERNETES_SERVICE_PORT":          port,
		"PADDOCK_REST_ADDR":                r.rest,
		"PADDOCK_LEADER_ELECTION_IDENTITY": r.identity,
	})
}

// checkRBAC fails when a replica's request was refused by RBAC (chart
// mode: the replicas run with the chart's ServiceAccount).
func (h *haPair) checkRBAC() error {
	if h.c.chart == nil {
		return nil
	}
	var found []string
	for _, r := range h.reps {
		found = append(found, h.c.refused(r.name)...)
	}
	if len(found) > 0 {
		return fmt.Errorf("RBAC refused %d requests of the replicas, the first: %s", len(found), found[0])
	}
	logf("   RBAC: no request of the replicas refused (the chart's ServiceAccount with %s)", haRBAC)
	return nil
}

// leaseAccess asks the API server (SubjectAccessReview) whether the
// chart's ServiceAccount may do what a replica does: create its Lease,
// get, list, watch and update it by name, and list pods for the settle.
// It returns what is denied (nothing when all are allowed).
func (c *cluster) leaseAccess(ctx context.Context, sa string) ([]string, error) {
	user := "system:serviceaccount:" + shimNamespace + ":" + sa
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + shimNamespace, "system:authenticated"}
	type ask struct{ group, resource, verb, name string }
	asks := []ask{{"coordination.k8s.io", "leases", "create", ""}}
	for _, v := range []string{"get", "list", "watch", "update"} {
		asks = append(asks, ask{"coordination.k8s.io", "leases", v, haLease})
	}
	asks = append(asks, ask{"", "pods", "list", ""})
	var denied []string
	for _, a := range asks {
		r, err := c.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: user, Groups: groups,
			ResourceAttributes: &authzv1.ResourceAttributes{Namespace: shimNamespace, Group: a.group, Resource: a.resource, Verb: a.verb, Name: a.name},
		}}, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		if !r.Status.Allowed {
			denied = append(denied, fmt.Sprintf("%s %s %s", a.verb, a.resource, a.name))
		}
	}
	return denied, nil
}
