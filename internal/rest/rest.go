// Package rest serves the YuniKorn-compatible REST API (/ws/v1, reference
// §5) and the debug endpoints (/debug) from snapshots of the scheduler
// state: handlers never touch live scheduler objects. It also serves
// Paddock's why view of pending asks. docs/rest.md lists every endpoint.
package rest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/pprof"
	"regexp"
	"strings"

	"github.com/paddock-sched/paddock/internal/bearer"
	"github.com/paddock-sched/paddock/internal/core/snapshot"
	"github.com/paddock-sched/paddock/internal/health"
	"github.com/paddock-sched/paddock/internal/history"
)

// Source gives the current snapshot (rmproxy.Service implements it).
type Source interface {
	Snapshot(ctx context.Context) (*snapshot.Snapshot, error)
}

// Options configures the handler.
type Options struct {
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// the sensitive endpoints: /ws/v1/config, /ws/v1/validate-conf and
	// everything under /debug.
	Token string
	// Health is the health checker behind /ws/v1/scheduler/healthcheck.
	// When nil the handler makes one (health.DefaultInterval) and runs its
	// first check at construction; it re-checks when a request finds the
	// last result older than the interval.
	Health *health.Checker
	// History feeds /ws/v1/history/*; nil serves empty histories.
	History *history.History
	// Metrics, EventsBatch and EventsStream are mounted at
	// /ws/v1/metrics, /ws/v1/events/batch and /ws/v1/events/stream when
	// set.
	Metrics, EventsBatch, EventsStream http.Handler
	// LogLevel is reported in the state dump.
	LogLevel string
	// Diagnostics, when set, returns the RM diagnostics of the state dump
	// (the StateDumpPlugin output per RM).
	Diagnostics func() map[string]any
	// EventStreams, when set, lists the open event streams for the state
	// dump.
	EventStreams func() []EventStreamInfo
	// MaxValidations is the number of validate-conf requests served at
	// once (DefaultMaxValidations when 0); more are refused with 503.
	MaxValidations int
}

// GzipThreshold is the body size above which responses are compressed for
// clients that accept gzip.
const GzipThreshold = 1400

type server struct {
	src  Source
	opts Options
	// validations holds a token per running validate-conf request.
	validations chan struct{}
}

