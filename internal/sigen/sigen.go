// Package sigen generates random and hostile Scheduler Interface
// messages: nil entries, unknown RMs, nodes, applications and keys, every
// node action and termination type, odd partitions and queues, nil,
// negative, huge and unknown resources, gangs, foreign and recovered
// allocations, valid and invalid configurations. The SI fuzz targets of
// package rmproxy draw from it with the fuzzer's bytes, the hostile-RM
// driver (package hostile, `paddock-harness hostile`) with a seeded random source.
//
// Names come from small pools (rm1, rm2; n0..n3; app0..app3; k0..k4, f0,
// f1) so that messages hit what earlier ones created.
package sigen

import (
	"math"
	"strings"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/common"
	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/resource"
)

// Chooser picks the next choice in [0, n).
type Chooser interface{ IntN(n int) int }

// Bytes is a Chooser driven by fuzz input; at its end it always picks 0.
type Bytes struct{ B []byte }

func (f *Bytes) IntN(n int) int {
	if len(f.B) == 0 {
		return 0
	}
	x := int(f.B[0]) % n
	f.B = f.B[1:]
	return x
}

// Done reports whether the input is used up.
func (f *Bytes) Done() bool { return len(f.B) == 0 }

// Gen draws messages from its Chooser.
type Gen struct {
	C Chooser
	// RMs are the rmIDs RM picks from, besides an unknown one and "";
	// rm1 and rm2 when empty.
	RMs []string
}

// Pick picks one of options.
func (g *Gen) Pick(options ...string) string { return options[g.C.IntN(len(options))] }

// Count picks a number in [0, n).
func (g *Gen) Count(n int) int { return g.C.IntN(n) }

// Chance is true one time in n.
func (g *Gen) Chance(n int) bool { return g.C.IntN(n) == 0 }

// RM is a known rmID (twice as likely), an unknown one or "".
func (g *Gen) RM() string {
	rms := g.RMs
	if len(rms) == 0 {
		rms = []string{"rm1", "rm2"}
	}
	switch g.C.IntN(5) {
	case 0, 1, 2:
		return rms[g.C.IntN(len(rms))]
	case 3:
		return "ghost"
	}
	return ""
}

func (g *Gen) Node() string      { return g.Pick("n0", "n1", "n2", "n3", "") }
func (g *Gen) App() string       { return g.Pick("app0", "app1", "app2", "app3", "") }
func (g *Gen) Key() string       { return g.Pick("k0", "k1", "k2", "k3", "k4", "f0", "f1", "") }
func (g *Gen) Partition() string { return g.Pick("", "default", "gpu", "DEFAULT", "nope") }
func (g *Gen) Queue() string {
	return g.Pick("root.a", "root.b", "root", "root.nope", "", "root.a.x", "root.train", "a")
}
func (g *Gen) User() string      { return g.Pick("alice", "bob", "", "carol") }
func (g *Gen) TaskGroup() string { return g.Pick("", "", "tg1", "tg2") }

// UGI is a user and group, or nil.
func (g *Gen) UGI() *si.UserGroupInformation {
	if g.Chance(5) {
		return nil
	}
	return &si.UserGroupInformation{User: g.User(), Groups: []string{g.Pick("dev", "", "ops")}}
}

// Res is a resource: nil, empty, with a nil or negative quantity, huge,
// of an unknown type, or ordinary.
func (g *Gen) Res() *si.Resource {
	switch g.C.IntN(8) {
	case 0:
		return nil
	case 1:
		return &si.Resource{}
	case 2:
		return &si.Resource{Resources: map[string]*si.Quantity{"vcore": nil}}
	case 3:
		return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: -1}}}
	case 4:
		return g.HugeRes()
	case 5:
		return &si.Resource{Resources: map[string]*si.Quantity{g.Pick("gpu", "", "x/y", "pods"): {Value: int64(g.Count(4))}}}
	default:
		return Res(int64(g.Count(5))*1000, int64(g.Count(5))<<30)
	}
}

// HugeQuantities are quantities at the edges of resource.MaxQuantity and
// of int64, and ordinary ones.
var HugeQuantities = []int64{
	0, 1, 1000, 1 << 30,
	resource.MaxQuantity/2 + 1, resource.MaxQuantity - 1, resource.MaxQuantity, resource.MaxQuantity + 1,
	math.MaxInt64 / 2, math.MaxInt64/2 + 1, math.MaxInt64 - 1, math.MaxInt64,
}

// HugeRes is a resource of vcore, memory and gpu, each present or not,
// drawn from HugeQuantities.
func (g *Gen) HugeRes() *si.Resource {
	r := &si.Resource{Resources: map[string]*si.Quantity{}}
	for _, name := range []string{"vcore", "memory", "gpu"} {
		if g.C.IntN(3) > 0 {
			r.Resources[name] = &si.Quantity{Value: HugeQuantities[g.C.IntN(len(HugeQuantities))]}
		}
	}
	return r
}

// Res is an ordinary resource of vcore and memory.
func Res(vcore, mem int64) *si.Resource {
	return &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: vcore}, "memory": {Value: mem}}}
}

