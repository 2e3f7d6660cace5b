package grpcserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// nodeStream opens an UpdateNode stream and sends first on it.
func nodeStream(t testing.TB, c si.SchedulerClient, first *si.NodeRequest) (grpc.BidiStreamingClient[si.NodeRequest, si.NodeResponse], context.CancelFunc) {
	t.Helper()
	sctx, cancel := context.WithCancel(ctx(t))
	t.Cleanup(cancel)
	st, err := c.UpdateNode(sctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(first); err != nil {
		t.Fatal(err)
	}
	return st, cancel
}

func TestBadStreamInput(t *testing.T) {
	big := &si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n", Attributes: map[string]string{"x": strings.Repeat("x", 4096)}}}}
	tests := []struct {
		name     string
		register bool
		msgs     []*si.NodeRequest
		want     codes.Code
		wantMsg  string
	}{
		{"stream before register", false, []*si.NodeRequest{{RmID: "rm1"}}, codes.FailedPrecondition, `rm "rm1" is not registered`},
		{"empty first message", true, []*si.NodeRequest{{}}, codes.InvalidArgument, "rmID is empty"},
		{"empty rmID later", true, []*si.NodeRequest{{RmID: "rm1"}, {Nodes: []*si.NodeInfo{{NodeID: "n"}}}}, codes.InvalidArgument, "rmID is empty"},
		{"mismatched rmID", true, []*si.NodeRequest{{RmID: "rm1"}, {RmID: "rm2"}}, codes.InvalidArgument, `message for rm "rm2" on the stream of rm "rm1"`},
		{"oversized message", true, []*si.NodeRequest{{RmID: "rm1"}, big}, codes.ResourceExhausted, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := start(t, Options{MaxRecvMsgSize: 1024})
			c, _ := h.dial(t)
			if tt.register {
				h.register(t, c, "rm1")
			}
			st, _ := nodeStream(t, c, tt.msgs[0])
			for _, m := range tt.msgs[1:] {
				if err := st.Send(m); err != nil {
					t.Fatal(err)
				}
			}
			_, err := st.Recv()
			wantCode(t, "stream", err, tt.want)
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not say %q", err, tt.wantMsg)
			}
			h.api.mu.Lock()
			defer h.api.mu.Unlock()
			if len(h.api.nodes) != 0 {
				t.Errorf("bad stream forwarded %d requests", len(h.api.nodes))
			}
		})
	}
}

func TestBadUnaryInput(t *testing.T) {
	h := start(t, Options{})
	c, conn := h.dial(t)
	_, err := c.RegisterResourceManager(ctx(t), &si.RegisterResourceManagerRequest{})
	wantCode(t, "register without rmID", err, codes.InvalidArgument)
	_, err = c.RegisterResourceManager(ctx(t), &si.RegisterResourceManagerRequest{RmID: "rm1", Config: "bad"})
	wantCode(t, "register with bad config", err, codes.InvalidArgument)
	if len(h.srv.RMs()) != 0 {
		t.Fatalf("failed registration left an RM: %+v", h.srv.RMs())
	}
	err = conn.Invoke(ctx(t), AdminUpdateConfigurationFullMethod, &si.UpdateConfigurationRequest{}, &emptypb.Empty{})
	wantCode(t, "update configuration without rmID", err, codes.InvalidArgument)
	err = conn.Invoke(ctx(t), AdminUpdateConfigurationFullMethod, &si.UpdateConfigurationRequest{RmID: "ghost"}, &emptypb.Empty{})
	wantCode(t, "update configuration of an unknown RM", err, codes.InvalidArgument)

	h.register(t, c, "rm1")
	if err := conn.Invoke(ctx(t), AdminUpdateConfigurationFullMethod, &si.UpdateConfigurationRequest{RmID: "rm1", Config: "new"}, &emptypb.Empty{}); err != nil {
		t.Fatal(err)
	}
	h.api.mu.Lock()
	defer h.api.mu.Unlock()
	if len(h.api.configs) != 1 || h.api.configs[0].Config != "new" {
		t.Fatalf("configuration updates reaching the API: %v", h.api.configs)
	}
}

