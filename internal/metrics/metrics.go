// Package metrics owns Paddock's Prometheus metrics: the reference's
// scheduler and queue metrics (reference §6) under the same names, types
// and labels, so dashboards written for YuniKorn read them unchanged
// (latency histograms named _milliseconds observe seconds, as the
// reference's do), Paddock's own extras, and the Go runtime and process
// collectors, served as the exposition of /ws/v1/metrics.
//
// Counters are fed from outcomes the scheduler service already produces
// (rmproxy.Hooks: Step, Latency and Tally, on the service goroutine,
// without locks beyond the client library's atomics and one short lock a
// step for the phase histograms, which the engine times into a
// latency.Recorder of its own). Gauges that describe state
// (applications, nodes, node usage, queues) are read at scrape time from a
// Source, so the scheduling path does no gauge bookkeeping; a queue that no
// longer exists simply has no gauges. The per-queue terminal counters
// (yunikorn_queue_app_total) survive the queue's removal.
package metrics

import (
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// LatencyBuckets are the histogram buckets in seconds: 0.1 ms to 1000 s,
// ten times apart (the reference's, with the right unit).
var LatencyBuckets = prometheus.ExponentialBuckets(0.0001, 10, 8)

// Metrics is one registry of Paddock's metrics.
type Metrics struct {
	reg *prometheus.Registry
	src Source
	log *slog.Logger

	allocAttempts   *prometheus.CounterVec
	submissions     *prometheus.CounterVec
	cycle, latency  prometheus.Histogram
	nodesRemoved    atomic.Int64
	queueTerminal   *prometheus.CounterVec
	queueContainers *prometheus.CounterVec
	refQueues       map[string]*prometheus.CounterVec // by queue path (Count only)
	phases          phaseLatency

	// per-label children resolved once, so the hook does no lookups;
	// queues is only touched by Count (the service goroutine)
	queues                           map[rmproxy.QueueKey]*queueCounters
	allocated, released, rejected    prometheus.Counter
	appNew, appAccepted, appRejected prometheus.Counter
}

// Names of the metrics (reference §6, exactly: the two latency histograms
// are named _milliseconds and observe seconds, as the reference's do, so
// dashboards written for YuniKorn read them unchanged).
const (
	nsScheduler       = "yunikorn_scheduler_"
	AllocationAttempt = nsScheduler + "container_allocation_attempt_total"
	AppSubmission     = nsScheduler + "application_submission_total"
	AppTotal          = nsScheduler + "application_total"
	NodeGauge         = nsScheduler + "node"
	SchedulingLatency = nsScheduler + "scheduling_latency_milliseconds"
	SchedulingCycle   = nsScheduler + "scheduling_cycle_milliseconds"
	QueueApp          = "yunikorn_queue_app"
	QueueAppTotal     = "yunikorn_queue_app_total"
	QueueResource     = "yunikorn_queue_resource"
	QueueContainer    = "yunikorn_queue_container_total"
)

// QueueContainerName is the reference's per-queue container counter:
// yunikorn_<sanitised queue path>_queue_container (state allocated or
// released), one metric name per queue. Paddock exports it beside
// QueueContainer, which carries the queue as a label.
func QueueContainerName(queue string) string {
	return "yunikorn_" + sanitise(queue) + "_queue_container"
}

// NodeUsageName is the node usage gauge of a resource:
// yunikorn_scheduler_<sanitised resource>_node_usage_total.
func NodeUsageName(res string) string {
	return nsScheduler + sanitise(res) + "_node_usage_total"
}

// sanitise maps a resource name to metric-name characters.
func sanitise(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// New returns the metrics, reading state gauges from src (nil: no state
// gauges), with the Go runtime and process collectors registered.
func New(src Source, log *slog.Logger) *Metrics {
	if log == nil {
		log = slog.Default()
	}
	m := &Metrics{reg: prometheus.NewRegistry(), src: src, log: log, queues: map[rmproxy.QueueKey]*queueCounters{}, refQueues: map[string]*prometheus.CounterVec{}}
	m.allocAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: AllocationAttempt,
		Help: "Allocation attempts by outcome: allocated, released, rejected; error counts failed commits (none in Paddock)."}, []string{"state"})
	m.submissions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: AppSubmission,
		Help: "Applications submitted (new) and what became of them (accepted, rejected)."}, []string{"result"})
	m.cycle = prometheus.NewHistogram(prometheus.HistogramOpts{Name: SchedulingCycle,
		Help: "Duration of every scheduling step (timers and a pass over every partition), in seconds (the name is the reference's).", Buckets: LatencyBuckets})
	m.latency = prometheus.NewHistogram(prometheus.HistogramOpts{Name: SchedulingLatency,
		Help: "Duration of the scheduling steps that made at least one allocation, in seconds (the name is the reference's).", Buckets: LatencyBuckets})
	m.queueTerminal = prometheus.NewCounterVec(prometheus.CounterOpts{Name: QueueAppTotal,
		Help: "Applications of a queue that completed, failed or were rejected; kept after the queue is removed."}, []string{"partition", "queue", "state"})
	m.queueContainers = prometheus.NewCounterVec(prometheus.CounterOpts{Name: QueueContainer,
		Help: "Allocations made on (allocated) and released from (released) a queue."}, []string{"partition", "queue", "state"})
	m.allocated = m.allocAttempts.WithLabelValues("allocated")
	m.released = m.allocAttempts.WithLabelValues("released")
	m.rejected = m.allocAttempts.WithLabelValues("rejected")
	m.allocAttempts.WithLabelValues("error")
	m.appNew = m.submissions.WithLabelValues("new")
	m.appAccepted = m.submissions.WithLabelValues("accepted")
	m.appRejected = m.submissions.WithLabelValues("rejected")
	m.reg.MustRegister(m.allocAttempts, m.submissions, m.cycle, m.latency, m.queueTerminal, m.queueContainers, &m.phases,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if src != nil {
		m.reg.MustRegister(&stateCollector{m: m})
	}
	return m
}

