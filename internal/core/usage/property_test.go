package usage

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paddock-sched/paddock/internal/resource"
)

// treeYAML is a 5-level queue tree (root and four levels of two children,
// 16 leaves) with group and user limits spread over it; variant changes
// the limits so reloads move, add and remove them.
func treeYAML(variant int) string {
	var b strings.Builder
	b.WriteString("partitions:\n  - name: default\n    queues:\n")
	var q func(name, path string, lvl int, indent string)
	q = func(name, path string, lvl int, indent string) {
		fmt.Fprintf(&b, "%s- name: %s\n", indent, name)
		var limits []string
		h := len(path) + variant*7
		if h%3 == 0 {
			limits = append(limits, fmt.Sprintf("{limit: l1, users: [u%d], maxresources: {vcore: %d}}", h%20, 20+h%10))
		}
		if h%4 == 1 {
			limits = append(limits, fmt.Sprintf("{limit: l2, groups: [g%d, g%d], maxapplications: 50}", h%5, (h+2)%5))
		}
		if h%5 == 2 {
			limits = append(limits, "{limit: l3, groups: [g1], maxapplications: 60}", `{limit: l4, groups: ["*"], maxresources: {vcore: 100}}`)
		}
		if h%6 == 3 {
			limits = append(limits, `{limit: l5, users: ["*"], maxresources: {vcore: 30}}`)
		}
		if len(limits) > 0 {
			fmt.Fprintf(&b, "%s  limits:\n", indent)
			for _, l := range limits {
				fmt.Fprintf(&b, "%s    - %s\n", indent, l)
			}
		}
		if lvl < 4 {
			fmt.Fprintf(&b, "%s  queues:\n", indent)
			for _, c := range []string{"a", "b"} {
				q(c, path+"."+c, lvl+1, indent+"    ")
			}
		}
	}
	q("root", "root", 0, "      ")
	return b.String()
}

func leaves() []string {
	out := []string{"root"}
	for range 4 {
		var next []string
		for _, p := range out {
			next = append(next, p+".a", p+".b")
		}
		out = next
	}
	return out
}

type modelApp struct {
	user, group, leaf string
	usage             resource.Vector
}

type flat struct {
	Usage map[string]int64
	Apps  []string
}

func TestPropertyTrackersMatchModel(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runModel(t, seed, 1500) })
	}
}

