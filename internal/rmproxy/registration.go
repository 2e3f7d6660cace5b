package rmproxy

import "time"

// SetTypeLimit sets how many resource types, vcore and memory included,
// each resource manager registered from now on may use (2 to
// resource.MaxTypes, 0 for resource.MaxTypes). Every RM has its own
// registry of type names, so one RM's types never count against another's;
// a node, application or allocation that would take an RM past its limit is
// rejected with a reason and changes nothing.
func (s *Service) SetTypeLimit(n int) {
	_ = s.call(func(time.Time) error { s.eng.SetTypeLimit(n); return nil })
}
