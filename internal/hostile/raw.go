package hostile

import (
	"context"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// rawCodec sends and receives frames as they are, so that a stream can
// carry bytes that are no SI message. It names itself proto, the content
// type the server expects.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	if b, ok := v.([]byte); ok {
		return b, nil
	}
	return proto.Marshal(v.(proto.Message))
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	if b, ok := v.(*[]byte); ok {
		*b = append((*b)[:0], data...)
		return nil
	}
	return proto.Unmarshal(data, v.(proto.Message))
}

func (rawCodec) Name() string { return "proto" }

var rawMethods = []string{si.Scheduler_UpdateAllocation_FullMethodName, si.Scheduler_UpdateApplication_FullMethodName, si.Scheduler_UpdateNode_FullMethodName}

// raw opens one SI stream outside the client package and sends what no RM
// should: a greeting from an rmID that is not registered (unknown, empty,
// invalid, too long) or that belongs to a live RM on another connection,
// followed by a request, or frames of random bytes. The server must end
// the stream or answer it without harm to the accounting, which the
// checks after the batch look at.
func (d *driver) raw(ctx context.Context) {
	g := d.g
	if d.conn == nil {
		conn, err := grpc.NewClient(d.srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			d.problem("raw stream: %v", err)
			return
		}
		d.conn = conn
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	k := g.Count(len(rawMethods))
	st, err := d.conn.NewStream(sctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true}, rawMethods[k], grpc.ForceCodec(rawCodec{}))
	d.res.Raw++
	if err != nil {
		d.res.Refused++
		return
	}
	var msgs []any
	if g.Chance(2) {
		for range 1 + g.Count(3) {
			b := make([]byte, g.Count(64))
			for i := range b {
				b[i] = byte(g.Count(256))
			}
			msgs = append(msgs, b)
		}
		d.res.Garbage += int64(len(msgs))
	} else {
		id := g.Pick("ghost", "", "rm 1", "a/b", strings.Repeat("x", 200), "rm3", "rm1", "rm2")
		switch k {
		case 0:
			msgs = []any{&si.AllocationRequest{RmID: id}, g.AllocationRequest(id)}
		case 1:
			msgs = []any{&si.ApplicationRequest{RmID: id}, g.ApplicationRequest(id)}
		default:
			msgs = []any{&si.NodeRequest{RmID: id}, g.NodeRequest(id)}
		}
	}
	for _, m := range msgs {
		d.res.Messages++
		if st.SendMsg(m) != nil {
			break
		}
	}
	_ = st.CloseSend()
	// the server ends the stream with an error or answers nothing
	var resp []byte
	for st.RecvMsg(&resp) == nil {
		if sctx.Err() != nil {
			break
		}
	}
	if sctx.Err() == nil {
		d.res.Refused++
	}
}

// close closes the raw streams' connection.
func (d *driver) close() {
	if d.conn != nil {
		d.conn.Close()
	}
}
