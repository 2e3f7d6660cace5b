package serve

import (
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// Default REST limits (RESTLimits): generous for real clients, so that no
// HTTP client can hold the scheduler's file descriptors (and with them the
// RMs' gRPC port) for long.
const (
	// DefaultRESTReadTimeout bounds reading one request, body included.
	DefaultRESTReadTimeout = 30 * time.Second
	// DefaultRESTWriteTimeout bounds a request from the end of its headers
	// to the end of its response (the event stream is exempt: it bounds
	// each record's write instead, events.Options.WriteTimeout).
	DefaultRESTWriteTimeout = 60 * time.Second
	// DefaultRESTIdleTimeout closes a keep-alive connection idle this long.
	DefaultRESTIdleTimeout = 30 * time.Second
	// DefaultRESTMaxConns is the number of REST connections open at once;
	// further connections wait in the listen backlog until one closes.
	DefaultRESTMaxConns = 1024
)

// restHeaderTimeout bounds reading a request's headers.
const restHeaderTimeout = 10 * time.Second

// RESTLimits bound the REST listener. A zero field takes its default, a
// negative one disables the limit.
type RESTLimits struct {
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	MaxConns                               int
}

// orDefault resolves a limit: the default for 0, none (0) when negative.
func orDefault[T time.Duration | int](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// resolved returns the limits with defaults applied and disabled limits 0.
func (l RESTLimits) resolved() RESTLimits {
	return RESTLimits{
		ReadTimeout:  orDefault(l.ReadTimeout, DefaultRESTReadTimeout),
		WriteTimeout: orDefault(l.WriteTimeout, DefaultRESTWriteTimeout),
		IdleTimeout:  orDefault(l.IdleTimeout, DefaultRESTIdleTimeout),
		MaxConns:     orDefault(l.MaxConns, DefaultRESTMaxConns),
	}
}

// apply sets the timeouts on srv and returns lis limited to MaxConns.
func (l RESTLimits) apply(srv *http.Server, lis net.Listener) net.Listener {
	l = l.resolved()
	srv.ReadHeaderTimeout = restHeaderTimeout
	if l.ReadTimeout > 0 {
		srv.ReadHeaderTimeout = min(restHeaderTimeout, l.ReadTimeout)
	}
	srv.ReadTimeout, srv.WriteTimeout = l.ReadTimeout, l.WriteTimeout
	srv.IdleTimeout = l.IdleTimeout
	if l.IdleTimeout == 0 {
		srv.IdleTimeout = -1 // 0 would fall back to ReadTimeout
	}
	if l.MaxConns > 0 {
		return netutil.LimitListener(lis, l.MaxConns)
	}
	return lis
}
