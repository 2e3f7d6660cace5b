package borg

import "testing"

func TestEventTypeMapping(t *testing.T) {
	tests := []struct {
		num          int64
		want2011     EventType
		ok2011       bool
		want2019     EventType
		ok2019       bool
		name2011     string
		name2019     string
		ends2011Type bool
	}{
		{-1, EventUnknown, false, EventUnknown, false, "UNKNOWN", "UNKNOWN", false},
		{0, EventSubmit, true, EventSubmit, true, "SUBMIT", "SUBMIT", false},
		{1, EventSchedule, true, EventQueue, true, "SCHEDULE", "QUEUE", false},
		{2, EventEvict, true, EventEnable, true, "EVICT", "ENABLE", true},
		{3, EventFail, true, EventSchedule, true, "FAIL", "SCHEDULE", true},
		{4, EventFinish, true, EventEvict, true, "FINISH", "EVICT", true},
		{5, EventKill, true, EventFail, true, "KILL", "FAIL", true},
		{6, EventLost, true, EventFinish, true, "LOST", "FINISH", true},
		{7, EventUpdatePending, true, EventKill, true, "UPDATE_PENDING", "KILL", false},
		{8, EventUpdateRunning, true, EventLost, true, "UPDATE_RUNNING", "LOST", false},
		{9, EventUnknown, false, EventUpdatePending, true, "UNKNOWN", "UPDATE_PENDING", false},
		{10, EventUnknown, false, EventUpdateRunning, true, "UNKNOWN", "UPDATE_RUNNING", false},
		{11, EventUnknown, false, EventUnknown, false, "UNKNOWN", "UNKNOWN", false},
	}
	for _, tt := range tests {
		got, ok := EventTypeFrom2011(tt.num)
		if got != tt.want2011 || ok != tt.ok2011 || got.String() != tt.name2011 || got.Ends() != tt.ends2011Type {
			t.Errorf("EventTypeFrom2011(%d) = %v (%s), %v, ends %v; want %v (%s), %v, ends %v",
				tt.num, got, got, ok, got.Ends(), tt.want2011, tt.name2011, tt.ok2011, tt.ends2011Type)
		}
		got, ok = EventTypeFrom2019(tt.num)
		if got != tt.want2019 || ok != tt.ok2019 || got.String() != tt.name2019 {
			t.Errorf("EventTypeFrom2019(%d) = %v (%s), %v; want %v (%s), %v", tt.num, got, got, ok, tt.want2019, tt.name2019, tt.ok2019)
		}
	}
	if s := EventType(200).String(); s != "EventType(200)" {
		t.Errorf("EventType(200).String() = %q", s)
	}
}

func TestMachineEventTypeMapping(t *testing.T) {
	tests := []struct {
		num      int64
		want2011 MachineEventType
		ok2011   bool
		want2019 MachineEventType
		ok2019   bool
	}{
		{-1, MachineUnknown, false, MachineUnknown, false},
		{0, MachineAdd, true, MachineUnknown, false},
		{1, MachineRemove, true, MachineAdd, true},
		{2, MachineUpdate, true, MachineRemove, true},
		{3, MachineUnknown, false, MachineUpdate, true},
		{4, MachineUnknown, false, MachineUnknown, false},
	}
	for _, tt := range tests {
		if got, ok := MachineEventTypeFrom2011(tt.num); got != tt.want2011 || ok != tt.ok2011 {
			t.Errorf("MachineEventTypeFrom2011(%d) = %v, %v; want %v, %v", tt.num, got, ok, tt.want2011, tt.ok2011)
		}
		if got, ok := MachineEventTypeFrom2019(tt.num); got != tt.want2019 || ok != tt.ok2019 {
			t.Errorf("MachineEventTypeFrom2019(%d) = %v, %v; want %v, %v", tt.num, got, ok, tt.want2019, tt.ok2019)
		}
	}
	for typ, name := range map[MachineEventType]string{MachineAdd: "ADD", MachineRemove: "REMOVE", MachineUpdate: "UPDATE", MachineUnknown: "UNKNOWN"} {
		if typ.String() != name {
			t.Errorf("%d.String() = %q, want %q", typ, typ.String(), name)
		}
	}
}

func TestMissingInfoMapping(t *testing.T) {
	tests := []struct {
		num      int64
		want2011 MissingInfo
		ok2011   bool
		want2019 MissingInfo
		ok2019   bool
	}{
		{-1, MissingNone, false, MissingNone, false},
		{0, MissingSnapshotNoTransition, true, MissingNone, true},
		{1, MissingNoSnapshotOrTransition, true, MissingSnapshotNoTransition, true},
		{2, MissingExistsNoCreation, true, MissingNoSnapshotOrTransition, true},
		{3, MissingNone, false, MissingExistsNoCreation, true},
		{4, MissingNone, false, MissingTransitionStep, true},
		{5, MissingNone, false, MissingTooManyEvents, true},
		{6, MissingNone, false, MissingNone, false},
	}
	for _, tt := range tests {
		if got, ok := MissingInfoFrom2011(tt.num); got != tt.want2011 || ok != tt.ok2011 {
			t.Errorf("MissingInfoFrom2011(%d) = %v, %v; want %v, %v", tt.num, got, ok, tt.want2011, tt.ok2011)
		}
		if got, ok := MissingInfoFrom2019(tt.num); got != tt.want2019 || ok != tt.ok2019 {
			t.Errorf("MissingInfoFrom2019(%d) = %v, %v; want %v, %v", tt.num, got, ok, tt.want2019, tt.ok2019)
		}
	}
}

func TestFieldsHas(t *testing.T) {
	f := FieldCPU | FieldMemory
	if !f.Has(FieldCPU) || !f.Has(FieldCPU|FieldMemory) || f.Has(FieldDisk) || f.Has(FieldCPU|FieldDisk) {
		t.Errorf("Fields(%b).Has gives wrong answers", f)
	}
}
