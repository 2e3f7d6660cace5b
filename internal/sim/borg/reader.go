package borg

import (
	"errors"
	"io"
	"iter"
	"slices"
)

// decoder parses one row of a table into an event and returns its time.
type decoder[T any] interface {
	decode(line []byte, ev *T) (int64, error)
}

// tableReader streams the events of one table, skipping malformed rows.
type tableReader[T any] struct {
	lines *shardLines
	dec   decoder[T]
	stats TableStats
	ev    T     // decoding target, kept here so it does not escape per event
	err   error // sticky: io.EOF or the first read error
}

func newTableReader[T any](table string, files []string, dec decoder[T]) tableReader[T] {
	return tableReader[T]{lines: newShardLines(files), dec: dec, stats: TableStats{Table: table}}
}

// Next returns the next well-formed event of the table. It returns io.EOF
// after the last one, and a non-nil error naming the file when a shard cannot
// be read (a missing file, a corrupt gzip stream); errors are sticky.
// Malformed rows are counted in Stats and skipped.
func (r *tableReader[T]) Next() (T, error) {
	var zero T
	if r.err != nil {
		return zero, r.err
	}
	for {
		line, err := r.lines.line()
		if errors.Is(err, errLineTooLong) {
			r.stats.malformed(r.lines.file, r.lines.lineNo, err.Error())
			continue
		}
		if err != nil {
			r.err = err
			return zero, err
		}
		if isBlank(line) {
			continue
		}
		r.ev = zero
		t, err := r.dec.decode(line, &r.ev)
		if err != nil {
			r.stats.malformed(r.lines.file, r.lines.lineNo, err.Error())
			continue
		}
		r.stats.accepted(t)
		return r.ev, nil
	}
}

// All iterates over the remaining events. A read error is yielded once, with
// a zero event, and ends the iteration; io.EOF ends it silently.
func (r *tableReader[T]) All() iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			ev, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// Stats returns the counts so far.
func (r *tableReader[T]) Stats() TableStats {
	s := r.stats
	s.Files = r.lines.opened
	s.Examples = slices.Clone(s.Examples)
	return s
}

// Close releases the open shard; Next returns io.EOF afterwards.
func (r *tableReader[T]) Close() error {
	if r.err == nil {
		r.err = io.EOF
	}
	return r.lines.close()
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// MachineReader streams a machine_events table.
type MachineReader struct{ tableReader[MachineEvent] }

// JobReader streams a 2011 job_events or 2019 collection_events table.
type JobReader struct{ tableReader[JobEvent] }

// TaskReader streams a 2011 task_events or 2019 instance_events table.
type TaskReader struct{ tableReader[TaskEvent] }