// fakeStream is an in-process server stream that yields scripted messages.
type fakeStream struct {
	grpc.ServerStream
	msgs []*si.NodeRequest
}

func (f *fakeStream) Recv() (*si.NodeRequest, error) {
	if len(f.msgs) == 0 {
		return nil, errors.New("no more messages")
	}
	m := f.msgs[0]
	f.msgs = f.msgs[1:]
	return m, nil
}
func (f *fakeStream) Send(*si.NodeResponse) error  { return nil }
func (f *fakeStream) Context() context.Context     { return context.Background() }
func (f *fakeStream) SetHeader(metadata.MD) error  { return nil }
func (f *fakeStream) SendHeader(metadata.MD) error { return nil }
func (f *fakeStream) SetTrailer(metadata.MD)       {}

// TestNilMessagesInProcess calls the service methods directly with nils,
// which the wire cannot carry.
func TestNilMessagesInProcess(t *testing.T) {
	api := newFakeAPI()
	s := New(api, Options{})
	defer s.Stop()
	_, err := s.RegisterResourceManager(context.Background(), nil)
	wantCode(t, "nil register", err, codes.InvalidArgument)
	wantCode(t, "nil configuration", s.updateConfiguration(context.Background(), nil), codes.InvalidArgument)
	wantCode(t, "nil first message", s.UpdateNode(&fakeStream{msgs: []*si.NodeRequest{nil}}), codes.InvalidArgument)
	if _, err := s.RegisterResourceManager(context.Background(), &si.RegisterResourceManagerRequest{RmID: "rm1"}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "nil later message", s.UpdateNode(&fakeStream{msgs: []*si.NodeRequest{{RmID: "rm1"}, nil}}), codes.InvalidArgument)
}

func TestForwardErrors(t *testing.T) {
	tests := []struct {
		err  error
		want codes.Code
	}{
		{errors.New("node request is wrong"), codes.InvalidArgument},
		{rmproxy.ErrStopped, codes.Unavailable},
	}
	for _, tt := range tests {
		t.Run(tt.want.String(), func(t *testing.T) {
			h := start(t, Options{})
			h.api.updateErr = tt.err
			c, _ := h.dial(t)
			h.register(t, c, "rm1")
			st, _ := nodeStream(t, c, &si.NodeRequest{RmID: "rm1", Nodes: []*si.NodeInfo{{NodeID: "n1"}}})
			_, err := st.Recv()
			wantCode(t, "forward", err, tt.want)
			if !strings.Contains(err.Error(), tt.err.Error()) || !strings.Contains(err.Error(), "UpdateNode of rm rm1") {
				t.Errorf("error %q does not name the stream, the RM and the cause", err)
			}
		})
	}
}

