package config

import (
	"errors"
	"testing"
)

// FuzzParse checks that Parse never panics, that it returns either a config
// or a *ValidationError with at least one problem, and that an accepted
// config serialises to YAML that is accepted again.
func FuzzParse(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte(DefaultText))
	f.Add([]byte(richConfig))
	f.Add([]byte(underRoot("- name: a\n  resources:\n    max: {vcore: 0}")))
	f.Add([]byte(underRoot("- name: a\n  limits:\n  - users: ['*']\n    maxapplications: 1\n  - users: [x]\n    maxapplications: 2")))
	f.Add([]byte(partition("name: default\nplacementrules:\n- name: user\n  parent:\n    name: fixed\n    value: a\nqueues:\n- name: a")))
	f.Add([]byte("partitions:\n  - name: x\n    queues: [{name: a, queues: [{name: b, properties: {priority.offset: '1'}}]}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 || c != nil {
				t.Fatalf("bad error result: %T %v (config %v)", err, err, c != nil)
			}
			return
		}
		if c == nil || len(c.Partitions) == 0 {
			t.Fatalf("accepted config without partitions")
		}
		out, err := c.YAML()
		if err != nil {
			t.Fatalf("YAML: %v", err)
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("serialised config rejected: %v\ninput:\n%q\noutput:\n%s", err, data, out)
		}
		if _, err := c.JSON(); err != nil {
			t.Fatalf("JSON: %v", err)
		}
	})
}
