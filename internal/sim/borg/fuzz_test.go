package borg

import (
	"testing"
)

// Decoders never panic, and a row they accept has a sane time and type.
func FuzzDecode2011(f *testing.F) {
	for _, s := range []string{
		"0,2,3418309,0,4155527081,0,user,3,9,,,,",
		"5611086343,,515042969,26,,5,user,2,0,0.01562,0.01553,0.0002155,0",
		"0,,3418309,0,user,3,name,lname",
		"0,5,0,platform,0.5,0.2493",
		`"1",,2,"3",4,5,"u,v",1,2,0.1,0.2,0.3,1`,
		",,,,,,,,,,,,",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var k task2011
		var te TaskEvent
		if tm, err := k.decode(line, &te); err == nil && (tm < 0 || te.Type == EventUnknown || te.SchedClass > 3) {
			t.Errorf("task row %q accepted as %+v", line, te)
		}
		var j job2011
		var je JobEvent
		if tm, err := j.decode(line, &je); err == nil && (tm < 0 || je.Type == EventUnknown) {
			t.Errorf("job row %q accepted as %+v", line, je)
		}
		var m machine2011
		var me MachineEvent
		if tm, err := m.decode(line, &me); err == nil && (tm < 0 || me.Type == MachineUnknown) {
			t.Errorf("machine row %q accepted as %+v", line, me)
		}
	})
}

func FuzzDecode2019(f *testing.F) {
	for _, s := range []string{
		`{"time":"1000000","type":"3","collection_id":"400","machine_id":"101","resource_request":{"cpus":0.02,"memory":0.01}}`,
		`{"collection_id":"400","constraint":[{"name":"c1","value":"v1","relation":"1"}],"start_after_collection_ids":["1"]}`,
		`{"machine_id":"101","type":"1","capacity":{"cpus":0.5,"memory":0.25}}`,
		`{"time":null,"collection_id":400}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var i instance2019
		var te TaskEvent
		if tm, err := i.decode(line, &te); err == nil && (tm < 0 || te.Type == EventUnknown || te.JobID == 0) {
			t.Errorf("instance row %q accepted as %+v", line, te)
		}
		var c collection2019
		var je JobEvent
		if tm, err := c.decode(line, &je); err == nil && (tm < 0 || je.Type == EventUnknown || je.JobID == 0) {
			t.Errorf("collection row %q accepted as %+v", line, je)
		}
		var m machine2019
		var me MachineEvent
		if tm, err := m.decode(line, &me); err == nil && (tm < 0 || me.Type == MachineUnknown || me.MachineID == 0) {
			t.Errorf("machine row %q accepted as %+v", line, me)
		}
	})
}
