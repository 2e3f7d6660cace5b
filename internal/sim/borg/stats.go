package borg

import (
	"fmt"
	"strings"
)

// MaxExamples is how many malformed rows a table keeps as examples.
const MaxExamples = 5

// Malformed locates a skipped row and says what was wrong with it.
type Malformed struct {
	File   string
	Line   int64 // 1-based line in the (decompressed) file
	Reason string
}

// String formats the example as "file:line: reason".
func (m Malformed) String() string {
	return fmt.Sprintf("%s:%d: %s", m.File, m.Line, m.Reason)
}

// TableStats counts what a reader has read from one table so far.
type TableStats struct {
	Table      string // e.g. "task_events", "instance_events"
	Files      int    // shards opened
	Rows       int64  // well-formed events returned
	Malformed  int64  // rows skipped as malformed
	OutOfOrder int64  // events earlier than some event before them in the table
	MinTime    int64  // smallest event time returned (0 when Rows == 0)
	MaxTime    int64  // largest event time returned
	Examples   []Malformed
}

// String summarises the table in one line, with its malformed examples.
func (s TableStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d files, %d rows, %d malformed, %d out of order", s.Table, s.Files, s.Rows, s.Malformed, s.OutOfOrder)
	for _, e := range s.Examples {
		b.WriteString("; ")
		b.WriteString(e.String())
	}
	return b.String()
}

func (s *TableStats) malformed(file string, line int64, reason string) {
	s.Malformed++
	if len(s.Examples) < MaxExamples {
		s.Examples = append(s.Examples, Malformed{File: file, Line: line, Reason: reason})
	}
}

func (s *TableStats) accepted(t int64) {
	if s.Rows > 0 && t < s.MaxTime {
		s.OutOfOrder++
	}
	if s.Rows == 0 || t < s.MinTime {
		s.MinTime = t
	}
	if s.Rows == 0 || t > s.MaxTime {
		s.MaxTime = t
	}
	s.Rows++
}

// Stats are the table statistics of a merged stream.
type Stats struct {
	Machines, Jobs, Tasks TableStats
}

// Malformed is the total number of malformed rows over all tables.
func (s Stats) Malformed() int64 {
	return s.Machines.Malformed + s.Jobs.Malformed + s.Tasks.Malformed
}
