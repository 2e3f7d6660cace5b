// Package k8sbuild pins the Kubernetes control-plane programs the end-to-end
// harness builds: kube-apiserver, kube-controller-manager and kube-scheduler
// of k8s.io/kubernetes v1.36.3, with its staging modules replaced by their
// published v0.36.3 versions. It has no code; the go.mod's tool lines name
// the programs.
package k8sbuild
