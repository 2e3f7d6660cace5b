package borg

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// maxCols is the widest 2011 table (task_events has 13 columns).
const maxCols = 13

// row2011 splits and parses the fields of one 2011 CSV row without
// allocating. The trace never quotes fields; a row that does contain a quote
// is parsed with encoding/csv instead.
type row2011 struct {
	f      [maxCols][]byte
	n      int
	intern interner
}

// split fills r.f with the fields of line and checks there are want of them.
func (r *row2011) split(line []byte, want int) error {
	if bytes.IndexByte(line, '"') >= 0 {
		return r.splitQuoted(line, want)
	}
	r.n = 0
	for {
		i := bytes.IndexByte(line, ',')
		if r.n == want {
			return fmt.Errorf("more than %d columns, want %d", want, want)
		}
		if i < 0 {
			r.f[r.n] = line
			r.n++
			break
		}
		r.f[r.n] = line[:i]
		r.n++
		line = line[i+1:]
	}
	if r.n != want {
		return fmt.Errorf("%d columns, want %d", r.n, want)
	}
	return nil
}

func (r *row2011) splitQuoted(line []byte, want int) error {
	rec, err := csvRecord(line)
	if err != nil {
		return err
	}
	if len(rec) != want {
		return fmt.Errorf("%d columns, want %d", len(rec), want)
	}
	for i, s := range rec {
		r.f[i] = []byte(s)
	}
	r.n = len(rec)
	return nil
}

// csvRecord splits one CSV line with quoted fields.
func csvRecord(line []byte) ([]string, error) {
	cr := csv.NewReader(bytes.NewReader(line))
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("bad CSV: %v", err)
	}
	return rec, nil
}

// integer parses a required integer column.
func (r *row2011) integer(col int, name string) (int64, error) {
	b := r.f[col]
	if len(b) == 0 {
		return 0, fmt.Errorf("missing %s (column %d)", name, col+1)
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad %s %s (column %d)", name, quoteField(b), col+1)
	}
	return v, nil
}

// optInteger parses an optional integer column; ok is false when it is empty.
func (r *row2011) optInteger(col int, name string) (v int64, ok bool, err error) {
	if len(r.f[col]) == 0 {
		return 0, false, nil
	}
	v, err = r.integer(col, name)
	return v, err == nil, err
}

// optFloat parses an optional finite float column.
func (r *row2011) optFloat(col int, name string) (v float64, ok bool, err error) {
	b := r.f[col]
	if len(b) == 0 {
		return 0, false, nil
	}
	v, err = strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, fmt.Errorf("bad %s %s (column %d)", name, quoteField(b), col+1)
	}
	return v, true, nil
}

// quoteField quotes a field for an error message, shortened to 40 bytes.
func quoteField(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "..."
	}
	return strconv.Quote(string(b))
}

// time parses the time column (always column 1): a non-negative integer.
func (r *row2011) time() (int64, error) {
	t, err := r.integer(0, "time")
	if err == nil && t < 0 {
		err = fmt.Errorf("negative time %d", t)
	}
	return t, err
}

// missing parses the 2011 missing-info column.
func (r *row2011) missing(col int) (MissingInfo, error) {
	v, ok, err := r.optInteger(col, "missing info")
	if err != nil || !ok {
		return MissingNone, err
	}
	m, ok := MissingInfoFrom2011(v)
	if !ok {
		return MissingNone, fmt.Errorf("unknown missing info %d (column %d)", v, col+1)
	}
	return m, nil
}

// schedClass parses an optional scheduling class column (0 … 3).
func (r *row2011) schedClass(col int, absent *Fields) (int8, error) {
	v, ok, err := r.optInteger(col, "scheduling class")
	if err != nil {
		return 0, err
	}
	if !ok {
		*absent |= FieldSchedClass
		return 0, nil
	}
	if v < 0 || v > 3 {
		return 0, fmt.Errorf("scheduling class %d out of range 0-3 (column %d)", v, col+1)
	}
	return int8(v), nil
}

// text returns an optional string column, interned when intern is set.
func (r *row2011) text(col int, f Fields, absent *Fields, intern bool) string {
	b := r.f[col]
	if len(b) == 0 {
		*absent |= f
		return ""
	}
	if intern {
		return r.intern.of(b)
	}
	return string(b)
}

// interner shares the strings of a column with few distinct values (users,
// platforms) so that decoding them does not allocate. It stops growing at
// maxInterned entries, which bounds its memory.
type interner map[string]string

const maxInterned = 1 << 16

func (in *interner) of(b []byte) string {
	if s, ok := (*in)[string(b)]; ok {
		return s
	}
	s := string(b)
	if *in == nil {
		*in = make(interner)
	}
	if len(*in) < maxInterned {
		(*in)[s] = s
	}
	return s
}

// machine2011 decodes machine_events rows: time, machine ID, event type,
// platform ID, CPUs, memory.
type machine2011 struct{ row row2011 }

func (d *machine2011) decode(line []byte, ev *MachineEvent) (int64, error) {
	r := &d.row
	if err := r.split(line, 6); err != nil {
		return 0, err
	}
	var err error
	if ev.Time, err = r.time(); err != nil {
		return 0, err
	}
	if ev.MachineID, err = r.integer(1, "machine ID"); err != nil {
		return 0, err
	}
	typ, err := r.integer(2, "event type")
	if err != nil {
		return 0, err
	}
	var ok bool
	if ev.Type, ok = MachineEventTypeFrom2011(typ); !ok {
		return 0, fmt.Errorf("unknown machine event type %d (column 3)", typ)
	}
	ev.Platform = r.text(3, FieldPlatform, &ev.Absent, true)
	if ev.CPU, ok, err = r.optFloat(4, "CPUs"); err != nil {
		return 0, err
	} else if !ok {
		ev.Absent |= FieldCPU
	}
	if ev.Memory, ok, err = r.optFloat(5, "memory"); err != nil {
		return 0, err
	} else if !ok {
		ev.Absent |= FieldMemory
	}
	ev.Absent |= FieldSwitch // 2011 has no switch IDs
	return ev.Time, nil
}

