package events

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/resource/siconv"
)

// MaxMessage is the longest event message kept (reference §7).
const MaxMessage = 1024

// DefaultWriteTimeout bounds the write of one streamed record; a client
// that does not take it in time is disconnected.
const DefaultWriteTimeout = 5 * time.Second

// Options configure a Service. Zero values mean the defaults.
type Options struct {
	// RingCapacity is event.ringBufferCapacity.
	RingCapacity int
	// MaxStreams and MaxStreamsPerHost are event.maxStreams and
	// event.maxStreamsPerHost.
	MaxStreams, MaxStreamsPerHost int
	// RESTResponseSize is event.RESTResponseSize: the most records one
	// batch or stream back-log returns.
	RESTResponseSize int
	// StreamBuffer is how far a stream may fall behind before it is cut.
	StreamBuffer int
	// WriteTimeout bounds writing one streamed record.
	WriteTimeout time.Duration
	// Registry names the resources of the vectors of records appended
	// without their own (Append rather than AppendFrom).
	Registry *resource.Registry
	// Logger gets stream openings, refusals and disconnections.
	Logger *slog.Logger
}

// Service is the event history with its REST handlers.
type Service struct {
	ring     *Ring
	reg      *resource.Registry
	log      *slog.Logger
	instance string
	buffer   int
	timeout  time.Duration

	mu                       sync.Mutex
	maxStreams, maxPerHost   int
	restSize                 int
	slowDisconnects, refused atomic.Uint64
	// warnMu guards the rate limit of the slow-consumer warning.
	warnMu   sync.Mutex
	lastWarn time.Time
	unwarned int
}

// New returns a Service with an empty ring.
func New(o Options) *Service {
	if o.StreamBuffer <= 0 {
		o.StreamBuffer = StreamBuffer
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.Registry == nil {
		o.Registry = resource.NewRegistry()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Service{
		ring: NewRing(o.RingCapacity), reg: o.Registry, log: o.Logger, instance: newUUID(),
		buffer: o.StreamBuffer, timeout: o.WriteTimeout,
		maxStreams: positive(o.MaxStreams, DefaultMaxStreams), maxPerHost: positive(o.MaxStreamsPerHost, DefaultMaxStreamsPerHost),
		restSize: positive(o.RESTResponseSize, DefaultRESTResponseSize),
	}
	return s
}

func positive(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// InstanceUUID identifies this process's event history: IDs restart when
// it changes.
func (s *Service) InstanceUUID() string { return s.instance }

// Ring is the underlying ring buffer.
func (s *Service) Ring() *Ring { return s.ring }

// Append stores a record; it never blocks on readers.
func (s *Service) Append(r event.Record) { s.ring.Append(r) }

// AppendFrom stores a record whose resource vector reg names (each RM has
// its own registry); it never blocks on readers.
func (s *Service) AppendFrom(reg *resource.Registry, r *event.Record) { s.ring.AppendFrom(reg, r) }

// Streams lists the open streams.
func (s *Service) Streams() []StreamInfo { return s.ring.streams() }

// SlowDisconnects is how many streams were cut off for falling behind.
func (s *Service) SlowDisconnects() uint64 { return s.slowDisconnects.Load() }

// Refused is how many stream requests were refused by the limits.
func (s *Service) Refused() uint64 { return s.refused.Load() }

// Close ends every open stream (their handlers return) and refuses new
// ones; the batch API keeps working.
func (s *Service) Close() { s.ring.closeStreams() }

// Apply reads the event.* keys of an extra configuration (reference
// §1.11): ringBufferCapacity (resizing in place, keeping the newest),
// maxStreams, maxStreamsPerHost and RESTResponseSize. Absent keys mean the
// defaults; an invalid value is reported and leaves that setting alone.
func (s *Service) Apply(extra map[string]string) error {
	var bad []string
	read := func(key string, def int) int {
		v, ok := extra[key]
		if !ok {
			return def
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			bad = append(bad, fmt.Sprintf("%s: %q is not a positive integer", key, v))
			return -1
		}
		return n
	}
	ringCap := read("event.ringBufferCapacity", DefaultRingCapacity)
	maxStreams := read("event.maxStreams", DefaultMaxStreams)
	maxPerHost := read("event.maxStreamsPerHost", DefaultMaxStreamsPerHost)
	restSize := read("event.RESTResponseSize", DefaultRESTResponseSize)
	if ringCap > 0 {
		s.ring.Resize(ringCap)
	}
	s.mu.Lock()
	if maxStreams > 0 {
		s.maxStreams = maxStreams
	}
	if maxPerHost > 0 {
		s.maxPerHost = maxPerHost
	}
	if restSize > 0 {
		s.restSize = restSize
	}
	s.mu.Unlock()
	if len(bad) > 0 {
		return fmt.Errorf("event settings: %s", strings.Join(bad, "; "))
	}
	return nil
}

func (s *Service) limits() (maxStreams, maxPerHost, restSize int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxStreams, s.maxPerHost, s.restSize
}

// SI converts a stored entry to the SI message REST clients see.
func (s *Service) SI(e Entry) *si.EventRecord {
	r := e.Record
	msg := r.Message
	if len(msg) > MaxMessage {
		msg = msg[:MaxMessage]
	}
	out := &si.EventRecord{
		Type: si.EventRecord_Type(r.Type), ObjectID: r.ObjectID, ReferenceID: r.ReferenceID, Message: msg,
		TimestampNano: r.Time, EventChangeType: si.EventRecord_ChangeType(r.Change),
		EventChangeDetail: si.EventRecord_ChangeDetail(r.Detail),
	}
	if r.Resource.AnyPositive() {
		reg := e.Registry
		if reg == nil {
			reg = s.reg
		}
		out.Resource, _ = siconv.Resource(reg, r.Resource)
	}
	return out
}

// Batch is the body of /ws/v1/events/batch.
type Batch struct {
	InstanceUUID string
	LowestID     uint64
	HighestID    uint64
	EventRecords []*si.EventRecord
}

// ErrorInfo is the REST error body (reference §5).
type ErrorInfo struct {
	StatusCode  int    `json:"status_code"`
	Message     string `json:"message"`
	Description string `json:"description"`
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(ErrorInfo{StatusCode: code, Message: msg, Description: msg})
}

// queryInt reads an optional non-negative integer query parameter.
func queryInt(r *http.Request, key string, def int64) (int64, error) {
	v := r.URL.Query().Get(key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: %q is not a non-negative integer", key, v)
	}
	return n, nil
}

// BatchHandler serves GET /ws/v1/events/batch?start=<id>&count=<n>: up to
// count records (at most event.RESTResponseSize; 0 is invalid) with IDs
// from start on.
func (s *Service) BatchHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed")
			return
		}
		_, _, restSize := s.limits()
		start, err := queryInt(r, "start", 0)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		count, err := queryInt(r, "count", int64(restSize))
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		if count == 0 {
			writeError(w, http.StatusBadRequest, "count: 0 is invalid")
			return
		}
		count = min(count, int64(restSize))
		lo, hi, recs := s.ring.Range(uint64(start), int(count))
		out := Batch{InstanceUUID: s.instance, LowestID: lo, HighestID: hi, EventRecords: make([]*si.EventRecord, len(recs))}
		for i, e := range recs {
			out.EventRecords[i] = s.SI(e)
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_ = json.NewEncoder(w).Encode(out)
	})
}

