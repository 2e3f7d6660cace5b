package app

import (
	"fmt"
	"time"
)

// State is an application state of the reference's application state
// machine (reference §3.1).
type State uint8

// Application states.
const (
	New State = iota
	Accepted
	Running
	Completing
	Completed
	Failing
	Failed
	Rejected
	Resuming
	Expired
)

var stateNames = [...]string{"New", "Accepted", "Running", "Completing", "Completed", "Failing", "Failed", "Rejected", "Resuming", "Expired"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", s)
}

// Terminal reports whether the application left the scheduler's active set.
func (s State) Terminal() bool {
	return s == Completed || s == Failed || s == Rejected || s == Expired
}

// Event drives the application state machine.
type Event uint8

// Application events.
const (
	RunEvent Event = iota
	RejectEvent
	CompleteEvent
	FailEvent
	ResumeEvent
	ExpireEvent
)

var eventNames = [...]string{"runApplication", "rejectApplication", "completeApplication", "failApplication", "resumeApplication", "expireApplication"}

func (e Event) String() string {
	if int(e) < len(eventNames) {
		return eventNames[e]
	}
	return fmt.Sprintf("Event(%d)", e)
}

// next returns the target of event e in state s, and whether the
// transition is allowed (reference §3.1 table).
func next(s State, e Event) (State, bool) {
	switch e {
	case RejectEvent:
		if s == New {
			return Rejected, true
		}
	case RunEvent:
		switch s {
		case New, Resuming:
			return Accepted, true
		case Accepted, Running, Completing:
			return Running, true
		}
	case CompleteEvent:
		switch s {
		case Accepted, Running:
			return Completing, true
		case Completing:
			return Completed, true
		}
	case FailEvent:
		switch s {
		case New, Accepted, Running:
			return Failing, true
		case Failing:
			return Failed, true
		}
	case ResumeEvent:
		if s == New || s == Accepted {
			return Resuming, true
		}
	case ExpireEvent:
		if s == Completed || s == Failed || s == Rejected {
			return Expired, true
		}
	}
	return s, false
}

// StateChange is one entry of an application's state log.
type StateChange struct {
	Time  time.Time
	State State
}

// Fire applies event e at time now. It returns whether the state changed;
// an event that is not allowed in the current state is an error and leaves
// the application unchanged. A transition to the same state is a no-op.
func (a *App) Fire(e Event, now time.Time) (bool, error) {
	to, ok := next(a.State, e)
	if !ok {
		return false, fmt.Errorf("application %s: event %s not allowed in state %s", a.ID, e, a.State)
	}
	if to == a.State {
		return false, nil
	}
	a.State = to
	a.StateLog = append(a.StateLog, StateChange{Time: now, State: to})
	switch to {
	case Running:
		if a.StartTime.IsZero() {
			a.StartTime = now
		}
	case Completed, Failed, Rejected:
		a.FinishTime = now
	}
	return true, nil
}
