// Package etcdbuild pins the etcd program the end-to-end harness builds:
// go.etcd.io/etcd/server/v3 v3.6.8 (the version Kubernetes v1.36.3 pins),
// whose root package is the etcd main package. It has no code.
package etcdbuild
