package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const richConfig = `partitions:
  - name: Default
    placementrules:
      - name: user
        create: true
        parent: {name: fixed, value: tenants}
    limits:
      - users: ['*']
        maxapplications: 10
    nodesortpolicy: {type: binpacking, resourceweights: {vcore: 2}}
    queues:
      - name: Tenants
        parent: true
        maxapplications: 20
        childtemplate: {maxapplications: 2, resources: {max: {vcore: 1}}}
        queues:
          - name: a
            maxapplications: 5
            resources: {guaranteed: {vcore: 1}, max: {vcore: 2, memory: 1Gi}}
            properties: {application.sort.policy: fair}
            submitacl: 'alice admins'
`

func TestYAMLRoundTrip(t *testing.T) {
	c := mustParse(t, richConfig)
	out, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"name: default", "name: tenants", "placementrules:", "submitacl: alice admins", "checksum: "} {
		if !strings.Contains(string(out), want) {
			t.Errorf("YAML lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "childtemplate: {}") {
		t.Errorf("empty child templates serialised:\n%s", out)
	}
	again := mustParse(t, string(out))
	ignore := cmpopts.IgnoreFields(SchedulerConfig{}, "Checksum")
	if d := cmp.Diff(c, again, ignore, cmp.Comparer(func(a, b ACL) bool {
		return cmp.Equal(a.Users(), b.Users()) && cmp.Equal(a.Groups(), b.Groups()) && a.all == b.all
	})); d != "" {
		t.Errorf("re-parsed config differs (-first +second):\n%s", d)
	}
}

func TestJSONFieldNames(t *testing.T) {
	c := mustParse(t, richConfig)
	out, err := c.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if m["Checksum"] != c.Checksum {
		t.Errorf("Checksum = %v", m["Checksum"])
	}
	p := m["Partitions"].([]any)[0].(map[string]any)
	for _, k := range []string{"Name", "Queues", "PlacementRules", "Limits", "Preemption", "NodeSortPolicy"} {
		if _, ok := p[k]; !ok {
			t.Errorf("partition JSON lacks %q: %v", k, p)
		}
	}
	pre := p["Preemption"].(map[string]any)
	if pre["Enabled"] != true || pre["QuotaPreemptionEnabled"] != false {
		t.Errorf("Preemption = %v", pre)
	}
	root := p["Queues"].([]any)[0].(map[string]any)
	if root["Name"] != "root" || root["Parent"] != true {
		t.Errorf("root = %v", root)
	}
	if strings.Contains(string(out), "Effective") || strings.Contains(string(out), "Path") {
		t.Errorf("derived fields leaked into JSON: %s", out)
	}
}