// Registry is the Prometheus registry, for adding collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the exposition (the text format) for /ws/v1/metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{m.log}, ErrorHandling: promhttp.ContinueOnError})
}

// Hooks returns the scheduler service hooks that feed the counters and
// histograms; combine them with other hooks before rmproxy SetHooks.
func (m *Metrics) Hooks() rmproxy.Hooks {
	return rmproxy.Hooks{Step: m.ObserveStep, Tally: m.Count, Latency: m.ObserveLatency}
}

// ObserveStep records one scheduling step.
func (m *Metrics) ObserveStep(d time.Duration, made int) {
	s := d.Seconds()
	m.cycle.Observe(s)
	if made > 0 {
		m.latency.Observe(s)
	}
}

// Count adds a tally of outcomes to the counters.
func (m *Metrics) Count(t *rmproxy.Tally) {
	add := func(c prometheus.Counter, n int) {
		if n > 0 {
			c.Add(float64(n))
		}
	}
	add(m.allocated, t.Allocated)
	add(m.released, t.Released)
	add(m.rejected, t.RejectedAllocs)
	add(m.appNew, t.AppsSubmitted)
	add(m.appAccepted, t.AppsAccepted)
	add(m.appRejected, t.AppsRejected)
	m.nodesRemoved.Add(int64(t.NodesRemoved))
	for k, q := range t.Queues {
		c := m.queues[k]
		if c == nil {
			c = &queueCounters{
				allocated: multi{m.queueContainers.WithLabelValues(k.Partition, k.Queue, "allocated")},
				released:  multi{m.queueContainers.WithLabelValues(k.Partition, k.Queue, "released")},
				completed: m.queueTerminal.WithLabelValues(k.Partition, k.Queue, "completed"),
				failed:    m.queueTerminal.WithLabelValues(k.Partition, k.Queue, "failed"),
				rejected:  m.queueTerminal.WithLabelValues(k.Partition, k.Queue, "rejected"),
			}
			if ref := m.refQueueCounter(k.Queue); ref != nil {
				c.allocated = append(c.allocated, ref.WithLabelValues("allocated"))
				c.released = append(c.released, ref.WithLabelValues("released"))
			}
			m.queues[k] = c
		}
		c.allocated.add(q.Allocated)
		c.released.add(q.Released)
		add(c.completed, q.Completed)
		add(c.failed, q.Failed)
		add(c.rejected, q.Rejected)
	}
}

// queueCounters are one queue's counters; they are kept after the queue
// goes, as the counters are.
type queueCounters struct {
	allocated, released         multi
	completed, failed, rejected prometheus.Counter
}

// multi is one count kept in several counters.
type multi []prometheus.Counter

func (c multi) add(n int) {
	if n > 0 {
		for _, x := range c {
			x.Add(float64(n))
		}
	}
}

// refQueueCounter registers (once per queue path) the reference's counter
// named after the queue; queues of several partitions with one path share
// it, as they would in the reference. Nil when the name cannot be
// registered.
func (m *Metrics) refQueueCounter(queue string) *prometheus.CounterVec {
	if v, ok := m.refQueues[queue]; ok {
		return v
	}
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: QueueContainerName(queue),
		Help: "Allocations made on (allocated) and released from (released) queue " + queue + " (the reference's per-queue name; see " + QueueContainer + ")."}, []string{"state"})
	if err := m.reg.Register(v); err != nil {
		m.log.Warn("metrics: per-queue container counter not registered", "queue", queue, "err", err)
		v = nil
	}
	m.refQueues[queue] = v
	return v
}

type slogPrinter struct{ l *slog.Logger }

func (p slogPrinter) Println(v ...any) {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		if s, ok := x.(string); ok {
			b.WriteString(s)
		} else if e, ok := x.(error); ok {
			b.WriteString(e.Error())
		}
	}
	p.l.Warn("metrics exposition", "err", b.String())
}
