package si_test

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	"github.com/paddock-sched/paddock/si"
)

// echoScheduler answers registration and turns every allocation ask on the
// UpdateAllocation stream into an allocation on node "n1". UpdateApplication
// and UpdateNode stay unimplemented.
type echoScheduler struct {
	si.UnimplementedSchedulerServer
}

func (echoScheduler) RegisterResourceManager(_ context.Context, req *si.RegisterResourceManagerRequest) (*si.RegisterResourceManagerResponse, error) {
	if req.RmID == "" {
		return nil, status.Error(codes.InvalidArgument, "rmID is empty")
	}
	return &si.RegisterResourceManagerResponse{}, nil
}

func (echoScheduler) UpdateAllocation(stream grpc.BidiStreamingServer[si.AllocationRequest, si.AllocationResponse]) error {
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		resp := &si.AllocationResponse{}
		for _, a := range req.Allocations {
			placed := proto.Clone(a).(*si.Allocation)
			placed.NodeID = "n1"
			resp.New = append(resp.New, placed)
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

// TestSchedulerServiceOverGRPC drives the generated service stubs end to end
// over an in-memory connection.
func TestSchedulerServiceOverGRPC(t *testing.T) {
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	si.RegisterSchedulerServer(srv, echoScheduler{})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)

	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	client := si.NewSchedulerClient(conn)
	ctx := t.Context()

	if _, err := client.RegisterResourceManager(ctx, &si.RegisterResourceManagerRequest{RmID: "rm-1", PolicyGroup: "queues"}); err != nil {
		t.Fatalf("register: %v", err)
	}
	if _, err := client.RegisterResourceManager(ctx, &si.RegisterResourceManagerRequest{}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("register without rmID: got %v, want InvalidArgument", err)
	}

	stream, err := client.UpdateAllocation(ctx)
	if err != nil {
		t.Fatalf("open UpdateAllocation: %v", err)
	}
	ask := &si.Allocation{
		AllocationKey:    "ask-1",
		ApplicationID:    "app-1",
		ResourcePerAlloc: &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 500}}},
	}
	if err := stream.Send(&si.AllocationRequest{RmID: "rm-1", Allocations: []*si.Allocation{ask}}); err != nil {
		t.Fatalf("send: %v", err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	want := proto.Clone(ask).(*si.Allocation)
	want.NodeID = "n1"
	if len(resp.New) != 1 || !proto.Equal(resp.New[0], want) {
		t.Fatalf("response = %v, want one allocation %v", resp, want)
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatalf("close send: %v", err)
	}
	if _, err := stream.Recv(); !errors.Is(err, io.EOF) {
		t.Fatalf("after close: got %v, want EOF", err)
	}

	nodes, err := client.UpdateNode(ctx)
	if err != nil {
		t.Fatalf("open UpdateNode: %v", err)
	}
	if _, err := nodes.Recv(); status.Code(err) != codes.Unimplemented {
		t.Fatalf("UpdateNode on an unimplemented server: got %v, want Unimplemented", err)
	}
}
