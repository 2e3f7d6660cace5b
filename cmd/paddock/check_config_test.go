package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "queues.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckConfig(t *testing.T) {
	valid := writeFile(t, "partitions:\n  - name: default\n    queues:\n      - name: a\n      - name: b\n        queues: [{name: c}]\n")
	invalid := writeFile(t, `partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: a
            resources:
              max: {vcore: 0}
          - name: b.c
`)
	unknownKey := writeFile(t, "partitions:\n  - name: default\n    queues: [{name: root}]\n    bogus: 1\n")
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string // each must appear
		stderr string
	}{
		{"valid", []string{valid}, exitOK, []string{"OK: 1 partition(s), 4 queue(s), checksum "}, ""},
		{"valid with -print", []string{"-print", valid}, exitOK, []string{"OK: ", "- name: root", "nodesortpolicy:"}, ""},
		{"invalid lists every problem", []string{invalid}, exitInvalidConfig, []string{
			"partition \"default\", queue root.a: resources.max: every max value is 0",
			"partition \"default\", queue root.b.c: name: invalid queue name \"b.c\"",
		}, "2 problem(s)"},
		{"unknown key with line", []string{unknownKey}, exitInvalidConfig, []string{"line 4: bogus: unknown key in a partition"}, ""},
		{"missing file", []string{filepath.Join(t.TempDir(), "nope.yaml")}, exitIOError, nil, "no such file"},
		{"no file argument", nil, exitUsage, nil, "Usage: paddock check-config"},
		{"two file arguments", []string{valid, valid}, exitUsage, nil, "Usage: paddock check-config"},
		{"unknown flag", []string{"-x", valid}, exitUsage, nil, "flag provided but not defined"},
		{"help flag", []string{"-h"}, exitOK, nil, "Exit codes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(append([]string{"check-config"}, tc.args...), &out, &errOut)
			if code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errOut.String())
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout %q lacks %q", out.String(), want)
				}
			}
			if tc.stderr != "" && !strings.Contains(errOut.String(), tc.stderr) {
				t.Errorf("stderr %q lacks %q", errOut.String(), tc.stderr)
			}
		})
	}
}

func TestCheckConfigOneProblemPerLine(t *testing.T) {
	path := writeFile(t, "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n          - {name: a, submitacl: 'a b c'}\n          - {name: b, adminacl: 'a b c'}\n")
	var out, errOut bytes.Buffer
	if code := runCheckConfig([]string{path}, &out, &errOut); code != exitInvalidConfig {
		t.Fatalf("exit code %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "root.a: submitacl") || !strings.Contains(lines[1], "root.b: adminacl") {
		t.Errorf("output lines = %q", lines)
	}
}

// TestExamplesValid checks every example configuration shipped in
// examples/ with check-config.
func TestExamplesValid(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found only %d example files", len(files))
	}
	okLine := regexp.MustCompile(`^OK: \d+ partition\(s\), \d+ queue\(s\), checksum [0-9A-F]{64}\n$`)
	for _, f := range files {
		var out, errOut bytes.Buffer
		if code := runCheckConfig([]string{f}, &out, &errOut); code != exitOK {
			t.Errorf("%s: exit %d\n%s%s", f, code, out.String(), errOut.String())
			continue
		}
		if !okLine.MatchString(out.String()) {
			t.Errorf("%s: output %q, want a single OK line without warnings", f, out.String())
		}
	}
}
