// Package siconv owns the conversion between the SI Resource message and
// Paddock's resource vectors and quotas. It sits at the SI edge so that the
// resource package, and the core through it, never import the SI packages.
package siconv

import (
	"errors"
	"fmt"
	"slices"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/resource"
)

// errNil is returned for a missing Resource message.
var errNil = errors.New("SI resource is nil")

// Vector converts an SI Resource to a vector, interning new resource names
// in r. A nil message, a nil quantity, a negative quantity, a quantity above
// resource.MaxQuantity and more resource
// types than the registry can hold are errors naming the offending resource;
// on error the registry is unchanged. An empty message is the zero vector.
func Vector(r *resource.Registry, res *si.Resource) (resource.Vector, error) {
	if v, ok := Known(r, res); ok {
		return v, nil
	}
	m, err := toMap(res)
	if err != nil {
		return resource.Vector{}, err
	}
	return r.FromMap(m)
}

// Known is Vector's fast path, without allocation and without changing
// r: it converts res when res is not nil, every name in it is interned in
// r already and every quantity is valid, and reports false otherwise. What
// it converts, Vector converts the same, now and later (an interned name
// keeps its index). It may run while another goroutine interns in r.
func Known(r *resource.Registry, res *si.Resource) (resource.Vector, bool) {
	var v resource.Vector
	if res == nil {
		return v, false
	}
	for name, q := range res.Resources {
		i, known := r.Index(name)
		if q != nil && q.Value == 0 && !known {
			continue // as good as none: not interned (FromMap)
		}
		if !known || q == nil || q.Value < 0 || q.Value > resource.MaxQuantity {
			return resource.Vector{}, false
		}
		v[i] = q.Value
	}
	return v, true
}

// Quota converts an SI Resource holding a maximum to a quota: every type in
// the message is limited, a quantity of 0 making it unavailable, and types
// absent from the message are unlimited. Errors are those of Vector.
func Quota(r *resource.Registry, res *si.Resource) (resource.Quota, error) {
	m, err := toMap(res)
	if err != nil {
		return resource.Quota{}, err
	}
	return r.QuotaFromMap(m)
}

func toMap(res *si.Resource) (map[string]int64, error) {
	if res == nil {
		return nil, errNil
	}
	m := make(map[string]int64, len(res.Resources))
	for name, q := range res.Resources {
		if q == nil {
			return nil, firstBad(res)
		}
		m[name] = q.Value
	}
	return m, nil
}

// firstBad names the nil quantity with the smallest resource name so the
// error does not depend on map order.
func firstBad(res *si.Resource) error {
	names := make([]string, 0, len(res.Resources))
	for name, q := range res.Resources {
		if q == nil {
			names = append(names, name)
		}
	}
	return fmt.Errorf("SI resource %q: quantity is nil", slices.Min(names))
}

// Resource converts a vector to an SI Resource, omitting zero components.
// A negative component, or a non-zero component at an index nothing is
// interned at, is an error naming it.
func Resource(r *resource.Registry, v resource.Vector) (*si.Resource, error) {
	out := &si.Resource{Resources: make(map[string]*si.Quantity)}
	for i, x := range v {
		if x == 0 {
			continue
		}
		name := r.Name(resource.Index(i))
		if name == "" {
			return nil, fmt.Errorf("resource index %d has quantity %d but no interned name", i, x)
		}
		if x < 0 {
			return nil, fmt.Errorf("resource %q: quantity %d is negative", name, x)
		}
		out.Resources[name] = &si.Quantity{Value: x}
	}
	return out, nil
}
