package rmproxy

import "golang.org/x/time/rate"

// Input the service ignores with a warning (a failed binding it cannot
// apply, a change to a node it does not have, a node action it does not
// know) comes one line per item, and an RM that sends such items by the
// thousand must not turn them into as many log lines written on the
// service goroutine, which would slow every RM's requests and fill the
// log. Each kind of warning is written at most IgnoredLogBurst times at
// once and IgnoredLogRate times a second after that; the lines left out
// are counted, and the next line of that kind says how many
// ("suppressed"). The kinds are the fixed messages, so the state is
// bounded.

// IgnoredLogRate and IgnoredLogBurst bound the warnings of one kind.
const (
	IgnoredLogRate  = 5
	IgnoredLogBurst = 20
)

// ignoredKind is the state of one kind of warning.
type ignoredKind struct {
	lim        *rate.Limiter
	suppressed uint64
}

// warnIgnored writes the warning msg with args unless its kind has used up
// its rate, in which case it is counted. Called on the service goroutine.
func (s *Service) warnIgnored(msg string, args ...any) {
	l := s.hooks.Logger
	if l == nil {
		return
	}
	if s.ignored == nil {
		s.ignored = map[string]*ignoredKind{}
	}
	k := s.ignored[msg]
	if k == nil {
		k = &ignoredKind{lim: rate.NewLimiter(IgnoredLogRate, IgnoredLogBurst)}
		s.ignored[msg] = k
	}
	if !k.lim.AllowN(s.clk.Now(), 1) {
		k.suppressed++
		return
	}
	if k.suppressed > 0 {
		args = append(args, "suppressed", k.suppressed)
		k.suppressed = 0
	}
	l.Warn(msg, args...)
}
