// Package gen generates synthetic Google Borg cluster traces in the 2019
// format (clusterdata_2019, schema v3), in the BigQuery JSON export shape
// package borg reads: {table}-NNNNNNNNNNNN.json.gz shards of
// machine_events, collection_events and instance_events, one JSON object
// per line, INT64 columns as strings, zero and null fields left out, and
// the 2019 event-type numbering (0 SUBMIT, 1 QUEUE, 2 ENABLE, 3 SCHEDULE,
// 4 EVICT, 5 FAIL, 6 FINISH, 7 KILL; machines 1 ADD, 2 REMOVE, 3 UPDATE).
//
// The generator is a small discrete-event model of a cell: machines,
// jobs arriving as a Poisson process, tasks placed on random machines with
// room (with retries and backoff when none has), runs that finish, are
// killed, fail or are evicted (and are then resubmitted), machines that
// are removed (evicting their tasks) and come back. It writes events as
// they happen, so its memory depends on the cell (machines, live tasks),
// not on the number of events. The same Options give byte-identical files.
//
// # Calibration
//
// Published figures the generator is calibrated on:
//
//   - The 2019 trace covers eight Borg cells for the month of May 2019;
//     a cell has about 12,000 machines, and receives about 3,300 job
//     (collection) submissions per hour (Tirmazi et al., "Borg: the Next
//     Generation", EuroSys 2020). The arrival rate scales with
//     Options.Machines so a smaller cell carries the same load per machine.
//   - The workload is extremely heavy-tailed: the top 1% of jobs consume
//     over 99% of the resources (same paper).
//   - Jobs moved from the free tier to the best-effort batch tier, which
//     has most jobs in 2019 (same paper). Priority tiers (2019 trace
//     documentation, "Google cluster-usage traces v3"): free 0-99,
//     best-effort batch 100-115, mid 116-119, production 120-359,
//     monitoring 360 and above.
//   - Trace time is in microseconds; the window starts at 600 s and time 0
//     holds what existed before it: every machine, and the jobs and tasks
//     already running (both trace versions' documentation).
//   - Capacities and requests are normalised so the largest machine is 1.0.
//
// Measured by us on the bundled excerpt of the 2011 cell
// (traces/google-2011-excerpt), where 2019 figures are not published in
// the form a generator needs:
//
//   - Machine shapes (CPU, memory) and their shares: 0.5/0.5 53.5%,
//     0.5/0.25 30.7%, 0.5/0.75 8.0%, 1.0/1.0 6.3%, 0.25/0.25 1.0%,
//     0.5/0.12 0.4%.
//   - Machine churn: 1.02e-3 removals and 8.4e-4 updates per machine-hour;
//     a removed machine returns after a median of 16.6 minutes (p90 519).
//   - Tasks per job: 76% of jobs have one task; p90 23, p99 1,072, max
//     4,846 (a Pareto tail of index 0.6, capped at 5,000).
//   - Task requests: median CPU 0.025 (p99 0.1); finished runs have a
//     median length of 345 s.
//   - Scheduling delays, submission to placement, of the free, batch and
//     production tiers: the cell's own p50/p90 of 2 s/6 s, 2 s/5 s and
//     2 s/28 s, drawn as lognormals before a task's first placement
//     attempt (a full cell adds retries on top; batch-scheduler jobs wait
//     for their ENABLE first).
//
// Our assumptions, not published figures: the tier shares (free 22%,
// batch 52%, mid 6%, production 19%, monitoring 1% of arriving jobs), the
// priorities within each tier, the share of long-running services, the
// mid and monitoring tiers' scheduling delays, the batch scheduler's wait
// before it enables a job (median 20 s), the eviction, failure and kill
// probabilities, the 600 users with Zipf-distributed activity, and the
// initial fill (80% of the cell's CPU requested by tasks running at trace
// start; the bundled 2011 cell starts at 103%, which a generator that
// respects machine capacities cannot reach).
//
// What a default run measures (one 12,000-machine cell, one hour, seed
// 1): 3,254 arrivals per hour, 322,000 tasks of which 214,000 run at
// trace start, and the top 1% of jobs holding about 82% of the requested
// CPU-time inside the window; the tail is lighter than the paper's 99%
// because a window of hours cuts off the longest runs and job sizes are
// capped. Alloc sets, job dependencies, constraints and usage tables are
// not generated.
package gen
