package config

import (
	"strings"
	"testing"
)

func TestParseACL(t *testing.T) {
	type access struct {
		user   string
		groups []string
		want   bool
	}
	cases := []struct {
		acl     string
		wantErr string
		checks  []access
	}{
		{acl: "", checks: []access{{"alice", []string{"admins"}, false}, {"", nil, false}}},
		{acl: " ", checks: []access{{"alice", []string{"admins"}, false}}},
		{acl: "*", checks: []access{{"anyone", nil, true}, {"", nil, true}}},
		{acl: "alice", checks: []access{{"alice", nil, true}, {"bob", []string{"alice"}, false}}},
		{acl: "alice,bob", checks: []access{{"bob", nil, true}, {"carol", nil, false}}},
		{acl: "alice admins,ops", checks: []access{{"alice", nil, true}, {"eve", []string{"x", "ops"}, true}, {"admins", nil, false}}},
		{acl: " admins", checks: []access{{"admins", nil, false}, {"eve", []string{"admins"}, true}}},
		{acl: "alice ", checks: []access{{"alice", nil, true}, {"eve", []string{"alice"}, false}}},
		{acl: "alice,* ", checks: []access{{"anyone", nil, true}}},
		{acl: " devs,*", checks: []access{{"anyone", nil, true}}},
		// Invalid names are silently dropped; ACL regexps are narrower than
		// limit regexps (no ':' '#' '/' in users, no '.' in groups).
		{acl: "9bad,oidc:user,ok.user@corp,svc$ team.a,_grp", checks: []access{
			{"9bad", nil, false}, {"oidc:user", nil, false}, {"ok.user@corp", nil, true}, {"svc$", nil, true},
			{"x", []string{"team.a"}, false}, {"x", []string{"_grp"}, true},
		}},
		{acl: "Alice", checks: []access{{"alice", nil, false}, {"Alice", nil, true}}},
		{acl: "alice bob carol", wantErr: "more than one space"},
		{acl: "  admins", wantErr: "more than one space"},
		{acl: "a b ", wantErr: "more than one space"},
	}
	for _, tc := range cases {
		a, err := ParseACL(tc.acl)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseACL(%q) error = %v, want %q", tc.acl, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseACL(%q): %v", tc.acl, err)
			continue
		}
		for _, c := range tc.checks {
			if got := a.Allows(c.user, c.groups); got != c.want {
				t.Errorf("ParseACL(%q).Allows(%q, %v) = %v, want %v", tc.acl, c.user, c.groups, got, c.want)
			}
		}
	}
}

func TestACLAccessors(t *testing.T) {
	a, err := ParseACL("bob,alice,9x ops,dev")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.Users(), ","); got != "alice,bob" {
		t.Errorf("Users = %q", got)
	}
	if got := strings.Join(a.Groups(), ","); got != "dev,ops" {
		t.Errorf("Groups = %q", got)
	}
	if a.AllowsAll() {
		t.Errorf("AllowsAll true for a list")
	}
	var zero ACL
	if zero.Allows("x", []string{"y"}) || zero.Users() != nil {
		t.Errorf("zero ACL must deny all")
	}
}
