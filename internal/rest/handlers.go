package rest

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
	"github.com/paddock-sched/paddock/internal/core/usage"
)

func strconvQuote(s string) string { return strconv.Quote(s) }

func (s *server) clusters(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	out := make([]ClusterInfo, 0, len(snap.Partitions))
	for _, p := range snap.Partitions {
		out = append(out, clusterInfo(snap, p))
	}
	writeJSON(w, r, out)
}

func (s *server) partitions(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	out := make([]PartitionInfo, 0, len(snap.Partitions))
	for _, p := range snap.Partitions {
		out = append(out, partitionInfo(snap, p))
	}
	writeJSON(w, r, out)
}

func (s *server) placementRules(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	if p, ok := partition(w, r, snap); ok {
		writeJSON(w, r, rulesInfo(p))
	}
}

func (s *server) queues(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	if p.Root == nil {
		writeJSON(w, r, struct{}{})
		return
	}
	writeJSON(w, r, queueInfo(snap, p, p.Root, true))
}

// queue serves one queue; ?subtree (any value) adds its children.
func (s *server) queue(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	q, ok := queue(w, r, p)
	if !ok {
		return
	}
	writeJSON(w, r, queueInfo(snap, p, q, r.URL.Query().Has("subtree")))
}

func appsOf(snap *snapshot.Snapshot, p *snapshot.Partition, ids []string, keep func(*snapshot.App) bool) []AppInfo {
	out := make([]AppInfo, 0, len(ids))
	for _, id := range ids {
		if a, ok := p.App(id); ok && (keep == nil || keep(a)) {
			out = append(out, appInfo(snap, p, a))
		}
	}
	return out
}

// queueApps serves the active applications of a leaf queue.
func (s *server) queueApps(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	q, ok := queue(w, r, p)
	if !ok {
		return
	}
	writeJSON(w, r, appsOf(snap, p, q.Apps, nil))
}

// activeStates are the ?status= values of the active application lists.
var activeStates = map[string]app.State{
	"new": app.New, "accepted": app.Accepted, "running": app.Running, "completing": app.Completing,
	"failing": app.Failing, "resuming": app.Resuming,
}

// statusFilter parses ?status=: nil keeps every active application.
func statusFilter(w http.ResponseWriter, r *http.Request) (func(*snapshot.App) bool, bool) {
	q := r.URL.Query()
	if !q.Has("status") {
		return nil, true
	}
	v := q.Get("status")
	st, ok := activeStates[strings.ToLower(v)]
	if !ok {
		writeError(w, r, http.StatusBadRequest, "Invalid status", "status "+strconvQuote(v)+" is not one of new, accepted, running, completing, failing, resuming")
		return nil, false
	}
	return func(a *snapshot.App) bool { return a.State == st }, true
}

func (s *server) queueAppsByState(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	q, ok := queue(w, r, p)
	if !ok {
		return
	}
	if st := r.PathValue("state"); !strings.EqualFold(st, "active") {
		writeError(w, r, http.StatusBadRequest, "Invalid application state", "state "+strconvQuote(st)+": only active is supported for a queue")
		return
	}
	keep, ok := statusFilter(w, r)
	if !ok {
		return
	}
	writeJSON(w, r, appsOf(snap, p, q.Apps, keep))
}

func (s *server) queueApp(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	q, ok := queue(w, r, p)
	if !ok {
		return
	}
	a, ok := application(w, r, p)
	if !ok {
		return
	}
	if !strings.EqualFold(a.Queue, q.Path) {
		writeError(w, r, http.StatusNotFound, "Application not found", "application "+a.ID+" not found in queue "+q.Path)
		return
	}
	writeJSON(w, r, appInfo(snap, p, a))
}

// appsByState serves a partition's active, rejected or completed
// applications.
func (s *server) appsByState(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	out := []AppInfo{}
	switch st := strings.ToLower(r.PathValue("state")); st {
	case "active":
		keep, ok := statusFilter(w, r)
		if !ok {
			return
		}
		for _, a := range p.Apps {
			if keep == nil || keep(a) {
				out = append(out, appInfo(snap, p, a))
			}
		}
	case "rejected", "completed":
		// as in the reference, the completed list holds the applications
		// that completed and those that failed
		for _, a := range p.Done {
			if (a.State == app.Rejected) == (st == "rejected") {
				out = append(out, appInfo(snap, p, a))
			}
		}
	default:
		writeError(w, r, http.StatusBadRequest, "Invalid application state", "state "+strconvQuote(r.PathValue("state"))+" is not one of active, rejected, completed")
		return
	}
	writeJSON(w, r, out)
}

