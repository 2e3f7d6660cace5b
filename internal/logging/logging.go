// Package logging owns Paddock's loggers: log/slog loggers named by
// subsystem ("core.rmproxy", "core.rpc", ...), whose levels come from the
// extra configuration keys log.level and log.<name>.level (reference §1.11)
// and change at once when the configuration is reloaded.
//
// Levels are looked up hierarchically: a logger named "core.scheduler.node"
// uses log.core.scheduler.node.level when set, else log.core.scheduler.level,
// else log.core.level, else log.level, else the default (info). Values are
// names (debug, info, warn, error, dpanic, panic, fatal; any case) or the
// reference's numbers -1 (debug) to 5 (fatal). dpanic, panic and fatal
// mean error here: a log message never panics or exits.
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Subsystem logger names used by Paddock (the reference's names).
const (
	Root       = "core"
	Entrypoint = "core.entrypoint"
	RMProxy    = "core.rmproxy"
	RPC        = "core.rpc"
	REST       = "core.rest"
	Events     = "core.events"
	Metrics    = "core.metrics"

	// The scheduling engine's loggers: its decisions at debug level, and
	// the application summary (YK_APP_SUMMARY) at info on
	// core.scheduler.application.usage.
	Scheduler                   = "core.scheduler"
	SchedAllocation             = "core.scheduler.allocation"
	SchedApplication            = "core.scheduler.application"
	SchedAppUsage               = "core.scheduler.application.usage"
	SchedNode                   = "core.scheduler.node"
	SchedPartition              = "core.scheduler.partition"
	SchedPreemption             = "core.scheduler.preemption"
	SchedQuotaChangePreemption  = "core.scheduler.preemption.quotachange"
	SchedRequiredNodePreemption = "core.scheduler.preemption.requirednode"
	SchedQueue                  = "core.scheduler.queue"
	SchedReservation            = "core.scheduler.reservation"
)

// DefaultLevel applies when no key sets a logger's level.
const DefaultLevel = slog.LevelInfo

// Set is a family of named loggers writing to one handler, with levels
// that follow the extra configuration. It is safe for concurrent use.
type Set struct {
	base slog.Handler

	mu     sync.Mutex
	keys   map[string]slog.Level // logger name ("" for log.level) -> level
	levels map[string]*slog.LevelVar
}

// New returns a Set whose loggers write to base (all records reach base's
// own level check too, so give base the lowest level: debug).
func New(base slog.Handler) *Set {
	return &Set{base: base, keys: map[string]slog.Level{}, levels: map[string]*slog.LevelVar{}}
}

// NewText returns a Set writing slog text lines to w.
func NewText(w io.Writer) *Set {
	return New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Logger returns the logger of a subsystem; every call with the same name
// shares one level.
func (s *Set) Logger(name string) *slog.Logger {
	s.mu.Lock()
	lv := s.levels[name]
	if lv == nil {
		lv = new(slog.LevelVar)
		lv.Set(s.effective(name))
		s.levels[name] = lv
	}
	s.mu.Unlock()
	return slog.New(&handler{next: s.base.WithAttrs([]slog.Attr{slog.String("logger", name)}), level: lv})
}

// Level returns the level a subsystem's logger currently uses.
func (s *Set) Level(name string) slog.Level {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.effective(name)
}

// Apply sets the levels from an extra configuration map: log.level and
// every log.<name>.level key. Keys that are absent fall back to their
// parents, so removing a key undoes it. An invalid value is reported in
// the error and ignored; the valid keys still apply.
func (s *Set) Apply(extra map[string]string) error {
	keys := map[string]slog.Level{}
	var bad []string
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		name, ok := keyName(k)
		if !ok {
			continue
		}
		lv, err := ParseLevel(extra[k])
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", k, err))
			continue
		}
		keys[name] = lv
	}
	s.mu.Lock()
	s.keys = keys
	for name, lv := range s.levels {
		lv.Set(s.effective(name))
	}
	s.mu.Unlock()
	if len(bad) > 0 {
		return fmt.Errorf("log levels: %s", strings.Join(bad, "; "))
	}
	return nil
}

// keyName maps "log.level" to "" and "log.<name>.level" to name.
func keyName(k string) (string, bool) {
	if k == "log.level" {
		return "", true
	}
	rest, ok := strings.CutPrefix(k, "log.")
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, ".level")
	if !ok || name == "" {
		return "", false
	}
	return name, true
}

// effective walks from name up to the root key; s.mu is held.
func (s *Set) effective(name string) slog.Level {
	for n := name; ; {
		if lv, ok := s.keys[n]; ok {
			return lv
		}
		if n == "" {
			return DefaultLevel
		}
		i := strings.LastIndexByte(n, '.')
		if i < 0 {
			n = ""
		} else {
			n = n[:i]
		}
	}
}

// ParseLevel reads a level name or a reference level number (-1..5).
func ParseLevel(v string) (slog.Level, error) {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error", "dpanic", "panic", "fatal":
		return slog.LevelError, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < -1 || n > 5 {
		return 0, fmt.Errorf("invalid level %q: want debug, info, warn, error, dpanic, panic, fatal or -1..5", v)
	}
	return [...]slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelError, slog.LevelError, slog.LevelError}[n+1], nil
}

// handler filters records by its logger's level before the shared base.
type handler struct {
	next  slog.Handler
	level *slog.LevelVar
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level.Level() && h.next.Enabled(ctx, l)
}

func (h *handler) Handle(ctx context.Context, r slog.Record) error { return h.next.Handle(ctx, r) }

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &handler{next: h.next.WithAttrs(as), level: h.level}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{next: h.next.WithGroup(name), level: h.level}
}
