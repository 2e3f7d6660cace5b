// Package grpcserver owns the gRPC binding of the Scheduler Interface: the
// spec's si.v1.Scheduler service (RegisterResourceManager and the three
// bidirectional streams UpdateAllocation, UpdateApplication, UpdateNode) on
// top of any api.SchedulerAPI, plus Paddock's own paddock.v1.Admin service
// for configuration updates and its optional paddock.v1.Callbacks service,
// which relays the RM callbacks the streams cannot carry. It tracks each remote resource manager (RM)
// through the spec's lifecycle (Running, Paused, Stopped).
//
// # Streams
//
// A stream belongs to the RM named by the rmID of the first message it
// carries; every later message must name the same RM (otherwise the stream
// ends with InvalidArgument). A message that carries nothing but the rmID
// (no nodes, no applications, no allocations or releases) is a greeting:
// it attaches the stream and is not forwarded, so an RM can open a stream
// and start receiving before it has anything to send. A stream opened for
// an RM that has not registered ends with FailedPrecondition.
//
// The scheduler's responses for an RM go to that RM's open stream of the
// matching kind. Responses produced while the stream is not open are kept,
// up to Options.BufferLimit per stream kind, and flushed when it opens.
// When that bound is exceeded the responses are gone and the RM's state in
// the scheduler can no longer be trusted: the RM is Stopped and must
// register again (which wipes its state and expects a full resync).
//
// Messages on different streams are not ordered with respect to each
// other on the wire, but the server does not let that reach the scheduler
// as a refusal: an ask or allocation of an application this registration
// has not sent yet (on the application stream), or an allocation on a node
// it has not created yet (on the node stream), is parked and handed to the
// scheduler right after that application or node. So an RM may send
// UpdateApplication and at once UpdateAllocation, as it would in process.
// A parked item keeps its place in its stream: later asks and releases of
// the same application wait behind it. An item waits at most
// Options.ParkTimeout (DefaultParkTimeout, 5 s) and at most
// Options.ParkLimit items (DefaultParkLimit, 10,000) wait per RM; beyond
// either bound the oldest is handed over as it is and the scheduler
// rejects it with its usual reason. Items of applications the RM has
// removed wait the same way (and are then rejected). RMStatus.Parked
// counts what waits; a new registration drops it with the rest of the
// RM's state.
//
// # Callbacks
//
// The spec's streams carry only allocation, application and node
// responses. For an RM that uses nothing else the server answers the
// other callbacks itself, as it always has: Predicates allows every node
// (nil), PreemptionPredicates reports success, SendEvent and
// UpdateContainerSchedulingState are dropped and counted
// (RMStatus.DroppedEvents).
//
// An RM that wants them opens Paddock's optional stream
// /paddock.v1.Callbacks/Callbacks after registering (callbacks.proto;
// CallbacksServiceDesc is written by hand like the Admin service's, the
// messages reuse the SI ones). Its first message names the RM and the
// callbacks it answers; the server acknowledges with an empty request and
// from then on sends those calls on the stream. Predicates and
// PreemptionPredicates carry a correlation id and expect a reply with it;
// events and scheduling states are one-way, up to Options.BufferLimit
// waiting (more are dropped and counted). The stream belongs to the
// current registration: a new one ends it (Aborted), and it plays no part
// in the RM's lifecycle.
//
// The scheduler asks Predicates and PreemptionPredicates on its own
// goroutine and waits for the answer, so a relayed call is bounded: no
// reply within Options.CallbackTimeout (DefaultCallbackTimeout, 250 ms)
// refuses the node (for this attempt: it is asked again at a later cycle)
// or the plan, and is counted (RMStatus.Unanswered). After a timeout the
// RM's calls are refused at once, without a round trip, until
// Options.CallbackBackoff (DefaultCallbackBackoff, 5 s) has passed or it
// opens a new Callbacks stream (a late reply is dropped), so a slow or
// dead RM costs the scheduler, and the other
// RMs it serves, at most one timeout per backoff. At most
// Options.CallbackInFlight calls wait for replies per RM. Once an RM has
// asked for Predicates or PreemptionPredicates, its calls are refused,
// never silently allowed, while its stream is closed. The public client
// (package client, Options.Callbacks) opens the stream and dispatches the
// calls to the RM's api.ResourceManagerCallback. A relayed Predicates
// call costs a network round trip for every node the scheduler checks;
// RMs that do not open the stream pay nothing.
//
// # Lifecycle
//
// RegisterResourceManager makes an RM Running; registering again with the
// same rmID starts a new session (the scheduler wipes the RM's state and
// expects a resync) and ends the streams of the previous session with
// Aborted, so that nothing sent for the old state is applied to the new
// one. When one of the RM's streams breaks (cancelled, connection lost),
// the RM is Paused; it is Running again once every broken stream has been
// reopened. A stream the RM half-closes is a goodbye, not a loss: once the
// RM has cleanly closed every stream it had open, it has shut down
// voluntarily and is Stopped at once. An RM that
// stays Paused for Options.ReconnectTimeout is Stopped: its streams are
// refused and its responses dropped until it registers again. Its state
// stays in the scheduler until then.
//
// # Admin service
//
// UpdateConfiguration is not part of the spec's Scheduler service. It is
// served as the unary method /paddock.v1.Admin/UpdateConfiguration, taking
// the SI message si.v1.UpdateConfigurationRequest and returning
// google.protobuf.Empty; admin.proto in this directory declares it for
// clients in other languages. The Go service descriptor is written by hand
// (AdminServiceDesc), so no extra code generation is needed.
//
// # Security and limits
//
// Responses larger than Options.MaxSendMsgSize are split into several
// messages of the same kind (their lists halved), so that an RM with the
// same receive limit never sees a message it must refuse.
//
// Options.TLSConfig turns on TLS; Options.Token requires the metadata
// "authorization: Bearer <token>" on every call (Unauthenticated
// otherwise). Received messages are limited to Options.MaxRecvMsgSize
// (ResourceExhausted beyond it); keepalive pings closer than
// Options.KeepaliveMinTime are refused, and the server pings idle
// connections so that dead RMs are noticed and Paused.
package grpcserver
