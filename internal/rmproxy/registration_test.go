package rmproxy

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
)

func register(s *Service, id string) error {
	_, err := s.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: id, Config: cfg}, newRecorder())
	return err
}

// TestRMIDValidated is issue #18 item 5: an rmID that cannot be shown or
// addressed safely is refused with a reason.
func TestRMIDValidated(t *testing.T) {
	s := NewManual(clock.NewVirtual(time.Unix(1000, 0)))
	defer s.Stop()
	for _, id := range []string{"", " ", "rm 1", "rm/1", "[rm]default", "../x", "rm\x00", "-rm", "ärm", strings.Repeat("r", 129)} {
		err := register(s, id)
		if err == nil {
			t.Errorf("rmID %q accepted", id)
			continue
		}
		if !strings.Contains(err.Error(), "rmID") {
			t.Errorf("rmID %q: reason %q does not say what is wrong", id, err)
		}
	}
	for _, id := range []string{"mycluster", "rm-1", "Rm_1.x", "cluster:eu-west-1", strings.Repeat("r", 128)} {
		if err := register(s, id); err != nil {
			t.Errorf("rmID %q refused: %v", id, err)
		}
	}
}

// TestRMsBounded is issue #18 item 5: the number of registered RMs is
// bounded (a new ID past the limit is refused, registering again is not),
// and an allow-list limits which IDs may register.
func TestRMsBounded(t *testing.T) {
	s := NewManual(clock.NewVirtual(time.Unix(1000, 0)))
	defer s.Stop()
	if got := s.RMLimit(); got != DefaultMaxRMs {
		t.Errorf("default limit %d, want %d", got, DefaultMaxRMs)
	}
	for i := range DefaultMaxRMs {
		if err := register(s, "rm"+strings.Repeat("x", i)); err != nil {
			t.Fatalf("RM %d of %d refused: %v", i+1, DefaultMaxRMs, err)
		}
	}
	if err := register(s, "one-more"); !errors.Is(err, ErrTooManyRMs) {
		t.Fatalf("RM past the default limit: %v, want ErrTooManyRMs", err)
	}
	s.SetRMLimit(DefaultMaxRMs + 1)
	if err := register(s, "one-more"); err != nil {
		t.Fatalf("RM within the raised limit: %v", err)
	}
	if err := register(s, "rm"); err != nil {
		t.Fatalf("registering again at the limit: %v", err)
	}
	if err := register(s, "two-more"); !errors.Is(err, ErrTooManyRMs) || !strings.Contains(err.Error(), "101") {
		t.Fatalf("RM past the raised limit: %v, want ErrTooManyRMs naming 101", err)
	}
	if n := len(s.eng.RMs()); n != DefaultMaxRMs+1 {
		t.Fatalf("%d RMs registered, want %d", n, DefaultMaxRMs+1)
	}

	a := NewManual(clock.NewVirtual(time.Unix(1000, 0)))
	defer a.Stop()
	a.SetAllowedRMs([]string{"prod", "staging"})
	for id, ok := range map[string]bool{"prod": true, "staging": true, "intruder": false, "Prod": false} {
		err := register(a, id)
		if ok && err != nil {
			t.Errorf("allowed %q refused: %v", id, err)
		}
		if !ok && !errors.Is(err, ErrRMNotAllowed) {
			t.Errorf("%q not on the allow-list: %v, want ErrRMNotAllowed", id, err)
		}
	}
	if ids := a.eng.RMs(); len(ids) != 2 {
		t.Errorf("registered %v, want prod and staging", ids)
	}
}
