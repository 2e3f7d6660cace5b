package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenerateCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trace")
	var out, errb bytes.Buffer
	code := run([]string{"generate", "-out", dir, "-machines", "100", "-hours", "0.25", "-seed", "3"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"machines       100 ", "arrived", "heavy tail", "replay with: paddock replay -trace " + dir} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, table := range []string{"machine_events", "collection_events", "instance_events"} {
		if _, err := os.Stat(filepath.Join(dir, table+"-000000000000.json.gz")); err != nil {
			t.Fatal(err)
		}
	}
	// the generated trace replays
	out.Reset()
	code = run([]string{"replay", "-trace", dir, "-end", "0", "-interval", "10s", "-html", "", "-quiet"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("replay: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "running at trace start recovered") || strings.Contains(out.String(), "malformed") {
		t.Fatalf("replay output:\n%s", out.String())
	}

	// several cells: one directory each
	cells := filepath.Join(t.TempDir(), "cells")
	if code := run([]string{"generate", "-out", cells, "-machines", "20", "-hours", "0.1", "-cells", "a,b"}, &out, &errb); code != exitOK {
		t.Fatalf("cells: exit %d: %s", code, errb.String())
	}
	for _, c := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(cells, c, "instance_events-000000000000.json.gz")); err != nil {
			t.Fatal(err)
		}
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"generate"}, exitUsage},
		{[]string{"generate", "-out", dir, "extra"}, exitUsage},
		{[]string{"generate", "-out", dir, "-hours", "0"}, exitUsage},
		{[]string{"generate", "-out", dir, "-hours", "1000"}, exitUsage},
		{[]string{"generate", "-out", dir, "-machines", "-3"}, exitUsage},
		{[]string{"generate", "-out", dir, "-cells", "a,a"}, exitUsage},
		{[]string{"generate", "-out", dir, "-initial-fill", "2"}, exitUsage},
		{[]string{"generate", "-out", filepath.Join(file, "sub"), "-machines", "10", "-hours", "0.1"}, exitIOError},
	} {
		if code := run(c.args, &out, &errb); code != c.code {
			t.Errorf("%v: exit %d, want %d", c.args, code, c.code)
		}
	}
}