// New returns the handler of every REST endpoint.
func New(src Source, o Options) http.Handler {
	if o.Health == nil {
		o.Health = health.New(src, 0)
		o.Health.Check(context.Background())
	}
	if o.MaxValidations <= 0 {
		o.MaxValidations = DefaultMaxValidations
	}
	s := &server{src: src, opts: o, validations: make(chan struct{}, o.MaxValidations)}
	mux := http.NewServeMux()
	get := func(path string, h func(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot)) {
		mux.HandleFunc("GET "+path, s.withSnapshot(h))
	}
	get("/ws/v1/clusters", s.clusters)
	get("/ws/v1/partitions", s.partitions)
	get("/ws/v1/partition/{partition}/placementrules", s.placementRules)
	get("/ws/v1/partition/{partition}/queues", s.queues)
	get("/ws/v1/partition/{partition}/queue/{queue}", s.queue)
	get("/ws/v1/partition/{partition}/queue/{queue}/applications", s.queueApps)
	get("/ws/v1/partition/{partition}/queue/{queue}/applications/{state}", s.queueAppsByState)
	get("/ws/v1/partition/{partition}/queue/{queue}/application/{application}", s.queueApp)
	get("/ws/v1/partition/{partition}/applications/{state}", s.appsByState)
	get("/ws/v1/partition/{partition}/application/{application}", s.application)
	get("/ws/v1/partition/{partition}/application/{application}/why", s.why)
	get("/ws/v1/partition/{partition}/application/{application}/why/{allocation}", s.why)
	get("/ws/v1/partition/{partition}/preemptions", s.preemptions)
	get("/ws/v1/partition/{partition}/application/{application}/preemption/{allocation}", s.preemptDryRun)
	get("/ws/v1/partition/{partition}/nodes", s.nodes)
	get("/ws/v1/partition/{partition}/node/{node}", s.node)
	get("/ws/v1/partition/{partition}/usage/users", s.users)
	get("/ws/v1/partition/{partition}/usage/user/{user}", s.user)
	get("/ws/v1/partition/{partition}/usage/groups", s.groups)
	get("/ws/v1/partition/{partition}/usage/group/{group}", s.group)
	get("/ws/v1/scheduler/node-utilizations", s.nodeUtilizations)
	mux.HandleFunc("GET /ws/v1/scheduler/healthcheck", s.healthcheck)
	mux.HandleFunc("GET /ws/v1/history/apps", s.appHistory)
	mux.HandleFunc("GET /ws/v1/history/containers", s.containerHistory)

	// sensitive endpoints
	mux.Handle("GET /ws/v1/config", s.guard(s.withSnapshot(s.config)))
	mux.Handle("POST /ws/v1/validate-conf", s.guard(http.HandlerFunc(s.validate)))
	mux.Handle("GET /debug/fullstatedump", s.guard(s.withSnapshot(s.stateDump)))
	mux.Handle("GET /debug/stack", s.guard(http.HandlerFunc(stack)))
	mux.Handle("GET /debug/pprof/", s.guard(http.HandlerFunc(pprof.Index)))
	mux.Handle("GET /debug/pprof/cmdline", s.guard(http.HandlerFunc(pprof.Cmdline)))
	mux.Handle("GET /debug/pprof/profile", s.guard(http.HandlerFunc(pprof.Profile)))
	mux.Handle("GET /debug/pprof/symbol", s.guard(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("POST /debug/pprof/symbol", s.guard(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("GET /debug/pprof/trace", s.guard(http.HandlerFunc(pprof.Trace)))

	// deprecated locations (reference: 301 to /debug)
	mux.Handle("GET /ws/v1/stack", http.RedirectHandler("/debug/stack", http.StatusMovedPermanently))
	mux.Handle("GET /ws/v1/fullstatedump", http.RedirectHandler("/debug/fullstatedump", http.StatusMovedPermanently))

	for path, h := range map[string]http.Handler{
		"/ws/v1/metrics": o.Metrics, "/ws/v1/events/batch": o.EventsBatch, "/ws/v1/events/stream": o.EventsStream,
	} {
		if h != nil {
			mux.Handle(path, h)
		}
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, http.StatusNotFound, "Not found", "no endpoint "+r.Method+" "+r.URL.Path)
	})
	return cors(mux)
}

// cors adds the reference's CORS headers to every response and answers
// preflight requests.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET,POST,HEAD,OPTIONS")
		h.Set("Access-Control-Allow-Headers", "X-Requested-With,Content-Type,Accept,Origin,Authorization")
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusOK)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// guard requires the bearer token when one is configured.
func (s *server) guard(next http.Handler) http.Handler {
	if s.opts.Token == "" {
		return next
	}
	want := s.opts.Token
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !bearer.Matches(r.Header.Get("Authorization"), want) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="paddock"`)
			writeError(w, r, http.StatusUnauthorized, "Unauthorized", "missing or wrong bearer token in the Authorization header")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withSnapshot hands a handler the current snapshot.
func (s *server) withSnapshot(h func(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		snap, err := s.src.Snapshot(r.Context())
		if err != nil || snap == nil {
			msg := "no scheduler state"
			if err != nil {
				msg = err.Error()
			}
			writeError(w, r, http.StatusServiceUnavailable, "Scheduler state unavailable", msg)
			return
		}
		h(w, r, snap)
	}
}

const jsonType = "application/json; charset=UTF-8"

// writeJSON writes v with status 200.
func writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	writeJSONStatus(w, r, http.StatusOK, v)
}

func writeJSONStatus(w http.ResponseWriter, r *http.Request, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeError(w, r, http.StatusInternalServerError, "Encoding failed", err.Error())
		return
	}
	writeBody(w, r, status, jsonType, buf.Bytes())
}

// writeBody writes a body, gzipped when the client accepts it and the body
// is large.
func writeBody(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Add("Vary", "Accept-Encoding")
	if len(body) > GzipThreshold && acceptsGzip(r) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body)
		_ = zw.Close()
		body = buf.Bytes()
		h.Set("Content-Encoding", "gzip")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// writeError writes the reference's error body.
func writeError(w http.ResponseWriter, r *http.Request, status int, message, description string) {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(ErrorInfo{StatusCode: status, Message: message, Description: description})
	writeBody(w, r, status, jsonType, buf.Bytes())
}

var errNotFound = errors.New("not found")

// partition resolves the {partition} path parameter, writing a 404 when it
// is unknown: a bare name is the partition of the RM that registered first
// (snapshot.Partition); "[rmID]name" or ?rmID= picks an RM's.
func partition(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) (*snapshot.Partition, bool) {
	name := r.PathValue("partition")
	var p *snapshot.Partition
	var ok bool
	if rmID := r.URL.Query().Get("rmID"); rmID != "" {
		p, ok = snap.PartitionOf(rmID, name)
		name += " of resource manager " + rmID
	} else {
		p, ok = snap.Partition(name)
	}
	if !ok {
		writeError(w, r, http.StatusNotFound, "Partition not found", "partition "+name+" not found")
	}
	return p, ok
}

var queueSegment = regexp.MustCompile(`^[a-zA-Z0-9_:#/@-]{1,64}$`)

// queue resolves the {queue} path parameter (a full path, possibly URL
// escaped): 400 for a malformed name, 404 for an unknown queue.
func queue(w http.ResponseWriter, r *http.Request, p *snapshot.Partition) (*snapshot.Queue, bool) {
	path := r.PathValue("queue")
	for _, seg := range strings.Split(path, ".") {
		if !queueSegment.MatchString(seg) {
			writeError(w, r, http.StatusBadRequest, "Invalid queue name", "queue name "+path+": segment "+strconvQuote(seg)+" is not a valid queue name")
			return nil, false
		}
	}
	q, ok := p.Queue(path)
	if !ok {
		writeError(w, r, http.StatusNotFound, "Queue not found", "queue "+path+" not found in partition "+p.Name)
	}
	return q, ok
}

// application resolves the {application} path parameter.
func application(w http.ResponseWriter, r *http.Request, p *snapshot.Partition) (*snapshot.App, bool) {
	id := r.PathValue("application")
	a, ok := p.App(id)
	if !ok {
		writeError(w, r, http.StatusNotFound, "Application not found", "application "+id+" not found in partition "+p.Name)
	}
	return a, ok
}
