package gen

import (
	"crypto/sha256"
	"encoding/base64"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// This file holds the workload model: every distribution the generator
// draws from, with where its parameters come from (see the package doc for
// the sources).

// Tier indexes, lowest priority first; they match the replay's tiers.
const (
	tierFree = iota
	tierBatch
	tierMid
	tierProduction
	tierMonitoring
	numTiers
)

// TierNames names the priority tiers the report counts jobs in.
var TierNames = [numTiers]string{"free", "batch", "mid", "production", "monitoring"}

// TierOf returns the tier of a 2019 priority: free 0-99, best-effort batch
// 100-115, mid 116-119, production 120-359, monitoring 360 and above.
func TierOf(prio int32) int {
	switch {
	case prio < 100:
		return tierFree
	case prio <= 115:
		return tierBatch
	case prio <= 119:
		return tierMid
	case prio < 360:
		return tierProduction
	}
	return tierMonitoring
}

// tierModel is how the jobs of one priority tier look.
type tierModel struct {
	share      float64   // of jobs arriving in the window
	initShare  float64   // of jobs running at trace start
	prios      []int32   // priorities used in the tier …
	prioW      []float64 // … and their weights
	classW     [4]float64
	service    float64 // share of long-running service jobs among arrivals …
	initSvc    float64 // … and among jobs running at trace start
	batchSched float64 // share submitted through the batch scheduler (QUEUE, then ENABLE)
	// delay is the median time from a task's submission (or its job's
	// ENABLE) to its first placement attempt, seconds; delaySigma the
	// spread (lognormal). Free, batch and production: the delays the
	// bundled 2011 cell's own scheduler took in its 93-minute window
	// (p50/p90 2 s/6 s, 2 s/5 s, 2 s/28 s; sigma = ln(p90/p50)/1.2816);
	// mid and monitoring, absent or too rare there, are assumptions.
	delay      float64
	delaySigma float64
	evict      float64 // probability that a run is evicted
	fail       float64 // probability that a run fails
	killPend   float64 // probability that a task is cancelled before it first runs
	giveUp     int     // placement attempts before a pending task is killed; 0 never
}

// tiers: the shares are our assumption, shaped by the published finding
// that 2019 jobs moved from the free tier to best-effort batch, which now
// has most jobs; production runs the long-lived services. Jobs running at
// trace start are mostly services: a task seen running at a given instant
// is likely a long one (in the bundled 2011 cell, 97% of the tasks running
// at trace start still run 93 minutes later).
var tiers = [numTiers]tierModel{
	tierFree: {initSvc: 0.5, share: 0.22, initShare: 0.15,
		prios: []int32{0, 25}, prioW: []float64{0.75, 0.25},
		classW: [4]float64{0.6, 0.4, 0, 0}, delay: 2, delaySigma: 0.86,
		evict: 0.05, fail: 0.02, killPend: 0.03, giveUp: 10},
	tierBatch: {initSvc: 0.5, share: 0.52, initShare: 0.30,
		prios: []int32{100, 103, 107, 111, 115}, prioW: []float64{0.15, 0.45, 0.2, 0.1, 0.1},
		classW: [4]float64{0.5, 0.5, 0, 0}, batchSched: 0.6, delay: 2, delaySigma: 0.72,
		evict: 0.03, fail: 0.03, killPend: 0.01, giveUp: 12},
	tierMid: {initSvc: 0.7, share: 0.06, initShare: 0.05,
		prios: []int32{116, 117, 118, 119}, prioW: []float64{0.4, 0.2, 0.2, 0.2},
		classW: [4]float64{0.2, 0.6, 0.2, 0}, service: 0.1, delay: 2, delaySigma: 1.5,
		evict: 0.01, fail: 0.03},
	tierProduction: {initSvc: 0.9, share: 0.19, initShare: 0.45,
		prios: []int32{120, 200, 230, 300, 359}, prioW: []float64{0.15, 0.55, 0.1, 0.15, 0.05},
		classW: [4]float64{0, 0.3, 0.5, 0.2}, service: 0.4, delay: 2, delaySigma: 2.06,
		evict: 0.002, fail: 0.02},
	tierMonitoring: {initSvc: 1, share: 0.01, initShare: 0.05,
		prios: []int32{360, 400, 450}, prioW: []float64{0.7, 0.2, 0.1},
		classW: [4]float64{0, 0, 0.5, 0.5}, service: 0.9, delay: 0.5, delaySigma: 1,
		fail: 0.01},
}

// Machine shapes: normalised (CPU, memory) capacities and their shares,
// measured on the machines of the bundled 2011 cell at trace start
// (12,477 machines; the six shapes that cover 99.9% of them).
var shapes = []struct{ cpu, mem, share float64 }{
	{0.5, 0.4995, 0.5347},
	{0.5, 0.2493, 0.3074},
	{0.5, 0.749, 0.0795},
	{1.0, 1.0, 0.0632},
	{0.25, 0.2498, 0.0099},
	{0.5, 0.1241, 0.0043},
}

// Machine churn, measured on the bundled 2011 cell's machine table (29
// days, 12,583 machines): 8,957 REMOVEs and 7,380 UPDATEs, i.e. per
// machine-hour 1.02e-3 removals and 8.4e-4 updates; a removed machine comes
// back after a median of 16.6 minutes, 90% within 519 minutes.
const (
	removalsPerMachineHour = 8957.0 / (12583 * 696)
	updatesPerMachineHour  = 7380.0 / (12583 * 696)
	downMedian             = 16.6 * 60 // seconds
	downSigma              = 2.68
	machinesPerSwitch      = 40
)

// Job shape. Tasks per job: measured on the jobs submitted in the bundled
// 2011 excerpt (1,106 jobs: 76% have one task, p90 23, p99 1,072, max
// 4,846), fitted with a Pareto tail of index 0.6 for multi-task jobs.
const (
	singleTaskShare = 0.76
	tasksXm         = 2
	tasksAlpha      = 0.6
	maxTasks        = 5000
	// Per-task request: lognormal around the 2011 excerpt's median CPU
	// request (0.025 normalised; p99 0.1); memory follows CPU.
	cpuMedian = 0.02
	cpuSigma  = 0.75
	memRatio  = 0.8
	memSigma  = 0.5
	maxReq    = 0.5
	minReq    = 0.0005
	// Run lengths: batch runs are lognormal (median 5 minutes, the
	// excerpt's finished tasks have a median of 345 s); services are
	// Pareto from 2 hours with index 0.8, so most outlive a short window.
	batchMedian   = 300.0
	batchSigma    = 1.6
	serviceXm     = 2 * 3600.0
	serviceAlpha  = 0.8
	maxRun        = 60 * 24 * 3600.0
	taskRunSigma  = 0.3  // spread of run lengths within a job
	resubmitAfter = 10.0 // median seconds before an evicted or failed task is resubmitted
	maxAttempts   = 4    // submissions of a task after failures
	enableMedian  = 20.0 // median seconds a batch-scheduler job waits for ENABLE
	placeTries    = 12   // random machines tried per placement attempt
	retryBase     = 30.0 // seconds before the first placement retry, doubling
	retryMax      = 1200.0
	usersPerCell  = 600
	userZipf      = 1.2
)

// model draws from the distributions above with one random stream.
type model struct {
	rng  *rand.Rand
	user *rand.Zipf
	salt string
}

func newModel(seed uint64, cell string) *model {
	h := sha256.Sum256([]byte("paddock-gen/" + cell))
	var s2 uint64
	for _, b := range h[:8] {
		s2 = s2<<8 | uint64(b)
	}
	rng := rand.New(rand.NewPCG(seed, s2))
	return &model{rng: rng, user: rand.NewZipf(rng, userZipf, 1, usersPerCell-1), salt: cell}
}

func (m *model) lognormal(median, sigma float64) float64 {
	return median * math.Exp(sigma*m.rng.NormFloat64())
}

func (m *model) pareto(xm, alpha float64) float64 {
	return xm * math.Pow(1-m.rng.Float64(), -1/alpha)
}

func (m *model) weighted(ws []float64) int {
	u := m.rng.Float64()
	for i, w := range ws {
		if u < w {
			return i
		}
		u -= w
	}
	return len(ws) - 1
}

func (m *model) tier(initial bool) int {
	var ws [numTiers]float64
	for i, t := range tiers {
		ws[i] = t.share
		if initial {
			ws[i] = t.initShare
		}
	}
	return m.weighted(ws[:])
}

func (m *model) tasks() int {
	if m.rng.Float64() < singleTaskShare {
		return 1
	}
	return int(min(maxTasks, math.Floor(m.pareto(tasksXm, tasksAlpha))))
}

// request draws a task's CPU and memory request, rounded to four
// significant digits as the published values are.
func (m *model) request() (cpu, mem float64) {
	cpu = clamp(m.lognormal(cpuMedian, cpuSigma), minReq, maxReq)
	mem = clamp(cpu*m.lognormal(memRatio, memSigma), minReq, maxReq)
	return round4(cpu), round4(mem)
}

// runLength draws a job's typical run length in seconds. A job running at
// trace start is seen because it runs long: its length is drawn
// length-biased (for a lognormal, the median moves up by a factor of
// exp(sigma²)); services are long either way.
func (m *model) runLength(service, running bool) float64 {
	if service {
		return min(maxRun, m.pareto(serviceXm, serviceAlpha))
	}
	median := batchMedian
	if running {
		median *= math.Exp(batchSigma * batchSigma)
	}
	return min(maxRun, m.lognormal(median, batchSigma))
}

func (m *model) seconds(median, sigma float64) int64 {
	return int64(min(maxRun, m.lognormal(median, sigma)) * 1e6)
}

func (m *model) exp(perHour float64) int64 {
	return int64(m.rng.ExpFloat64() / perHour * float64(time.Hour/time.Microsecond))
}

// hashName is a stable obfuscated name, shaped like the trace's hashes.
func (m *model) hashName(kind string, n int64) string {
	h := sha256.Sum256([]byte(m.salt + "/" + kind + "/" + strconv.FormatInt(n, 10)))
	return base64.StdEncoding.EncodeToString(h[:24])
}

func clamp(v, lo, hi float64) float64 { return max(lo, min(hi, v)) }

func round4(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return r
}
