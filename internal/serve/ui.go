package serve

import (
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// checkUI makes sure dir holds a web UI build (an index.html).
func checkUI(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		return fmt.Errorf("serve: web UI directory %s: no index.html: %w", dir, err)
	}
	return nil
}

// withUI serves the files of a web UI build in dir (such as the YuniKorn web
// UI's `ng build` output) at / on the REST port, and the REST API under
// /ws/ and /debug/, so the UI's calls to its own origin reach the API. A
// path without a file extension that names no file is the UI's own route
// and gets index.html.
func withUI(api http.Handler, dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/ws" || strings.HasPrefix(p, "/ws/") || p == "/debug" || strings.HasPrefix(p, "/debug/") {
			api.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the web UI is read-only", http.StatusMethodNotAllowed)
			return
		}
		if p != "/" && path.Ext(p) == "" {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(path.Clean(p)))); err != nil {
				r = r.Clone(r.Context())
				r.URL.Path = "/"
			}
		}
		files.ServeHTTP(w, r)
	})
}
