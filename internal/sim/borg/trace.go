package borg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

var shard2019Any = regexp.MustCompile(`^(machine_events|collection_events|instance_events)-[0-9]+\.json(\.gz)?$`)

// Open detects the format of the trace in dir. A 2011 trace has table
// directories machine_events/, job_events/ and task_events/ holding
// part-NNNNN-of-NNNNN.csv[.gz] shards; a 2019 export has
// {table}-NNNNNNNNNNNN.json[.gz] files for machine_events, collection_events
// and instance_events, in dir or in a directory per table. Open needs at
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
// stream limited to w. It fails, naming the table, if one is missing.
func (t *Trace) Stream(w Window) (*Stream, error) {
	m, err := t.Machines()
	if err != nil {
		return nil, err
	}
	j, err := t.Jobs()
	if err != nil {
		return nil, errors.Join(err, m.Close())
	}
	k, err := t.Tasks()
	if err != nil {
		return nil, errors.Join(err, m.Close(), j.Close())
	}
	return Merge(m, j, k, w), nil
}
