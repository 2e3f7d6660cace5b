package gen

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/paddock-sched/paddock/internal/sim/borg"
)

// sink receives the generated events, each table in time order.
type sink interface {
	machine(*borg.MachineEvent) error
	job(*borg.JobEvent) error
	task(*borg.TaskEvent) error
	close() error
}

// shardWriter writes one table as gzip-compressed newline-delimited JSON
// shards named {table}-NNNNNNNNNNNN.json.gz, starting a new shard every
// maxRows rows, the way a BigQuery export splits a table.
type shardWriter struct {
	dir, table string
	maxRows    int64
	shard      int
	rows       int64 // rows in the current shard
	total      int64
	files      int
	f          *os.File
	buf        *bufio.Writer
	z          *gzip.Writer
	line       []byte
}

func newShardWriter(dir, table string, maxRows int64) (*shardWriter, error) {
	w := &shardWriter{dir: dir, table: table, maxRows: maxRows, shard: -1}
	// every table has at least one shard, even an empty one: the reader
	// needs one to know the table exists
	return w, w.next()
}

// next closes the current shard and opens the following one.
func (w *shardWriter) next() error {
	if err := w.closeShard(); err != nil {
		return err
	}
	w.shard++
	path := filepath.Join(w.dir, fmt.Sprintf("%s-%012d.json.gz", w.table, w.shard))
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	w.f = f
	w.buf = bufio.NewWriterSize(f, 256<<10)
	// gzip leaves the header's time and name empty: the same rows give the
	// same bytes. BestSpeed: three times faster than the default level for
	// files 40% larger.
	w.z, _ = gzip.NewWriterLevel(w.buf, gzip.BestSpeed)
	w.rows = 0
	w.files++
	return nil
}

func (w *shardWriter) closeShard() error {
	if w.f == nil {
		return nil
	}
	err := errors.Join(w.z.Close(), w.buf.Flush(), w.f.Close())
	w.f = nil
	if err != nil {
		return fmt.Errorf("gen: writing %s shard %d: %w", w.table, w.shard, err)
	}
	return nil
}

// write appends one row (without its newline).
func (w *shardWriter) write(row []byte) error {
	if w.rows >= w.maxRows {
		if err := w.next(); err != nil {
			return err
		}
	}
	row = append(row, '\n')
	if _, err := w.z.Write(row); err != nil {
		return fmt.Errorf("gen: writing %s: %w", w.table, err)
	}
	w.rows++
	w.total++
	return nil
}

// jsonWriter is the sink that writes the three tables of a 2019 trace in
// the BigQuery JSON export shape: INT64 columns as strings, zero and null
// fields omitted, 2019 event-type numbering.
type jsonWriter struct {
	machines, jobs, tasks *shardWriter
	row                   []byte
}

func newJSONWriter(dir string, maxRows int64) (*jsonWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	w := &jsonWriter{}
	var err error
	if w.machines, err = newShardWriter(dir, borg.Table2019Machines, maxRows); err != nil {
		return nil, err
	}
	if w.jobs, err = newShardWriter(dir, borg.Table2019Jobs, maxRows); err != nil {
		return nil, errors.Join(err, w.machines.closeShard())
	}
	if w.tasks, err = newShardWriter(dir, borg.Table2019Tasks, maxRows); err != nil {
		return nil, errors.Join(err, w.machines.closeShard(), w.jobs.closeShard())
	}
	return w, nil
}

func (w *jsonWriter) close() error {
	return errors.Join(w.machines.closeShard(), w.jobs.closeShard(), w.tasks.closeShard())
}

// obj builds one JSON object, leaving out zero values as the export does.
type obj struct {
	b     []byte
	first bool
}

