package rmproxy

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
)

// remoteRM is the callback of a remote RM whose connection the test
// opens and closes.
type remoteRM struct {
	*recorder
	connected bool
	expired   int
}

func (r *remoteRM) Connected() bool { return r.connected }
func (r *remoteRM) Expired()        { r.expired++ }

// TestIdleRegistrationsExpire is issue 38 item 7: registrations of remote
// RMs with no connection, no nodes and no applications expire after the
// expiry time (60 s by default), so that a client that filled the RM limit
// and went away does not lock new RMs out; a connected RM, an RM holding a
// node and an in-process RM stay.
func TestIdleRegistrationsExpire(t *testing.T) {
	clk := clock.NewVirtual(time.Unix(1000, 0))
	s := NewManual(clk)
	defer s.Stop()
	s.SetRMLimit(5)
	reg := func(id string, cb *remoteRM) error {
		_, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: id, Config: cfg}, cb)
		return err
	}
	junk1, junk2 := &remoteRM{recorder: newRecorder()}, &remoteRM{recorder: newRecorder()}
	live := &remoteRM{recorder: newRecorder(), connected: true}
	holder := &remoteRM{recorder: newRecorder()}
	for id, cb := range map[string]*remoteRM{"junk-1": junk1, "junk-2": junk2, "live": live, "holder": holder} {
		if err := reg(id, cb); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "in-process", Config: cfg}, newRecorder()); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateNode(&si.NodeRequest{RmID: "holder", Nodes: []*si.NodeInfo{{
		NodeID: "n1", Action: si.NodeInfo_CREATE, SchedulableResource: res(4000, 8<<30),
		Attributes: map[string]string{"si/node-partition": "default"},
	}}}); err != nil {
		t.Fatal(err)
	}
	s.Cycle()
	if len(holder.accNodes) != 1 {
		t.Fatalf("holder's node not accepted")
	}

	clk.Advance(DefaultRMExpiry - time.Second)
	if err := register(s, "new"); !errors.Is(err, ErrTooManyRMs) {
		t.Fatalf("new RM before the junk expired: %v, want ErrTooManyRMs", err)
	}
	clk.Advance(time.Second)
	if err := register(s, "new"); err != nil {
		t.Fatalf("new RM after the junk expired: %v", err)
	}
	if got, want := s.eng.RMs(), []string{"holder", "in-process", "live", "new"}; !slices.Equal(got, want) {
		t.Errorf("registered %v, want %v", got, want)
	}
	if junk1.expired != 1 || junk2.expired != 1 || live.expired != 0 || holder.expired != 0 {
		t.Errorf("expired calls: junk %d %d, live %d, holder %d; want 1 1 0 0", junk1.expired, junk2.expired, live.expired, holder.expired)
	}
	// an expired RM is forgotten: its requests are refused until it
	// registers again, which it may
	if err := s.UpdateNode(&si.NodeRequest{RmID: "junk-1"}); err == nil {
		t.Errorf("a request of an expired RM was taken")
	}

	// the connection lost: the live RM expires after the expiry time
	// from the first look that found it idle; never with expiry off
	live.connected = false
	clk.Advance(time.Second)
	s.Cycle()
	s.SetRMExpiry(-1)
	clk.Advance(time.Hour)
	if err := register(s, "other"); err != nil {
		t.Fatal(err)
	}
	if err := register(s, "later"); !errors.Is(err, ErrTooManyRMs) {
		t.Fatalf("with expiry off: %v, want ErrTooManyRMs", err)
	}
	s.SetRMExpiry(time.Minute)
	if err := register(s, "later"); err != nil {
		t.Fatalf("with expiry on again: %v", err)
	}
	if live.expired != 1 || holder.expired != 0 {
		t.Errorf("live expired %d times, holder %d; want 1 and 0", live.expired, holder.expired)
	}
}
