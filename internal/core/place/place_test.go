package place

import (
	"errors"
	"strings"
	"testing"

	"github.com/paddock-sched/paddock/internal/config"
	"github.com/paddock-sched/paddock/internal/core/queue"
	"github.com/paddock-sched/paddock/internal/resource"
)

const tree = `
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: default
            submitacl: "*"
          - name: prod
            submitacl: " ops"
          - name: users
            parent: true
            submitacl: "*"
          - name: teams
            parent: true
            submitacl: " devs"
            queues:
              - name: alpha
                submitacl: "*"
          - name: old
            submitacl: "*"
`

func setup(t *testing.T, rulesYAML string) (*Rules, *queue.Tree) {
	t.Helper()
	c, err := config.Parse([]byte(tree))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := queue.Build(resource.NewRegistry(), &c.Partitions[0])
	if err != nil {
		t.Fatal(err)
	}
	var rules []config.PlacementRule
	if rulesYAML != "" {
		full := strings.Replace(tree, "    queues:\n      - name: root", "    placementrules:\n"+rulesYAML+"    queues:\n      - name: root", 1)
		c2, err := config.Parse([]byte(full))
		if err != nil {
			t.Fatalf("rules: %v", err)
		}
		rules = c2.Partitions[0].PlacementRules
	}
	rs, err := Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return rs, tr
}

