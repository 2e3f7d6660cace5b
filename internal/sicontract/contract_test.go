package sicontract

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// describe renders a file descriptor in the line forms of golden.
func describe(fd protoreflect.FileDescriptor) []string {
	pkg := string(fd.Package()) + "."
	rel := func(n protoreflect.FullName) string { return strings.TrimPrefix(string(n), pkg) }
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }

	add("syntax %s", fd.Syntax())
	add("package %s", fd.Package())

	exts := fd.Extensions()
	for i := 0; i < exts.Len(); i++ {
		x := exts.Get(i)
		add("extend %s %s = %d %s", x.ContainingMessage().FullName(), x.Name(), x.Number(), x.Kind())
	}

	services := fd.Services()
	for i := 0; i < services.Len(); i++ {
		s := services.Get(i)
		methods := s.Methods()
		for j := 0; j < methods.Len(); j++ {
			m := methods.Get(j)
			stream := func(on bool) string {
				if on {
					return "stream "
				}
				return ""
			}
			add("rpc %s.%s %s%s -> %s%s", s.Name(), m.Name(),
				stream(m.IsStreamingClient()), rel(m.Input().FullName()),
				stream(m.IsStreamingServer()), rel(m.Output().FullName()))
		}
	}

	fieldType := func(f protoreflect.FieldDescriptor) string {
		switch f.Kind() {
		case protoreflect.MessageKind, protoreflect.GroupKind:
			return rel(f.Message().FullName())
		case protoreflect.EnumKind:
			return rel(f.Enum().FullName())
		}
		return f.Kind().String()
	}

	reserved := func(owner string, names protoreflect.Names, ranges interface {
		Len() int
		Get(int) [2]int64
	}) {
		for i := 0; i < ranges.Len(); i++ {
			r := ranges.Get(i)
			for n := r[0]; n < r[1]; n++ {
				add("reserved %s %d", owner, n)
			}
		}
		for i := 0; i < names.Len(); i++ {
			add("reserved %s %q", owner, names.Get(i))
		}
	}

	var enums func(protoreflect.EnumDescriptors)
	enums = func(eds protoreflect.EnumDescriptors) {
		for i := 0; i < eds.Len(); i++ {
			e := eds.Get(i)
			vals := e.Values()
			for j := 0; j < vals.Len(); j++ {
				add("enum %s %s = %d", rel(e.FullName()), vals.Get(j).Name(), vals.Get(j).Number())
			}
			reserved(rel(e.FullName()), e.ReservedNames(), enumRanges{e.ReservedRanges()})
		}
	}

	var messages func(protoreflect.MessageDescriptors)
	messages = func(mds protoreflect.MessageDescriptors) {
		for i := 0; i < mds.Len(); i++ {
			m := mds.Get(i)
			if m.IsMapEntry() {
				continue
			}
			name := rel(m.FullName())
			add("message %s", name)
			fields := m.Fields()
			for j := 0; j < fields.Len(); j++ {
				f := fields.Get(j)
				var typ string
				switch {
				case f.IsMap():
					typ = fmt.Sprintf("map<%s,%s>", fieldType(f.MapKey()), fieldType(f.MapValue()))
				case f.IsList():
					typ = "repeated " + fieldType(f)
				case f.HasOptionalKeyword():
					typ = "optional " + fieldType(f)
				default:
					typ = fieldType(f)
				}
				if od := f.ContainingOneof(); od != nil && !od.IsSynthetic() {
					typ = fmt.Sprintf("oneof %s %s", od.Name(), typ)
				}
				add("field %s.%s = %d %s", name, f.Name(), f.Number(), typ)
			}
			reserved(name, m.ReservedNames(), fieldRanges{m.ReservedRanges()})
			enums(m.Enums())
			messages(m.Messages())
		}
	}
	enums(fd.Enums())
	messages(fd.Messages())
	return lines
}

// fieldRanges and enumRanges present reserved ranges as half-open [start, end)
// int64 pairs (enum reserved ranges are inclusive in protoreflect).
type fieldRanges struct{ r protoreflect.FieldRanges }

func (f fieldRanges) Len() int { return f.r.Len() }
func (f fieldRanges) Get(i int) [2]int64 {
	r := f.r.Get(i)
	return [2]int64{int64(r[0]), int64(r[1])}
}

