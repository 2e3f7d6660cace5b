package rest

import (
	"encoding/json"
	"io"
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

// MaxConfigSize is the largest configuration validate-conf reads.
const MaxConfigSize = 16 << 20

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

// validate checks a posted queues.yaml; always 200 with {allowed, reason}.
func (s *server) validate(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxConfigSize))
	if err != nil {
		writeJSON(w, r, ValidateInfo{Allowed: false, Reason: "reading the configuration: " + err.Error()})
		return
	}
	if _, err := config.Parse(body); err != nil {
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
				d.Applications = append(d.Applications, appInfo(snap, a))
			}
		}
		pn := PartitionNodes{PartitionName: p.Name, NodesInfo: make([]NodeInfo, 0, len(p.Nodes))}
		for _, n := range p.Nodes {
			pn.NodesInfo = append(pn.NodesInfo, nodeInfo(snap, n))
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
