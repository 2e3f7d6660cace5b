package main

import (
	"strings"
	"testing"
	"time"
)

func TestSettingsOffByDefault(t *testing.T) {
	s, err := parseSettings(map[string]string{}, "yunikorn")
	if err != nil || s.Enabled {
		t.Fatalf("empty ConfigMap: %+v, %v; want leader election off", s, err)
	}
	if s.LeaseName != DefaultLeaseName || s.LeaseNamespace != "yunikorn" || s.LeaseDuration != DefaultLeaseDuration {
		t.Errorf("defaults: %+v", s)
	}
}

func TestSettingsFromConfigMap(t *testing.T) {
	t.Setenv(envIdentity, "replica-a")
	s, err := parseSettings(map[string]string{
		keyEnabled: " true ", keyLeaseName: "ha", keyLeaseNamespace: "sched",
		keyLeaseDuration: "15s", keyRenewDeadline: "10s", keyRetryPeriod: "2s",
	}, "yunikorn")
	if err != nil {
		t.Fatal(err)
	}
	want := settings{Enabled: true, LeaseName: "ha", LeaseNamespace: "sched", Identity: "replica-a",
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second}
	if s != want {
		t.Fatalf("got %+v, want %+v", s, want)
	}
}

func TestSettingsIdentityIsUniquePerProcess(t *testing.T) {
	t.Setenv(envIdentity, "")
	a, err := parseSettings(map[string]string{keyEnabled: "true"}, "yunikorn")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := parseSettings(map[string]string{keyEnabled: "true"}, "yunikorn")
	if a.Identity == "" || a.Identity == b.Identity {
		t.Fatalf("identities %q and %q: want two different ones", a.Identity, b.Identity)
	}
}

func TestSettingsRejections(t *testing.T) {
	for _, c := range []struct {
		cm   map[string]string
		want string
	}{
		{map[string]string{keyEnabled: "yes please"}, keyEnabled},
		{map[string]string{keyEnabled: "true", keyLeaseDuration: "soon"}, keyLeaseDuration},
		{map[string]string{keyEnabled: "true", keyRetryPeriod: "-1s"}, keyRetryPeriod},
		{map[string]string{keyEnabled: "true", keyLeaseDuration: "2s", keyRenewDeadline: "2s"}, keyRenewDeadline},
		{map[string]string{keyEnabled: "true", keyRenewDeadline: "1s", keyRetryPeriod: "1s"}, keyRetryPeriod},
	} {
		_, err := parseSettings(c.cm, "yunikorn")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %s", c.cm, err, c.want)
		}
	}
	if _, err := parseSettings(map[string]string{keyEnabled: "true"}, ""); err == nil {
		t.Error("no lease namespace accepted")
	}
}