func TestPlace(t *testing.T) {
	cases := []struct {
		name, rules string
		req         Request
		want        Result
		err         string
	}{
		{name: "implicit provided", req: Request{User: "u", Queue: "old"}, want: Result{Queue: "root.old", Rule: "provided"}},
		{name: "provided qualified", req: Request{User: "u", Queue: "root.old"}, want: Result{Queue: "root.old", Rule: "provided"}},
		{name: "provided case folded", req: Request{User: "u", Queue: "ROOT.Old"}, want: Result{Queue: "root.old", Rule: "provided"}},
		{name: "provided missing, no create: default", req: Request{User: "u", Queue: "nope"}, want: Result{Queue: "root.default", Rule: "default"}},
		{name: "provided to a parent: default", req: Request{User: "u", Queue: "users"}, want: Result{Queue: "root.default", Rule: "default"}},
		{name: "ACL denies: default", req: Request{User: "u", Queue: "prod"}, want: Result{Queue: "root.default", Rule: "default"}},
		{name: "ACL allows by group", req: Request{User: "u", Groups: []string{"ops"}, Queue: "prod"}, want: Result{Queue: "root.prod", Rule: "provided"}},
		{name: "forced goes to recovery", req: Request{User: "u", Queue: "nope", Forced: true}, want: Result{Queue: RecoveryPath, Create: true, Rule: "recovery"}},
		{name: "user rule with create", rules: "      - name: user\n        create: true\n        parent: {name: fixed, value: root.users}\n",
			req: Request{User: "john.doe"}, want: Result{Queue: "root.users.john_dot_doe", Create: true, Rule: "user"}},
		{name: "user rule without create falls through", rules: "      - name: user\n        parent: {name: fixed, value: root.users}\n",
			req: Request{User: "bob"}, want: Result{Queue: "root.default", Rule: "default"}},
		{name: "fixed", rules: "      - name: fixed\n        value: old\n", req: Request{User: "u"}, want: Result{Queue: "root.old", Rule: "fixed"}},
		{name: "tag rule", rules: "      - name: tag\n        value: namespace\n        create: true\n        parent: {name: fixed, value: root.users}\n",
			req: Request{User: "u", Tags: map[string]string{"Namespace": "Web"}}, want: Result{Queue: "root.users.web", Create: true, Rule: "tag"}},
		{name: "create under root needs root's ACL", rules: "      - name: tag\n        value: namespace\n        create: true\n",
			req: Request{User: "u", Tags: map[string]string{"namespace": "web"}}, want: Result{Queue: "root.default", Rule: "default"}},
		{name: "tag absent falls through", rules: "      - name: tag\n        value: namespace\n        create: true\n      - name: fixed\n        value: old\n",
			req: Request{User: "u"}, want: Result{Queue: "root.old", Rule: "fixed"}},
		{name: "tag value fully qualified", rules: "      - name: tag\n        value: queue\n",
			req: Request{User: "u", Tags: map[string]string{"queue": "root.teams.alpha"}}, want: Result{Queue: "root.teams.alpha", Rule: "tag"}},
		{name: "tag with parent tag", rules: "      - name: tag\n        value: namespace\n        create: true\n        parent: {name: tag, value: namespace.parentqueue}\n",
			req: Request{User: "u", Groups: []string{"devs"}, Tags: map[string]string{"namespace": "ns1", "namespace.parentqueue": "root.teams"}}, want: Result{Queue: "root.teams.ns1", Create: true, Rule: "tag"}},
		{name: "create needs parent ACL", rules: "      - name: tag\n        value: namespace\n        create: true\n        parent: {name: fixed, value: root.teams}\n",
			req: Request{User: "u", Tags: map[string]string{"namespace": "ns1"}}, want: Result{Queue: "root.default", Rule: "default"}},
		{name: "parent rule resolving to a leaf aborts", rules: "      - name: user\n        create: true\n        parent: {name: tag, value: parent}\n",
			req: Request{User: "u", Tags: map[string]string{"parent": "root.old"}}, err: "leaf queue root.old"},
		{name: "allow filter by user", rules: "      - name: fixed\n        value: old\n        filter: {users: [alice]}\n      - name: provided\n",
			req: Request{User: "bob", Queue: "default"}, want: Result{Queue: "root.default", Rule: "provided"}},
		{name: "allow filter matches", rules: "      - name: fixed\n        value: old\n        filter: {users: [alice]}\n",
			req: Request{User: "alice"}, want: Result{Queue: "root.old", Rule: "fixed"}},
		{name: "deny filter", rules: "      - name: fixed\n        value: old\n        filter: {type: deny, users: [alice]}\n      - name: provided\n",
			req: Request{User: "alice", Queue: "default"}, want: Result{Queue: "root.default", Rule: "provided"}},
		{name: "regexp filter", rules: "      - name: fixed\n        value: old\n        filter: {users: [\"^svc-.*\"]}\n",
			req: Request{User: "svc-web"}, want: Result{Queue: "root.old", Rule: "fixed"}},
		{name: "group filter list", rules: "      - name: fixed\n        value: old\n        filter: {groups: [a, b]}\n",
			req: Request{User: "x", Groups: []string{"b"}}, want: Result{Queue: "root.old", Rule: "fixed"}},
		{name: "deny with empty lists denies all", rules: "      - name: fixed\n        value: old\n        filter: {type: deny}\n      - name: provided\n",
			req: Request{User: "x", Queue: "default"}, want: Result{Queue: "root.default", Rule: "provided"}},
		{name: "invalid generated name does not match", rules: "      - name: user\n        create: true\n",
			req: Request{User: "bad name!"}, want: Result{Queue: "root.default", Rule: "default"}},
		{name: "rules cannot target recovery", rules: "      - name: provided\n        create: true\n",
			req: Request{User: "u", Queue: "root.@recovery@"}, want: Result{Queue: "root.default", Rule: "default"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs, tr := setup(t, c.rules)
			got, err := rs.Place(c.req, tr)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestNoMatchWithoutDefault(t *testing.T) {
	c, _ := config.Parse([]byte("partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n          - name: a\n"))
	tr, _ := queue.Build(resource.NewRegistry(), &c.Partitions[0])
	rs, _ := Compile(nil)
	if _, err := rs.Place(Request{User: "u", Queue: "zz"}, tr); !errors.Is(err, ErrNoMatch) {
		t.Fatalf("err %v, want ErrNoMatch", err)
	}
}

func TestCompileRejectsBadRules(t *testing.T) {
	for _, r := range [][]config.PlacementRule{
		{{Name: "recovery"}},
		{{Name: "bogus"}},
		{{Name: "tag"}},
		{{Name: "fixed"}},
		{{Name: "provided", Filter: config.Filter{Users: []string{"(unclosed"}}}},
		{{Name: "user", Parent: &config.PlacementRule{Name: "nope"}}},
	} {
		if _, err := Compile(r); err == nil {
			t.Errorf("%+v compiled", r)
		}
	}
	rs, _ := Compile(nil)
	d := rs.Describe()
	if len(d) != 2 || d[0].Name != "provided" || d[1].Name != "recovery" {
		t.Fatalf("Describe = %+v", d)
	}
}
