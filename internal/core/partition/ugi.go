package partition

import (
	"os/user"

	"github.com/paddock-sched/paddock/internal/config"
)

// groupsOf resolves the groups of a user the RM sent without any, by the
// partition's usergroupresolver (reference §2.23): none (the default) makes
// the user name the only group; os reads the host's user database (the
// primary group first, numeric IDs where a group has no name) and falls
// back to the user name for an unknown user; ldap and test are not
// implemented and fall back to the user name too.
func (p *Partition) groupsOf(name string) []string {
	if p.cfg != nil && p.cfg.UserGroupResolver.Type == config.ResolverOS {
		if gs := osGroups(name); len(gs) > 0 {
			return gs
		}
	}
	return []string{name}
}

func osGroups(name string) []string {
	u, err := user.Lookup(name)
	if err != nil {
		return nil
	}
	ids, err := u.GroupIds()
	if err != nil {
		ids = nil
	}
	out := []string{groupName(u.Gid)}
	for _, id := range ids {
		if id != u.Gid {
			out = append(out, groupName(id))
		}
	}
	return out
}

func groupName(gid string) string {
	if g, err := user.LookupGroupId(gid); err == nil {
		return g.Name
	}
	return gid
}
