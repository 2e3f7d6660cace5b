module github.com/paddock-sched/paddock

go 1.26.8
