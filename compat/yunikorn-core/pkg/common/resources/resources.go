// Package resources has the reference core's resource type, as read-only
// values copied from Paddock's state.
package resources

import (
	"maps"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// Quantity is an amount of one resource type.
type Quantity int64

// Resource is an amount per resource type.
type Resource struct {
	Resources map[string]Quantity
}

// NewResourceFromMap copies a map of quantities into a Resource.
func NewResourceFromMap(m map[string]int64) *Resource {
	r := &Resource{Resources: make(map[string]Quantity, len(m))}
	for k, v := range m {
		r.Resources[k] = Quantity(v)
	}
	return r
}

// ToProto is the resource as an SI message; nil is an empty resource.
func (r *Resource) ToProto() *si.Resource {
	out := &si.Resource{Resources: map[string]*si.Quantity{}}
	if r == nil {
		return out
	}
	for k, v := range r.Resources {
		out.Resources[k] = &si.Quantity{Value: int64(v)}
	}
	return out
}

// Clone is a deep copy.
func (r *Resource) Clone() *Resource {
	if r == nil {
		return nil
	}
	return &Resource{Resources: maps.Clone(r.Resources)}
}
