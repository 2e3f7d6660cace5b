package resource

import (
	"math"
	"testing"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"10", 10, true},
		{"+10", 10, true},
		{"007", 7, true},
		{"1k", 1000, true},
		{"1Ki", 1024, true},
		{"3M", 3_000_000, true},
		{"3Mi", 3 << 20, true},
		{"2G", 2_000_000_000, true},
		{"2Gi", 2 << 30, true},
		{"1T", 1e12, true},
		{"1Ti", 1 << 40, true},
		{"1P", 1e15, true},
		{"1Pi", 1 << 50, true},
		{"1E", 1e18, true},
		{"9E", 9e18, true},
		{"7Ei", 7 << 60, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"", 0, false},
		{" ", 0, false},
		{"-1", 0, false},
		{"-0", 0, false},
		{"1.5", 0, false},
		{"1m", 0, false},
		{"1x", 0, false},
		{"0x10", 0, false},
		{"1KiB", 0, false},
		{"1 k", 0, false},
		{"k", 0, false},
		{"Ki", 0, false},
		{"+", 0, false},
		{"++1", 0, false},
		{"1e3", 0, false},
		{"1K", 0, false},
		{"١", 0, false}, // a non-ASCII digit
		{"9223372036854775808", 0, false},
		{"9223372036854775807k", 0, false},
		{"10E", 0, false},
		{"8Ei", 0, false},
		{"9Ei", 0, false},
		{"9223372036854775807Ki", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseQuantity(tc.in)
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("ParseQuantity(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if !tc.ok && err == nil {
			t.Errorf("ParseQuantity(%q) = %d; want an error", tc.in, got)
		}
	}
}

func TestParseVCore(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"0m", 0, true},
		{"500m", 500, true},
		{"1500m", 1500, true},
		{"2", 2000, true},
		{"1k", 1_000_000, true},
		{"1Ki", 1024_000, true},
		{"9223372036854775807m", math.MaxInt64, true},
		{"9223372036854775", 9223372036854775000, true},
		{"", 0, false},
		{"m", 0, false},
		{"-1", 0, false},
		{"-500m", 0, false},
		{"1.5", 0, false},
		{"0.5", 0, false},
		{"1km", 0, false},
		{"1Mm", 0, false},
		{"1x", 0, false},
		{"9223372036854775807", 0, false},
		{"9223372036854776", 0, false},
		{"1E", 0, false},
		{"9223372036854775808m", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseVCore(tc.in)
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("ParseVCore(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if !tc.ok && err == nil {
			t.Errorf("ParseVCore(%q) = %d; want an error", tc.in, got)
		}
	}
}

func TestParseValue(t *testing.T) {
	tests := []struct {
		name, in string
		want     int64
		ok       bool
	}{
		{VCore, "2", 2000, true},
		{VCore, "250m", 250, true},
		{Memory, "2", 2, true},
		{Memory, "1Gi", 1 << 30, true},
		{Memory, "250m", 0, false},
		{"nvidia.com/gpu", "4", 4, true},
		{"pods", "110", 110, true},
		{"pods", "1m", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseValue(tc.name, tc.in)
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("ParseValue(%q, %q) = %d, %v; want %d", tc.name, tc.in, got, err, tc.want)
		}
		if !tc.ok && err == nil {
			t.Errorf("ParseValue(%q, %q) = %d; want an error", tc.name, tc.in, got)
		}
	}
}
