package place

import (
	"testing"

	"github.com/paddock-sched/paddock/internal/config"
)

// A single filter entry with regex specials matches anywhere in the name,
// as the reference's filter does (regexp.MatchString); ^ and $ anchor it.
func TestFilterRegexpUnanchored(t *testing.T) {
	f, err := compileFilter(config.Filter{Type: "allow", Users: []string{"admin|ops"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"admin", "cluster-admin", "devops"} {
		if !f.allows(u, nil) {
			t.Errorf("user %s not matched by admin|ops", u)
		}
	}
	if f.allows("alice", nil) {
		t.Errorf("alice matched by admin|ops")
	}
	g, err := compileFilter(config.Filter{Type: "allow", Groups: []string{"^(admin|ops)$"}})
	if err != nil {
		t.Fatal(err)
	}
	if g.allows("u", []string{"cluster-admin"}) || !g.allows("u", []string{"ops"}) {
		t.Errorf("an anchored group expression matched a longer name, or missed the exact one")
	}
}
