package main

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/metadata"

	"github.com/apache/yunikorn-k8shim/pkg/cache"
)

// shimPod is a pod the shim holds as pending: it submits it as an ask when
// its application is accepted, which for a standby is at the takeover.
type shimPod struct{ uid, resourceVersion string }

// pendingInShim lists the pods of the shim's tasks not yet submitted whose
// pod, as the shim's cache has it, is bound to no node.
func pendingInShim(ctx *cache.Context) func() []shimPod {
	return func() []shimPod {
		var out []shimPod
		for _, app := range ctx.GetAllApplications() {
			for _, t := range app.GetNewTasks() {
				if p := t.GetTaskPod(); p != nil && p.Spec.NodeName == "" {
					out = append(out, shimPod{string(p.UID), p.ResourceVersion})
				}
			}
		}
		return out
	}
}

// pendingInAPI lists, in one consistent read of the API server, the pods
// of schedulerName bound to no node (their metadata only), and the
// list's resource version.
func pendingInAPI(client metadata.Interface, schedulerName string) func(context.Context) (string, map[string]bool, error) {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	return func(ctx context.Context) (string, map[string]bool, error) {
		l, err := client.Resource(pods).List(ctx, metav1.ListOptions{
			FieldSelector: "spec.nodeName=,spec.schedulerName=" + schedulerName,
		})
		if err != nil {
			return "", nil, err
		}
		pending := make(map[string]bool, len(l.Items))
		for _, p := range l.Items {
			pending[string(p.UID)] = true
		}
		return l.ResourceVersion, pending, nil
	}
}

// stale counts the pods the shim holds as pending in a version older than
// the list's that the list does not hold as pending: bound (or deleted)
// already, which the shim's cache has not caught up with. A pod the shim
// holds in a version as new as the list's or newer is its own truth.
func stale(shim []shimPod, listRV string, pending map[string]bool) (int, error) {
	n := 0
	for _, p := range shim {
		if pending[p.uid] {
			continue
		}
		c, err := resourceversion.CompareResourceVersion(p.resourceVersion, listRV)
		if err != nil {
			return 0, fmt.Errorf("pod %s: %w", p.uid, err)
		}
		if c < 0 {
			n++
		}
	}
	return n, nil
}

// settle holds a new leader's activation until its shim's cache has caught
// up with the API server on the pods the shim is about to submit: one
// consistent list of the pending pods, then a look at the shim's view
// every `every` until no pod the shim holds as pending is bound already
// by the list, or until max has passed; it tells how many were still
// behind (0 when settled).
//
// Without it a new leader places again pods that the old leader bound
// before it stopped but that the shim's informer had not delivered yet;
// the API server refuses those binds, and the upstream shim rolls each
// allocation back and retries it while the pod lives, with the new
// leader counting the pod on a node where it is not. A standby's shim
// lags most when the leader binds fastest: at 10,000 pods on the 2-core
// test machine, by seconds.
func settle(ctx context.Context, list func(context.Context) (string, map[string]bool, error), shim func() []shimPod, max, every time.Duration) (int, error) {
	deadline := time.Now().Add(max)
	rv, pending, err := list(ctx)
	if err != nil {
		return 0, err
	}
	for {
		n, err := stale(shim(), rv, pending)
		if err != nil || n == 0 || !time.Now().Before(deadline) {
			return n, err
		}
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case <-time.After(every):
		}
	}
}
