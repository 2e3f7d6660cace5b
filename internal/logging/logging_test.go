package logging

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestHierarchicalLevelsAndReload(t *testing.T) {
	var buf bytes.Buffer
	s := NewText(&buf)
	rm := s.Logger(RMProxy)
	rpc := s.Logger(RPC)

	rm.Debug("rm-debug-1")
	rpc.Info("rpc-info-1")
	if out := buf.String(); strings.Contains(out, "rm-debug-1") || !strings.Contains(out, "rpc-info-1") {
		t.Fatalf("default level should be info:\n%s", out)
	}
	if !strings.Contains(buf.String(), "logger=core.rpc") {
		t.Fatalf("record does not name its logger:\n%s", buf.String())
	}

	// the parent key applies to both, the child key overrides it for rpc
	if err := s.Apply(map[string]string{"log.core.level": "debug", "log.core.rpc.level": "1", "other": "x"}); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	rm.Debug("rm-debug-2")
	rpc.Info("rpc-info-2")
	rpc.Warn("rpc-warn-2")
	out := buf.String()
	if !strings.Contains(out, "rm-debug-2") || strings.Contains(out, "rpc-info-2") || !strings.Contains(out, "rpc-warn-2") {
		t.Fatalf("after reload:\n%s", out)
	}
	if got := s.Level("core.rmproxy.sub"); got != slog.LevelDebug {
		t.Fatalf("descendant level = %v, want debug via log.core.level", got)
	}

	// removing the keys falls back to log.level, then to the default
	if err := s.Apply(map[string]string{"log.level": "ERROR"}); err != nil {
		t.Fatal(err)
	}
	if s.Level(RPC) != slog.LevelError || s.Level(RMProxy) != slog.LevelError {
		t.Fatalf("log.level not applied: rpc %v rm %v", s.Level(RPC), s.Level(RMProxy))
	}
	if err := s.Apply(nil); err != nil {
		t.Fatal(err)
	}
	if s.Level(RPC) != DefaultLevel {
		t.Fatalf("level after removing keys = %v", s.Level(RPC))
	}
}

func TestBadLevelsAreReportedAndIgnored(t *testing.T) {
	s := NewText(&bytes.Buffer{})
	err := s.Apply(map[string]string{"log.level": "loud", "log.core.rpc.level": "7", "log.core.rest.level": "-1"})
	if err == nil || !strings.Contains(err.Error(), "log.level") || !strings.Contains(err.Error(), "log.core.rpc.level") {
		t.Fatalf("error = %v, want both bad keys named", err)
	}
	if s.Level(RPC) != DefaultLevel {
		t.Fatalf("bad value changed the level: %v", s.Level(RPC))
	}
	if s.Level(REST) != slog.LevelDebug {
		t.Fatalf("valid key beside bad ones not applied: %v", s.Level(REST))
	}
}

func TestParseLevel(t *testing.T) {
	for in, want := range map[string]slog.Level{
		"debug": slog.LevelDebug, "-1": slog.LevelDebug, "0": slog.LevelInfo, "Info": slog.LevelInfo,
		"1": slog.LevelWarn, "warning": slog.LevelWarn, "2": slog.LevelError, "fatal": slog.LevelError, "5": slog.LevelError,
	} {
		got, err := ParseLevel(in)
		if err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-2", "6", "verbose", "1.5"} {
		if _, err := ParseLevel(in); err == nil {
			t.Errorf("ParseLevel(%q) accepted", in)
		}
	}
}
