package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The ConfigMap keys of leader election, in the shim's yunikorn-defaults
// or yunikorn-configs (the latter wins), read once at start.
const (
	keyEnabled        = "paddock.leaderElection.enabled"
	keyLeaseName      = "paddock.leaderElection.leaseName"
	keyLeaseNamespace = "paddock.leaderElection.leaseNamespace"
	keyLeaseDuration  = "paddock.leaderElection.leaseDuration"
	keyRenewDeadline  = "paddock.leaderElection.renewDeadline"
	keyRetryPeriod    = "paddock.leaderElection.retryPeriod"
	// envIdentity overrides the replica's identity in the Lease.
	envIdentity = "PADDOCK_LEADER_ELECTION_IDENTITY"
)

// Defaults: short enough for a failover in a few seconds after a crash
// (lease duration plus at most a retry period), with a renew deadline a
// second short of the lease for the fencing margin.
const (
	DefaultLeaseName     = "paddock-scheduler"
	DefaultLeaseDuration = 3 * time.Second
	DefaultRenewDeadline = 2 * time.Second
	DefaultRetryPeriod   = 500 * time.Millisecond
)

// settings are the leader election settings.
type settings struct {
	Enabled                                  bool
	LeaseName, LeaseNamespace, Identity      string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// parseSettings reads the settings from the shim's flattened ConfigMaps;
// namespace is the shim's own, the Lease's by default. A bad value is an
// error naming its key.
func parseSettings(cm map[string]string, namespace string) (settings, error) {
	s := settings{
		LeaseName: DefaultLeaseName, LeaseNamespace: namespace,
		LeaseDuration: DefaultLeaseDuration, RenewDeadline: DefaultRenewDeadline, RetryPeriod: DefaultRetryPeriod,
	}
	if v, ok := value(cm, keyEnabled); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return s, fmt.Errorf("%s: %q is not a boolean", keyEnabled, v)
		}
		s.Enabled = b
	}
	if v, ok := value(cm, keyLeaseName); ok {
		s.LeaseName = v
	}
	if v, ok := value(cm, keyLeaseNamespace); ok {
		s.LeaseNamespace = v
	}
	for _, d := range []struct {
		key string
		to  *time.Duration
	}{{keyLeaseDuration, &s.LeaseDuration}, {keyRenewDeadline, &s.RenewDeadline}, {keyRetryPeriod, &s.RetryPeriod}} {
		v, ok := value(cm, d.key)
		if !ok {
			continue
		}
		t, err := time.ParseDuration(v)
		if err != nil || t <= 0 {
			return s, fmt.Errorf("%s: %q is not a positive duration (such as 3s or 500ms)", d.key, v)
		}
		*d.to = t
	}
	if !s.Enabled {
		return s, nil
	}
	if s.LeaseNamespace == "" {
		return s, fmt.Errorf("%s: no namespace for the lease (the shim's own is not known)", keyLeaseNamespace)
	}
	// the elector's own rules, with the keys named: the renew deadline is
	// the fencing margin's start, shorter than the lease
	if s.RenewDeadline >= s.LeaseDuration {
		return s, fmt.Errorf("%s (%v) must be shorter than %s (%v): a leader must stop before another can take over",
			keyRenewDeadline, s.RenewDeadline, keyLeaseDuration, s.LeaseDuration)
	}
	if float64(s.RenewDeadline) <= 1.2*float64(s.RetryPeriod) {
		return s, fmt.Errorf("%s (%v) must be longer than 1.2 x %s (%v)", keyRenewDeadline, s.RenewDeadline, keyRetryPeriod, s.RetryPeriod)
	}
	id, err := identity()
	if err != nil {
		return s, err
	}
	s.Identity = id
	return s, nil
}

// value is the trimmed value of key, when set and not empty.
func value(cm map[string]string, key string) (string, bool) {
	v := strings.TrimSpace(cm[key])
	return v, v != ""
}

// identity is the replica's name in the Lease: $PADDOCK_LEADER_ELECTION_IDENTITY,
// or the host name (the pod's name) with a random suffix, so that a
// process restarted in the same pod does not find itself holding the
// Lease its predecessor held and lead at once, cold, instead of the hot
// standby.
func identity() (string, error) {
	if v := strings.TrimSpace(os.Getenv(envIdentity)); v != "" {
		return v, nil
	}
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	return host + "_" + hex.EncodeToString(b), nil
}