// NodeInfo is a node with any action (valid or not), or nil.
func (g *Gen) NodeInfo() *si.NodeInfo {
	if g.Chance(10) {
		return nil
	}
	n := &si.NodeInfo{NodeID: g.Node(), Action: si.NodeInfo_ActionFromRM(g.Count(8)), SchedulableResource: g.Res()}
	if !g.Chance(3) {
		n.Attributes = map[string]string{common.NodePartition: g.Partition(), common.HostName: n.NodeID}
	}
	return n
}

// Allocation is an ask, a recovered or foreign allocation, a gang member
// or placeholder, or nil.
func (g *Gen) Allocation() *si.Allocation {
	if g.Chance(10) {
		return nil
	}
	x := &si.Allocation{
		AllocationKey: g.Key(), ApplicationID: g.App(), ResourcePerAlloc: g.Res(),
		Priority: int32(g.Count(3)) - 1, PartitionName: g.Partition(), TaskGroupName: g.TaskGroup(),
		Placeholder: g.Chance(4), Originator: g.Chance(4),
	}
	if g.Chance(2) {
		x.NodeID = g.Node() // a recovered allocation
	}
	if g.Chance(4) {
		x.AllocationTags = map[string]string{common.Foreign: g.Pick(common.AllocTypeDefault, common.AllocTypeStatic, "")}
	}
	if g.Chance(5) {
		x.PreemptionPolicy = &si.PreemptionPolicy{AllowPreemptSelf: g.Chance(2), AllowPreemptOther: g.Chance(2)}
	}
	return x
}

// Release is a release with any termination type (valid or not), or nil.
func (g *Gen) Release() *si.AllocationRelease {
	if g.Chance(10) {
		return nil
	}
	return &si.AllocationRelease{
		ApplicationID: g.App(), AllocationKey: g.Key(), PartitionName: g.Partition(),
		TerminationType: si.TerminationType(g.Count(6)), Message: g.Pick("", "done"),
	}
}

// NodeRequest is 1 to 3 nodes for rmID.
func (g *Gen) NodeRequest(rmID string) *si.NodeRequest {
	req := &si.NodeRequest{RmID: rmID}
	for range 1 + g.Count(3) {
		req.Nodes = append(req.Nodes, g.NodeInfo())
	}
	return req
}

// ApplicationRequest adds up to 2 applications (gangs, tags, nil
// entries) and removes up to 1.
func (g *Gen) ApplicationRequest(rmID string) *si.ApplicationRequest {
	req := &si.ApplicationRequest{RmID: rmID}
	for range g.Count(3) {
		a := &si.AddApplicationRequest{
			ApplicationID: g.App(), QueueName: g.Queue(), PartitionName: g.Partition(), Ugi: g.UGI(),
			ExecutionTimeoutMilliSeconds: int64(g.Count(3)) * 1000,
		}
		if g.Chance(3) {
			a.PlaceholderAsk = g.Res()
			a.GangSchedulingStyle = g.Pick("Soft", "Hard", "", "odd")
		}
		if g.Chance(3) {
			a.Tags = map[string]string{g.Pick("namespace", "application.stateaware.disable", ""): g.Pick("team1", "true", "")}
		}
		if g.Chance(10) {
			a = nil
		}
		req.New = append(req.New, a)
	}
	for range g.Count(2) {
		req.Remove = append(req.Remove, &si.RemoveApplicationRequest{ApplicationID: g.App(), PartitionName: g.Partition()})
	}
	return req
}

// AllocationRequest has up to 3 allocations and, half the time, 1 or 2
// releases.
func (g *Gen) AllocationRequest(rmID string) *si.AllocationRequest {
	req := &si.AllocationRequest{RmID: rmID}
	for range g.Count(4) {
		req.Allocations = append(req.Allocations, g.Allocation())
	}
	if g.Chance(2) {
		req.Releases = &si.AllocationReleasesRequest{}
		for range 1 + g.Count(2) {
			req.Releases.AllocationsToRelease = append(req.Releases.AllocationsToRelease, g.Release())
		}
	}
	return req
}

// Config has a second partition, a queue with a maximum and one with an
// application limit, so that messages reach more of the scheduler.
const Config = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources:
              max: {vcore: 6000}
          - name: b
            limits:
              - limit: two apps
                users: ["*"]
                maxapplications: 2
  - name: gpu
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: train
`

// Configs are configurations to choose from: the default (""), a plain
// one, Config and variants of it, and invalid ones.
var Configs = []string{
	"",
	"partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n          - name: a\n          - name: b\n",
	Config,
	strings.Replace(Config, "max: {vcore: 6000}", "max: {vcore: 1000, gpu: 1}", 1),
	strings.Replace(Config, "  - name: gpu", "  - name: other", 1),
	"partitions: []",
	"partitions: [{name: default, queues: [{name: root, queues: [{name: a}, {name: a}]}]}]",
	"not: yaml: [",
}

// ExtraConfig is nil or one odd extra configuration key.
func (g *Gen) ExtraConfig() map[string]string {
	if !g.Chance(3) {
		return nil
	}
	return map[string]string{g.Pick("log.level", "event.trackingEnabled", "health.checkInterval", "x"): g.Pick("debug", "false", "1s", "-1", "")}
}

// ConfigRequest is a configuration update of rmID from Configs.
func (g *Gen) ConfigRequest(rmID string) *si.UpdateConfigurationRequest {
	return &si.UpdateConfigurationRequest{RmID: rmID, Config: Configs[g.Count(len(Configs))], ExtraConfig: g.ExtraConfig()}
}
