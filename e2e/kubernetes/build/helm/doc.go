// Package helmbuild pins the Helm program the end-to-end harness builds for
// its chart mode (-deploy chart): helm.sh/helm/v3, whose `helm template`
// renders the upstream YuniKorn chart as a YuniKorn user's install does.
// It is a module of its own as Helm's Kubernetes library versions differ
// from the control plane's. It has no code.
package helmbuild
