package grpcserver

import (
	"context"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/paddock-sched/paddock/internal/cbwire"
)

// epochOf returns the registration a stream was opened for, as its client
// sent it (cbwire.RegistrationHeader), or 0 when it sent none.
func epochOf(ctx context.Context) (uint64, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	v := md.Get(cbwire.RegistrationHeader)
	if len(v) == 0 {
		return 0, nil
	}
	n, err := strconv.ParseUint(v[0], 10, 64)
	if err != nil || n == 0 || len(v) > 1 {
		return 0, status.Errorf(codes.InvalidArgument, "metadata %s %q: want one registration number", cbwire.RegistrationHeader, v)
	}
	return n, nil
}

// ownsEpoch refuses a stream opened for another registration than ss: one
// of an earlier registration that reached the server after the RM
// registered again (its client has closed it or is about to) must neither
// replace the new registration's stream nor, when it ends, pause the RM.
// Guarded by Server.mu.
func (ss *session) ownsEpoch(stream string, epoch uint64) error {
	if epoch == 0 || epoch == ss.epoch {
		return nil
	}
	return status.Errorf(codes.Aborted, "%s of rm %s was opened for registration %d, and registration %d is current: reopen it",
		stream, ss.entry.id, epoch, ss.epoch)
}
