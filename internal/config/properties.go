package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// Queue property keys (§1.5).
const (
	PropSortPolicy              = "application.sort.policy"
	PropSortPriority            = "application.sort.priority"
	PropPriorityPolicy          = "priority.policy"
	PropPriorityOffset          = "priority.offset"
	PropPreemptionPolicy        = "preemption.policy"
	PropPreemptionDelay         = "preemption.delay"
	PropQuotaPreemptionDelay    = "quota.preemption.delay"
	PropUnschedAsksBackoff      = "application.unschedasks.backoff"
	PropUnschedAsksBackoffDelay = "application.unschedasks.backoff.delay"
	// Paddock's own keys carry the "paddock." prefix, which the reference
	// never uses, so they cannot clash with a key it defines later.
	PropFairSharePreemption = "paddock.fairshare.preemption"
	PropFairShareWeight     = "paddock.fairshare.weight"
)

// Property values.
const (
	SortFIFO       = "fifo"
	SortFair       = "fair"
	SortStateAware = "stateaware" // deprecated alias of fifo

	PolicyDefault  = "default"
	PolicyFence    = "fence"
	PolicyDisabled = "disabled"

	priorityEnabled  = "enabled"
	priorityDisabled = "disabled"
)

// Property defaults.
const (
	maxFairShareWeight = 1e6

	DefaultPreemptionDelay         = 30 * time.Second
	DefaultUnschedAsksBackoffDelay = 30 * time.Second
)

// Properties is the typed form of a queue's property map, with defaults for
// every unset key.
type Properties struct {
	// SortPolicy is SortFIFO or SortFair ("stateaware" is read as fifo).
	SortPolicy string
	// SortPriority is application.sort.priority == enabled.
	SortPriority bool
	// PriorityPolicy is PolicyDefault or PolicyFence.
	PriorityPolicy string
	PriorityOffset int32
	// PreemptionPolicy is PolicyDefault, PolicyFence or PolicyDisabled.
	PreemptionPolicy string
	PreemptionDelay  time.Duration
	// QuotaPreemptionDelay 0 means quota preemption is off for the queue.
	QuotaPreemptionDelay time.Duration
	// UnschedAsksBackoff 0 means off.
	UnschedAsksBackoff      uint64
	UnschedAsksBackoffDelay time.Duration
	// FairSharePreemption (paddock.fairshare.preemption: enabled) lets the
	// queue's children reclaim from one another up to their weighted
	// fair shares. It is not inherited.
	FairSharePreemption bool
	// FairShareWeight (paddock.fairshare.weight, default 1) is the queue's
	// weight among its siblings for fair-share preemption. Not inherited.
	FairShareWeight float64
}

// DefaultProperties returns the properties of a queue that sets none.
func DefaultProperties() Properties {
	return Properties{
		SortPolicy:              SortFIFO,
		SortPriority:            true,
		PriorityPolicy:          PolicyDefault,
		PreemptionPolicy:        PolicyDefault,
		PreemptionDelay:         DefaultPreemptionDelay,
		UnschedAsksBackoffDelay: DefaultUnschedAsksBackoffDelay,
		FairShareWeight:         1,
	}
}

// ParseProperties types a property map over the defaults. Unknown keys are
// ignored; every bad value is reported in the returned error.
func ParseProperties(m map[string]string) (Properties, error) {
	var ps problems
	p := parseProperties(&ps, "", "", m)
	if len(ps.list) == 0 {
		return p, nil
	}
	errs := make([]error, len(ps.list))
	for i, pr := range ps.list {
		errs[i] = errors.New(pr.Key + ": " + pr.Message)
	}
	return p, errors.Join(errs...)
}

// InheritProperties returns the raw property map a configured child queue
// runs with: the parent's map filtered (priority.policy and priority.offset
// and Paddock's fair-share keys are not inherited; preemption.policy only
// when "disabled") with the
// child's own properties on top. Dynamic queues do not use this: they only
// get their child template's properties.
func InheritProperties(parent, own map[string]string) map[string]string {
	out := make(map[string]string, len(parent)+len(own))
	for k, v := range parent {
		switch k {
		case PropPriorityPolicy, PropPriorityOffset, PropFairSharePreemption, PropFairShareWeight:
			continue
		case PropPreemptionPolicy:
			if !strings.EqualFold(strings.TrimSpace(v), PolicyDisabled) {
				continue
			}
		}
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// parseProperties types m, recording a problem under key.<property> for
// every bad value (the default is kept for it) and a warning for unknown
// keys and deprecated values.
func parseProperties(ps *problems, queue, key string, m map[string]string) Properties {
	p := DefaultProperties()
	for _, name := range sortedKeys(m) {
		raw := m[name]
		v := strings.ToLower(strings.TrimSpace(raw))
		k := joinKey(key, name)
		bad := func(want string) { ps.add(queue, k, "invalid value %q: want %s", raw, want) }
		switch name {
		case PropSortPolicy:
			switch v {
			case SortFIFO, SortFair:
				p.SortPolicy = v
			case SortStateAware:
				p.SortPolicy = SortFIFO
				ps.warn(queue, k, "%q is deprecated and behaves as fifo", raw)
			default:
				bad("fifo, fair or stateaware")
			}
		case PropSortPriority:
			switch v {
			case priorityEnabled:
				p.SortPriority = true
			case priorityDisabled:
				p.SortPriority = false
			default:
				bad("enabled or disabled")
			}
		case PropPriorityPolicy:
			switch v {
			case PolicyDefault, PolicyFence:
				p.PriorityPolicy = v
			default:
				bad("default or fence")
			}
		case PropPriorityOffset:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
				bad("a 32-bit integer")
				continue
			}
			p.PriorityOffset = int32(n)
		case PropPreemptionPolicy:
			switch v {
			case PolicyDefault, PolicyFence, PolicyDisabled:
				p.PreemptionPolicy = v
			default:
				bad("default, fence or disabled")
			}
		case PropPreemptionDelay, PropUnschedAsksBackoffDelay:
			d, err := time.ParseDuration(strings.TrimSpace(raw))
			if err != nil || d <= 0 {
				bad("a positive duration such as 30s")
				continue
			}
			if name == PropPreemptionDelay {
				p.PreemptionDelay = d
			} else {
				p.UnschedAsksBackoffDelay = d
			}
		case PropQuotaPreemptionDelay:
			d, err := time.ParseDuration(strings.TrimSpace(raw))
			if err != nil || d < 0 {
				bad("a duration of 0 (off) or more, such as 5m")
				continue
			}
			p.QuotaPreemptionDelay = d
		case PropUnschedAsksBackoff:
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				bad("a non-negative integer")
				continue
			}
			p.UnschedAsksBackoff = n
		case PropFairSharePreemption:
			switch v {
			case priorityEnabled:
				p.FairSharePreemption = true
			case priorityDisabled:
				p.FairSharePreemption = false
			default:
				bad("enabled or disabled")
			}
		case PropFairShareWeight:
			w, err := strconv.ParseFloat(v, 64)
			if err != nil || !(w > 0) || math.IsInf(w, 0) || w > maxFairShareWeight {
				bad("a positive number up to 1000000")
				continue
			}
			p.FairShareWeight = w
		default:
			ps.warn(queue, k, "unknown property is ignored")
		}
	}
	return p
}
