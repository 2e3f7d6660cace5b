package api

import (
	"github.com/paddock-sched/paddock/si"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// wantMethods is the spec's method set of each in-process interface,
// written by hand from the spec's "API based" section.
var wantMethods = map[string][]string{
	"SchedulerAPI": {
		"RegisterResourceManager func(*si.RegisterResourceManagerRequest, api.ResourceManagerCallback) (*si.RegisterResourceManagerResponse, error)",
		"Stop func()",
		"UpdateAllocation func(*si.AllocationRequest) error",
		"UpdateApplication func(*si.ApplicationRequest) error",
		"UpdateConfiguration func(*si.UpdateConfigurationRequest) error",
		"UpdateNode func(*si.NodeRequest) error",
	},
	"ResourceManagerCallback": {
		"PreemptionPredicates func(*si.PreemptionPredicatesArgs) *si.PreemptionPredicatesResponse",
		"Predicates func(*si.PredicatesArgs) error",
		"SendEvent func([]*si.EventRecord)",
		"UpdateAllocation func(*si.AllocationResponse) error",
		"UpdateApplication func(*si.ApplicationResponse) error",
		"UpdateContainerSchedulingState func(*si.UpdateContainerSchedulingStateRequest)",
		"UpdateNode func(*si.NodeResponse) error",
	},
	"StateDumpPlugin": {
		"GetStateDump func() (string, error)",
	},
}

func methodSet(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		out = append(out, m.Name+" "+m.Type.String())
	}
	sort.Strings(out)
	return out
}

func TestInterfaceMethodSets(t *testing.T) {
	got := map[string]reflect.Type{
		"SchedulerAPI":            reflect.TypeFor[SchedulerAPI](),
		"ResourceManagerCallback": reflect.TypeFor[ResourceManagerCallback](),
		"StateDumpPlugin":         reflect.TypeFor[StateDumpPlugin](),
	}
	if len(got) != len(wantMethods) {
		t.Fatalf("checking %d interfaces, the spec has %d", len(got), len(wantMethods))
	}
	for name, typ := range got {
		want := append([]string(nil), wantMethods[name]...)
		sort.Strings(want)
		if have := methodSet(typ); strings.Join(have, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s methods:\n%s\nwant:\n%s", name, strings.Join(have, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestConstants pins every SI constant to the value the spec gives it.
func TestConstants(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"ARCH", ARCH, "si/arch"},
		{"HostName", HostName, "si/hostname"},
		{"RackName", RackName, "si/rackname"},
		{"OS", OS, "si/os"},
		{"InstanceType", InstanceType, "si/instance-type"},
		{"FailureDomainZone", FailureDomainZone, "si/zone"},
		{"FailureDomainRegion", FailureDomainRegion, "si/region"},
		{"LocalImages", LocalImages, "si/local-images"},
		{"NodePartition", NodePartition, "si/node-partition"},
		{"ApplicationID", ApplicationID, "si/application-id"},
		{"ContainerImage", ContainerImage, "si/container-image"},
		{"ContainerPorts", ContainerPorts, "si/container-ports"},
		{"DomainK8s", DomainK8s, "kubernetes.io/"},
		{"DomainYuniKorn", DomainYuniKorn, "yunikorn.apache.org/"},
		{"DomainYuniKornInternal", DomainYuniKornInternal, "internal.yunikorn.apache.org/"},
		{"GroupMeta", GroupMeta, "meta/"},
		{"GroupLabel", GroupLabel, "label/"},
		{"GroupAnnotation", GroupAnnotation, "annotation/"},
		{"KeyPodName", KeyPodName, "podName"},
		{"KeyNamespace", KeyNamespace, "namespace"},
		{"KeyRequiredNode", KeyRequiredNode, "requiredNode"},
		{"CreationTime", CreationTime, "creationTime"},
		{"Foreign", Foreign, "foreign"},
		{"AllocTypeStatic", AllocTypeStatic, "static"},
		{"AllocTypeDefault", AllocTypeDefault, "default"},
		{"Memory", Memory, "memory"},
		{"CPU", CPU, "vcore"},
		{"AppTagNamespaceResourceQuota", AppTagNamespaceResourceQuota, "namespace.resourcequota"},
		{"AppTagNamespaceResourceGuaranteed", AppTagNamespaceResourceGuaranteed, "namespace.resourceguaranteed"},
		{"AppTagNamespaceResourceMaxApps", AppTagNamespaceResourceMaxApps, "namespace.resourcemaxapps"},
		{"AppTagCreateForce", AppTagCreateForce, "application.create.force"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// TestTagKeyComposition checks the spec's example: domain, group and key
// concatenate into a well-formed allocation tag key.
func TestTagKeyComposition(t *testing.T) {
	if got := DomainK8s + GroupMeta + KeyNamespace; got != "kubernetes.io/meta/namespace" {
		t.Fatalf("tag key = %q, want kubernetes.io/meta/namespace", got)
	}
}

func TestNopCallback(t *testing.T) {
	var cb ResourceManagerCallback = NopCallback{}
	if err := cb.UpdateAllocation(&si.AllocationResponse{}); err != nil {
		t.Errorf("UpdateAllocation: %v", err)
	}
	if err := cb.Predicates(&si.PredicatesArgs{}); err != nil {
		t.Errorf("Predicates: %v", err)
	}
	if r := cb.PreemptionPredicates(&si.PreemptionPredicatesArgs{}); r == nil || !r.Success {
		t.Errorf("PreemptionPredicates = %v, want success", r)
	}
}