func (s *server) application(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	if a, ok := application(w, r, p); ok {
		writeJSON(w, r, appInfo(snap, p, a))
	}
}

func (s *server) nodes(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	out := make([]NodeInfo, 0, len(p.Nodes))
	for _, n := range p.Nodes {
		out = append(out, nodeInfo(p, n))
	}
	writeJSON(w, r, out)
}

func (s *server) node(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	p, ok := partition(w, r, snap)
	if !ok {
		return
	}
	id := r.PathValue("node")
	n, ok := p.Node(id)
	if !ok {
		writeError(w, r, http.StatusNotFound, "Node not found", "node "+id+" not found in partition "+p.Name)
		return
	}
	writeJSON(w, r, nodeInfo(p, n))
}

// User and group names as the configuration accepts them in limits.
var (
	userName  = regexp.MustCompile(`^[_a-zA-Z][a-zA-Z0-9:#/_.@-]*[$]?$`)
	groupName = regexp.MustCompile(`^[_a-zA-Z][a-zA-Z0-9:_.-]*$`)
)

func (s *server) users(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	if p, ok := partition(w, r, snap); ok {
		writeJSON(w, r, p.Users)
	}
}

func (s *server) user(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	if p, ok := partition(w, r, snap); ok {
		serveTracker(w, r, "user", r.PathValue("user"), userName, p.Name, p.Users, func(u usage.UserDAO) string { return u.UserName })
	}
}

func (s *server) groups(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	if p, ok := partition(w, r, snap); ok {
		writeJSON(w, r, p.Groups)
	}
}

func (s *server) group(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	if p, ok := partition(w, r, snap); ok {
		serveTracker(w, r, "group", r.PathValue("group"), groupName, p.Name, p.Groups, func(g usage.GroupDAO) string { return g.GroupName })
	}
}

// serveTracker answers for the user or group tracker called name: 400 when
// the name is not one the configuration accepts, 404 when it has no usage.
func serveTracker[T any](w http.ResponseWriter, r *http.Request, kind, name string, valid *regexp.Regexp, part string, list []T, nameOf func(T) string) {
	title := strings.ToUpper(kind[:1]) + kind[1:]
	if !valid.MatchString(name) {
		writeError(w, r, http.StatusBadRequest, "Invalid "+kind+" name", kind+" name "+strconvQuote(name)+" is not valid")
		return
	}
	for _, t := range list {
		if nameOf(t) == name {
			writeJSON(w, r, t)
			return
		}
	}
	writeError(w, r, http.StatusNotFound, title+" not found", kind+" "+name+" has no usage in partition "+part)
}

func (s *server) nodeUtilizations(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	out := make([]NodesUtilInfo, 0, len(snap.Partitions))
	for _, p := range snap.Partitions {
		out = append(out, nodeUtilizations(snap, p))
	}
	writeJSON(w, r, out)
}

// healthcheck serves the last health result, re-checking when it is older
// than the checker's interval.
func (s *server) healthcheck(w http.ResponseWriter, r *http.Request) {
	res, at, ok := s.opts.Health.Last()
	if !ok || timeSince(at) >= s.opts.Health.Interval() {
		res = s.opts.Health.Check(r.Context())
	}
	writeJSON(w, r, res)
}

func (s *server) appHistory(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, s.appHistoryInfo())
}

func (s *server) appHistoryInfo() []AppHistoryInfo {
	out := []AppHistoryInfo{}
	if s.opts.History != nil {
		for _, x := range s.opts.History.Samples() {
			out = append(out, AppHistoryInfo{Timestamp: x.Time.UnixNano(), TotalApplications: strconv.Itoa(x.Apps)})
		}
	}
	return out
}

func (s *server) containerHistory(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, s.containerHistoryInfo())
}

func (s *server) containerHistoryInfo() []ContainerHistoryInfo {
	out := []ContainerHistoryInfo{}
	if s.opts.History != nil {
		for _, x := range s.opts.History.Samples() {
			out = append(out, ContainerHistoryInfo{Timestamp: x.Time.UnixNano(), TotalContainers: strconv.Itoa(x.Containers)})
		}
	}
	return out
}
