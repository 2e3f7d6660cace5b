// Package cbwire owns the wire form of Paddock's Callbacks gRPC service
// (paddock.v1.Callbacks, declared in internal/grpcserver/callbacks.proto),
// which relays the RM callbacks the SI streams cannot carry: Predicates,
// PreemptionPredicates, SendEvent and UpdateContainerSchedulingState. The
// server (internal/grpcserver) and the public client (client) share it.
//
// The two stream messages, paddock.v1.CallbackRequest (server to RM) and
// paddock.v1.CallbackReply (RM to server), carry SI messages. Their
// descriptors are built here from a hand-written descriptor instead of
// generated code, like the Admin service's; on the wire they are ordinary
// protobuf messages, so RMs in other languages generate them from
// callbacks.proto.
//
// The package also names the metadata by which Paddock's client ties the
// streams it opens to one registration (RegistrationHeader).
package cbwire

import (
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// RegistrationHeader is the response header of RegisterResourceManager
// that numbers the registration, and the request metadata by which a client
// sends the number back on the streams it opens for it: a stream of an
// earlier registration that reaches the server after a new one is refused
// rather than taking the new streams' place. A stream without it is
// attached to the current registration, as the SI expects.
const RegistrationHeader = "paddock-registration"

// Service and method names; callbacks.proto declares the same.
const (
	ServiceName = "paddock.v1.Callbacks"
	MethodName  = "Callbacks"
	FullMethod  = "/paddock.v1.Callbacks/Callbacks"
)

// The callback names an RM lists in its first reply, as the SI's
// api.ResourceManagerCallback names the methods.
const (
	Predicates                     = "Predicates"
	PreemptionPredicates           = "PreemptionPredicates"
	SendEvent                      = "SendEvent"
	UpdateContainerSchedulingState = "UpdateContainerSchedulingState"
)

// Names are the callback names, in the order of their bits in a Set.
var Names = [...]string{Predicates, PreemptionPredicates, SendEvent, UpdateContainerSchedulingState}

// Set is a set of callbacks, bit i for Names[i].
type Set uint32

// Has reports whether the set holds the callback with bit b.
func (s Set) Has(b Set) bool { return s&b != 0 }

// The bits of a Set.
const (
	BitPredicates Set = 1 << iota
	BitPreemptionPredicates
	BitSendEvent
	BitUpdateContainerSchedulingState
)

// ParseSet turns callback names into a Set; an unknown name is an error.
func ParseSet(names []string) (Set, error) {
	var s Set
	for _, n := range names {
		found := false
		for i, m := range Names {
			if n == m {
				s |= 1 << i
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown callback %q (known: %v)", n, Names)
		}
	}
	return s, nil
}

// List returns the names of the set, in Names order.
func (s Set) List() []string {
	var out []string
	for i, n := range Names {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// Request is paddock.v1.CallbackRequest: one call from the server. ID is
// non-zero for the calls that expect a reply (Predicates and
// PreemptionPredicates); exactly one of the other fields is set, except in
// the server's first message, which sets none and acknowledges the RM's
// first reply.
type Request struct {
	ID                   uint64
	Predicates           *si.PredicatesArgs
	PreemptionPredicates *si.PreemptionPredicatesArgs
	Events               []*si.EventRecord
	ContainerState       *si.UpdateContainerSchedulingStateRequest
}

// Reply is paddock.v1.CallbackReply: the RM's first message names the RM
// and the callbacks it answers (RmID, Handles); every later one answers
// the request with the same ID: PredicatesError empty allows the node (an
// error otherwise, its text the reason), PreemptionPredicates is the
// PreemptionPredicates answer (none refuses the plan).
type Reply struct {
	RmID                 string
	Handles              []string
	ID                   uint64
	PredicatesError      string
	PreemptionPredicates *si.PreemptionPredicatesResponse
}

// field numbers, as in callbacks.proto
const (
	reqID, reqPredicates, reqPreemption, reqEvents, reqContainerState = 1, 2, 3, 4, 5
	repRmID, repHandles, repID, repPredicatesError, repPreemption     = 1, 2, 3, 4, 5
)

var requestDesc, replyDesc protoreflect.MessageDescriptor

func init() {
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	field := func(name string, num int32, label *descriptorpb.FieldDescriptorProto_Label, typ descriptorpb.FieldDescriptorProto_Type, msg string) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(num), Label: label, Type: typ.Enum(), JsonName: proto.String(name)}
		if msg != "" {
			f.TypeName = proto.String("." + msg)
		}
		return f
	}
	const (
		u64 = descriptorpb.FieldDescriptorProto_TYPE_UINT64
		str = descriptorpb.FieldDescriptorProto_TYPE_STRING
		msg = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
	)
	fdp := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("paddock/v1/callbacks.proto"),
		Package:    proto.String("paddock.v1"),
		Dependency: []string{si.File_yunikorn_scheduler_interface_si_proto.Path()},
		Syntax:     proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("CallbackRequest"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("id", reqID, opt, u64, ""),
				field("predicates", reqPredicates, opt, msg, "si.v1.PredicatesArgs"),
				field("preemption_predicates", reqPreemption, opt, msg, "si.v1.PreemptionPredicatesArgs"),
				field("events", reqEvents, rep, msg, "si.v1.EventRecord"),
				field("container_state", reqContainerState, opt, msg, "si.v1.UpdateContainerSchedulingStateRequest"),
			},
		}, {
			Name: proto.String("CallbackReply"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("rm_id", repRmID, opt, str, ""),
				field("handles", repHandles, rep, str, ""),
				field("id", repID, opt, u64, ""),
				field("predicates_error", repPredicatesError, opt, str, ""),
				field("preemption_predicates", repPreemption, opt, msg, "si.v1.PreemptionPredicatesResponse"),
			},
		}},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		panic(fmt.Sprintf("cbwire: building the descriptor: %v", err))
	}
	requestDesc = fd.Messages().ByName("CallbackRequest")
	replyDesc = fd.Messages().ByName("CallbackReply")
}

