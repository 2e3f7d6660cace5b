// Package locking configures lock-order and deadlock detection the way the
// reference core does, for the RM code that shares its locks package: the
// shim's mutexes are go-deadlock's, whose global options are set here from
// the environment when the package is loaded.
//
//	DEADLOCK_DETECTION_ENABLED   "true" turns detection on (off by default)
//	DEADLOCK_TIMEOUT_SECONDS     seconds a lock may be waited for (60)
//	DEADLOCK_EXIT                "true" exits the process on a detection
//	DEADLOCK_DISABLE_LOCK_ORDER  "true" turns lock-order checks off
//
// Paddock's own core needs none of it: one goroutine owns the state.
package locking

import (
	"os"
	"strconv"
	"time"

	godeadlock "github.com/sasha-s/go-deadlock"
)

const defaultTimeout = 60 * time.Second

var tracking bool

func init() { configure(os.Getenv) }

func configure(env func(string) string) {
	tracking = flag(env("DEADLOCK_DETECTION_ENABLED"))
	godeadlock.Opts.Disable = !tracking
	godeadlock.Opts.DeadlockTimeout = defaultTimeout
	if s, err := strconv.Atoi(env("DEADLOCK_TIMEOUT_SECONDS")); err == nil && s > 0 {
		godeadlock.Opts.DeadlockTimeout = time.Duration(s) * time.Second
	}
	godeadlock.Opts.DisableLockOrderDetection = flag(env("DEADLOCK_DISABLE_LOCK_ORDER"))
	exit := flag(env("DEADLOCK_EXIT"))
	godeadlock.Opts.OnPotentialDeadlock = func() {
		if exit {
			os.Exit(2)
		}
	}
}

func flag(v string) bool {
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// IsTrackingEnabled says whether deadlock detection is on.
func IsTrackingEnabled() bool { return tracking }
