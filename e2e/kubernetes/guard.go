package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// StandStill is how long the bound count of a wave may stand still before
// the stall guard looks at the scheduler core.
const StandStill = 10 * time.Second

// waitingReasons are the reasons of a pending ask that leave it pending
// on purpose even when a node fits it (docs/rest.md, the why view).
var waitingReasons = map[string]bool{
	"QueueMax": true, "MaxApplications": true, "UserLimit": true, "WaitingForGang": true,
}

// GuardLook is how long the stall guard watches Paddock's allocation
// count once the bound count stood still.
var GuardLook = 2 * time.Second

// allocatedSeries is the metric series counting Paddock's allocations.
const allocatedSeries = `yunikorn_scheduler_container_allocation_attempt_total{state="allocated"}`

// stallGuard is the guard of a wave through the shim on Paddock: it fails
// the wave when, with the bound count standing still, Paddock allocates
// nothing for GuardLook while it holds pending asks of the wave that have
// waited StandStill or longer, fit a node by its own accounting, and wait
// for no limit. Such an ask should have been placed (or refused by the
// RM's predicates, which the why view then names). While Paddock goes on
// allocating, the bound count stands still downstream of it (binds the API
// server does not answer, or the harness's own watch closed by a
// congested API server and listing again): that is logged, not failed. A
// REST error is no failure: the core may be restarting. On failure
// Paddock's goroutines are saved in the logs.
func (c *cluster) stallGuard(w wave) func(context.Context) error {
	return func(ctx context.Context) error {
		if moved, err := c.allocating(ctx); err != nil {
			logf("   stall guard: cannot tell (%v)", err)
			return nil
		} else if moved > 0 {
			logf("   stall guard: no pod bound for %s, but Paddock allocated %d in %s: the binds or the watch lag behind it", StandStill, moved, GuardLook)
			return nil
		}
		n, example, err := c.fittingPending(ctx, w)
		if err != nil {
			logf("   stall guard: cannot tell (%v)", err)
			return nil
		}
		if n == 0 {
			return nil
		}
		dump := filepath.Join(c.work, "logs", fmt.Sprintf("paddock-stack-%s.txt", time.Now().Format("150405")))
		if err := c.saveREST(ctx, "/debug/stack", dump); err != nil {
			dump = "not saved: " + err.Error()
		}
		return fmt.Errorf("stall: Paddock holds %d pending asks that fit a node and waited %s or more, e.g. %s (goroutines: %s)", n, StandStill, example, dump)
	}
}

// allocating returns how many allocations Paddock made over GuardLook.
func (c *cluster) allocating(ctx context.Context) (int64, error) {
	before, err := c.allocated(ctx)
	if err != nil {
		return 0, err
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(GuardLook):
	}
	after, err := c.allocated(ctx)
	return after - before, err
}

// allocated reads Paddock's count of allocations from its metrics.
func (c *cluster) allocated(ctx context.Context) (int64, error) {
	body, err := getREST(ctx, c.restURL(), "/ws/v1/metrics")
	if err != nil {
		return 0, err
	}
	defer body.Close()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), allocatedSeries+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", allocatedSeries, err)
			}
			return int64(f), nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s in /ws/v1/metrics", allocatedSeries)
}

// fittingPending counts the wave's pending asks in Paddock that fit a node
// now, wait for no limit and have waited StandStill or longer.
func (c *cluster) fittingPending(ctx context.Context, w wave) (int, string, error) {
	n, example := 0, ""
	old := time.Now().Add(-StandStill).UnixNano()
	for i := range w.namespaces {
		var apps []struct {
			ID string `json:"applicationID"`
		}
		err := c.rest(ctx, "/ws/v1/partition/default/queue/root."+w.namespace(i)+"/applications", &apps)
		if errors.Is(err, errNotFound) {
			continue // no pod of the namespace has reached the core yet
		}
		if err != nil {
			return 0, "", err
		}
		for _, a := range apps {
			var why struct {
				Asks []struct {
					Key         string `json:"allocationKey"`
					RequestTime int64  `json:"requestTime"`
					Reason      string `json:"reason"`
					Message     string `json:"message"`
					FitNodes    int    `json:"fitNodes"`
				} `json:"asks"`
			}
			if err := c.rest(ctx, "/ws/v1/partition/default/application/"+url.PathEscape(a.ID)+"/why", &why); err != nil {
				return 0, "", err
			}
			for _, x := range why.Asks {
				if x.FitNodes == 0 || waitingReasons[x.Reason] || x.RequestTime > old {
					continue
				}
				n++
				if example == "" {
					example = fmt.Sprintf("%s of %s: %s (%s), fits %d nodes", x.Key, a.ID, x.Reason, x.Message, x.FitNodes)
				}
			}
		}
	}
	return n, example, nil
}

// saveREST writes the body of a GET of the core's REST path to file.
func (c *cluster) saveREST(ctx context.Context, path, file string) error {
	body, err := getREST(ctx, c.restURL(), path)
	if err != nil {
		return err
	}
	defer body.Close()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// profileWave starts a CPU profile of the shim process of contender name
// (through its core's REST /debug/pprof/profile) when -profile is set; the
// channel gets its outcome. kube-scheduler is not profiled.
func (c *cluster) profileWave(ctx context.Context, name string) <-chan error {
	out := make(chan error, 1)
	if c.o.profile == "" || name == "kube-scheduler" {
		out <- nil
		return out
	}
	file := filepath.Join(c.o.profile, fmt.Sprintf("%s-%s.pprof", name, time.Now().Format("150405")))
	go func() {
		out <- c.saveREST(ctx, fmt.Sprintf("/debug/pprof/profile?seconds=%d", int(c.o.profileFor.Seconds())), file)
		logf("profile of %s: %s", name, file)
	}()
	return out
}