func runModel(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 99))
	f := newFixture(t, treeYAML(0))
	leafPaths := leaves()
	userGroups := map[string][]string{}
	for u := range 20 {
		var gs []string
		for g := range 5 {
			if rng.IntN(3) == 0 {
				gs = append(gs, fmt.Sprintf("g%d", g))
			}
		}
		rng.Shuffle(len(gs), func(i, j int) { gs[i], gs[j] = gs[j], gs[i] })
		userGroups[fmt.Sprintf("u%d", u)] = gs
	}
	model := map[string]*modelApp{}
	nextID := 0
	pick := func() (string, *modelApp) {
		if len(model) == 0 {
			return "", nil
		}
		ids := make([]string, 0, len(model))
		for id := range model {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		id := ids[rng.IntN(len(ids))]
		return id, model[id]
	}
	upTo := func(v resource.Vector) resource.Vector {
		var out resource.Vector
		for i, x := range v {
			if x > 0 {
				out[i] = rng.Int64N(x + 1)
			}
		}
		return out
	}
	variant := 0
	chosen := map[string]bool{} // kinds of group selected: "", "*", "named"
	maxLive := 0
	defer func() {
		if !chosen[""] || !chosen[Wildcard] || !chosen["named"] || maxLive < 10 {
			t.Errorf("the run did not cover enough: groups chosen %v, at most %d live applications", chosen, maxLive)
		}
	}()
	for step := range steps {
		op := rng.IntN(100)
		id, a := pick()
		switch {
		case op < 40 || a == nil:
			res := cpu(rng.Int64N(1000))
			res[resource.MemoryIndex] = rng.Int64N(3) * 512
			if a == nil || rng.IntN(2) == 0 {
				nextID++
				id = fmt.Sprintf("app%d", nextID)
				user := fmt.Sprintf("u%d", rng.IntN(20))
				leaf := leafPaths[rng.IntN(len(leafPaths))]
				if rng.IntN(5) == 0 {
					leaf += ".dyn" // a dynamic queue below a configured leaf
				}
				a = &modelApp{user: user, group: f.m.SelectGroup(user, userGroups[user], leaf), leaf: leaf}
				model[id] = a
				kind := a.group
				if kind != "" && kind != Wildcard {
					kind = "named"
				}
				chosen[kind] = true
				maxLive = max(maxLive, len(model))
			}
			if err := f.m.Allocate(a.user, a.group, a.leaf, id, res); err != nil {
				t.Fatalf("step %d: allocate: %v", step, err)
			}
			a.usage.Inc(res)
		case op < 65:
			res := upTo(a.usage)
			if err := f.m.Release(a.user, a.group, a.leaf, id, res, false); err != nil {
				t.Fatalf("step %d: release: %v", step, err)
			}
			a.usage.Dec(res)
		case op < 80:
			if err := f.m.Release(a.user, a.group, a.leaf, id, upTo(a.usage), true); err != nil {
				t.Fatalf("step %d: release done: %v", step, err)
			}
			delete(model, id)
		case op < 88:
			if !f.m.RemoveApp(id) {
				t.Fatalf("step %d: RemoveApp(%s) found nothing", step, id)
			}
			delete(model, id)
		case op < 93:
			over := a.usage
			over[resource.VCoreIndex]++
			if err := f.m.Release(a.user, a.group, a.leaf, id, over, rng.IntN(2) == 0); err == nil {
				t.Fatalf("step %d: releasing more than held succeeded", step)
			}
		default:
			variant = (variant + 1) % 3
			f.configure(treeYAML(variant))
			// a reload unlinks applications from groups no limit on their
			// path tracks any more; a group never changes to another
			for id, a := range model {
				g, ok := f.m.GroupOf(id)
				switch {
				case !ok:
					t.Fatalf("step %d: %s no longer tracked after a reload", step, id)
				case g == a.group:
				case g != "":
					t.Fatalf("step %d: %s moved from group %q to %q", step, id, a.group, g)
				default:
					probe := a.group
					if probe == Wildcard {
						probe = "no-such-group"
					}
					if f.m.SelectGroup(a.user, []string{probe}, a.leaf) == a.group {
						t.Fatalf("step %d: %s unlinked from group %q although a limit on %s still selects it", step, id, a.group, a.leaf)
					}
					a.group = ""
				}
			}
		}
		if err := f.m.Verify(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		compareModel(t, step, f.m, model)
		compareAllows(t, step, f.m, model, rng)
	}
}

// compareAllows checks that the cached bounds of every running application
// give the same answer as the full Headroom walk, for asks just inside and
// just outside the headroom and for random asks.
func compareAllows(t *testing.T, step int, m *Manager, model map[string]*modelApp, rng *rand.Rand) {
	t.Helper()
	for id, a := range model {
		h := m.Headroom(a.user, a.group, a.leaf)
		asks := []resource.Vector{cpu(rng.Int64N(3000)), {}}
		if n, ok := h.Limit(resource.VCoreIndex); ok && n >= 0 {
			asks = append(asks, cpu(n), cpu(n+1))
		}
		for _, ask := range asks {
			want := h.Allows(ask)
			if got := m.Allows(a.user, a.group, a.leaf, id, ask); got != want {
				t.Fatalf("step %d: Allows(%s, %v) = %v, Headroom says %v", step, id, ask, got, want)
			}
		}
	}
}

// compareModel recomputes every tracker from the live applications of the
// model and compares it with the manager's REST view.
func compareModel(t *testing.T, step int, m *Manager, model map[string]*modelApp) {
	t.Helper()
	wantUsers, wantGroups := map[string]map[string]*flat{}, map[string]map[string]*flat{}
	wantLinks := map[string]map[string]string{}
	add := func(into map[string]map[string]*flat, name, id string, a *modelApp) {
		if into[name] == nil {
			into[name] = map[string]*flat{}
		}
		for p := a.leaf; ; {
			fl := into[name][p]
			if fl == nil {
				fl = &flat{Usage: map[string]int64{}}
				into[name][p] = fl
			}
			fl.Usage["vcore"] += a.usage[resource.VCoreIndex]
			fl.Usage["memory"] += a.usage[resource.MemoryIndex]
			fl.Apps = append(fl.Apps, id)
			i := strings.LastIndexByte(p, '.')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	for id, a := range model {
		add(wantUsers, a.user, id, a)
		if a.group != "" {
			add(wantGroups, a.group, id, a)
		}
		if wantLinks[a.user] == nil {
			wantLinks[a.user] = map[string]string{}
		}
		wantLinks[a.user][id] = a.group
	}
	for _, w := range []map[string]map[string]*flat{wantUsers, wantGroups} {
		for _, paths := range w {
			for _, fl := range paths {
				slices.Sort(fl.Apps)
				for k, v := range fl.Usage {
					if v == 0 {
						delete(fl.Usage, k)
					}
				}
			}
		}
	}
	gotUsers, gotGroups := map[string]map[string]*flat{}, map[string]map[string]*flat{}
	gotLinks := map[string]map[string]string{}
	for _, u := range m.Users() {
		gotUsers[u.UserName] = flatten(t, u.Queues, "")
		gotLinks[u.UserName] = u.Groups
	}
	for _, g := range m.Groups() {
		gotGroups[g.GroupName] = flatten(t, g.Queues, "")
		var apps []string
		for p, fl := range gotGroups[g.GroupName] {
			if p == "root" {
				apps = fl.Apps
			}
		}
		if !slices.Equal(apps, g.Applications) {
			t.Fatalf("step %d: group %s lists %v, its root runs %v", step, g.GroupName, g.Applications, apps)
		}
	}
	if d := cmp.Diff(wantUsers, gotUsers); d != "" {
		t.Fatalf("step %d: users differ from the model (-want +got):\n%s", step, d)
	}
	if d := cmp.Diff(wantGroups, gotGroups); d != "" {
		t.Fatalf("step %d: groups differ from the model (-want +got):\n%s", step, d)
	}
	if d := cmp.Diff(wantLinks, gotLinks); d != "" {
		t.Fatalf("step %d: application groups differ from the model (-want +got):\n%s", step, d)
	}
}

func flatten(t *testing.T, q QueueUsageDAO, parent string) map[string]*flat {
	out := map[string]*flat{}
	var walk func(q QueueUsageDAO, parent string)
	walk = func(q QueueUsageDAO, parent string) {
		if parent != "" && !strings.HasPrefix(q.QueuePath, parent+".") {
			t.Fatalf("queue %s is listed under %s", q.QueuePath, parent)
		}
		out[q.QueuePath] = &flat{Usage: q.ResourceUsage, Apps: q.RunningApplications}
		for i, c := range q.Children {
			if i > 0 && q.Children[i-1].QueuePath >= c.QueuePath {
				t.Fatalf("children of %s are not sorted", q.QueuePath)
			}
			walk(c, q.QueuePath)
		}
	}
	walk(q, parent)
	return out
}