// clientHost is the address a request comes from, without the port.
func clientHost(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}

// StreamHandler serves GET /ws/v1/events/stream?count=<n>: a line
// {"InstanceUUID":...}, the newest n past records, then every new record,
// one JSON object per line, until the client goes, falls behind, or the
// service closes.
func (s *Service) StreamHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed")
			return
		}
		maxStreams, maxPerHost, restSize := s.limits()
		past, err := queryInt(r, "count", 0)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		host := clientHost(r)
		sub, backlog, err := s.ring.subscribe(host, int(min(past, int64(restSize))), s.buffer, maxStreams, maxPerHost, time.Now())
		if err != nil {
			s.refused.Add(1)
			s.log.Info("event stream refused", "host", host, "reason", err)
			writeError(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		defer func() {
			if s.ring.unsubscribe(sub) {
				s.slowDisconnects.Add(1)
				s.warnSlow(host)
			}
		}()
		s.log.Debug("event stream opened", "host", host)
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		// send writes a batch of lines with one write and one flush. The
		// stream outlives the server's write timeout: a write deadline
		// only while a batch is written (over HTTP/2 a deadline that
		// passes resets the stream even when nothing is written).
		send := func(vs ...any) bool {
			buf.Reset()
			for _, v := range vs {
				if enc.Encode(v) != nil {
					return false
				}
			}
			_ = rc.SetWriteDeadline(time.Now().Add(s.timeout))
			if _, err := w.Write(buf.Bytes()); err != nil || rc.Flush() != nil {
				return false
			}
			_ = rc.SetWriteDeadline(time.Time{})
			return true
		}
		// sendNew sends everything the ring has for the stream, in
		// batches; false when the stream ends (cut off or write failed).
		batch := make([]any, 0, streamBatch)
		sendNew := func() bool {
			for {
				recs, slow := s.ring.read(sub, streamBatch)
				if slow {
					return false
				}
				if len(recs) == 0 {
					return true
				}
				batch = batch[:0]
				for _, e := range recs {
					batch = append(batch, s.SI(e))
				}
				if !send(batch...) {
					return false
				}
			}
		}
		if !send(struct{ InstanceUUID string }{s.instance}) {
			return
		}
		for len(backlog) > 0 {
			n := min(len(backlog), streamBatch)
			batch = batch[:0]
			for _, e := range backlog[:n] {
				batch = append(batch, s.SI(e))
			}
			if !send(batch...) {
				return
			}
			backlog = backlog[n:]
		}
		for {
			select {
			case <-sub.wake:
				if !sendNew() {
					return
				}
			case <-sub.done:
				// cut off, or closed by Close: then hand over what the
				// ring still has for the stream, and end
				sendNew()
				return
			case <-r.Context().Done():
				return
			}
		}
	})
}

// streamBatch is the most records a stream writes with one write and flush.
const streamBatch = 512

// slowWarnEvery is the shortest interval between two warnings about
// streams cut off as slow consumers; the ones in between are counted in
// the next warning (and logged at debug level).
const slowWarnEvery = 10 * time.Second

// warnSlow logs that the stream of host was cut off as a slow consumer, at
// most once per slowWarnEvery at warning level.
func (s *Service) warnSlow(host string) {
	s.warnMu.Lock()
	now := time.Now()
	if !s.lastWarn.IsZero() && now.Sub(s.lastWarn) < slowWarnEvery {
		s.unwarned++
		s.warnMu.Unlock()
		s.log.Debug("event stream disconnected: consumer too slow", "host", host)
		return
	}
	more := s.unwarned
	s.lastWarn, s.unwarned = now, 0
	s.warnMu.Unlock()
	if more > 0 {
		s.log.Warn("event stream disconnected: consumer too slow", "host", host, "alsoSinceLastWarning", more)
		return
	}
	s.log.Warn("event stream disconnected: consumer too slow", "host", host)
}
