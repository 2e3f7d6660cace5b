package client

import (
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/grpcserver"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

// An RM that asks for callbacks from a server offering only the SI
// Scheduler service fails to register, with the reason; without the
// option it registers as before.
func TestCallbacksNeedTheExtension(t *testing.T) {
	svc := rmproxy.New(clock.Real{})
	t.Cleanup(svc.Stop)
	gs := grpc.NewServer()
	si.RegisterSchedulerServer(gs, grpcserver.New(svc, grpcserver.Options{}))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)

	for _, tc := range []struct {
		callbacks Callback
		want      string
	}{{Predicates | SendEvent, "does not relay callbacks [Predicates SendEvent]"}, {0, ""}} {
		c, err := Dial(bounded(t, 10*time.Second), lis.Addr().String(), Options{Callbacks: tc.callbacks})
		if err != nil {
			t.Fatal(err)
		}
		err = c.Register(bounded(t, 10*time.Second), &si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, &nodeRecorder{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("plain registration: %v", err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Unimplemented")):
			t.Errorf("registration asking for callbacks: %v, want %q (Unimplemented)", err, tc.want)
		}
		c.Close()
	}
}