// NewRequestMessage and NewReplyMessage return empty wire messages, to
// receive into.
func NewRequestMessage() proto.Message { return dynamicpb.NewMessage(requestDesc) }

// NewReplyMessage returns an empty CallbackReply wire message.
func NewReplyMessage() proto.Message { return dynamicpb.NewMessage(replyDesc) }

// setMsg copies v, a generated SI message, into the message field num of
// m through its wire form (a dynamic message takes only dynamic values).
func setMsg(m *dynamicpb.Message, num protoreflect.FieldNumber, v proto.Message) {
	fd := m.Descriptor().Fields().ByNumber(num)
	copyInto(m.Mutable(fd).Message(), v)
}

func copyInto(dst protoreflect.Message, v proto.Message) {
	b, err := proto.Marshal(v)
	if err == nil {
		err = proto.UnmarshalOptions{Merge: true}.Unmarshal(b, dst.Interface())
	}
	if err != nil {
		// both sides have the same descriptor: this cannot happen
		panic(fmt.Sprintf("cbwire: copying %T: %v", v, err))
	}
}

// getMsg copies the message field num of m into dst (a generated SI
// message of the field's type) and reports whether it was set.
func getMsg(m *dynamicpb.Message, num protoreflect.FieldNumber, dst proto.Message) (bool, error) {
	fd := m.Descriptor().Fields().ByNumber(num)
	if !m.Has(fd) {
		return false, nil
	}
	b, err := proto.Marshal(m.Get(fd).Message().Interface())
	if err != nil {
		return false, err
	}
	return true, proto.Unmarshal(b, dst)
}

// Message returns the wire form of r.
func (r *Request) Message() proto.Message {
	m := dynamicpb.NewMessage(requestDesc)
	f := requestDesc.Fields()
	if r.ID != 0 {
		m.Set(f.ByNumber(reqID), protoreflect.ValueOfUint64(r.ID))
	}
	if r.Predicates != nil {
		setMsg(m, reqPredicates, r.Predicates)
	}
	if r.PreemptionPredicates != nil {
		setMsg(m, reqPreemption, r.PreemptionPredicates)
	}
	if len(r.Events) > 0 {
		l := m.Mutable(f.ByNumber(reqEvents)).List()
		for _, e := range r.Events {
			if e == nil {
				continue
			}
			el := l.NewElement()
			copyInto(el.Message(), e)
			l.Append(el)
		}
	}
	if r.ContainerState != nil {
		setMsg(m, reqContainerState, r.ContainerState)
	}
	return m
}

