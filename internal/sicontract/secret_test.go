package sicontract

import (
	"sort"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// wantSecret lists the fields the SI spec marks [(si_secret) = true]. The
// newest spec declares the option but marks no field with it.
var wantSecret = []string{}

// secretFields names every field of fd whose options set si_secret.
func secretFields(fd protoreflect.FileDescriptor) []string {
	var out []string
	var walk func(protoreflect.MessageDescriptors)
	walk = func(mds protoreflect.MessageDescriptors) {
		for i := 0; i < mds.Len(); i++ {
			m := mds.Get(i)
			fields := m.Fields()
			for j := 0; j < fields.Len(); j++ {
				f := fields.Get(j)
				if isSecret(f.Options()) {
					out = append(out, string(f.FullName()))
				}
			}
			walk(m.Messages())
		}
	}
	walk(fd.Messages())
	sort.Strings(out)
	return out
}

func isSecret(opts proto.Message) bool {
	fo, ok := opts.(*descriptorpb.FieldOptions)
	return ok && fo != nil && proto.GetExtension(fo, si.E_SiSecret).(bool)
}

func TestSecretFields(t *testing.T) {
	got := secretFields(si.File_yunikorn_scheduler_interface_si_proto)
	if len(got) != len(wantSecret) {
		t.Fatalf("si_secret fields = %v, want %v", got, wantSecret)
	}
	for i := range got {
		if got[i] != wantSecret[i] {
			t.Fatalf("si_secret fields = %v, want %v", got, wantSecret)
		}
	}
}

func TestSecretExtension(t *testing.T) {
	xd := si.E_SiSecret.TypeDescriptor()
	if xd.Number() != 1059 || xd.Kind() != protoreflect.BoolKind ||
		xd.ContainingMessage().FullName() != "google.protobuf.FieldOptions" || xd.FullName() != "si.v1.si_secret" {
		t.Fatalf("si_secret extension is %s = %d (%v) on %s, want si.v1.si_secret = 1059 (bool) on google.protobuf.FieldOptions",
			xd.FullName(), xd.Number(), xd.Kind(), xd.ContainingMessage().FullName())
	}
	// The detection used by TestSecretFields sees the option once it is set,
	// including after the options travel through the wire format.
	fo := &descriptorpb.FieldOptions{}
	if isSecret(fo) {
		t.Fatal("empty field options read as secret")
	}
	proto.SetExtension(fo, si.E_SiSecret, true)
	wire, err := proto.Marshal(fo)
	if err != nil {
		t.Fatalf("marshal field options: %v", err)
	}
	back := &descriptorpb.FieldOptions{}
	if err := proto.Unmarshal(wire, back); err != nil {
		t.Fatalf("unmarshal field options: %v", err)
	}
	if !isSecret(fo) || !isSecret(back) {
		t.Fatal("field options with si_secret = true do not read as secret")
	}
}
