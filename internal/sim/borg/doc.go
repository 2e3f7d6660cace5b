// Package borg owns reading Google Borg cluster traces for Paddock's trace
// replay: the 2011 trace (clusterdata-2011-2, headerless CSV shards) and the
// 2019 trace (clusterdata_2019_*, format v3, in its BigQuery newline-delimited
// JSON export shape or its CSV export shape: a header row, dotted column
// names for nested fields, csv2019.go).
//
// Both formats decode into the same typed records (MachineEvent, JobEvent,
// TaskEvent) with one event-type enum, so downstream code does not care which
// trace version it replays. Readers stream their table's shards in order, one
// file open at a time, with constant memory and (for the 2011 CSV) no
// allocation per event in the steady state. Malformed rows are counted,
// sampled for the report and skipped; they never stop a read.
//
// Open detects the format of a trace directory; Trace.Stream merges the
// machine, job and task tables into one time-ordered event stream, optionally
// limited to a time window. A directory that is not an event stream (a
// table missing, or a table whose rows are not in time order, as in a
// sample of rows) is refused with a *NotStreamError or an *OrderError.
package borg
