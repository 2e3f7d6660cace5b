package locking

import (
	"testing"
	"time"

	godeadlock "github.com/sasha-s/go-deadlock"
)

func TestConfigure(t *testing.T) {
	defer configure(func(string) string { return "" })
	configure(func(string) string { return "" })
	if IsTrackingEnabled() || !godeadlock.Opts.Disable || godeadlock.Opts.DeadlockTimeout != 60*time.Second {
		t.Errorf("defaults: tracking %v disable %v timeout %v", IsTrackingEnabled(), godeadlock.Opts.Disable, godeadlock.Opts.DeadlockTimeout)
	}
	env := map[string]string{"DEADLOCK_DETECTION_ENABLED": "true", "DEADLOCK_TIMEOUT_SECONDS": "5", "DEADLOCK_DISABLE_LOCK_ORDER": "1"}
	configure(func(k string) string { return env[k] })
	if !IsTrackingEnabled() || godeadlock.Opts.Disable || godeadlock.Opts.DeadlockTimeout != 5*time.Second || !godeadlock.Opts.DisableLockOrderDetection {
		t.Errorf("enabled: tracking %v disable %v timeout %v order off %v", IsTrackingEnabled(), godeadlock.Opts.Disable,
			godeadlock.Opts.DeadlockTimeout, godeadlock.Opts.DisableLockOrderDetection)
	}
	env["DEADLOCK_TIMEOUT_SECONDS"] = "-3"
	configure(func(k string) string { return env[k] })
	if godeadlock.Opts.DeadlockTimeout != 60*time.Second {
		t.Errorf("a negative timeout was taken: %v", godeadlock.Opts.DeadlockTimeout)
	}
}
