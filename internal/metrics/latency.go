package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paddock-sched/paddock/internal/core/latency"
)

// The reference's four phase latency histograms (§6), named
// _milliseconds and observing seconds, with LatencyBuckets, as the
// reference's do.
const (
	NodeSortingLatency   = nsScheduler + "node_sorting_latency_milliseconds"
	TryNodeLatency       = nsScheduler + "trynode_latency_milliseconds"
	TryNodeEvaluation    = nsScheduler + "trynode_evaluation_milliseconds"
	TryPreemptionLatency = nsScheduler + "trypreemption_latency_milliseconds"
)

var (
	nodeSortingDesc = prometheus.NewDesc(NodeSortingLatency,
		"Duration of one choice of the next queue (level queue: a walk of the queue orderings from the root) or of a leaf's next application (level app), in seconds (the name is the reference's).",
		[]string{"level"}, nil)
	tryNodeDesc = prometheus.NewDesc(TryNodeLatency,
		"Duration of one RM node check (the Predicates callback) of an ask on a node, in seconds (the name is the reference's).", nil, nil)
	tryNodeEvalDesc = prometheus.NewDesc(TryNodeEvaluation,
		"Duration of one search of a node for an ask, RM node checks included, in seconds (the name is the reference's).", nil, nil)
	tryPreemptionDesc = prometheus.NewDesc(TryPreemptionLatency,
		"Duration of one preemption attempt for an ask or a gang, in seconds (the name is the reference's).", nil, nil)
)

// phaseLatency accumulates the phase histograms the engine reports after
// each step; a scrape reads them.
type phaseLatency struct {
	mu sync.Mutex
	h  [latency.Phases]latency.Histogram
}

// ObserveLatency adds the phase durations of one scheduling step.
func (m *Metrics) ObserveLatency(h *[latency.Phases]latency.Histogram) {
	var n uint64
	for i := range h {
		n += h[i].Count()
	}
	if n == 0 {
		return // no pass ran in the step
	}
	m.phases.mu.Lock()
	for i := range h {
		m.phases.h[i].Merge(&h[i])
	}
	m.phases.mu.Unlock()
}

func (c *phaseLatency) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{nodeSortingDesc, tryNodeDesc, tryNodeEvalDesc, tryPreemptionDesc} {
		ch <- d
	}
}

func (c *phaseLatency) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	h := c.h
	c.mu.Unlock()
	hist := func(d *prometheus.Desc, h *latency.Histogram, labels ...string) {
		buckets := make(map[float64]uint64, latency.Buckets)
		var n uint64
		for i := range latency.Buckets {
			n += h.Counts[i]
			buckets[LatencyBuckets[i]] = n
		}
		ch <- prometheus.MustNewConstHistogram(d, h.Count(), h.Sum.Seconds(), buckets, labels...)
	}
	hist(nodeSortingDesc, &h[latency.AppSort], "app")
	hist(nodeSortingDesc, &h[latency.QueueSort], "queue")
	hist(tryNodeDesc, &h[latency.NodeCheck])
	hist(tryNodeEvalDesc, &h[latency.NodeEvaluation])
	hist(tryPreemptionDesc, &h[latency.Preemption])
}
