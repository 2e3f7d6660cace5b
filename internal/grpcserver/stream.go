package grpcserver

import (
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// streamSpec tells serveStream how to handle one of the three SI streams.
type streamSpec[Req any] struct {
	kind     kind
	rmID     func(*Req) string
	greeting func(*Req) bool            // carries nothing but the rmID
	forward  func(*session, *Req) error // hands it to the scheduler
}

// serveStream runs one bidirectional SI stream: the first message names
// the RM and attaches the stream; a receive goroutine forwards requests to
// the scheduler while this goroutine sends the RM's responses.
func serveStream[Req, Resp any](s *Server, st grpc.BidiStreamingServer[Req, Resp], sp streamSpec[Req]) error {
	first, err := st.Recv()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	rmID, err := sp.check(first, "")
	if err != nil {
		return err
	}
	epoch, err := epochOf(st.Context())
	if err != nil {
		return err
	}
	att, err := s.attach(rmID, sp.kind, epoch)
	if err != nil {
		return err
	}
	clean := false
	defer func() { s.detach(att, clean) }()

	recvDone := make(chan error, 1)
	go func() {
		msg := first
		for {
			if err := forward(s, att, msg, sp); err != nil {
				recvDone <- err
				return
			}
			next, err := st.Recv()
			if err != nil {
				recvDone <- err
				return
			}
			if _, err := sp.check(next, rmID); err != nil {
				recvDone <- err
				return
			}
			msg = next
		}
	}()

	wrong := func(m proto.Message) {
		s.log.Error("dropping a response of the wrong type", "stream", sp.kind.String(), "type", fmt.Sprintf("%T", m))
	}
	for {
		select {
		case err := <-recvDone:
			if errors.Is(err, io.EOF) {
				clean = true
				return nil
			}
			return err
		case <-att.end:
			s.mu.Lock()
			err := att.endErr
			s.mu.Unlock()
			return err
		case <-st.Context().Done():
			return status.FromContextError(st.Context().Err()).Err()
		case <-att.notify:
			msgs, ok := s.take(att)
			if !ok {
				continue // ended; att.end says how
			}
			if unsent, err := sendAll[Resp](st, msgs, s.opts.MaxSendMsgSize, wrong); err != nil {
				s.requeue(att, unsent)
				return err
			}
		}
	}
}

// sendAll sends msgs in order on st, each split at limit bytes, and
// drops (telling wrong) any that is not a *Resp. When a send fails it
// returns the error and what was not sent: the rest of that message's
// parts, then the messages after it. The parts sent before are not
// repeated, so an RM does not hear of an allocation twice because its
// response was larger than the limit.
func sendAll[Resp any](st grpc.ServerStream, msgs []proto.Message, limit int, wrong func(proto.Message)) ([]proto.Message, error) {
	for i, m := range msgs {
		// a message's parts are of its own type: checked once, before it
		// is encoded and split
		if _, ok := any(m).(*Resp); !ok {
			wrong(m)
			continue
		}
		parts := split(m, limit)
		for j := range parts {
			// sent encoded: the server's codec sends the bytes split
			// made (protocodec)
			if err := st.SendMsg(&parts[j]); err != nil {
				unsent := make([]proto.Message, 0, len(parts)-j+len(msgs)-i-1)
				for _, p := range parts[j:] {
					unsent = append(unsent, p.Message)
				}
				return append(unsent, msgs[i+1:]...), err
			}
		}
	}
	return nil, nil
}

// check validates a received message; want is the stream's rmID once known.
func (sp streamSpec[Req]) check(msg *Req, want string) (string, error) {
	if msg == nil {
		return "", status.Errorf(codes.InvalidArgument, "%s: nil message", sp.kind)
	}
	id := sp.rmID(msg)
	switch {
	case id == "":
		return "", status.Errorf(codes.InvalidArgument, "%s: rmID is empty", sp.kind)
	case want != "" && id != want:
		return "", status.Errorf(codes.InvalidArgument, "%s: message for rm %q on the stream of rm %q", sp.kind, id, want)
	}
	return id, nil
}

// forward hands one request to the scheduler unless it is a greeting or
// the stream's registration is no longer current.
func forward[Req any](s *Server, att *attachment, msg *Req, sp streamSpec[Req]) error {
	if sp.greeting(msg) {
		return nil
	}
	e := att.sess.entry
	e.fwd.RLock()
	defer e.fwd.RUnlock()
	if err := s.live(att); err != nil {
		return err
	}
	if err := sp.forward(att.sess, msg); err != nil {
		return apiStatus(fmt.Sprintf("%s of rm %s", sp.kind, e.id), err)
	}
	return nil
}
