package replay

import (
	"context"
	"time"
)

// pacer holds the replay back to Options.Speed times real time, so a
// person watching the served state sees it move at a readable pace.
type pacer struct {
	speed float64
	ctx   context.Context
	start time.Time     // wall time of the first cycle
	first time.Duration // trace time of the first cycle
	begun bool
}

func newPacer(speed float64, ctx context.Context) *pacer {
	if ctx == nil {
		ctx = context.Background()
	}
	return &pacer{speed: speed, ctx: ctx}
}

// wait returns when the wall clock has caught up with trace time at (at
// once when the replay runs unpaced or behind), or with the context's
// error when it is done first.
func (p *pacer) wait(at time.Duration) error {
	if err := p.ctx.Err(); err != nil {
		return err
	}
	if p.speed <= 0 {
		return nil
	}
	if !p.begun {
		p.start, p.first, p.begun = time.Now(), at, true
		return nil
	}
	due := p.start.Add(time.Duration(float64(at-p.first) / p.speed))
	d := time.Until(due)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
}
