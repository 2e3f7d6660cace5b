package borg

import (
	"errors"
	"io"
	"iter"
)

// Window limits a stream to events with Start <= Time <= End, in µs of
// trace time. End <= 0 means no end, so the zero Window admits everything.
type Window struct {
	Start, End int64
}

// Contains reports whether time t is inside the window.
func (w Window) Contains(t int64) bool {
	return t >= w.Start && !w.after(t)
}

func (w Window) after(t int64) bool { return w.End > 0 && t > w.End }

// Kind says which table an Event came from.
type Kind uint8

// Event kinds, in the order a stream yields events that share a time:
// machines first (so tasks find them), then jobs, then tasks.
const (
	KindMachine Kind = iota
	KindJob
	KindTask
)

// String returns "machine", "job" or "task".
func (k Kind) String() string {
	switch k {
	case KindMachine:
		return "machine"
	case KindJob:
		return "job"
	case KindTask:
		return "task"
	}
	return "unknown"
}

// Event is one event of a merged stream; only the field named by Kind is set.
type Event struct {
	Kind    Kind
	Time    int64
	Machine MachineEvent
	Job     JobEvent
	Task    TaskEvent
}

// head is the next in-window event of one table.
type head[T any] struct {
	r    reader[T]
	time func(*T) int64
	ev   T
	t    int64
	ok   bool  // ev is loaded
	done bool  // no more events in the window
	last int64 // the latest time read so far
	read bool  // an event was read
}

// reader is a table reader as the stream uses it.
type reader[T any] interface {
	Next() (T, error)
	position() (table, file string, line int64)
}

// fill loads the next event inside w. Tables are time-ordered, so the first
// event after w.End ends the table's part of the stream.
func (h *head[T]) fill(w Window) error {
	for !h.ok && !h.done {
		if h.r == nil {
			h.done = true
			break
		}
		var err error
		h.ev, err = h.r.Next()
		if err == io.EOF {
			h.done = true
			break
		}
		if err != nil {
			return err
		}
		t := h.time(&h.ev)
		if h.read && t < h.last {
			table, file, line := h.r.position()
			return &OrderError{Table: table, File: file, Line: line, Time: t, Prev: h.last}
		}
		h.last, h.read = t, true
		if t < w.Start {
			continue
		}
		if w.after(t) {
			h.done = true
			break
		}
		h.t, h.ok = t, true
	}
	return nil
}

// Stream merges machine, job and task events into one stream ordered by
// time, then Kind, then table order. Each table must be time-ordered, as
// the traces' tables are: a row earlier than one before it in its table
// ends the stream with an *OrderError (a reader on its own counts such
// rows in TableStats.OutOfOrder).
type Stream struct {
	m  *MachineReader
	j  *JobReader
	k  *TaskReader
	w  Window
	hm head[MachineEvent]
	hj head[JobEvent]
	hk head[TaskEvent]

	err error // sticky: io.EOF or the first read error
}

// Merge merges the given readers, any of which may be nil, limited to w.
// The stream owns the readers: Close closes them.
func Merge(m *MachineReader, j *JobReader, k *TaskReader, w Window) *Stream {
	s := &Stream{m: m, j: j, k: k, w: w}
	s.hm.time = func(e *MachineEvent) int64 { return e.Time }
	s.hj.time = func(e *JobEvent) int64 { return e.Time }
	s.hk.time = func(e *TaskEvent) int64 { return e.Time }
	if m != nil {
		s.hm.r = m
	}
	if j != nil {
		s.hj.r = j
	}
	if k != nil {
		s.hk.r = k
	}
	return s
}

// Next returns the next event, io.EOF at the end, or the first read error
// of any table (sticky).
func (s *Stream) Next() (Event, error) {
	if s.err != nil {
		return Event{}, s.err
	}
	if err := errors.Join(s.hm.fill(s.w), s.hj.fill(s.w), s.hk.fill(s.w)); err != nil {
		s.err = err
		return Event{}, err
	}
	kind, best := Kind(0), int64(0)
	found := false
	pick := func(k Kind, ok bool, t int64) {
		if ok && (!found || t < best) {
			kind, best, found = k, t, true
		}
	}
	pick(KindMachine, s.hm.ok, s.hm.t)
	pick(KindJob, s.hj.ok, s.hj.t)
	pick(KindTask, s.hk.ok, s.hk.t)
	if !found {
		s.err = io.EOF
		return Event{}, io.EOF
	}
	ev := Event{Kind: kind, Time: best}
	switch kind {
	case KindMachine:
		ev.Machine, s.hm.ok = s.hm.ev, false
	case KindJob:
		ev.Job, s.hj.ok = s.hj.ev, false
	case KindTask:
		ev.Task, s.hk.ok = s.hk.ev, false
	}
	return ev, nil
}

// All iterates over the remaining events. A read error is yielded once and
// ends the iteration; io.EOF ends it silently.
func (s *Stream) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			ev, err := s.Next()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// Stats returns the counts of the merged tables so far.
func (s *Stream) Stats() Stats {
	var st Stats
	if s.m != nil {
		st.Machines = s.m.Stats()
	}
	if s.j != nil {
		st.Jobs = s.j.Stats()
	}
	if s.k != nil {
		st.Tasks = s.k.Stats()
	}
	return st
}

// Close closes the merged readers; Next returns io.EOF afterwards.
func (s *Stream) Close() error {
	if s.err == nil {
		s.err = io.EOF
	}
	var errs []error
	if s.m != nil {
		errs = append(errs, s.m.Close())
	}
	if s.j != nil {
		errs = append(errs, s.j.Close())
	}
	if s.k != nil {
		errs = append(errs, s.k.Close())
	}
	return errors.Join(errs...)
}
