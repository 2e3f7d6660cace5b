package serve

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeUI(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"index.html":      "<html><base href=\"/\"><script src=\"main.js\"></script></html>",
		"main.js":         "console.log('ui')",
		"assets/logo.svg": "<svg/>",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestWebUI(t *testing.T) {
	s := start(t, Options{UIDir: writeUI(t)})
	base := "http://" + s.RESTAddr()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for path, want := range map[string]string{
		"/":                            "<script src=\"main.js\">",
		"/main.js":                     "console.log('ui')",
		"/assets/logo.svg":             "<svg/>",
		"/dashboard":                   "<script src=\"main.js\">", // a UI route
		"/ws/v1/scheduler/healthcheck": `"Healthy"`,
	} {
		code, body := get(path)
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("GET %s = %d %q, want 200 with %q", path, code, body, want)
		}
	}
	if code, _ := get("/missing.js"); code != 404 {
		t.Errorf("a missing file answered %d", code)
	}
	if code, body := get("/ws/v1/nope"); code != 404 || !strings.Contains(body, "no endpoint") {
		t.Errorf("an unknown API path = %d %s, want the API's 404", code, body)
	}
	for _, p := range []string{"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/../../etc/hostname"} {
		if _, body := get(p); strings.Contains(body, "root:") || !strings.Contains(body, "<html>") && body != "404 page not found\n" {
			t.Errorf("GET %s served something outside the UI: %q", p, body)
		}
	}
	resp, err := http.Post(base+"/index.html", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST to the UI = %d, want 405", resp.StatusCode)
	}
}

func TestWebUIDirChecked(t *testing.T) {
	if _, err := Start(Options{RESTAddr: "127.0.0.1:0", UIDir: t.TempDir(), Logs: quiet()}); err == nil || !strings.Contains(err.Error(), "index.html") {
		t.Errorf("a directory without index.html: %v", err)
	}
}

func TestDisableReservationEnv(t *testing.T) {
	t.Setenv("DISABLE_RESERVATION", "maybe")
	if _, err := Start(Options{RESTAddr: "127.0.0.1:0", Logs: quiet()}); err == nil || !strings.Contains(err.Error(), "DISABLE_RESERVATION") {
		t.Errorf("a non-boolean DISABLE_RESERVATION: %v", err)
	}
	t.Setenv("DISABLE_RESERVATION", "true")
	if s := start(t, Options{}); !s.Service().ReservationsOff() {
		t.Error("DISABLE_RESERVATION=true left reservations on")
	}
	t.Setenv("DISABLE_RESERVATION", "")
	if s := start(t, Options{}); s.Service().ReservationsOff() {
		t.Error("reservations off without DISABLE_RESERVATION")
	}
}
