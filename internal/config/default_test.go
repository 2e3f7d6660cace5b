package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefault(t *testing.T) {
	c := Default()
	if len(c.Partitions) != 1 {
		t.Fatalf("partitions = %d", len(c.Partitions))
	}
	p := c.Partitions[0]
	if p.Name != "default" {
		t.Errorf("name = %q", p.Name)
	}
	want := []PlacementRule{{Name: "tag", Value: "namespace", Create: true, Filter: Filter{Type: FilterAllow}}}
	if d := cmp.Diff(want, p.PlacementRules); d != "" {
		t.Errorf("rules (-want +got):\n%s", d)
	}
	if len(p.Queues) != 1 || p.Queues[0].Name != "root" || len(p.Queues[0].Queues) != 0 {
		t.Fatalf("queues = %+v", p.Queues)
	}
	if !p.Queues[0].Submit.Allows("anyone", nil) || p.Queues[0].SubmitACL != "*" {
		t.Errorf("root submit ACL must allow everyone")
	}
	if !p.Preemption.Enabled || p.NodeSortPolicy.Type != "fair" {
		t.Errorf("defaults not applied: %+v %+v", p.Preemption, p.NodeSortPolicy)
	}
	if c.Checksum != ChecksumOf([]byte(DefaultText)) || len(c.Warnings) != 0 {
		t.Errorf("checksum %q warnings %v", c.Checksum, c.Warnings)
	}
}

func TestEmptyTextIsDefault(t *testing.T) {
	for _, text := range []string{"", "  \n\t\n"} {
		c, err := Parse([]byte(text))
		if err != nil {
			t.Fatalf("Parse(%q): %v", text, err)
		}
		if d := cmp.Diff(Default().Partitions[0].PlacementRules, c.Partitions[0].PlacementRules); d != "" || c.Checksum != Default().Checksum {
			t.Errorf("Parse(%q) is not the default config: %s", text, d)
		}
	}
}

func TestDefaultIsFresh(t *testing.T) {
	a := Default()
	a.Partitions[0].Name = "changed"
	if Default().Partitions[0].Name != "default" {
		t.Errorf("Default shares state between calls")
	}
}