// job2011 decodes job_events rows: time, missing info, job ID, event type,
// user, scheduling class, job name, logical job name.
type job2011 struct{ row row2011 }

func (d *job2011) decode(line []byte, ev *JobEvent) (int64, error) {
	r := &d.row
	if err := r.split(line, 8); err != nil {
		return 0, err
	}
	var err error
	if ev.Time, err = r.time(); err != nil {
		return 0, err
	}
	if ev.Missing, err = r.missing(1); err != nil {
		return 0, err
	}
	if ev.JobID, err = r.integer(2, "job ID"); err != nil {
		return 0, err
	}
	typ, err := r.integer(3, "event type")
	if err != nil {
		return 0, err
	}
	var ok bool
	if ev.Type, ok = EventTypeFrom2011(typ); !ok {
		return 0, fmt.Errorf("unknown event type %d (column 4)", typ)
	}
	ev.User = r.text(4, FieldUser, &ev.Absent, true)
	if ev.SchedClass, err = r.schedClass(5, &ev.Absent); err != nil {
		return 0, err
	}
	ev.JobName = r.text(6, FieldJobName, &ev.Absent, false)
	ev.LogicalJobName = r.text(7, FieldLogicalJobName, &ev.Absent, false)
	ev.Absent |= FieldPriority // 2011 jobs carry no priority
	return ev.Time, nil
}

// task2011 decodes task_events rows: time, missing info, job ID, task index,
// machine ID, event type, user, scheduling class, priority, CPU request,
// memory request, disk space request, different-machines restriction.
type task2011 struct{ row row2011 }

func (d *task2011) decode(line []byte, ev *TaskEvent) (int64, error) {
	r := &d.row
	if err := r.split(line, 13); err != nil {
		return 0, err
	}
	var err error
	if ev.Time, err = r.time(); err != nil {
		return 0, err
	}
	if ev.Missing, err = r.missing(1); err != nil {
		return 0, err
	}
	if ev.JobID, err = r.integer(2, "job ID"); err != nil {
		return 0, err
	}
	if ev.TaskIndex, err = r.integer(3, "task index"); err != nil {
		return 0, err
	}
	var ok bool
	if ev.MachineID, ok, err = r.optInteger(4, "machine ID"); err != nil {
		return 0, err
	} else if !ok {
		ev.Absent |= FieldMachine
	}
	typ, err := r.integer(5, "event type")
	if err != nil {
		return 0, err
	}
	if ev.Type, ok = EventTypeFrom2011(typ); !ok {
		return 0, fmt.Errorf("unknown event type %d (column 6)", typ)
	}
	ev.User = r.text(6, FieldUser, &ev.Absent, true)
	if ev.SchedClass, err = r.schedClass(7, &ev.Absent); err != nil {
		return 0, err
	}
	prio, ok, err := r.optInteger(8, "priority")
	switch {
	case err != nil:
		return 0, err
	case !ok:
		ev.Absent |= FieldPriority
	case prio < 0 || prio > math.MaxInt32:
		return 0, fmt.Errorf("priority %d out of range (column 9)", prio)
	}
	ev.Priority = int32(prio)
	if err := d.requests(ev); err != nil {
		return 0, err
	}
	return ev.Time, nil
}

func (d *task2011) requests(ev *TaskEvent) error {
	r := &d.row
	cols := [...]struct {
		dst   *float64
		name  string
		field Fields
	}{
		{&ev.CPURequest, "CPU request", FieldCPU},
		{&ev.MemRequest, "memory request", FieldMemory},
		{&ev.DiskRequest, "disk request", FieldDisk},
	}
	for i, c := range cols {
		v, ok, err := r.optFloat(9+i, c.name)
		if err != nil {
			return err
		}
		if !ok {
			ev.Absent |= c.field
		}
		*c.dst = v
	}
	dm, ok, err := r.optInteger(12, "different-machines restriction")
	switch {
	case err != nil:
		return err
	case !ok:
		ev.Absent |= FieldDifferentMachines
	case dm != 0 && dm != 1:
		return fmt.Errorf("different-machines restriction %d is not 0 or 1 (column 13)", dm)
	}
	ev.DifferentMachines = dm == 1
	return nil
}

// OpenMachineEvents2011 reads a 2011 machine_events table directory.
func OpenMachineEvents2011(dir string) (*MachineReader, error) {
	files, err := shards2011(dir)
	if err != nil {
		return nil, err
	}
	return &MachineReader{newTableReader[MachineEvent](Table2011Machines, files, &machine2011{})}, nil
}

// OpenJobEvents2011 reads a 2011 job_events table directory.
func OpenJobEvents2011(dir string) (*JobReader, error) {
	files, err := shards2011(dir)
	if err != nil {
		return nil, err
	}
	return &JobReader{newTableReader[JobEvent](Table2011Jobs, files, &job2011{})}, nil
}

// OpenTaskEvents2011 reads a 2011 task_events table directory.
func OpenTaskEvents2011(dir string) (*TaskReader, error) {
	files, err := shards2011(dir)
	if err != nil {
		return nil, err
	}
	return &TaskReader{newTableReader[TaskEvent](Table2011Tasks, files, &task2011{})}, nil
}
