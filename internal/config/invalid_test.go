package config

import "testing"

// TestParseInvalid covers the rejection rules of §1.2-§1.10 and the gaps of
// §10; every case lists the exact problems expected.
func TestParseInvalid(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []wantProblem
	}{
		{"empty partition list", "partitions: []\n",
			[]wantProblem{{"", "partitions", "no partitions configured"}}},
		{"comments only", "# nothing here\n# at all\n",
			[]wantProblem{{"", "partitions", "no partitions configured"}}},
		{"top level without partitions key", "checksum: ABC\n",
			[]wantProblem{{"", "partitions", "no partitions configured"}}},
		{"scalar nodesortpolicy (doc drift)", partition("name: default\nnodesortpolicy: fair\nqueues:\n- name: root"),
			[]wantProblem{{"", "", "nodesortpolicy (a mapping"}}},
		{"more than one document", partition("name: default\nqueues:\n- name: root") + "---\npartitions: []\n",
			[]wantProblem{{"", "", "more than one YAML document"}}},
		{"duplicate partition names, case-insensitive",
			"partitions:\n  - name: gpu\n    queues: [{name: root}]\n  - name: GPU\n    queues: [{name: root}]\n",
			[]wantProblem{{"", "name", "duplicate partition name \"GPU\""}}},
		{"empty and DEFAULT are the same partition",
			"partitions:\n  - queues: [{name: root}]\n  - name: DEFAULT\n    queues: [{name: root}]\n",
			[]wantProblem{{"", "name", "duplicate partition name \"default\""}}},
		{"invalid partition name", partition("name: a/b\nqueues:\n- name: root"),
			[]wantProblem{{"", "name", "invalid partition name \"a/b\""}}},
		{"partition without queues", partition("name: default\nplacementrules:\n- name: user"),
			[]wantProblem{{"", "queues", "no queues configured"}}},
		{"root with resources", partition("name: default\nqueues:\n- name: root\n  resources:\n    max: {memory: 10G}"),
			[]wantProblem{{"root", "resources", "root queue must not set resources"}}},
		{"dot in queue name", underRoot("- name: a.b"),
			[]wantProblem{{"root.a.b", "name", "invalid queue name \"a.b\""}}},
		{"queue name too long", underRoot("- name: " + string(make65())),
			[]wantProblem{{"root." + string(make65()), "name", "1 to 64 characters"}}},
		{"empty queue name", underRoot("- name: ''\n  maxapplications: 1"),
			[]wantProblem{{"root.", "name", "invalid queue name \"\""}}},
		{"duplicate queue names, case-insensitive", underRoot("- name: Batch\n- name: batch"),
			[]wantProblem{{"root.batch", "name", "duplicate queue name \"batch\" under root"}}},
		{"configured recovery queue", underRoot("- name: '@recovery@'"),
			[]wantProblem{{"root.@recovery@", "name", "reserved for the scheduler's recovery queue"}}},
		{"queue named root below the top", underRoot("- name: a\n  queues:\n  - name: ROOT"),
			[]wantProblem{{"root.a.root", "name", "reserved for the top"}}},
		{"negative quantity", underRoot("- name: a\n  resources:\n    max: {memory: -5}"),
			[]wantProblem{{"root.a", "resources.max.memory", "negative quantity"}}},
		{"decimal quantity", underRoot("- name: a\n  resources:\n    guaranteed: {vcore: 1.5}"),
			[]wantProblem{{"root.a", "resources.guaranteed.vcore", "invalid quantity \"1.5\""}}},
		{"millicores only for vcore", underRoot("- name: a\n  resources:\n    max: {memory: 500m}"),
			[]wantProblem{{"root.a", "resources.max.memory", "invalid quantity \"500m\""}}},
		{"all-zero max", underRoot("- name: a\n  resources:\n    max: {vcore: 0}"),
			[]wantProblem{{"root.a", "resources.max", "every max value is 0"}}},
		{"guaranteed larger than max", underRoot("- name: a\n  resources:\n    guaranteed: {memory: 2Gi}\n    max: {memory: 1Gi}"),
			[]wantProblem{{"root.a", "resources.guaranteed.memory", "guaranteed 2Gi is larger than max 1Gi"}}},
		{"guaranteed above a max of 0", underRoot("- name: a\n  resources:\n    guaranteed: {gpu: 1}\n    max: {gpu: 0, vcore: 4}"),
			[]wantProblem{{"root.a", "resources.guaranteed.gpu", "guaranteed 1 is larger than max 0"}}},
		{"child max above parent max", underRoot("- name: a\n  resources:\n    max: {vcore: 10}\n  queues:\n  - name: b\n    resources:\n      max: {vcore: 20}"),
			[]wantProblem{{"root.a.b", "resources.max.vcore", "max 20 is larger than the max 10 of root.a"}}},
		{"grandchild max above grandparent max", underRoot(`- name: a
  resources:
    max: {memory: 4Gi}
  queues:
  - name: b
    resources:
      max: {vcore: 4}
    queues:
    - name: c
      resources:
        max: {memory: 8Gi}`),
			[]wantProblem{{"root.a.b.c", "resources.max.memory", "max 8Gi is larger than the max 4Gi of root.a"}}},
		{"children's guaranteed above parent guaranteed", underRoot(`- name: a
  resources:
    guaranteed: {vcore: 10}
  queues:
  - name: b
    resources:
      guaranteed: {vcore: 6}
  - name: c
    resources:
      guaranteed: {vcore: 5}`),
			[]wantProblem{{"root.a", "resources.guaranteed.vcore", "add up to 11, more than this queue's guaranteed 10"}}},
		{"children's guaranteed above parent max", underRoot(`- name: a
  resources:
    max: {memory: 10Gi}
  queues:
  - name: b
    resources:
      guaranteed: {memory: 6Gi}
  - name: c
    resources:
      guaranteed: {memory: 6Gi}`),
			[]wantProblem{{"root.a", "resources.max.memory", "add up to 12Gi, more than the max 10Gi of root.a"}}},
		{"parent maxapplications, child unset", underRoot("- name: a\n  maxapplications: 10\n  queues:\n  - name: b\n    maxapplications: 5\n  - name: c"),
			[]wantProblem{{"root.a.c", "maxapplications", "must be set between 1 and 10"}}},
		{"parent maxapplications, child larger", underRoot("- name: a\n  maxapplications: 10\n  queues:\n  - name: b\n    maxapplications: 11"),
			[]wantProblem{{"root.a.b", "maxapplications", "(got 11)"}}},
		{"ACL with more than one space", underRoot("- name: a\n  submitacl: 'alice bob carol'"),
			[]wantProblem{{"root.a", "submitacl", "more than one space"}}},
		{"admin ACL with two spaces", underRoot("- name: a\n  adminacl: 'alice  admins'"),
			[]wantProblem{{"root.a", "adminacl", "more than one space"}}},
		{"bad application.sort.policy", underRoot("- name: a\n  properties:\n    application.sort.policy: random"),
			[]wantProblem{{"root.a", "properties.application.sort.policy", "want fifo, fair or stateaware"}}},
		{"bad application.sort.priority", underRoot("- name: a\n  properties:\n    application.sort.priority: 'yes'"),
			[]wantProblem{{"root.a", "properties.application.sort.priority", "want enabled or disabled"}}},
		{"priority.offset beyond int32", underRoot("- name: a\n  properties:\n    priority.offset: '2147483648'"),
			[]wantProblem{{"root.a", "properties.priority.offset", "32-bit integer"}}},
		{"bad priority.policy", underRoot("- name: a\n  properties:\n    priority.policy: strict"),
			[]wantProblem{{"root.a", "properties.priority.policy", "want default or fence"}}},
		{"bad preemption.policy", underRoot("- name: a\n  properties:\n    preemption.policy: never"),
			[]wantProblem{{"root.a", "properties.preemption.policy", "want default, fence or disabled"}}},
		{"zero preemption.delay", underRoot("- name: a\n  properties:\n    preemption.delay: 0s"),
			[]wantProblem{{"root.a", "properties.preemption.delay", "positive duration"}}},
		{"unparsable preemption.delay", underRoot("- name: a\n  properties:\n    preemption.delay: '30'"),
			[]wantProblem{{"root.a", "properties.preemption.delay", "positive duration"}}},
		{"negative quota.preemption.delay", underRoot("- name: a\n  properties:\n    quota.preemption.delay: -1m"),
			[]wantProblem{{"root.a", "properties.quota.preemption.delay", "0 (off) or more"}}},
		{"negative unschedasks backoff", underRoot("- name: a\n  properties:\n    application.unschedasks.backoff: '-1'"),
			[]wantProblem{{"root.a", "properties.application.unschedasks.backoff", "non-negative integer"}}},
		{"bad backoff delay", underRoot("- name: a\n  properties:\n    application.unschedasks.backoff.delay: soon"),
			[]wantProblem{{"root.a", "properties.application.unschedasks.backoff.delay", "positive duration"}}},
		{"bad template property and all-zero template max", underRoot(`- name: a
  parent: true
  childtemplate:
    properties:
      application.sort.policy: lifo
    resources:
      max: {vcore: 0, memory: 0}`),
			[]wantProblem{
				{"root.a", "childtemplate.resources.max", "every max value is 0"},
				{"root.a", "childtemplate.properties.application.sort.policy", "want fifo, fair or stateaware"},
			}},
		{"template guaranteed larger than template max", underRoot("- name: a\n  parent: true\n  childtemplate:\n    resources:\n      guaranteed: {vcore: 2}\n      max: {vcore: 1}"),
			[]wantProblem{{"root.a", "childtemplate.resources.guaranteed.vcore", "larger than max 1"}}},
		{"limit without users or groups", underRoot("- name: a\n  limits:\n  - limit: nobody\n    maxapplications: 1"),
			[]wantProblem{{"root.a", "limits[0]", "at least one user or group"}}},
		{"limit without maxapplications or maxresources", underRoot("- name: a\n  limits:\n  - users: [alice]"),
			[]wantProblem{{"root.a", "limits[0]", "must set maxapplications or maxresources"}}},
		{"limit with all-zero maxresources", underRoot("- name: a\n  limits:\n  - users: [alice]\n    maxresources: {vcore: 0}"),
			[]wantProblem{{"root.a", "limits[0].maxresources", "at least one value must be above 0"}}},
		{"limit with invalid user and group names", underRoot("- name: a\n  limits:\n  - users: [alice, 9lives]\n    groups: ['dev ops']\n    maxapplications: 1"),
			[]wantProblem{
				{"root.a", "limits[0].users[1]", "invalid user name \"9lives\""},
				{"root.a", "limits[0].groups[0]", "invalid group name \"dev ops\""},
			}},
		{"duplicate user across limits (rejected, doc says ignored)", underRoot("- name: a\n  limits:\n  - users: [alice]\n    maxapplications: 1\n  - users: [bob, alice]\n    maxapplications: 2"),
			[]wantProblem{{"root.a", "limits[1].users[1]", "user \"alice\" already has a limit in limits[0]"}}},
		{"duplicate group within one limit", underRoot("- name: a\n  limits:\n  - groups: [dev, dev]\n    maxapplications: 1"),
			[]wantProblem{{"root.a", "limits[0].groups[1]", "group \"dev\" already has a limit"}}},
		{"named user after wildcard", underRoot("- name: a\n  limits:\n  - users: ['*']\n    maxapplications: 1\n  - users: [alice]\n    maxapplications: 2"),
			[]wantProblem{{"root.a", "limits[1].users[0]", "must come before the wildcard user limit in limits[0]"}}},
		{"named group after wildcard", underRoot("- name: a\n  limits:\n  - groups: [dev]\n    maxapplications: 3\n  - groups: ['*']\n    maxapplications: 1\n  - groups: [ops]\n    maxapplications: 2"),
			[]wantProblem{{"root.a", "limits[2].groups[0]", "must come before the wildcard group limit in limits[1]"}}},
		{"wildcard group without a named group", underRoot("- name: a\n  limits:\n  - users: [alice]\n    maxapplications: 1\n  - groups: ['*']\n    maxapplications: 1"),
			[]wantProblem{{"root.a", "limits[1].groups", "needs at least one named group"}}},
		{"limit maxapplications above queue maxapplications", underRoot("- name: a\n  maxapplications: 5\n  limits:\n  - users: [alice]\n    maxapplications: 6"),
			[]wantProblem{{"root.a", "limits[0].maxapplications", "6 is larger than the queue's maxapplications 5"}}},
		{"limit maxresources above queue max", underRoot("- name: a\n  resources:\n    max: {memory: 4Gi}\n  limits:\n  - users: [alice]\n    maxresources: {memory: 8Gi}"),
			[]wantProblem{{"root.a", "limits[0].maxresources.memory", "8Gi is larger than the queue's max 4Gi"}}},
		{"child user limit above ancestor limit", underRoot(`- name: a
  limits:
  - users: [alice]
    maxresources: {vcore: 4}
    maxapplications: 2
  queues:
  - name: b
    queues:
    - name: c
      limits:
      - users: [alice]
        maxresources: {vcore: 8}
        maxapplications: 3`),
			[]wantProblem{
				{"root.a.b.c", "limits[0].maxresources.vcore", "larger than the user \"alice\" limit 4 set on root.a"},
				{"root.a.b.c", "limits[0].maxapplications", "3 is larger than the user \"alice\" limit 2 set on root.a"},
			}},
		{"child group limit above ancestor wildcard", underRoot(`- name: a
  limits:
  - groups: [ops]
    maxapplications: 10
  - groups: ['*']
    maxresources: {memory: 1Gi}
  queues:
  - name: b
    limits:
    - groups: [dev]
      maxresources: {memory: 2Gi}`),
			[]wantProblem{{"root.a.b", "limits[0].maxresources.memory", "larger than the wildcard group limit 1Gi set on root.a"}}},
		{"partition limits differ from root limits", partition(`name: default
limits:
- users: [alice]
  maxapplications: 1
queues:
- name: root
  limits:
  - users: [alice]
    maxapplications: 2`),
			[]wantProblem{{"", "limits", "differ"}}},
		{"unknown placement rule", partition("name: default\nplacementrules:\n- name: fixedd\n  value: a\nqueues:\n- name: root"),
			[]wantProblem{{"", "placementrules[0].name", "unknown placement rule \"fixedd\""}}},
		{"configured recovery rule", partition("name: default\nplacementrules:\n- name: Recovery\nqueues:\n- name: root"),
			[]wantProblem{{"", "placementrules[0].name", "cannot be configured"}}},
		{"tag rule without value", partition("name: default\nplacementrules:\n- name: tag\n  create: true\nqueues:\n- name: root"),
			[]wantProblem{{"", "placementrules[0].value", "the tag rule needs a value"}}},
		{"fixed parent rule without value", partition("name: default\nplacementrules:\n- name: user\n  parent:\n    name: fixed\nqueues:\n- name: root"),
			[]wantProblem{{"", "placementrules[0].parent.value", "the fixed rule needs a value"}}},
		{"fixed rule to a parent queue", underRoot("- name: a\n  queues:\n  - name: b") + "    placementrules:\n      - name: fixed\n        value: a\n",
			[]wantProblem{{"", "placementrules[0].value", "root.a, which is a parent queue"}}},
		{"fixed rule to a missing queue without create", underRoot("- name: a") + "    placementrules:\n      - name: fixed\n        value: root.missing\n",
			[]wantProblem{{"", "placementrules[0].create", "queue root.missing does not exist"}}},
		{"fixed rule creating under a leaf", underRoot("- name: a") + "    placementrules:\n      - name: fixed\n        value: a.b\n        create: true\n",
			[]wantProblem{{"", "placementrules[0].value", "cannot be created under the leaf queue root.a"}}},
		{"qualified fixed value after a parent rule", underRoot("- name: a\n  parent: true") + "    placementrules:\n      - name: fixed\n        value: root.a.b\n        create: true\n        parent:\n          name: user\n",
			[]wantProblem{{"", "placementrules[0].value", "cannot follow a parent rule"}}},
		{"fixed parent rule resolving to a leaf", underRoot("- name: a") + "    placementrules:\n      - name: user\n        create: true\n        parent:\n          name: fixed\n          value: a\n",
			[]wantProblem{{"", "placementrules[0].parent.value", "root.a, which is a leaf queue"}}},
		{"bad filter type and regexp", partition("name: default\nplacementrules:\n- name: user\n  filter:\n    type: block\n    users: ['a(b']\nqueues:\n- name: root"),
			[]wantProblem{
				{"", "placementrules[0].filter.type", "unknown filter type \"block\""},
				{"", "placementrules[0].filter.users[0]", "invalid regular expression"},
			}},
		{"unknown node sort policy", partition("name: default\nnodesortpolicy:\n  type: spread\nqueues:\n- name: root"),
			[]wantProblem{{"", "nodesortpolicy.type", "unknown node sort policy \"spread\""}}},
		{"negative and all-zero weights", partition("name: default\nnodesortpolicy:\n  type: binpacking\n  resourceweights: {vcore: -1, memory: 0}\nqueues:\n- name: root"),
			[]wantProblem{
				{"", "nodesortpolicy.resourceweights.vcore", "negative weight"},
				{"", "nodesortpolicy.resourceweights", "at least one weight"},
			}},
		{"unknown user group resolver", partition("name: default\nusergroupresolver:\n  type: kerberos\nqueues:\n- name: root"),
			[]wantProblem{{"", "usergroupresolver.type", "unknown user group resolver \"kerberos\""}}},
		{"problems are collected across queues", underRoot(`- name: a
  resources:
    max: {vcore: 0}
- name: b
  submitacl: 'a b c'
  queues:
  - name: x.y`),
			[]wantProblem{
				{"root.a", "resources.max", "every max value is 0"},
				{"root.b", "submitacl", "more than one space"},
				{"root.b.x.y", "name", "invalid queue name"},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.yaml))
			if c != nil {
				t.Errorf("invalid config returned a non-nil result")
			}
			checkProblems(t, err, tc.want)
		})
	}
	t.Logf("%d invalid cases", len(cases))
}

func make65() []byte {
	b := make([]byte, 65)
	for i := range b {
		b[i] = 'q'
	}
	return b
}