func (o *obj) key(k string) {
	if o.first {
		o.first = false
	} else {
		o.b = append(o.b, ',')
	}
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

// int writes an INT64 column as a JSON string; 0 is omitted.
func (o *obj) int(k string, v int64) {
	if v == 0 {
		return
	}
	o.key(k)
	o.b = append(o.b, '"')
	o.b = strconv.AppendInt(o.b, v, 10)
	o.b = append(o.b, '"')
}

// str writes a STRING column; "" is omitted. Generated strings are
// base64 or plain words, so they need no escaping.
func (o *obj) str(k, v string) {
	if v == "" {
		return
	}
	o.key(k)
	o.b = append(o.b, '"')
	o.b = append(o.b, v...)
	o.b = append(o.b, '"')
}

// resources writes a {cpus, memory} record; zero members and an all-zero
// record are omitted.
func (o *obj) resources(k string, cpu, mem float64) {
	if cpu == 0 && mem == 0 {
		return
	}
	o.key(k)
	inner := obj{b: append(o.b, '{'), first: true}
	if cpu != 0 {
		inner.key("cpus")
		inner.b = strconv.AppendFloat(inner.b, cpu, 'g', -1, 64)
	}
	if mem != 0 {
		inner.key("memory")
		inner.b = strconv.AppendFloat(inner.b, mem, 'g', -1, 64)
	}
	o.b = append(inner.b, '}')
}

func (w *jsonWriter) start() *obj {
	return &obj{b: append(w.row[:0], '{'), first: true}
}

func (w *jsonWriter) end(o *obj, sw *shardWriter) error {
	o.b = append(o.b, '}')
	w.row = o.b
	return sw.write(o.b)
}

// type2019 is the 2019 number of a collection or instance event type
// (0 SUBMIT … 10 UPDATE_RUNNING).
func type2019(t borg.EventType) int64 { return int64(t) - 1 }

func (w *jsonWriter) machine(e *borg.MachineEvent) error {
	o := w.start()
	o.int("time", e.Time)
	o.int("machine_id", e.MachineID)
	o.int("type", int64(e.Type)) // 1 ADD, 2 REMOVE, 3 UPDATE
	o.str("switch_id", e.Switch)
	o.resources("capacity", e.CPU, e.Memory)
	o.str("platform_id", e.Platform)
	o.int("missing_data_reason", int64(e.Missing))
	return w.end(o, w.machines)
}

func (w *jsonWriter) job(e *borg.JobEvent) error {
	o := w.start()
	o.int("time", e.Time)
	o.int("type", type2019(e.Type))
	o.int("collection_id", e.JobID)
	o.int("scheduling_class", int64(e.SchedClass))
	o.int("missing_type", int64(e.Missing))
	o.int("collection_type", int64(e.CollectionType))
	o.int("priority", int64(e.Priority))
	o.int("alloc_collection_id", e.AllocCollectionID)
	o.str("user", e.User)
	o.str("collection_name", e.JobName)
	o.str("collection_logical_name", e.LogicalJobName)
	o.int("parent_collection_id", e.ParentCollectionID)
	o.int("max_per_machine", int64(e.MaxPerMachine))
	o.int("max_per_switch", int64(e.MaxPerSwitch))
	o.int("vertical_scaling", int64(e.VerticalScaling))
	o.int("scheduler", int64(e.Scheduler))
	return w.end(o, w.jobs)
}

func (w *jsonWriter) task(e *borg.TaskEvent) error {
	o := w.start()
	o.int("time", e.Time)
	o.int("type", type2019(e.Type))
	o.int("collection_id", e.JobID)
	o.int("scheduling_class", int64(e.SchedClass))
	o.int("missing_type", int64(e.Missing))
	o.int("collection_type", int64(e.CollectionType))
	o.int("priority", int64(e.Priority))
	o.int("alloc_collection_id", e.AllocCollectionID)
	o.int("instance_index", e.TaskIndex)
	o.int("machine_id", e.MachineID)
	o.int("alloc_instance_index", e.AllocInstanceIndex)
	o.resources("resource_request", e.CPURequest, e.MemRequest)
	return w.end(o, w.tasks)
}

// tee sends every event to two sinks; tests use it to keep what the
// generator wrote.
type tee struct{ a, b sink }

func (t tee) machine(e *borg.MachineEvent) error { return errors.Join(t.a.machine(e), t.b.machine(e)) }
func (t tee) job(e *borg.JobEvent) error         { return errors.Join(t.a.job(e), t.b.job(e)) }
func (t tee) task(e *borg.TaskEvent) error       { return errors.Join(t.a.task(e), t.b.task(e)) }
func (t tee) close() error                       { return errors.Join(t.a.close(), t.b.close()) }
