package config

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with (or, as a warning, doubtful about) a
// configuration.
type Problem struct {
	// Partition is the normalised partition name; empty for problems found
	// before the partition is known (syntax, unknown keys).
	Partition string
	// Queue is the full queue path (root.a.b); empty for partition-level
	// problems.
	Queue string
	// Key names the offending setting relative to the queue or partition,
	// e.g. "resources.max.memory", "limits[1].users", "placementrules[0].name".
	Key string
	// Line is the line in the configuration text, when known (decoding
	// problems); 0 otherwise.
	Line int
	// Message says what is wrong.
	Message string
}

// String renders the problem on one line, naming where it is.
func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d", p.Line)
	}
	if p.Partition != "" {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "partition %q", p.Partition)
	}
	if p.Queue != "" {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "queue %s", p.Queue)
	}
	if p.Key != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(p.Key)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// ValidationError lists every problem found in a configuration.
type ValidationError struct {
	Problems []Problem
}

// MaxErrorLines is the number of problems ValidationError.Error prints;
// the rest are counted, so that a configuration with a hundred thousand
// mistakes gives a readable (and small) message.
const MaxErrorLines = 100

// Error prints one problem per line, at most MaxErrorLines of them.
func (e *ValidationError) Error() string {
	n := min(len(e.Problems), MaxErrorLines)
	lines := make([]string, n, n+1)
	for i, p := range e.Problems[:n] {
		lines[i] = p.String()
	}
	if more := len(e.Problems) - n; more > 0 {
		lines = append(lines, fmt.Sprintf("(and %d more problems)", more))
	}
	return strings.Join(lines, "\n")
}

// problems collects problems for one partition while validating.
type problems struct {
	partition string
	list      []Problem
	warnings  []Problem
}

func (ps *problems) add(queue, key, format string, args ...any) {
	ps.list = append(ps.list, Problem{Partition: ps.partition, Queue: queue, Key: key, Message: fmt.Sprintf(format, args...)})
}

func (ps *problems) warn(queue, key, format string, args ...any) {
	ps.warnings = append(ps.warnings, Problem{Partition: ps.partition, Queue: queue, Key: key, Message: fmt.Sprintf(format, args...)})
}
