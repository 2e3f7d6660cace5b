package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"time"
)

// audit compares what the restarted server shows over REST with what the
// RM holds (want: allocation key -> node): every allocation once, on its
// node; each node's allocated resource the sum of the RM's allocations on
// it; the pending asks pending. It returns the allocations the server
// shows.
func audit(ctx context.Context, base string, want map[string]string, o Options) (int, []string, error) {
	hc := &http.Client{Timeout: 10 * time.Minute}
	var problems []string
	// REST reads a snapshot at most 250 ms old: wait for the totals
	var parts []struct {
		Name            string `json:"name"`
		TotalNodes      int    `json:"totalNodes"`
		TotalContainers int    `json:"totalContainers"`
	}
	// (until they match, or stay the same for 5 s)
	deadline := time.Now().Add(2 * time.Minute)
	last, since := "", time.Now()
	for {
		if err := get(ctx, hc, base+"/ws/v1/partitions", &parts); err != nil {
			return 0, nil, err
		}
		if len(parts) == 1 && parts[0].TotalNodes == o.Nodes && parts[0].TotalContainers == len(want) {
			break
		}
		if now := fmt.Sprint(parts); now != last {
			last, since = now, time.Now()
		}
		if time.Now().After(deadline) || time.Since(since) > 5*time.Second {
			problems = append(problems, fmt.Sprintf("partitions: %+v, want one with %d nodes and %d allocations", parts, o.Nodes, len(want)))
			break
		}
		time.Sleep(100 * time.Millisecond)
	}

	var nodes []struct {
		NodeID      string           `json:"nodeID"`
		Allocated   map[string]int64 `json:"allocated"`
		Allocations []struct {
			AllocationKey string `json:"allocationKey"`
		} `json:"allocations"`
	}
	if err := get(ctx, hc, base+"/ws/v1/partition/default/nodes", &nodes); err != nil {
		return 0, problems, err
	}
	if len(nodes) != o.Nodes {
		problems = append(problems, fmt.Sprintf("%d nodes, want %d", len(nodes), o.Nodes))
	}
	perNode := map[string]int64{}
	for _, n := range want {
		perNode[n]++
	}
	seen := make(map[string]string, len(want))
	var odd []string
	for _, n := range nodes {
		for _, a := range n.Allocations {
			k := a.AllocationKey
			switch prev, dup := seen[k]; {
			case dup:
				odd = append(odd, fmt.Sprintf("allocation %s twice: on %s and %s", k, prev, n.NodeID))
			case want[k] == "":
				odd = append(odd, fmt.Sprintf("allocation %s on %s: the RM does not hold it", k, n.NodeID))
			case want[k] != n.NodeID:
				odd = append(odd, fmt.Sprintf("allocation %s on %s: the RM has it on %s", k, n.NodeID, want[k]))
			}
			seen[k] = n.NodeID
		}
		// every allocation is 1 core and 1 GiB
		if v, m := n.Allocated["vcore"], n.Allocated["memory"]; v != perNode[n.NodeID]*1000 || m != perNode[n.NodeID]<<30 {
			odd = append(odd, fmt.Sprintf("node %s: allocated vcore %d memory %d, the RM holds %d allocations on it", n.NodeID, v, m, perNode[n.NodeID]))
		}
	}
	for k, n := range want {
		if _, ok := seen[k]; !ok {
			odd = append(odd, fmt.Sprintf("allocation %s on %s lost", k, n))
		}
	}
	sort.Strings(odd)
	problems = append(problems, firstOf(odd, 20)...)

	var app struct {
		PendingResource map[string]int64 `json:"pendingResource"`
		Requests        []any            `json:"requests"`
	}
	if err := get(ctx, hc, base+"/ws/v1/partition/default/application/pending", &app); err != nil {
		return len(seen), problems, err
	}
	if len(app.Requests) != o.Pending || app.PendingResource["vcore"] != int64(o.Pending)*64000 {
		problems = append(problems, fmt.Sprintf("application pending: %d asks pending %d vcore, want %d and %d", len(app.Requests), app.PendingResource["vcore"], o.Pending, int64(o.Pending)*64000))
	}
	return len(seen), problems, nil
}

func get(ctx context.Context, hc *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}
