package rmproxy

import (
	"math"
	"time"

	"golang.org/x/time/rate"

	"github.com/paddock-sched/paddock/internal/config"
)

// MinPacedWait is the shortest wait of a pass the pacer held back: the
// partition comes back when a few allocations' worth of room has built
// up, not for each one.
const MinPacedWait = 10 * time.Millisecond

// pacer is an RM's partition.Pacer: a token bucket of the RM's allocation
// rate (paddock.allocations.perSecond), holding a tenth of a second's
// worth. An allocation it did not gate (a gang's placeholders) leaves the
// bucket in debt, which later allocations wait out.
type pacer struct {
	lim *rate.Limiter
}

func newPacer(perSecond float64, now time.Time) *pacer {
	return &pacer{lim: rate.NewLimiter(rate.Limit(perSecond), paceBurst(perSecond))}
}

// paceBurst is the bucket's size for a rate: a tenth of a second's
// allocations, at least one.
func paceBurst(perSecond float64) int {
	return int(math.Max(1, math.Min(perSecond/10, math.MaxInt32)))
}

// Ready implements partition.Pacer.
func (p *pacer) Ready(now time.Time) time.Time {
	t := p.lim.TokensAt(now)
	if t >= 1 {
		return time.Time{}
	}
	wait := time.Duration((1 - t) / float64(p.lim.Limit()) * float64(time.Second))
	return now.Add(max(wait, MinPacedWait))
}

// Took implements partition.Pacer.
func (p *pacer) Took(now time.Time, n int) {
	for range n {
		p.lim.ReserveN(now, 1) // never refused with a burst of 1 or more
	}
}

// pace sets RM rmID's allocation rate from its extra configuration: the
// RM's own setting when it has one (0: no bound), else the service's
// default (SetAllocationRate).
func (s *Service) pace(rmID string, e config.Extra, now time.Time) {
	r := e.AllocationRate
	if r < 0 {
		r = s.allocationRate
	}
	if r <= 0 {
		delete(s.paced, rmID)
		s.eng.SetPacer(rmID, nil)
		return
	}
	if s.paced == nil {
		s.paced = map[string]bool{}
	}
	s.paced[rmID] = true
	s.eng.SetPacer(rmID, newPacer(r, now))
}

// SetAllocationRate sets the allocations a second an RM is given at most
// when its extra configuration does not say (paddock.allocations.perSecond):
// 0 for no bound, the default, as is any value that is not a number in
// (0, config.MaxAllocationRate]. It applies to RMs that register or send
// their configuration afterwards.
func (s *Service) SetAllocationRate(perSecond float64) {
	if !(perSecond > 0 && perSecond <= config.MaxAllocationRate) {
		perSecond = 0
	}
	_ = s.call(func(time.Time) error { s.allocationRate = perSecond; return nil })
}
