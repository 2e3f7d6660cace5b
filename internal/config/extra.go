package config

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

// Extra configuration keys (§1.11): the flat key/value map the resource
// manager sends next to the queue configuration.
const (
	ExtraLogLevel               = "log.level"
	ExtraHealthCheckInterval    = "health.checkInterval"
	ExtraEventTracking          = "event.trackingEnabled"
	ExtraEventRequestCapacity   = "event.requestCapacity"
	ExtraEventRingBuffer        = "event.ringBufferCapacity"
	ExtraEventMaxStreams        = "event.maxStreams"
	ExtraEventMaxStreamsPerHost = "event.maxStreamsPerHost"
	ExtraEventRESTResponseSize  = "event.RESTResponseSize"
	// ExtraPredicatesSeeAllocations is Paddock's own: whether the RM's
	// Predicates answers depend on the allocations it has been told of.
	ExtraPredicatesSeeAllocations = "paddock.predicates.seeAllocations"
	// ExtraAllocationRate is Paddock's own: at most how many allocations
	// a second go to the RM (0: no bound).
	ExtraAllocationRate = "paddock.allocations.perSecond"
)

// Extra is the typed form of the extra configuration map. Keys are
// case-sensitive, as in the reference.
type Extra struct {
	// LogLevels maps a logger name to its level (-1 debug .. 5 fatal): ""
	// for log.level, "core.scheduler" for log.core.scheduler.level.
	LogLevels map[string]int
	// HealthCheckInterval <= 0 disables the periodic health check.
	HealthCheckInterval     time.Duration
	EventTrackingEnabled    bool
	EventRequestCapacity    int
	EventRingBufferCapacity int
	EventMaxStreams         int
	EventMaxStreamsPerHost  int
	EventRESTResponseSize   int
	// PredicatesSeeAllocations (default true) says the RM answers
	// Predicates and PreemptionPredicates from its own view of the nodes,
	// built from the allocations it has heard of (the Kubernetes shim
	// checks inter-pod affinity, host ports and volumes against the pods it
	// assumed): Paddock tells it of every allocation decided before asking,
	// which in a pass means a delivery per allocation. An RM whose answers
	// do not depend on them sets it false and keeps batched deliveries.
	PredicatesSeeAllocations bool
	// AllocationRate bounds the allocations a second the RM is given
	// (partition.Pacer): 0 for no bound, negative when the map does not
	// set it (the scheduler's default for the RM then applies).
	AllocationRate float64
}

// DefaultExtra returns the settings used when the extra map is empty.
func DefaultExtra() Extra {
	return Extra{
		HealthCheckInterval:     30 * time.Second,
		EventTrackingEnabled:    true,
		EventRequestCapacity:    1000,
		EventRingBufferCapacity: 100000,
		EventMaxStreams:         100,
		EventMaxStreamsPerHost:  15,
		EventRESTResponseSize:   10000,

		PredicatesSeeAllocations: true,
		AllocationRate:           -1,
	}
}

// MaxAllocationRate is the largest bound paddock.allocations.perSecond
// takes; a larger one is refused (0 is the way to say "no bound").
const MaxAllocationRate = 1_000_000

var logLevelNames = map[string]int{"debug": -1, "info": 0, "warn": 1, "error": 2, "dpanic": 3, "panic": 4, "fatal": 5}

// ParseExtra types the extra configuration map. Like the reference it never
// fails: a bad value keeps its default and is reported as a warning, and
// keys it does not know are left to their consumers (the resource manager
// may send its own settings).
func ParseExtra(m map[string]string) (Extra, []Problem) {
	e := DefaultExtra()
	var warnings []Problem
	warn := func(key, format string, args ...any) {
		ps := problems{}
		ps.add("", key, format, args...)
		warnings = append(warnings, ps.list...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw := m[k]
		v := strings.TrimSpace(raw)
		positive := func(dst *int) {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				warn(k, "invalid value %q: want a positive integer; keeping %d", raw, *dst)
				return
			}
			*dst = n
		}
		boolean := func(dst *bool) {
			b, err := strconv.ParseBool(v)
			if err != nil {
				warn(k, "invalid value %q: want true or false; keeping %v", raw, *dst)
				return
			}
			*dst = b
		}
		switch {
		case k == ExtraHealthCheckInterval:
			d, err := time.ParseDuration(v)
			if err != nil {
				warn(k, "invalid value %q: want a duration such as 30s; keeping %v", raw, e.HealthCheckInterval)
				continue
			}
			e.HealthCheckInterval = d
		case k == ExtraEventTracking:
			boolean(&e.EventTrackingEnabled)
		case k == ExtraPredicatesSeeAllocations:
			boolean(&e.PredicatesSeeAllocations)
		case k == ExtraEventRequestCapacity:
			positive(&e.EventRequestCapacity)
		case k == ExtraAllocationRate:
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || r < 0 || r > MaxAllocationRate || r != r {
				warn(k, "invalid value %q: want a number of allocations a second from 0 (no bound) to %d; keeping the default", raw, MaxAllocationRate)
				continue
			}
			e.AllocationRate = r
		case k == ExtraEventRingBuffer:
			positive(&e.EventRingBufferCapacity)
		case k == ExtraEventMaxStreams:
			positive(&e.EventMaxStreams)
		case k == ExtraEventMaxStreamsPerHost:
			positive(&e.EventMaxStreamsPerHost)
		case k == ExtraEventRESTResponseSize:
			positive(&e.EventRESTResponseSize)
		case k == ExtraLogLevel || (strings.HasPrefix(k, "log.") && strings.HasSuffix(k, ".level") && len(k) > len("log..level")):
			name := strings.TrimSuffix(strings.TrimPrefix(k, "log."), ".level")
			if k == ExtraLogLevel {
				name = ""
			}
			level, ok := logLevelNames[strings.ToLower(v)]
			if !ok {
				n, err := strconv.Atoi(v)
				if err != nil || n < -1 || n > 5 {
					warn(k, "invalid log level %q: want debug, info, warn, error, dpanic, panic, fatal or -1..5", raw)
					continue
				}
				level = n
			}
			if e.LogLevels == nil {
				e.LogLevels = map[string]int{}
			}
			e.LogLevels[name] = level
		}
	}
	return e, warnings
}
