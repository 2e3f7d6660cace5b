package partition

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/paddock-sched/paddock/internal/core/app"
	"github.com/paddock-sched/paddock/internal/logging"
)

// Loggers are the engine's loggers, under the reference's names so the
// RM's log.core.scheduler.<name>.level keys apply (reference §8). The
// engine logs its decisions at debug level; a call site checks the level
// first (on), so a disabled logger costs one level check and nothing is
// built.
type Loggers struct {
	Allocation, Application, AppUsage, Node, Partition  *slog.Logger
	Preemption, QuotaPreemption, RequiredNodePreemption *slog.Logger
	Queue, Reservation                                  *slog.Logger
}

// NewLoggers takes each logger from named by its reference name.
func NewLoggers(named func(name string) *slog.Logger) *Loggers {
	return &Loggers{
		Allocation:             named(logging.SchedAllocation),
		Application:            named(logging.SchedApplication),
		AppUsage:               named(logging.SchedAppUsage),
		Node:                   named(logging.SchedNode),
		Partition:              named(logging.SchedPartition),
		Preemption:             named(logging.SchedPreemption),
		QuotaPreemption:        named(logging.SchedQuotaChangePreemption),
		RequiredNodePreemption: named(logging.SchedRequiredNodePreemption),
		Queue:                  named(logging.SchedQueue),
		Reservation:            named(logging.SchedReservation),
	}
}

// quiet logs nothing: the loggers of a partition nobody gave loggers.
var quiet = NewLoggers(func(string) *slog.Logger { return slog.New(slog.DiscardHandler) })

// SetLoggers installs the partition's loggers (nil: none).
func (p *Partition) SetLoggers(l *Loggers) {
	if l == nil {
		l = quiet
	}
	p.log = l
}

// on reports whether l logs at debug level.
func on(l *slog.Logger) bool { return l.Enabled(context.Background(), slog.LevelDebug) }

// debug logs msg with attrs at debug level; callers check on(l) first.
func debug(l *slog.Logger, msg string, attrs ...slog.Attr) {
	l.LogAttrs(context.Background(), slog.LevelDebug, msg, attrs...)
}

// logSummary writes the reference's application summary line when an
// application that ran ends (reference §2.19: "YK_APP_SUMMARY:" with the
// ApplicationSummary: times in unix milliseconds, resource·seconds per
// instance type of what it used, what was preempted and its placeholders).
func (p *Partition) logSummary(a *app.App) {
	l := p.log.AppUsage
	if a.StartTime.IsZero() || !l.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	l.LogAttrs(context.Background(), slog.LevelInfo, "YK_APP_SUMMARY:", slog.String("ApplicationSummary", p.summary(a)))
}

// summary formats an application's summary as the reference prints it.
func (p *Partition) summary(a *app.App) string {
	var b strings.Builder
	b.WriteString("ApplicationID: " + a.ID)
	b.WriteString(", SubmissionTime: " + millis(a.SubmitTime))
	b.WriteString(", StartTime: " + millis(a.StartTime))
	b.WriteString(", FinishTime: " + millis(a.FinishTime))
	b.WriteString(", User: " + a.User)
	b.WriteString(", Queue: " + a.QueuePath)
	b.WriteString(", State: " + a.State.String())
	b.WriteString(", RmID: " + p.RMID)
	b.WriteString(", ResourceUsage: " + p.usageText(a.History.Used))
	b.WriteString(", PreemptedResource: " + p.usageText(a.History.Preempted))
	b.WriteString(", PlaceholderResource: " + p.usageText(a.History.Placeholder))
	return b.String()
}

func millis(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

// usageText prints resource·seconds per instance type as Go prints the
// reference's map[string]map[string]int64: map[TYPE:map[memory:N vcore:M]].
func (p *Partition) usageText(u app.Usage) string {
	var b strings.Builder
	b.WriteString("map[")
	for i, inst := range sortedKeys(u) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(inst + ":map[")
		m := p.reg.ToMap(u[inst])
		for j, name := range sortedKeys(m) {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(name + ":" + strconv.FormatInt(m[name], 10))
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
