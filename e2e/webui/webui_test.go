package webui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// pages are the UI's routes; the applications page also with an application
// open.
var pages = []string{
	"/#/dashboard",
	"/#/queues",
	"/#/applications",
	"/#/applications?partition=default&queue=root.prod&applicationId=spark-etl",
	"/#/nodes",
	"/#/status",
}

// bad are values a page must never show.
var bad = regexp.MustCompile(`(?i)\bundefined\b|\bNaN\b|Invalid date|<nil>`)

func uiDir(t *testing.T) string {
	dir := os.Getenv("WEBUI_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "peers", "yunikorn-web")
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Skipf("no web UI build at %s (set WEBUI_DIR): %v", dir, err)
	}
	return dir
}

func chromium(t *testing.T) string {
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (apt-get install chromium, or set CHROMIUM)")
	return ""
}

// problems collects what the browser reports.
type problems struct {
	mu   sync.Mutex
	list []string
}

func (p *problems) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

func (p *problems) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.list
	p.list = nil
	return out
}

func TestEveryPage(t *testing.T) {
	dir := uiDir(t)
	exe := chromium(t)
	s := populated(t, dir)
	base := "http://" + s.RESTAddr()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1440, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()

	var seen problems
	calls := map[string]int{}
	var callsMu sync.Mutex
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			seen.add("page error: %s (%s:%d)", msg, d.URL, d.LineNumber)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				seen.add("console error: %s", strings.Join(args, " "))
			}
		case *network.EventResponseReceived:
			u := e.Response.URL
			if i := strings.Index(u, "/ws/"); i >= 0 {
				callsMu.Lock()
				calls[strings.SplitN(u[i:], "?", 2)[0]]++
				callsMu.Unlock()
				if e.Response.Status < 200 || e.Response.Status > 299 {
					seen.add("%s answered %d", u[i:], e.Response.Status)
				}
			}
		}
	})
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	if err := chromedp.Do(ctx); err != nil { // starts the browser; chromedp enables the runtime and network events
		t.Fatalf("starting chromium: %v", err)
	}
	for _, page := range pages {
		err := chromedp.Do(ctx,
			chromedp.Navigate("about:blank"), // a fresh document: a hash change alone does not reload the UI's view
			chromedp.Navigate(base+page),
			chromedp.WaitReady("body"),
			chromedp.Sleep(2*time.Second), // the UI polls its endpoints and renders
		)
		var loc, text string
		if err == nil {
			loc, err = chromedp.Run(ctx, chromedp.Location())
		}
		if err == nil {
			text, err = chromedp.Run(ctx, chromedp.Text("body"))
		}
		if err != nil {
			t.Errorf("%s: %v", page, err)
			continue
		}
		for _, p := range seen.take() {
			t.Errorf("%s: %s", page, p)
		}
		if strings.Contains(loc, "/error") {
			t.Errorf("%s: the UI went to its error page (%s)", page, loc)
		}
		if m := bad.FindAllString(text, -1); len(m) > 0 {
			t.Errorf("%s shows %q; page text:\n%s", page, m, text)
		}
		if len(strings.TrimSpace(text)) < 20 {
			t.Errorf("%s rendered almost nothing: %q", page, text)
		}
		if testing.Verbose() {
			t.Logf("%s (%s):\n%s", page, loc, text)
		}
	}
	// a node's allocations, shown when its row is clicked, name their pods
	// (namespace/name from the allocation tags), the foreign one of
	// another scheduler included
	const pod = "kube-system/kube-proxy-node-0"
	row := chromedp.Search(`//mat-row[contains(., "node-0")]`)
	err = chromedp.Do(ctx,
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(base+"/#/nodes"),
		chromedp.WaitVisible(row),
	)
	var text string
	// on a loaded machine the first click can land before the table is
	// live: click again when nothing opened within 5 s
	for try := 0; err == nil && try < 3 && !strings.Contains(text, pod); try++ {
		err = chromedp.Do(ctx, chromedp.Click(row))
		for wait := 0; err == nil && wait < 10 && !strings.Contains(text, pod); wait++ {
			err = chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond))
			if err == nil {
				text, err = chromedp.Run(ctx, chromedp.Text("body"))
			}
		}
	}
	if err != nil {
		t.Errorf("opening node-0: %v", err)
	} else {
		for _, p := range seen.take() {
			t.Errorf("node-0 opened: %s", p)
		}
		if !strings.Contains(text, pod) {
			t.Errorf("node-0's allocations do not name the foreign pod %s; page text:\n%s", pod, text)
		}
		if m := bad.FindAllString(text, -1); len(m) > 0 {
			t.Errorf("node-0 opened shows %q; page text:\n%s", m, text)
		}
	}
	// the UI did read the API
	for _, path := range []string{"/ws/v1/clusters", "/ws/v1/partitions", "/ws/v1/partition/default/nodes", "/ws/v1/partition/default/queues"} {
		if calls[path] == 0 {
			t.Errorf("the UI never called %s (calls: %v)", path, calls)
		}
	}
}
