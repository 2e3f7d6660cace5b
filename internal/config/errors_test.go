package config

import (
	"errors"
	"strings"
	"testing"
)

// A configuration with many problems gives a bounded message: the first
// MaxErrorLines problems and a count of the rest.
func TestValidationErrorIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n")
	for range MaxErrorLines + 50 {
		b.WriteString("          - name: q\n")
	}
	_, err := Parse([]byte(b.String()))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != MaxErrorLines+49 {
		t.Fatalf("err %v, want %d duplicate-name problems", err, MaxErrorLines+49)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != MaxErrorLines+1 || lines[MaxErrorLines] != "(and 49 more problems)" {
		t.Errorf("message has %d lines ending %q, want %d and the count of the rest", len(lines), lines[len(lines)-1], MaxErrorLines+1)
	}
}
