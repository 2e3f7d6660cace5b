package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseValid covers accepted configurations and the values
// normalisation and defaults give them.
func TestParseValid(t *testing.T) {
	cases := []struct {
		name  string
		yaml  string
		check func(t *testing.T, c *SchedulerConfig)
	}{
		{"minimal root gets partition defaults", partition("name: default\nqueues:\n- name: root"),
			func(t *testing.T, c *SchedulerConfig) {
				p := c.Partitions[0]
				if !p.Preemption.Enabled || p.Preemption.QuotaPreemptionEnabled {
					t.Errorf("preemption = %+v, want enabled, quota off", p.Preemption)
				}
				if p.NodeSortPolicy.Type != NodeSortFair {
					t.Errorf("node sort type = %q", p.NodeSortPolicy.Type)
				}
				if d := cmp.Diff(map[string]float64{"vcore": 1, "memory": 1}, p.NodeSortPolicy.ResourceWeights); d != "" {
					t.Errorf("weights (-want +got):\n%s", d)
				}
				root := &p.Queues[0]
				if !root.Parent || root.Path != "root" || root.IsLeaf() {
					t.Errorf("root = %+v, want a parent with path root", root)
				}
				if root.Submit.Allows("anyone", nil) {
					t.Errorf("root without submitacl must deny")
				}
				if p.PlacementRules != nil || p.UserGroupResolver.Type != ResolverNone {
					t.Errorf("unexpected rules or resolver: %+v %+v", p.PlacementRules, p.UserGroupResolver)
				}
			}},
		{"partition name DEFAULT normalised", partition("name: DeFault\nqueues:\n- name: root"),
			func(t *testing.T, c *SchedulerConfig) {
				if c.Partitions[0].Name != "default" {
					t.Errorf("name = %q", c.Partitions[0].Name)
				}
			}},
		{"empty partition name normalised", "partitions:\n  - queues: [{name: root}]\n",
			func(t *testing.T, c *SchedulerConfig) {
				if c.Partitions[0].Name != "default" {
					t.Errorf("name = %q", c.Partitions[0].Name)
				}
			}},
		{"other partition names keep their case", "partitions:\n  - name: GPU\n    queues: [{name: root}]\n  - name: default\n    queues: [{name: root}]\n",
			func(t *testing.T, c *SchedulerConfig) {
				if c.Partitions[0].Name != "GPU" || len(c.Partitions) != 2 {
					t.Errorf("partitions = %q, %d", c.Partitions[0].Name, len(c.Partitions))
				}
			}},
		{"root inserted above several top-level queues", partition("name: default\nqueues:\n- name: Alpha\n- name: beta"),
			func(t *testing.T, c *SchedulerConfig) {
				qs := c.Partitions[0].Queues
				if len(qs) != 1 || qs[0].Name != "root" || len(qs[0].Queues) != 2 {
					t.Fatalf("queues = %+v", qs)
				}
				if qs[0].Queues[0].Name != "alpha" || qs[0].Queues[0].Path != "root.alpha" || !qs[0].Queues[0].IsLeaf() {
					t.Errorf("first child = %q %q", qs[0].Queues[0].Name, qs[0].Queues[0].Path)
				}
			}},
		{"root inserted above a single non-root queue", partition("name: default\nqueues:\n- name: tenants\n  queues:\n  - name: a"),
			func(t *testing.T, c *SchedulerConfig) {
				queue(t, c, "root.tenants.a")
				if queue(t, c, "root.tenants").IsLeaf() {
					t.Errorf("queue with children must be a parent")
				}
			}},
		{"Root in any case is the root", partition("name: default\nqueues:\n- name: ROOT\n  queues:\n  - name: a"),
			func(t *testing.T, c *SchedulerConfig) {
				if len(c.Partitions[0].Queues[0].Queues) != 1 {
					t.Errorf("root inserted twice")
				}
				queue(t, c, "root.a")
			}},
		{"queue names with every allowed special character", underRoot("- name: 'Team_1:dev#x/y@z-w'"),
			func(t *testing.T, c *SchedulerConfig) {
				queue(t, c, "root.team_1:dev#x/y@z-w")
			}},
		{"resources parsed, zero in max kept apart from absent", underRoot(`- name: a
  resources:
    guaranteed: {vcore: 500m, memory: 1Gi}
    max: {vcore: 2, memory: 2G, nvidia.com/gpu: 0}`),
			func(t *testing.T, c *SchedulerConfig) {
				a := queue(t, c, "root.a")
				if d := cmp.Diff(Quantities{"vcore": 500, "memory": 1 << 30}, a.Guaranteed); d != "" {
					t.Errorf("guaranteed (-want +got):\n%s", d)
				}
				if d := cmp.Diff(Quantities{"vcore": 2000, "memory": 2e9, "nvidia.com/gpu": 0}, a.Max); d != "" {
					t.Errorf("max (-want +got):\n%s", d)
				}
				if root := queue(t, c, "root"); root.Max != nil || root.Guaranteed != nil {
					t.Errorf("root resources = %v %v, want nil", root.Max, root.Guaranteed)
				}
			}},
		{"children's guaranteed may equal the parent's", underRoot(`- name: a
  resources:
    guaranteed: {vcore: 10}
    max: {vcore: 10}
  queues:
  - name: b
    resources:
      guaranteed: {vcore: 4}
  - name: c
    resources:
      guaranteed: {vcore: 6}
      max: {vcore: 10}`),
			func(t *testing.T, c *SchedulerConfig) {
				if queue(t, c, "root.a.c").Max["vcore"] != 10000 {
					t.Errorf("c max = %v", queue(t, c, "root.a.c").Max)
				}
			}},
		{"maxapplications: parent bounds children, 0 is unlimited", underRoot(`- name: a
  maxapplications: 10
  queues:
  - name: b
    maxapplications: 10
- name: c
  maxapplications: 0`),
			func(t *testing.T, c *SchedulerConfig) {
				if queue(t, c, "root.a.b").MaxApplications != 10 || queue(t, c, "root.c").MaxApplications != 0 {
					t.Errorf("maxapplications not kept")
				}
			}},
		{"ACLs parsed", underRoot("- name: a\n  submitacl: 'alice,bob admins'\n  adminacl: ' ops'"),
			func(t *testing.T, c *SchedulerConfig) {
				a := queue(t, c, "root.a")
				if !a.Submit.Allows("bob", nil) || !a.Submit.Allows("eve", []string{"admins"}) || a.Submit.Allows("eve", []string{"ops"}) {
					t.Errorf("submit ACL wrong: %v %v", a.Submit.Users(), a.Submit.Groups())
				}
				if !a.Admin.Allows("x", []string{"ops"}) || a.Admin.Allows("ops", nil) {
					t.Errorf("admin ACL wrong: %v %v", a.Admin.Users(), a.Admin.Groups())
				}
			}},
		{"properties typed and inherited per §1.5", underRoot(`- name: a
  properties:
    application.sort.policy: FAIR
    application.sort.priority: disabled
    priority.policy: fence
    priority.offset: "-5"
    preemption.policy: fence
    preemption.delay: 1m
    quota.preemption.delay: 10m
    application.unschedasks.backoff: "3"
  queues:
  - name: b
  - name: c
    properties:
      priority.offset: "7"
      preemption.delay: 5s`),
			func(t *testing.T, c *SchedulerConfig) {
				a := queue(t, c, "root.a").Effective
				wantA := Properties{SortPolicy: "fair", SortPriority: false, PriorityPolicy: "fence", PriorityOffset: -5,
					PreemptionPolicy: "fence", PreemptionDelay: time.Minute, QuotaPreemptionDelay: 10 * time.Minute,
					UnschedAsksBackoff: 3, UnschedAsksBackoffDelay: 30 * time.Second, FairShareWeight: 1}
				if d := cmp.Diff(wantA, a); d != "" {
					t.Errorf("root.a (-want +got):\n%s", d)
				}
				wantB := wantA
				wantB.PriorityPolicy, wantB.PriorityOffset, wantB.PreemptionPolicy = "default", 0, "default"
				if d := cmp.Diff(wantB, queue(t, c, "root.a.b").Effective); d != "" {
					t.Errorf("root.a.b (-want +got):\n%s", d)
				}
				wantC := wantB
				wantC.PriorityOffset, wantC.PreemptionDelay = 7, 5*time.Second
				if d := cmp.Diff(wantC, queue(t, c, "root.a.c").Effective); d != "" {
					t.Errorf("root.a.c (-want +got):\n%s", d)
				}
			}},
		{"preemption.policy disabled propagates", underRoot("- name: a\n  properties:\n    preemption.policy: disabled\n  queues:\n  - name: b\n    queues:\n    - name: c"),
			func(t *testing.T, c *SchedulerConfig) {
				if p := queue(t, c, "root.a.b.c").Effective.PreemptionPolicy; p != PolicyDisabled {
					t.Errorf("root.a.b.c preemption policy = %q", p)
				}
			}},
		{"stateaware accepted as fifo with a warning, unknown property warned", underRoot("- name: a\n  properties:\n    application.sort.policy: stateaware\n    foo.bar: x"),
			func(t *testing.T, c *SchedulerConfig) {
				if p := queue(t, c, "root.a").Effective.SortPolicy; p != SortFIFO {
					t.Errorf("sort policy = %q", p)
				}
				want := []Problem{
					{Partition: "default", Queue: "root.a", Key: "properties.application.sort.policy", Message: `"stateaware" is deprecated and behaves as fifo`},
					{Partition: "default", Queue: "root.a", Key: "properties.foo.bar", Message: "unknown property is ignored"},
				}
				if d := cmp.Diff(want, c.Warnings); d != "" {
					t.Errorf("warnings (-want +got):\n%s", d)
				}
			}},
		{"child template inherited by parents without one, zeros dropped", partition(`name: default
queues:
- name: root
  childtemplate:
    maxapplications: 4
    properties:
      application.sort.policy: fair
    resources:
      guaranteed: {vcore: 1}
      max: {vcore: 2, memory: 0}
  queues:
  - name: a
    parent: true
  - name: b
    parent: true
    childtemplate:
      maxapplications: 1`),
			func(t *testing.T, c *SchedulerConfig) {
				root, a, b := queue(t, c, "root"), queue(t, c, "root.a"), queue(t, c, "root.b")
				if a.Template != &root.ChildTemplate || b.Template != &b.ChildTemplate {
					t.Fatalf("templates: a=%p b=%p root=%p", a.Template, b.Template, &root.ChildTemplate)
				}
				if d := cmp.Diff(Quantities{"vcore": 2000}, a.Template.Max); d != "" {
					t.Errorf("template max (-want +got):\n%s", d)
				}
				if a.Template.Effective.SortPolicy != SortFair || a.Template.MaxApplications != 4 {
					t.Errorf("template = %+v", a.Template)
				}
				if len(c.Warnings) != 1 || c.Warnings[0].Key != "childtemplate.resources.max" {
					t.Errorf("warnings = %v", c.Warnings)
				}
			}},
		{"child template on a leaf is a warning", underRoot("- name: a\n  childtemplate:\n    maxapplications: 3"),
			func(t *testing.T, c *SchedulerConfig) {
				if len(c.Warnings) != 1 || c.Warnings[0].Queue != "root.a" || c.Warnings[0].Key != "childtemplate" {
					t.Errorf("warnings = %v", c.Warnings)
				}
			}},
		{"partition limits copied to root", partition(`name: default
limits:
- limit: per user
  users: ['*']
  maxapplications: 5
  maxresources: {memory: 1Gi}
queues:
- name: root
  queues:
  - name: a`),
			func(t *testing.T, c *SchedulerConfig) {
				root := queue(t, c, "root")
				if len(root.Limits) != 1 || root.Limits[0].Users[0] != "*" || root.Limits[0].MaxApplications != 5 {
					t.Fatalf("root limits = %+v", root.Limits)
				}
				if d := cmp.Diff(Quantities{"memory": 1 << 30}, root.Limits[0].Max); d != "" {
					t.Errorf("limit max (-want +got):\n%s", d)
				}
			}},
		{"identical partition and root limits accepted", partition(`name: default
limits:
- users: [alice]
  maxapplications: 1
queues:
- name: root
  limits:
  - users: [alice]
    maxapplications: 1`),
			func(t *testing.T, c *SchedulerConfig) {
				if len(queue(t, c, "root").Limits) != 1 {
					t.Errorf("root limits = %+v", queue(t, c, "root").Limits)
				}
			}},
		{"limit hierarchy within ancestor limits", underRoot(`- name: a
  resources:
    max: {vcore: 100, memory: 100Gi}
  maxapplications: 50
  limits:
  - users: [alice, 'svc.bot@corp', 'oidc:user#1/x']
    maxresources: {vcore: 10}
  - users: ['*']
    maxapplications: 5
  - groups: [dev, 'team:a.b']
    maxresources: {memory: 10Gi}
  - groups: ['*']
    maxapplications: 20
  queues:
  - name: b
    maxapplications: 50
    limits:
    - users: [alice]
      maxresources: {vcore: 10, memory: 1Ti}
    - users: [bob]
      maxapplications: 5
    - groups: [dev]
      maxresources: {memory: 10Gi}
    - groups: [ops]
      maxapplications: 20`),
			func(t *testing.T, c *SchedulerConfig) {
				b := queue(t, c, "root.a.b")
				if len(b.Limits) != 4 || b.Limits[0].Max["memory"] != 1<<40 {
					t.Errorf("limits = %+v", b.Limits)
				}
			}},
		{"placement rules normalised", partition(`name: default
placementrules:
- name: Provided
  create: false
- name: TAG
  value: namespace
  create: true
  filter:
    type: DENY
    groups: ['^sys.*$']
- name: user
  create: true
  parent:
    name: fixed
    value: users
queues:
- name: root
  queues:
  - name: users
    parent: true`),
			func(t *testing.T, c *SchedulerConfig) {
				r := c.Partitions[0].PlacementRules
				if r[0].Name != "provided" || r[0].Filter.Type != FilterAllow {
					t.Errorf("rule 0 = %+v", r[0])
				}
				if r[1].Name != "tag" || r[1].Filter.Type != FilterDeny || r[1].Value != "namespace" {
					t.Errorf("rule 1 = %+v", r[1])
				}
				if r[2].Parent == nil || r[2].Parent.Name != "fixed" || r[2].Parent.Filter.Type != FilterAllow {
					t.Errorf("rule 2 = %+v", r[2])
				}
			}},
		{"fixed rules to an existing leaf and a creatable queue", underRoot("- name: a\n  queues:\n  - name: b\n- name: dyn\n  parent: true") +
			"    placementrules:\n      - name: fixed\n        value: root.a.b\n      - name: fixed\n        value: dyn.x\n        create: true\n      - name: fixed\n        value: leaf\n        create: true\n        parent:\n          name: fixed\n          value: newparent\n          create: true\n",
			func(t *testing.T, c *SchedulerConfig) {
				if len(c.Partitions[0].PlacementRules) != 3 {
					t.Errorf("rules = %+v", c.Partitions[0].PlacementRules)
				}
			}},
		{"binpacking with weights, case-insensitive type", partition("name: default\nnodesortpolicy:\n  type: BinPacking\n  resourceweights: {vcore: 4, memory: 1, nvidia.com/gpu: 0}\nqueues:\n- name: root"),
			func(t *testing.T, c *SchedulerConfig) {
				n := c.Partitions[0].NodeSortPolicy
				if n.Type != NodeSortBinPacking || n.ResourceWeights["vcore"] != 4 || len(n.ResourceWeights) != 3 {
					t.Errorf("node sort policy = %+v", n)
				}
			}},
		{"preemption flags honoured", partition("name: default\npreemption:\n  enabled: false\n  quotapreemptionenabled: true\nqueues:\n- name: root"),
			func(t *testing.T, c *SchedulerConfig) {
				if p := c.Partitions[0].Preemption; p.Enabled || !p.QuotaPreemptionEnabled {
					t.Errorf("preemption = %+v", p)
				}
			}},
		{"preemption section without enabled keeps the default true", partition("name: default\npreemption:\n  quotapreemptionenabled: true\nqueues:\n- name: root"),
			func(t *testing.T, c *SchedulerConfig) {
				if p := c.Partitions[0].Preemption; !p.Enabled || !p.QuotaPreemptionEnabled {
					t.Errorf("preemption = %+v", p)
				}
			}},
		{"user group resolver types", partition("name: default\nusergroupresolver:\n  type: OS\nqueues:\n- name: root"),
			func(t *testing.T, c *SchedulerConfig) {
				if r := c.Partitions[0].UserGroupResolver.Type; r != ResolverOS {
					t.Errorf("resolver = %q", r)
				}
			}},
		{"checksum key tolerated and replaced", "checksum: 0000\n" + partition("name: default\nqueues:\n- name: root"),
			func(t *testing.T, c *SchedulerConfig) {
				if c.Checksum == "0000" || len(c.Checksum) != 64 {
					t.Errorf("checksum = %q", c.Checksum)
				}
			}},
		{"several partitions validated independently", `partitions:
  - name: default
    queues: [{name: root, queues: [{name: a}]}]
  - name: gpu
    nodesortpolicy: {type: binpacking}
    queues: [{name: a}, {name: b}]
`,
			func(t *testing.T, c *SchedulerConfig) {
				if len(c.Partitions) != 2 || c.Partitions[1].Queues[0].Queues[1].Path != "root.b" || c.Partitions[1].NodeSortPolicy.Type != "binpacking" {
					t.Errorf("partitions = %+v", c.Partitions)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, mustParse(t, tc.yaml))
		})
	}
	t.Logf("%d valid cases", len(cases))
}

func TestStrictUnknownKey(t *testing.T) {
	text := `partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: a
            maxapps: 3
    preemptions:
      enabled: true
`
	_, err := Parse([]byte(text))
	checkProblems(t, err, []wantProblem{
		{"", "maxapps", "unknown key in a queue"},
		{"", "preemptions", "unknown key in a partition"},
	})
	msg := err.Error()
	for _, want := range []string{"line 7: maxapps:", "line 8: preemptions:", "valid keys: name, parent"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
}

func TestYAMLSyntaxError(t *testing.T) {
	_, err := Parse([]byte("partitions:\n  - name: [unclosed\n"))
	checkProblems(t, err, []wantProblem{{"", "", "yaml:"}})
}

func TestWrongValueType(t *testing.T) {
	_, err := Parse([]byte(underRoot("- name: a\n  maxapplications: many")))
	checkProblems(t, err, []wantProblem{{"", "", "cannot unmarshal !!str `many` into uint64"}})
	var ve *ValidationError
	if errors.As(err, &ve); ve.Problems[0].Line != 7 || !strings.HasPrefix(err.Error(), "line 7: ") {
		t.Errorf("line = %d, error %q", ve.Problems[0].Line, err)
	}
}
