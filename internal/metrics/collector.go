package metrics

import (
	"maps"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
)

// The label values the state gauges always carry (zeros included), as in
// the reference.
var (
	appTotalStates = []string{"running", "resuming", "failing", "completing", "completed", "failed"}
	queueAppStates = []string{"new", "accepted", "running", "rejected", "failing", "failed", "resuming", "completing", "completed"}
	queueResStates = []string{"guaranteed", "max", "allocated", "pending", "preempting"}
	bucketNames    = []string{"[0,10%]", "(10%,20%]", "(20%,30%]", "(30%,40%]", "(40%,50%]",
		"(50%,60%]", "(60%,70%]", "(70%,80%]", "(80%,90%]", "(90%,100%]"}
)

var (
	appTotalDesc = prometheus.NewDesc(AppTotal, "Applications by state (terminated ones until they expire).", []string{"state"}, nil)
	nodeDesc     = prometheus.NewDesc(NodeGauge,
		"Nodes by state: active (schedulable), draining, decommissioned (removed since start), failed (always 0).", []string{"state"}, nil)
	queueAppDesc = prometheus.NewDesc(QueueApp, "A queue's applications by state.", []string{"partition", "queue", "state"}, nil)
	queueResDesc = prometheus.NewDesc(QueueResource,
		"A queue's resources: guaranteed, max, allocated, pending, preempting (held by its victims being preempted), and maxRunningApps (resource apps).", []string{"partition", "queue", "state", "resource"}, nil)
)

// stateCollector produces the state gauges at scrape time. It is an
// unchecked collector: the node usage metric names depend on the
// resource types in use.
type stateCollector struct{ m *Metrics }

func (c *stateCollector) Describe(chan<- *prometheus.Desc) {}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	st, err := c.m.src.MetricsState()
	if err != nil {
		c.m.log.Warn("metrics: reading scheduler state", "err", err)
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, s := range appTotalStates {
		gauge(appTotalDesc, float64(st.Apps[s]), s)
	}
	gauge(nodeDesc, float64(st.ActiveNodes), "active")
	gauge(nodeDesc, float64(st.DrainingNodes), "draining")
	gauge(nodeDesc, float64(c.m.nodesRemoved.Load()), "decommissioned")
	gauge(nodeDesc, 0, "failed")
	for _, res := range slices.Sorted(maps.Keys(st.NodeUsage)) {
		d := prometheus.NewDesc(NodeUsageName(res), "Nodes by usage of resource "+res+".", []string{"range"}, nil)
		for i, n := range st.NodeUsage[res] {
			gauge(d, float64(n), bucketNames[i])
		}
	}
	for _, q := range st.Queues {
		for _, s := range queueAppStates {
			gauge(queueAppDesc, float64(q.Apps[s]), q.Partition, q.Queue, s)
		}
		for _, s := range queueResStates {
			for res, v := range q.Resources[s] {
				gauge(queueResDesc, float64(v), q.Partition, q.Queue, s, res)
			}
		}
		if q.MaxRunningApps > 0 {
			gauge(queueResDesc, float64(q.MaxRunningApps), q.Partition, q.Queue, "maxRunningApps", "apps")
		}
	}
}
