package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWhatifCommand(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace")
	var out, errb bytes.Buffer
	if code := run([]string{"generate", "-out", trace, "-machines", "60", "-hours", "0.2", "-seed", "4"}, &out, &errb); code != exitOK {
		t.Fatalf("generate: exit %d: %s", code, errb.String())
	}
	one := filepath.Join(dir, "one.yaml")
	writeTestFile(t, one, "partitions:\n  - name: default\n    placementrules:\n      - name: fixed\n        value: root.all\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n          - name: all\n")
	html := filepath.Join(dir, "w", "whatif.html")
	out.Reset()
	code := run([]string{"whatif", "-a", "default", "-b", one, "-trace", trace, "-end", "0", "-interval", "5s", "-html", html, "-quiet"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"A: default", "B: " + one, "scheduling delay per queue", "root.all p50", "root.batch p50", "decision log sha256", "report"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	if b, err := os.ReadFile(html); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Fatalf("report: %v", err)
	}
	// the same configuration twice: the same decisions
	out.Reset()
	if code := run([]string{"whatif", "-a", one, "-b", one, "-trace", trace, "-end", "0", "-interval", "5s", "-quiet"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "same decisions: no differences") {
		t.Fatalf("output:\n%s", out.String())
	}

	bad := filepath.Join(dir, "bad.yaml")
	writeTestFile(t, bad, "partitions: [oops")
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"whatif"}, exitUsage},
		{[]string{"whatif", "-a", one}, exitUsage},
		{[]string{"whatif", "-a", one, "-b", one, "extra"}, exitUsage},
		{[]string{"whatif", "-a", one, "-b", one, "-trace", trace, "-end", "soon"}, exitUsage},
		{[]string{"whatif", "-a", one, "-b", filepath.Join(dir, "missing.yaml"), "-trace", trace}, exitIOError},
		{[]string{"whatif", "-a", one, "-b", one, "-trace", filepath.Join(dir, "nowhere")}, exitIOError},
		{[]string{"whatif", "-a", one, "-b", bad, "-trace", trace, "-quiet"}, exitUsage},
	} {
		errb.Reset()
		if code := run(c.args, &out, &errb); code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, errb.String())
		}
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
