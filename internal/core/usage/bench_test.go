package usage

import (
	"fmt"
	"testing"

	"github.com/paddock-sched/paddock/internal/resource"
)

// benchFixture: 100 users, each running one application in a leaf of the
// 5-level tree of treeYAML, with user, wildcard user, group and wildcard
// group limits on the way.
func benchFixture(b *testing.B) (*Manager, []string, []string, []string, []string) {
	f := newFixture(b, treeYAML(0))
	f.m.OnEvent(func(*Event) {}) // events on, as in the engine
	leafs := leaves()
	users, groups, paths, apps := make([]string, 100), make([]string, 100), make([]string, 100), make([]string, 100)
	for i := range users {
		users[i] = fmt.Sprintf("u%d", i)
		paths[i] = leafs[i%len(leafs)]
		apps[i] = fmt.Sprintf("app%d", i)
		groups[i] = f.m.SelectGroup(users[i], []string{fmt.Sprintf("g%d", i%5), "g1"}, paths[i])
		if err := f.m.Allocate(users[i], groups[i], paths[i], apps[i], cpu(1)); err != nil {
			b.Fatal(err)
		}
	}
	return f.m, users, groups, paths, apps
}

// BenchmarkAllocateHeadroom is the steady-state enforcement path: check the
// headroom, then allocate for an application that already runs.
func BenchmarkAllocateHeadroom(b *testing.B) {
	m, users, groups, paths, apps := benchFixture(b)
	ask := cpu(1)
	fits := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % 100
		if m.Headroom(users[k], groups[k], paths[k]).Allows(ask) {
			fits++
		}
		if err := m.Allocate(users[k], groups[k], paths[k], apps[k], ask); err != nil {
			b.Fatal(err)
		}
	}
	_ = fits
}

// BenchmarkAllocateRelease is an allocation and its release, usage staying
// bounded.
func BenchmarkAllocateRelease(b *testing.B) {
	m, users, groups, paths, apps := benchFixture(b)
	ask := cpu(10)
	ask[resource.MemoryIndex] = 1 << 20
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % 100
		if err := m.Allocate(users[k], groups[k], paths[k], apps[k], ask); err != nil {
			b.Fatal(err)
		}
		if err := m.Release(users[k], groups[k], paths[k], apps[k], ask, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCanRunApp is the maxapplications check for an application that
// does not run yet.
func BenchmarkCanRunApp(b *testing.B) {
	m, users, groups, paths, _ := benchFixture(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % 100
		m.CanRunApp(users[k], groups[k], paths[k], "new")
	}
}

// BenchmarkAppLifecycle starts an application, allocates twice and ends
// it: the path that creates and drops tracker state.
func BenchmarkAppLifecycle(b *testing.B) {
	m, users, groups, paths, _ := benchFixture(b)
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("x%d", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % 100
		id := ids[i%len(ids)]
		_ = m.Allocate(users[k], groups[k], paths[k], id, cpu(5))
		_ = m.Allocate(users[k], groups[k], paths[k], id, cpu(5))
		_ = m.Release(users[k], groups[k], paths[k], id, cpu(5), true)
	}
}
