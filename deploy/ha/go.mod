// paddock-ha is built inside a copy of the YuniKorn shim's module, as
// pkg/cmd/paddock-ha (see main.go and deploy/shim/Dockerfile); this file
// keeps it out of Paddock's own module.
module github.com/paddock-sched/paddock/deploy/ha

go 1.26
