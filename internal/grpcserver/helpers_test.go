package grpcserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/api"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// fakeAPI records what the server forwards and keeps each RM's callback so
// tests can play the scheduler.
type fakeAPI struct {
	mu        sync.Mutex
	cbs       map[string]api.ResourceManagerCallback
	regs      int
	nodes     []*si.NodeRequest
	apps      []*si.ApplicationRequest
	allocs    []*si.AllocationRequest
	configs   []*si.UpdateConfigurationRequest
	updateErr error // returned by every Update call when set
}

func newFakeAPI() *fakeAPI { return &fakeAPI{cbs: map[string]api.ResourceManagerCallback{}} }

func (f *fakeAPI) RegisterResourceManager(req *si.RegisterResourceManagerRequest, cb api.ResourceManagerCallback) (*si.RegisterResourceManagerResponse, error) {
	if req.Config == "bad" {
		return nil, errors.New("bad config")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cbs[req.RmID] = cb
	f.regs++
	return &si.RegisterResourceManagerResponse{}, nil
}

func (f *fakeAPI) UpdateAllocation(r *si.AllocationRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.allocs = append(f.allocs, r)
	return f.updateErr
}

func (f *fakeAPI) UpdateApplication(r *si.ApplicationRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.apps = append(f.apps, r)
	return f.updateErr
}

func (f *fakeAPI) UpdateNode(r *si.NodeRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nodes = append(f.nodes, r)
	return f.updateErr
}

func (f *fakeAPI) UpdateConfiguration(r *si.UpdateConfigurationRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.cbs[r.RmID]; !ok {
		return errors.New("unknown rm " + r.RmID)
	}
	f.configs = append(f.configs, r)
	return nil
}

func (f *fakeAPI) Stop() {}

func (f *fakeAPI) cb(rmID string) api.ResourceManagerCallback {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cbs[rmID]
}

// fakeTimers replaces time.AfterFunc: timers fire only when told.
type fakeTimers struct {
	mu     sync.Mutex
	timers []*fakeTimer
}

type fakeTimer struct {
	d       time.Duration
	f       func()
	stopped bool
}

func (ft *fakeTimers) AfterFunc(d time.Duration, f func()) func() bool {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	t := &fakeTimer{d: d, f: f}
	ft.timers = append(ft.timers, t)
	return func() bool {
		ft.mu.Lock()
		defer ft.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// active returns the durations of the timers neither stopped nor fired.
func (ft *fakeTimers) active() []time.Duration {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	var out []time.Duration
	for _, t := range ft.timers {
		if !t.stopped {
			out = append(out, t.d)
		}
	}
	return out
}

// fire runs every active timer once.
func (ft *fakeTimers) fire() int {
	ft.mu.Lock()
	var run []func()
	for _, t := range ft.timers {
		if !t.stopped {
			t.stopped = true
			run = append(run, t.f)
		}
	}
	ft.mu.Unlock()
	for _, f := range run {
		f()
	}
	return len(run)
}

// harness is a Server on loopback with a fake API and fake timers.
type harness struct {
	api    *fakeAPI
	timers *fakeTimers
	srv    *Server
	addr   string
}

func start(t testing.TB, opts Options) *harness {
	t.Helper()
	h := &harness{api: newFakeAPI(), timers: &fakeTimers{}}
	opts.AfterFunc = h.timers.AfterFunc
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h.srv = New(h.api, opts)
	addr, err := h.srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.addr = addr.String()
	t.Cleanup(h.srv.Stop)
	return h
}

// dial returns a raw SI client; extra options (for example a token) follow.
func (h *harness) dial(t testing.TB, extra ...grpc.DialOption) (si.SchedulerClient, *grpc.ClientConn) {
	t.Helper()
	opts := append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64 << 20))}, extra...)
	conn, err := grpc.NewClient(h.addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return si.NewSchedulerClient(conn), conn
}

func (h *harness) register(t testing.TB, c si.SchedulerClient, rmID string) {
	t.Helper()
	if _, err := c.RegisterResourceManager(ctx(t), &si.RegisterResourceManagerRequest{RmID: rmID}); err != nil {
		t.Fatalf("register %s: %v", rmID, err)
	}
}

// addApp sends application appID of RM rmID on a stream of its own and
// waits until the server forwarded it (the API has n applications).
func (h *harness) addApp(t testing.TB, c si.SchedulerClient, rmID, appID string, n int) {
	t.Helper()
	apps, err := c.UpdateApplication(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := apps.Send(&si.ApplicationRequest{RmID: rmID, New: []*si.AddApplicationRequest{{ApplicationID: appID}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		h.api.mu.Lock()
		defer h.api.mu.Unlock()
		return len(h.api.apps) == n
	}, "application forwarded")
}

// status returns the RMStatus of rmID.
func (h *harness) status(rmID string) (RMStatus, bool) {
	for _, st := range h.srv.RMs() {
		if st.RmID == rmID {
			return st, true
		}
	}
	return RMStatus{}, false
}

// awaitState waits until rmID is in state want with n open streams.
func (h *harness) awaitState(t *testing.T, rmID string, want RMState, open int) RMStatus {
	t.Helper()
	var st RMStatus
	eventually(t, func() bool {
		st, _ = h.status(rmID)
		return st.State == want && len(st.OpenStreams) == open
	}, "rm %s %s with %d open streams (last: %+v)", rmID, want, open, &st)
	return st
}

// ctx is a bounded context for one test call.
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// eventually polls cond for up to 10 seconds.
func eventually(t testing.TB, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for "+format, args...)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// wantCode checks that err is a gRPC status with code want.
func wantCode(t *testing.T, what string, err error, want codes.Code) {
	t.Helper()
	if got := status.Code(err); got != want {
		t.Fatalf("%s: code %s (%v), want %s", what, got, err, want)
	}
}
