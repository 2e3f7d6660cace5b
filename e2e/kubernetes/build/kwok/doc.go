// Package kwokbuild pins the KWOK program the end-to-end harness builds
// (sigs.k8s.io/kwok v0.8.0, in a module of its own as its Kubernetes library
// versions differ from the control plane's). It has no code.
package kwokbuild
