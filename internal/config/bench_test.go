package config

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkParseRich(b *testing.B) {
	data := []byte(richConfig)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseLarge parses a partition with 1,000 leaf queues under 50
// parents, each with resources, properties and a limit.
func BenchmarkParseLarge(b *testing.B) {
	var sb strings.Builder
	for p := range 50 {
		fmt.Fprintf(&sb, "- name: p%d\n  resources: {max: {vcore: 1000, memory: 1Ti}}\n  queues:\n", p)
		for l := range 20 {
			fmt.Fprintf(&sb, "  - name: l%d\n    resources: {guaranteed: {vcore: 10}, max: {vcore: 50}}\n"+
				"    properties: {application.sort.policy: fair}\n    limits: [{users: ['*'], maxapplications: 3}]\n", l)
		}
	}
	data := []byte(underRoot(sb.String()))
	if _, err := Parse(data); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