// ParseRequest reads a CallbackRequest received into NewRequestMessage.
func ParseRequest(pm proto.Message) (*Request, error) {
	m, ok := pm.(*dynamicpb.Message)
	if !ok || m.Descriptor() != requestDesc {
		return nil, fmt.Errorf("cbwire: not a CallbackRequest: %T", pm)
	}
	f := requestDesc.Fields()
	r := &Request{ID: m.Get(f.ByNumber(reqID)).Uint()}
	var err error
	pa := &si.PredicatesArgs{}
	if ok, e := getMsg(m, reqPredicates, pa); ok {
		r.Predicates, err = pa, e
	}
	pp := &si.PreemptionPredicatesArgs{}
	if ok, e := getMsg(m, reqPreemption, pp); ok {
		r.PreemptionPredicates, err = pp, joinErr(err, e)
	}
	cs := &si.UpdateContainerSchedulingStateRequest{}
	if ok, e := getMsg(m, reqContainerState, cs); ok {
		r.ContainerState, err = cs, joinErr(err, e)
	}
	l := m.Get(f.ByNumber(reqEvents)).List()
	for i := range l.Len() {
		b, e := proto.Marshal(l.Get(i).Message().Interface())
		ev := &si.EventRecord{}
		if e == nil {
			e = proto.Unmarshal(b, ev)
		}
		if e != nil {
			err = joinErr(err, e)
			continue
		}
		r.Events = append(r.Events, ev)
	}
	return r, err
}

// Message returns the wire form of r.
func (r *Reply) Message() proto.Message {
	m := dynamicpb.NewMessage(replyDesc)
	f := replyDesc.Fields()
	if r.RmID != "" {
		m.Set(f.ByNumber(repRmID), protoreflect.ValueOfString(r.RmID))
	}
	if len(r.Handles) > 0 {
		l := m.Mutable(f.ByNumber(repHandles)).List()
		for _, h := range r.Handles {
			l.Append(protoreflect.ValueOfString(h))
		}
	}
	if r.ID != 0 {
		m.Set(f.ByNumber(repID), protoreflect.ValueOfUint64(r.ID))
	}
	if r.PredicatesError != "" {
		m.Set(f.ByNumber(repPredicatesError), protoreflect.ValueOfString(r.PredicatesError))
	}
	if r.PreemptionPredicates != nil {
		setMsg(m, repPreemption, r.PreemptionPredicates)
	}
	return m
}

// ParseReply reads a CallbackReply received into NewReplyMessage.
func ParseReply(pm proto.Message) (*Reply, error) {
	m, ok := pm.(*dynamicpb.Message)
	if !ok || m.Descriptor() != replyDesc {
		return nil, fmt.Errorf("cbwire: not a CallbackReply: %T", pm)
	}
	f := replyDesc.Fields()
	r := &Reply{
		RmID:            m.Get(f.ByNumber(repRmID)).String(),
		ID:              m.Get(f.ByNumber(repID)).Uint(),
		PredicatesError: m.Get(f.ByNumber(repPredicatesError)).String(),
	}
	l := m.Get(f.ByNumber(repHandles)).List()
	for i := range l.Len() {
		r.Handles = append(r.Handles, l.Get(i).String())
	}
	pr := &si.PreemptionPredicatesResponse{}
	ok, err := getMsg(m, repPreemption, pr)
	if ok {
		r.PreemptionPredicates = pr
	}
	return r, err
}

func joinErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// StreamDesc describes the one bidirectional method of the service.
var StreamDesc = grpc.StreamDesc{StreamName: MethodName, ServerStreams: true, ClientStreams: true}
