package borg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Format is a trace version.
type Format uint8

// Trace formats.
const (
	Format2011 Format = iota + 1 // clusterdata-2011-2, CSV shards per table directory
	Format2019                   // clusterdata_2019, BigQuery JSON export
)

// String returns "2011" or "2019".
func (f Format) String() string {
	switch f {
	case Format2011:
		return "2011"
	case Format2019:
		return "2019"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Trace is a trace directory of either format. Each call to Machines, Jobs
// or Tasks opens an independent reader from the start of its table.
type Trace struct {
	dir    string
	format Format
}

// Dir is the trace's root directory.
func (t *Trace) Dir() string { return t.dir }

// Format is the detected trace version.
func (t *Trace) Format() Format { return t.format }

var shard2019Any = regexp.MustCompile(`^(machine_events|collection_events|instance_events)-[0-9]+\.(json|csv)(\.gz)?$`)

// Open detects the format of the trace in dir. A 2011 trace has table
// directories machine_events/, job_events/ and task_events/ holding
// part-NNNNN-of-NNNNN.csv[.gz] shards; a 2019 export has
// {table}-NNNNNNNNNNNN.json[.gz] (or .csv[.gz]) files for machine_events,
// collection_events and instance_events, in dir or in a directory per
// table, where a CSV export may have any name. Open needs at
// least one table; the others are checked when they are opened.
func Open(dir string) (*Trace, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("borg: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("borg: %s is not a directory", dir)
	}
	is2011, is2019 := false, false
	for _, table := range []string{Table2011Machines, Table2011Jobs, Table2011Tasks} {
		is2011 = is2011 || hasMatch(filepath.Join(dir, table), shard2011)
	}
	for _, sub := range []string{"", Table2019Machines, Table2019Jobs, Table2019Tasks} {
		is2019 = is2019 || hasMatch(filepath.Join(dir, sub), shard2019Any)
	}
	for _, table := range []string{Table2019Jobs, Table2019Tasks} {
		// a CSV export under any name; machine_events/ would be ambiguous
		is2019 = is2019 || len(csvExports(filepath.Join(dir, table), shard2019Any)) > 0
	}
	switch {
	case is2011 && is2019:
		return nil, fmt.Errorf("borg: %s holds both 2011 and 2019 trace tables", dir)
	case is2011:
		return &Trace{dir: dir, format: Format2011}, nil
	case is2019:
		return &Trace{dir: dir, format: Format2019}, nil
	}
	return nil, fmt.Errorf("borg: no 2011 or 2019 trace tables in %s", dir)
}

// hasMatch reports whether dir holds a file whose name matches re.
func hasMatch(dir string, re *regexp.Regexp) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.IsDir() && re.MatchString(e.Name()) {
			return true
		}
	}
	return false
}

// Machines opens the machine_events table.
func (t *Trace) Machines() (*MachineReader, error) {
	if t.format == Format2019 {
		return OpenMachineEvents2019(t.dir)
	}
	return OpenMachineEvents2011(filepath.Join(t.dir, Table2011Machines))
}

// Jobs opens the job_events (2011) or collection_events (2019) table.
func (t *Trace) Jobs() (*JobReader, error) {
	if t.format == Format2019 {
		return OpenCollectionEvents2019(t.dir)
	}
	return OpenJobEvents2011(filepath.Join(t.dir, Table2011Jobs))
}

// Tasks opens the task_events (2011) or instance_events (2019) table.
func (t *Trace) Tasks() (*TaskReader, error) {
	if t.format == Format2019 {
		return OpenInstanceEvents2019(t.dir)
	}
	return OpenTaskEvents2011(filepath.Join(t.dir, Table2011Tasks))
}

// Stream opens all three tables and merges them into one time-ordered
// stream limited to w. A trace without one of the tables is not an event
// stream: Stream then fails with a *NotStreamError naming them all.
func (t *Trace) Stream(w Window) (*Stream, error) {
	m, errM := t.Machines()
	j, errJ := t.Jobs()
	k, errK := t.Tasks()
	if errM == nil && errJ == nil && errK == nil {
		return Merge(m, j, k, w), nil
	}
	ns := &NotStreamError{Dir: t.dir}
	names := [3]string{Table2011Machines, Table2011Jobs, Table2011Tasks}
	if t.format == Format2019 {
		names = [3]string{Table2019Machines, Table2019Jobs, Table2019Tasks}
	}
	var closes []error
	for i, err := range []error{errM, errJ, errK} {
		if err != nil {
			ns.Missing = append(ns.Missing, names[i])
			ns.Errs = append(ns.Errs, err)
		}
	}
	if m != nil {
		closes = append(closes, m.Close())
	}
	if j != nil {
		closes = append(closes, j.Close())
	}
	if k != nil {
		closes = append(closes, k.Close())
	}
	return nil, errors.Join(append([]error{ns}, closes...)...)
}

// NotStreamError says a trace directory is not a replayable event stream:
// it lacks tables (a sample of a few tables' rows, say).
type NotStreamError struct {
	Dir     string
	Missing []string // the tables that cannot be opened
	Errs    []error  // why, one per missing table
}

func (e *NotStreamError) Error() string {
	return fmt.Sprintf("borg: %s is not a replayable event stream: it lacks %s, and a replay needs the machine, job and task tables (%v)",
		e.Dir, strings.Join(e.Missing, " and "), errors.Join(e.Errs...))
}

// OrderError says a table's rows are not in time order: the stream cannot
// merge them into one timeline (a sample of rows is not an event stream).
type OrderError struct {
	Table, File string
	Line        int64 // 1-based line of the row in File
	Time, Prev  int64 // the row's time and the latest time before it (µs)
}

func (e *OrderError) Error() string {
	return fmt.Sprintf("borg: %s is not in time order, so it is not a replayable event stream: %s:%d at trace time %.6fs comes after %.6fs",
		e.Table, e.File, e.Line, float64(e.Time)/1e6, float64(e.Prev)/1e6)
}
