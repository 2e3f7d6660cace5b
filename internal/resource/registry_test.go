package resource

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestRegistryPreinterned(t *testing.T) {
	r := NewRegistry()
	if n := r.Len(); n != 2 {
		t.Fatalf("Len() = %d, want 2", n)
	}
	for _, tc := range []struct {
		name string
		idx  Index
	}{{VCore, VCoreIndex}, {Memory, MemoryIndex}} {
		i, ok := r.Index(tc.name)
		if !ok || i != tc.idx {
			t.Errorf("Index(%q) = %d, %v; want %d, true", tc.name, i, ok, tc.idx)
		}
		if got := r.Name(tc.idx); got != tc.name {
			t.Errorf("Name(%d) = %q, want %q", tc.idx, got, tc.name)
		}
	}
	if VCoreIndex == MemoryIndex {
		t.Fatal("vcore and memory share an index")
	}
}

func TestRegistryIntern(t *testing.T) {
	r := NewRegistry()
	gpu, err := r.Intern("nvidia.com/gpu")
	if err != nil || gpu != 2 {
		t.Fatalf("Intern(gpu) = %d, %v; want 2, nil", gpu, err)
	}
	again, err := r.Intern("nvidia.com/gpu")
	if err != nil || again != gpu {
		t.Fatalf("second Intern(gpu) = %d, %v; want %d, nil", again, err, gpu)
	}
	if i, err := r.Intern(Memory); err != nil || i != MemoryIndex {
		t.Errorf("Intern(memory) = %d, %v; want %d", i, err, MemoryIndex)
	}
	if _, ok := r.Index("pods"); ok {
		t.Error("Index(pods) found a name never interned")
	}
	if got := r.Name(7); got != "" {
		t.Errorf("Name(7) = %q, want empty", got)
	}
	if got := r.Name(200); got != "" {
		t.Errorf("Name(200) = %q, want empty", got)
	}
	if _, err := r.Intern(""); err == nil {
		t.Error("Intern(\"\") succeeded")
	}
	names := r.Names()
	if want := []string{VCore, Memory, "nvidia.com/gpu"}; !slices.Equal(names, want) {
		t.Errorf("Names() = %v, want %v", names, want)
	}
	names[0] = "changed"
	if r.Name(VCoreIndex) != VCore {
		t.Error("modifying the result of Names() changed the registry")
	}
}

func TestRegistryFull(t *testing.T) {
	r := NewRegistry()
	for i := r.Len(); i < MaxTypes; i++ {
		idx, err := r.Intern(fmt.Sprintf("r%d", i))
		if err != nil || int(idx) != i {
			t.Fatalf("Intern(r%d) = %d, %v", i, idx, err)
		}
	}
	_, err := r.Intern("one-too-many")
	if err == nil {
		t.Fatal("interning name number MaxTypes+1 succeeded")
	}
	if !strings.Contains(err.Error(), `"one-too-many"`) {
		t.Errorf("error %q does not name the resource", err)
	}
	if r.Len() != MaxTypes {
		t.Errorf("Len() = %d after a failed Intern, want %d", r.Len(), MaxTypes)
	}
	if _, ok := r.Index("one-too-many"); ok {
		t.Error("failed Intern left the name in the registry")
	}
	// Existing names still intern fine on a full registry.
	if i, err := r.Intern("r5"); err != nil || i != 5 {
		t.Errorf("Intern(r5) on a full registry = %d, %v", i, err)
	}
}

func TestRegistryInstancesIndependent(t *testing.T) {
	a, b := NewRegistry(), NewRegistry()
	if _, err := a.Intern("pods"); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Index("pods"); ok {
		t.Error("a name interned in one registry is visible in another")
	}
}

// TestRegistryConcurrent has readers look names up while one writer interns
// and checks every reader sees a consistent table; run it with -race.
func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan string, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				names := r.Names()
				for i, n := range names {
					if j, ok := r.Index(n); !ok || int(j) != i {
						errs <- fmt.Sprintf("Index(%q) = %d, %v; want %d", n, j, ok, i)
						return
					}
					if got := r.Name(Index(i)); got != n {
						errs <- fmt.Sprintf("Name(%d) = %q, want %q", i, got, n)
						return
					}
				}
				if r.Len() < len(names) {
					errs <- "Len shrank"
					return
				}
			}
		}()
	}
	for i := r.Len(); i < MaxTypes; i++ {
		if _, err := r.Intern(fmt.Sprintf("type-%d", i)); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestRegistryConcurrentWriters checks that racing writers agree on one
// index per name.
func TestRegistryConcurrentWriters(t *testing.T) {
	r := NewRegistry()
	names := []string{"a", "b", "c", "d", "e", "f"}
	got := make([][]Index, 4)
	var wg sync.WaitGroup
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, n := range names {
				i, err := r.Intern(n)
				if err != nil {
					t.Error(err)
				}
				got[g] = append(got[g], i)
			}
		}()
	}
	wg.Wait()
	for g := 1; g < len(got); g++ {
		if !slices.Equal(got[g], got[0]) {
			t.Errorf("writer %d saw indexes %v, writer 0 saw %v", g, got[g], got[0])
		}
	}
	if r.Len() != 2+len(names) {
		t.Errorf("Len() = %d, want %d", r.Len(), 2+len(names))
	}
}

func TestRegistryZeroValue(t *testing.T) {
	var a, b Registry
	if i, ok := a.Index(Memory); !ok || i != MemoryIndex {
		t.Errorf("zero Registry: Index(memory) = %d, %v", i, ok)
	}
	if i, err := a.Intern("pods"); err != nil || i != 2 {
		t.Errorf("zero Registry: Intern(pods) = %d, %v", i, err)
	}
	if b.Len() != 2 || b.Name(2) != "" {
		t.Error("interning in one zero Registry changed another")
	}
}

func TestLimitedRegistry(t *testing.T) {
	r := NewLimitedRegistry(4)
	if r.Limit() != 4 {
		t.Fatalf("Limit() = %d, want 4", r.Limit())
	}
	if _, err := r.FromMap(map[string]int64{"a": 1, "b": 1, "c": 1}); err == nil {
		t.Fatal("three new types in a registry of 4 with vcore and memory: no error")
	} else if !strings.Contains(err.Error(), "limit of 4 resource types") {
		t.Errorf("error %q does not name the limit", err)
	}
	if r.Len() != 2 {
		t.Fatalf("a refused map changed the registry: %v", r.Names())
	}
	if _, err := r.FromMap(map[string]int64{"a": 1, "b": 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Intern("c"); err == nil {
		t.Fatal("Intern past the limit: no error")
	}
	for in, want := range map[int]int{0: MaxTypes, 1: 2, 100: MaxTypes, 7: 7} {
		if got := NewLimitedRegistry(in).Limit(); got != want {
			t.Errorf("NewLimitedRegistry(%d).Limit() = %d, want %d", in, got, want)
		}
	}
}
