// Package yunikorncore is the root of Paddock's yunikorn-core compatibility
// module: the few packages of github.com/apache/yunikorn-core that the
// YuniKorn Kubernetes shim imports, as thin facades over Paddock's public
// API (github.com/paddock-sched/paddock/scheduler). A shim built with
//
//	go mod edit -replace github.com/apache/yunikorn-core=<this directory>
//
// runs on Paddock unchanged. Nothing here schedules: each package only
// starts Paddock or reads its state under the reference's names.
package yunikorncore
