package resource

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// VCore is the name of the CPU resource. Its quantities are stored in
// millicores: "2" means 2000, "500m" means 500.
const VCore = "vcore"

// Memory is the name of the memory resource, stored in bytes.
const Memory = "memory"

// suffix multipliers accepted by ParseQuantity, longest first so that "Ki"
// is tried before "k" would ever be confused with it.
var suffixes = []struct {
	s string
	m int64
}{
	{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30},
	{"Ti", 1 << 40}, {"Pi", 1 << 50}, {"Ei", 1 << 60},
	{"k", 1e3}, {"M", 1e6}, {"G", 1e9},
	{"T", 1e12}, {"P", 1e15}, {"E", 1e18},
}

// ParseQuantity parses a YuniKorn quantity string: a non-negative integer
// with an optional decimal (k M G T P E) or binary (Ki Mi Gi Ti Pi Ei)
// suffix. Decimals, signs other than a leading '+', and values that do not
// fit in an int64 are rejected.
func ParseQuantity(s string) (int64, error) {
	return parse(s, false)
}

// ParseVCore parses a vcore quantity and returns millicores: a plain or
// suffixed number is a count of cores, a number with the "m" suffix is a
// count of millicores.
func ParseVCore(s string) (int64, error) {
	return parse(s, true)
}

// ParseValue parses the quantity of the named resource: vcore goes through
// ParseVCore, every other resource through ParseQuantity.
func ParseValue(name, s string) (int64, error) {
	if name == VCore {
		return ParseVCore(s)
	}
	return ParseQuantity(s)
}

func parse(s string, vcore bool) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("invalid quantity %q: empty", s)
	}
	mult := int64(1)
	num := t
	milli := false
	if vcore && strings.HasSuffix(t, "m") {
		milli = true
		num = t[:len(t)-1]
	} else {
		for _, sf := range suffixes {
			if strings.HasSuffix(t, sf.s) {
				mult = sf.m
				num = t[:len(t)-len(sf.s)]
				break
			}
		}
	}
	num = strings.TrimPrefix(num, "+")
	if num == "" || strings.IndexFunc(num, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return 0, fmt.Errorf("invalid quantity %q: want a non-negative integer with an optional suffix", s)
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid quantity %q: out of range", s)
	}
	if vcore && !milli {
		mult, err = mulChecked(mult, 1000)
		if err != nil {
			return 0, fmt.Errorf("invalid quantity %q: out of range", s)
		}
	}
	out, err := mulChecked(v, mult)
	if err != nil {
		return 0, fmt.Errorf("invalid quantity %q: out of range", s)
	}
	return out, nil
}

// mulChecked multiplies two non-negative values, failing instead of wrapping.
func mulChecked(a, b int64) (int64, error) {
	if a != 0 && b > math.MaxInt64/a {
		return 0, errOverflow
	}
	return a * b, nil
}

var errOverflow = fmt.Errorf("int64 overflow")