type enumRanges struct{ r protoreflect.EnumRanges }

func (e enumRanges) Len() int { return e.r.Len() }
func (e enumRanges) Get(i int) [2]int64 {
	r := e.r.Get(i)
	return [2]int64{int64(r[0]), int64(r[1]) + 1}
}

// upstreamDropped and upstreamAdded are where the SI module Paddock uses
// (the version the Kubernetes shim pins) differs from the spec text: NodeInfo
// field 5, occupiedResource, is reserved upstream (what other schedulers hold
// arrives as foreign allocations instead), and two enum values are newer than
// the spec text. docs/compatibility.md documents each.
var (
	upstreamDropped = []string{
		"field NodeInfo.occupiedResource = 5 Resource",
	}
	upstreamAdded = []string{
		"reserved NodeInfo 5",
		`reserved NodeInfo "occupiedResource"`,
		"enum TerminationType SCHEDULING_FAILED_ON_RM = 5",
		"enum EventRecord.ChangeDetail QUEUE_PREEMPTION = 407",
	}
)

// goldenLines parses golden, rejecting duplicates so a copy-paste slip in
// the table cannot hide a missing line, and applies the upstream
// differences, each of which must change the table.
func goldenLines(t *testing.T) map[string]bool {
	t.Helper()
	out := specLines(t)
	for _, l := range upstreamDropped {
		if !out[l] {
			t.Fatalf("upstream difference %q is not in the spec table", l)
		}
		delete(out, l)
	}
	for _, l := range upstreamAdded {
		if out[l] {
			t.Fatalf("upstream addition %q is already in the spec table", l)
		}
		out[l] = true
	}
	return out
}

// specLines parses golden, the spec table as written.
func specLines(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, line := range strings.Split(golden, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if out[line] {
			t.Fatalf("golden table has a duplicate line: %s", line)
		}
		out[line] = true
	}
	return out
}

// diffLines reports lines of want missing from got and lines of got not in want.
func diffLines(want map[string]bool, got []string) (missing, extra []string) {
	have := map[string]bool{}
	for _, l := range got {
		have[l] = true
		if !want[l] {
			extra = append(extra, l)
		}
	}
	for l := range want {
		if !have[l] {
			missing = append(missing, l)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

func TestDescriptorMatchesSpec(t *testing.T) {
	got := describe(si.File_yunikorn_scheduler_interface_si_proto)
	missing, extra := diffLines(goldenLines(t), got)
	for _, l := range missing {
		t.Errorf("in the spec but not in si.proto: %s", l)
	}
	for _, l := range extra {
		t.Errorf("in si.proto but not in the spec: %s", l)
	}
	if len(got) != len(goldenLines(t)) {
		t.Errorf("si.proto describes %d lines, the spec table has %d", len(got), len(goldenLines(t)))
	}
}

// TestDescribeSeesChanges guards the comparison itself: changing one field
// number in the table must be reported in both directions.
func TestDescribeSeesChanges(t *testing.T) {
	want := goldenLines(t)
	const line = "field Allocation.nodeID = 8 string"
	if !want[line] {
		t.Fatalf("golden table lacks %q", line)
	}
	delete(want, line)
	want["field Allocation.nodeID = 7 string"] = true
	missing, extra := diffLines(want, describe(si.File_yunikorn_scheduler_interface_si_proto))
	if len(missing) != 1 || missing[0] != "field Allocation.nodeID = 7 string" {
		t.Errorf("missing = %v, want the changed line", missing)
	}
	if len(extra) != 1 || extra[0] != line {
		t.Errorf("extra = %v, want %q", extra, line)
	}
}

func TestGoPackage(t *testing.T) {
	opts, ok := si.File_yunikorn_scheduler_interface_si_proto.Options().(*descriptorpb.FileOptions)
	if !ok {
		t.Fatalf("file options are %T, want *descriptorpb.FileOptions", si.File_yunikorn_scheduler_interface_si_proto.Options())
	}
	const want = "lib/go/si"
	if got := opts.GetGoPackage(); got != want {
		t.Fatalf("go_package = %q, want %q", got, want)
	}
}
