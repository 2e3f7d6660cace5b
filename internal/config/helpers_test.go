package config

import (
	"errors"
	"strings"
	"testing"
)

// partition wraps the keys of one partition, written from column 0, into a
// whole document.
func partition(body string) string {
	lines := strings.Split(strings.Trim(body, "\n"), "\n")
	var b strings.Builder
	b.WriteString("partitions:\n  - " + lines[0] + "\n")
	for _, l := range lines[1:] {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// underRoot wraps a list of root's children, written from column 0, into a
// document with partition default.
func underRoot(children string) string {
	return partition("name: default\nqueues:\n- name: root\n  queues:\n" + indent(children, 4))
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// wantProblem describes one expected problem: exact queue path and key,
// and a substring of the message.
type wantProblem struct {
	queue, key, msg string
}

func mustParse(t *testing.T, text string) *SchedulerConfig {
	t.Helper()
	c, err := Parse([]byte(text))
	if err != nil {
		t.Fatalf("Parse failed:\n%v\ninput:\n%s", err, text)
	}
	return c
}

func checkProblems(t *testing.T, err error, want []wantProblem) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %T: %v", err, err)
	}
	if len(ve.Problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ve.Problems), len(want), err)
	}
	for i, w := range want {
		p := ve.Problems[i]
		if p.Queue != w.queue || p.Key != w.key || !strings.Contains(p.Message, w.msg) {
			t.Errorf("problem %d = {queue %q key %q msg %q}, want {queue %q key %q msg containing %q}",
				i, p.Queue, p.Key, p.Message, w.queue, w.key, w.msg)
		}
	}
}

// queue finds a queue by full path in the first partition.
func queue(t *testing.T, c *SchedulerConfig, path string) *QueueConfig {
	t.Helper()
	q, _ := lookupQueue(&c.Partitions[0].Queues[0], path)
	if q == nil {
		t.Fatalf("queue %s not found", path)
	}
	return q
}
