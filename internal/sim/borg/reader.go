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

// fileStarter is a decoder that reads each file's first line differently
// (a CSV header).
type fileStarter interface{ startFile() }

// tableReader streams the events of one table, skipping malformed rows.
type tableReader[T any] struct {
	lines *shardLines
	dec   decoder[T]
	stats TableStats
	ev    T     // decoding target, kept here so it does not escape per event
	err   error // sticky: io.EOF or the first read error
	file  string
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
		if r.lines.file != r.file {
			r.file = r.lines.file
			if fs, ok := r.dec.(fileStarter); ok {
				fs.startFile()
			}
		}
		r.ev = zero
		t, err := r.dec.decode(line, &r.ev)
		if err == errNotARow {
			continue
		}
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

// position names the table, file and line of the last row read.
func (r *tableReader[T]) position() (table, file string, line int64) {
	return r.stats.Table, r.lines.file, r.lines.lineNo
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
type MachineReader struct{ r tableReader[MachineEvent] }

// Next returns the next well-formed event, io.EOF after the last one, or a
// sticky error naming the shard that cannot be read. Malformed rows are
// counted in Stats and skipped.
func (m *MachineReader) Next() (MachineEvent, error) { return m.r.Next() }

// All iterates over the remaining events; a read error is yielded once and ends it.
func (m *MachineReader) All() iter.Seq2[MachineEvent, error] { return m.r.All() }

// Stats returns the table's counts so far.
func (m *MachineReader) Stats() TableStats { return m.r.Stats() }

// Close releases the open shard; Next returns io.EOF afterwards.
func (m *MachineReader) Close() error { return m.r.Close() }

func (m *MachineReader) position() (string, string, int64) { return m.r.position() }

// JobReader streams a 2011 job_events or 2019 collection_events table.
type JobReader struct{ r tableReader[JobEvent] }

// Next returns the next well-formed event, io.EOF after the last one, or a
// sticky error naming the shard that cannot be read. Malformed rows are
// counted in Stats and skipped.
func (j *JobReader) Next() (JobEvent, error) { return j.r.Next() }

// All iterates over the remaining events; a read error is yielded once and ends it.
func (j *JobReader) All() iter.Seq2[JobEvent, error] { return j.r.All() }

// Stats returns the table's counts so far.
func (j *JobReader) Stats() TableStats { return j.r.Stats() }

// Close releases the open shard; Next returns io.EOF afterwards.
func (j *JobReader) Close() error { return j.r.Close() }

func (j *JobReader) position() (string, string, int64) { return j.r.position() }

// TaskReader streams a 2011 task_events or 2019 instance_events table.
type TaskReader struct{ r tableReader[TaskEvent] }

// Next returns the next well-formed event, io.EOF after the last one, or a
// sticky error naming the shard that cannot be read. Malformed rows are
// counted in Stats and skipped.
func (k *TaskReader) Next() (TaskEvent, error) { return k.r.Next() }

// All iterates over the remaining events; a read error is yielded once and ends it.
func (k *TaskReader) All() iter.Seq2[TaskEvent, error] { return k.r.All() }

// Stats returns the table's counts so far.
func (k *TaskReader) Stats() TableStats { return k.r.Stats() }

// Close releases the open shard; Next returns io.EOF afterwards.
func (k *TaskReader) Close() error { return k.r.Close() }

func (k *TaskReader) position() (string, string, int64) { return k.r.position() }
