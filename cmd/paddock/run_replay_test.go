package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplayCommand(t *testing.T) {
	html := filepath.Join(t.TempDir(), "r.html")
	var out, errb bytes.Buffer
	code := run([]string{"replay", "-trace", "../../traces/google-2011-excerpt", "-end", "605", "-interval", "5s", "-html", html, "-quiet"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"running at trace start recovered", "scheduler decisions/s", "fidelity score", "decision log sha256", "report"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	b, err := os.ReadFile(html)
	if err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Fatalf("report: %v", err)
	}
	if code := run([]string{"replay", "-trace", filepath.Join(t.TempDir(), "missing")}, &out, &errb); code != exitIOError {
		t.Fatalf("missing trace: exit %d", code)
	}
	if code := run([]string{"replay", "-end", "soon"}, &out, &errb); code != exitUsage {
		t.Fatalf("bad -end: exit %d", code)
	}
	errb.Reset()
	if code := run([]string{"replay", "-tail-tiers", "production,prod"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), `unknown tier "prod"`) {
		t.Fatalf("bad -tail-tiers: exit %d: %s", code, errb.String())
	}
	out.Reset()
	code = run([]string{"replay", "-trace", "../../traces/google-2011-excerpt", "-start", "600", "-end", "605", "-html", "", "-quiet", "-tail-tiers", ""}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "no latency tail") || !strings.Contains(out.String(), "delays of the tasks submitted from 10m0s") {
		t.Fatalf("-start with warm-up, no tail: exit %d:\n%s", code, out.String())
	}
	if code := run([]string{"replay", "extra"}, &out, &errb); code != exitUsage {
		t.Fatalf("extra argument: exit %d", code)
	}
}