func TestToken(t *testing.T) {
	h := start(t, Options{Token: "s3cret"})
	tests := []struct {
		name  string
		token string
		want  codes.Code
	}{
		{"missing", "", codes.Unauthenticated},
		{"wrong", "Bearer nope", codes.Unauthenticated},
		{"not bearer", "s3cret", codes.Unauthenticated},
		{"right", "Bearer s3cret", codes.OK},
		// RFC 7235: the scheme is case-insensitive, then one or more spaces
		{"lower case scheme", "bearer s3cret", codes.OK},
		{"upper case scheme", "BEARER  s3cret", codes.OK},
		{"other scheme", "Basic s3cret", codes.Unauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, conn := h.dial(t)
			cx := ctx(t)
			if tt.token != "" {
				cx = metadata.AppendToOutgoingContext(cx, "authorization", tt.token)
			}
			_, err := c.RegisterResourceManager(cx, &si.RegisterResourceManagerRequest{RmID: "rm-" + tt.name})
			wantCode(t, "register", err, tt.want)
			err = conn.Invoke(cx, AdminUpdateConfigurationFullMethod, &si.UpdateConfigurationRequest{RmID: "rm-" + tt.name}, &emptypb.Empty{})
			wantCode(t, "update configuration", err, tt.want)

			st, err := c.UpdateNode(cx)
			if err != nil {
				t.Fatal(err)
			}
			// a stream the server already ended answers Send with EOF;
			// Recv then tells why
			if err := st.Send(&si.NodeRequest{RmID: "rm-" + tt.name, Nodes: []*si.NodeInfo{{NodeID: "n"}}}); err != nil && !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			if tt.want == codes.OK {
				if err := st.CloseSend(); err != nil {
					t.Fatal(err)
				}
			}
			_, err = st.Recv()
			if tt.want == codes.OK {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("authorized stream: %v, want a clean end", err)
				}
				return
			}
			wantCode(t, "stream", err, tt.want)
		})
	}
	ok := 0
	for _, tt := range tests {
		if tt.want == codes.OK {
			ok++
		}
	}
	h.api.mu.Lock()
	defer h.api.mu.Unlock()
	if h.api.regs != ok || len(h.api.nodes) != ok || len(h.api.configs) != ok {
		t.Fatalf("API saw %d registrations, %d node requests, %d config updates; want only the authorized %d each", h.api.regs, len(h.api.nodes), len(h.api.configs), ok)
	}
}

func TestStopEndsStreams(t *testing.T) {
	h := start(t, Options{StopTimeout: 2 * time.Second})
	c, _ := h.dial(t)
	h.register(t, c, "rm1")
	st, _ := nodeStream(t, c, &si.NodeRequest{RmID: "rm1"})
	h.awaitState(t, "rm1", RMRunning, 1)
	h.srv.Stop()
	_, err := st.Recv()
	wantCode(t, "stream after Stop", err, codes.Unavailable)
	if st, _ := h.status("rm1"); st.State != RMRunning {
		t.Errorf("stopping the server changed the RM state to %s", st.State)
	}
	if len(h.timers.active()) != 0 {
		t.Errorf("stopping the server started reconnect timers")
	}
	if _, err := h.srv.Listen("127.0.0.1:0"); err == nil {
		t.Error("Listen after Stop succeeded")
	}
}

func TestAPIStatus(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want codes.Code
	}{
		{rmproxy.ErrStopped, codes.Unavailable},
		{fmt.Errorf("%w: 60000 SI items wait", rmproxy.ErrBusy), codes.ResourceExhausted},
		{errors.New("update node: nil request"), codes.InvalidArgument},
		{fmt.Errorf("register %q: %w: 100 are registered", "x", rmproxy.ErrTooManyRMs), codes.ResourceExhausted},
		{fmt.Errorf("register %q: %w", "x", rmproxy.ErrRMNotAllowed), codes.PermissionDenied},
	} {
		wantCode(t, tc.err.Error(), apiStatus("UpdateNode of rm rm1", tc.err), tc.want)
	}
}

// TestRefusedRegistrationsLeaveNothing is issue #18 item 5: a registration
// the scheduler refuses (a bad ID or configuration, a full RM table, an ID
// not on the allow-list) leaves no entry behind, so refused registrations
// cannot grow the server's memory.
func TestRefusedRegistrationsLeaveNothing(t *testing.T) {
	h := start(t, Options{})
	c, _ := h.dial(t)
	for i := range 500 {
		_, err := c.RegisterResourceManager(ctx(t), &si.RegisterResourceManagerRequest{RmID: fmt.Sprint("refused-", i), Config: "bad"})
		wantCode(t, "register with bad config", err, codes.InvalidArgument)
	}
	h.register(t, c, "rm1")
	h.srv.mu.Lock()
	n := len(h.srv.rms)
	h.srv.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d RM entries after 500 refused registrations and one accepted, want 1", n)
	}
}
