package resource

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// MaxTypes is the number of resource types one registry can know, the width
// of a Vector. Kubernetes clusters rarely use more than a dozen (vcore,
// memory, pods, ephemeral-storage, a few device plugins, hugepages sizes).
// The engine keeps one registry per resource manager, so the types of one
// RM never count against another's.
const MaxTypes = 16

// Index identifies an interned resource name; valid values are 0..MaxTypes-1.
type Index uint8

// The two resources every registry knows from the start.
const (
	VCoreIndex  Index = 0
	MemoryIndex Index = 1
)

// Registry interns resource names to indexes, up to its limit (MaxTypes
// unless made with NewLimitedRegistry). The engine owns one per resource
// manager. Lookups (Index, Name, Len, Names) are safe for any number of
// concurrent readers while another goroutine interns: the name table is
// copy-on-write behind an atomic pointer, and writers serialise on a mutex.
// Once interned, a name keeps its index for the life of the registry.
type Registry struct {
	mu    sync.Mutex
	names atomic.Pointer[[]string] // nil until the first Intern
	limit int                      // 0 means MaxTypes
}

// preinterned is the table of a registry nothing was interned in yet. It is
// never modified: interning copies it.
var preinterned = []string{VCore, Memory}

// NewRegistry returns a registry with vcore at VCoreIndex and memory at
// MemoryIndex. The zero Registry is equally ready to use.
func NewRegistry() *Registry {
	return &Registry{}
}

// NewLimitedRegistry returns a registry that holds at most limit names,
// vcore and memory included; limit is clamped to 2..MaxTypes, and 0 means
// MaxTypes.
func NewLimitedRegistry(limit int) *Registry {
	if limit == 0 {
		limit = MaxTypes
	}
	return &Registry{limit: min(max(limit, len(preinterned)), MaxTypes)}
}

// Limit is the most names the registry holds.
func (r *Registry) Limit() int {
	if r.limit == 0 {
		return MaxTypes
	}
	return r.limit
}

func (r *Registry) table() []string {
	if t := r.names.Load(); t != nil {
		return *t
	}
	return preinterned
}

// Len reports how many names are interned.
func (r *Registry) Len() int {
	return len(r.table())
}

// Names returns the interned names in index order. The slice is a copy.
func (r *Registry) Names() []string {
	return slices.Clone(r.table())
}

// Name returns the name interned at i, or "" if nothing is interned there.
func (r *Registry) Name(i Index) string {
	t := r.table()
	if int(i) >= len(t) {
		return ""
	}
	return t[i]
}

// Index returns the index of an interned name.
func (r *Registry) Index(name string) (Index, bool) {
	return lookup(r.table(), name)
}

func lookup(t []string, name string) (Index, bool) {
	for i, n := range t {
		if n == name {
			return Index(i), true
		}
	}
	return 0, false
}

// Intern returns the index of name, assigning the next free index if the
// name is new. It fails for the empty name and when Limit names are
// already interned.
func (r *Registry) Intern(name string) (Index, error) {
	if i, ok := r.Index(name); ok {
		return i, nil
	}
	if name == "" {
		return 0, fmt.Errorf("resource name is empty")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.table()
	if i, ok := lookup(t, name); ok {
		return i, nil
	}
	if len(t) >= r.Limit() {
		return 0, fmt.Errorf("cannot add resource type %q: the limit of %d resource types is reached (%v)", name, r.Limit(), t)
	}
	r.publish(append(slices.Clip(t), name))
	return Index(len(t)), nil
}

// internAll interns every name in names (sorted, without duplicates) or none
// of them: it fails without changing the registry if they do not all fit.
func (r *Registry) internAll(names []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.table()
	var fresh []string
	for _, n := range names {
		if n == "" {
			return fmt.Errorf("resource name is empty")
		}
		if _, ok := lookup(t, n); !ok {
			fresh = append(fresh, n)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	if len(t)+len(fresh) > r.Limit() {
		return fmt.Errorf("cannot add resource types %q: the limit of %d resource types would be exceeded (already known: %v)", fresh, r.Limit(), t)
	}
	r.publish(append(slices.Clip(t), fresh...))
	return nil
}

// publish stores a new table; the caller holds mu and passes a slice that
// shares no backing array with the previous table.
func (r *Registry) publish(t []string) {
	r.names.Store(&t)
}
