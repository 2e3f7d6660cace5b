package rmproxy

import "time"

// SetReservations turns reservations on or off in every partition, now and
// in those registrations and reloads make later (the reference's
// DISABLE_RESERVATION). Turning them off drops existing reservations.
func (s *Service) SetReservations(on bool) error {
	return s.call(func(time.Time) error {
		s.noReserve = !on
		s.applyReservations()
		return nil
	})
}

// applyReservations brings every partition in line with the setting.
// Owner only.
func (s *Service) applyReservations() {
	for _, id := range s.eng.RMs() {
		rm, _ := s.eng.RM(id)
		for _, p := range rm.Partitions() {
			p.SetReservations(!s.noReserve)
		}
	}
}

// ReservationsOff reports whether reservations are turned off.
func (s *Service) ReservationsOff() bool {
	var off bool
	_ = s.call(func(time.Time) error { off = s.noReserve; return nil })
	return off
}
