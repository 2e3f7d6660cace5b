package partition

import (
	"os/user"
	"slices"
	"testing"

	"github.com/paddock-sched/paddock/internal/config"
)

func TestGroupsOf(t *testing.T) {
	none := &Partition{cfg: &config.PartitionConfig{}}
	if got := none.groupsOf("bob"); !slices.Equal(got, []string{"bob"}) {
		t.Errorf("no resolver: %v, want [bob]", got)
	}
	os := &Partition{cfg: &config.PartitionConfig{UserGroupResolver: config.UserGroupResolverConfig{Type: config.ResolverOS}}}
	if got := os.groupsOf("no-such-user-xyz"); !slices.Equal(got, []string{"no-such-user-xyz"}) {
		t.Errorf("os, unknown user: %v, want the user name", got)
	}
	u, err := user.Current()
	if err != nil {
		t.Skip("no current user")
	}
	want := u.Gid
	if g, err := user.LookupGroupId(u.Gid); err == nil {
		want = g.Name
	}
	if got := os.groupsOf(u.Username); len(got) == 0 || got[0] != want {
		t.Errorf("os, %s: %v, want the primary group %s first", u.Username, got, want)
	}
}
