package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
	"github.com/paddock-sched/paddock/internal/core/usage"
)

var timeSince = time.Since

// MaxConfigSize is the largest configuration validate-conf accepts, 2 MiB:
// twice what the reference's configuration can hold (it lives in a
// Kubernetes ConfigMap, at most 1 MiB). Parsing allocates about 60 times
// the size for a block-style queues.yaml (BenchmarkValidateConf) and up to
// about 300 times for an adversarial flow-style one, so the cap and
// Options.MaxValidations bound the memory validation can take (with the
// defaults, about 120 MB for a real 2 MiB configuration, 600 MB at worst).
const MaxConfigSize = 2 << 20

// DefaultMaxValidations is the default of Options.MaxValidations: one,
// as validation is a rare operator action and a caller refused while
// another runs is told to retry a second later.
const DefaultMaxValidations = 1

// configRM picks the RM whose configuration is served: ?rmID= when given,
// else the first registered RM.
func configRM(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) (*snapshot.RM, bool) {
	if id := r.URL.Query().Get("rmID"); id != "" {
		rm, ok := snap.RM(id)
		if !ok {
			writeError(w, r, http.StatusNotFound, "Resource manager not found", "resource manager "+id+" is not registered")
		}
		return rm, ok
	}
	if len(snap.RMs) == 0 {
		writeError(w, r, http.StatusNotFound, "No configuration", "no resource manager is registered, so no configuration is active")
		return nil, false
	}
	return snap.RMs[0], true
}

// configJSON is the JSON form of an RM's configuration, with the keys the
// reference adds (Extra and the deadlock detection settings).
func configJSON(rm *snapshot.RM) (map[string]any, error) {
	raw, err := rm.Config.JSON()
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	out["Checksum"] = rm.Checksum
	out["Extra"] = strMap(rm.Extra)
	out["DeadlockDetectionEnabled"] = false
	out["DeadlockTimeoutSeconds"] = 0
	return out, nil
}

// config serves the active configuration: YAML, or JSON when the client
// accepts application/json.
func (s *server) config(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	rm, ok := configRM(w, r, snap)
	if !ok {
		return
	}
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		out, err := configJSON(rm)
		if err != nil {
			writeError(w, r, http.StatusInternalServerError, "Configuration encoding failed", err.Error())
			return
		}
		writeJSON(w, r, out)
		return
	}
	writeBody(w, r, http.StatusOK, "application/x-yaml; charset=UTF-8", rm.ConfigYAML)
}

// validate checks a posted queues.yaml; 200 with {allowed, reason} (a
// configuration above MaxConfigSize is not allowed, with the reason), or
// 503 with Retry-After while Options.MaxValidations validations run.
func (s *server) validate(w http.ResponseWriter, r *http.Request) {
	select {
	case s.validations <- struct{}{}:
		defer func() { <-s.validations }()
	default:
		w.Header().Set("Retry-After", "1")
		writeError(w, r, http.StatusServiceUnavailable, "Too many validations",
			fmt.Sprintf("the limit of %d concurrent configuration validations is reached; retry later", cap(s.validations)))
		return
	}
	tooLarge := fmt.Sprintf("the configuration is larger than the limit of %d bytes (2 MiB)", MaxConfigSize)
	if r.ContentLength > MaxConfigSize {
		writeJSON(w, r, ValidateInfo{Allowed: false, Reason: tooLarge})
		return
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength) + 1)
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, MaxConfigSize)); err != nil {
		reason := "reading the configuration: " + err.Error()
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			reason = tooLarge
		}
		writeJSON(w, r, ValidateInfo{Allowed: false, Reason: reason})
		return
	}
	if _, err := config.Parse(buf.Bytes()); err != nil {
		writeJSON(w, r, ValidateInfo{Allowed: false, Reason: err.Error()})
		return
	}
	writeJSON(w, r, ValidateInfo{Allowed: true})
}

// stack serves a dump of every goroutine's stack as text.
func stack(w http.ResponseWriter, r *http.Request) {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	writeBody(w, r, http.StatusOK, "text/plain; charset=UTF-8", buf)
}

// stateDump serves everything in one document.
func (s *server) stateDump(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	d := StateDump{
		Timestamp: snap.Built.UnixNano(), Partitions: []PartitionInfo{}, Applications: []AppInfo{},
		AppHistory: s.appHistoryInfo(), Nodes: []PartitionNodes{}, ClusterInfo: []ClusterInfo{},
		ContainerHistory: s.containerHistoryInfo(), Queues: []QueueInfo{}, RMDiagnostics: map[string]any{},
		LogLevel: s.opts.LogLevel, PlacementRules: []PartitionRules{}, EventStreams: []EventStreamInfo{},
		Users: []usage.UserDAO{}, Groups: []usage.GroupDAO{},
	}
	for _, p := range snap.Partitions {
		d.Partitions = append(d.Partitions, partitionInfo(snap, p))
		d.ClusterInfo = append(d.ClusterInfo, clusterInfo(snap, p))
		for _, list := range [][]*snapshot.App{p.Apps, p.Done} {
			for _, a := range list {
				d.Applications = append(d.Applications, appInfo(snap, p, a))
			}
		}
		pn := PartitionNodes{PartitionName: p.Name, NodesInfo: make([]NodeInfo, 0, len(p.Nodes))}
		for _, n := range p.Nodes {
			pn.NodesInfo = append(pn.NodesInfo, nodeInfo(p, n))
		}
		d.Nodes = append(d.Nodes, pn)
		if p.Root != nil {
			d.Queues = append(d.Queues, queueInfo(snap, p, p.Root, true))
		}
		d.PlacementRules = append(d.PlacementRules, PartitionRules{Partition: p.Name, Rules: rulesInfo(p)})
		d.Users = append(d.Users, p.Users...)
		d.Groups = append(d.Groups, p.Groups...)
	}
	if len(snap.RMs) > 0 {
		if c, err := configJSON(snap.RMs[0]); err == nil {
			d.Config = c
		}
	}
	if s.opts.Diagnostics != nil {
		if diag := s.opts.Diagnostics(); diag != nil {
			d.RMDiagnostics = diag
		}
	}
	if res, _, ok := s.opts.Health.Last(); ok {
		d.Health = &res
	}
	if s.opts.EventStreams != nil {
		d.EventStreams = append(d.EventStreams, s.opts.EventStreams()...)
		for i := range d.EventStreams {
			d.EventStreams[i].CreatedAt = d.EventStreams[i].CreatedAt.UTC()
		}
		slices.SortFunc(d.EventStreams, func(a, b EventStreamInfo) int {
			if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(a.Name, b.Name)
		})
	}
	writeJSON(w, r, d)
}
