package webui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/paddock-sched/paddock/internal/replay"
	"github.com/paddock-sched/paddock/internal/sim/borg/gen"
)

// reportWidths are the window widths the replay report is read at: a
// phone, a small laptop, a desktop.
var reportWidths = []int64{375, 1024, 1920}

// layout is what the page measures about itself (reportCheck).
type layout struct {
	Charts    int      // svg.chart elements
	Bare      []string // charts without plotted lines or with fewer than 3 numeric tick labels
	Clipped   []string // chart texts outside their chart's viewBox
	FidRows   int      // rows of the fidelity table
	Score     bool     // the fidelity score is stated
	Spills    []string // boxes whose content is wider than they are and not scrollable
	PageWider bool     // the page scrolls sideways
	SummaryOK bool     // the text summary is there, inside its box or scrolling in it
}

// reportCheck measures the page with every <details> opened.
const reportCheck = `(() => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  const out = {Charts: 0, Bare: [], Clipped: [], FidRows: 0, Score: false, Spills: [], PageWider: false, SummaryOK: false};
  document.querySelectorAll('svg.chart').forEach((svg, i) => {
    out.Charts++;
    const name = 'chart ' + i + ' (' + (svg.previousElementSibling ? svg.previousElementSibling.textContent : '') + ')';
    const ticks = [...svg.querySelectorAll('text')].filter(t => /\d/.test(t.textContent)).length;
    const lines = svg.querySelectorAll('polyline, path').length;
    if (ticks < 3 || lines === 0) out.Bare.push(name + ': ' + ticks + ' tick labels, ' + lines + ' lines');
    const vb = svg.viewBox.baseVal;
    svg.querySelectorAll('text').forEach(t => {
      const b = t.getBBox();
      // rotated axis titles: the bounding box of the transformed text
      const m = t.getCTM(), inv = svg.getCTM().inverse(), r = m ? inv.multiply(m) : null;
      let x0 = b.x, x1 = b.x + b.width, y0 = b.y, y1 = b.y + b.height;
      if (r) {
        const pts = [[x0, y0], [x1, y0], [x0, y1], [x1, y1]].map(([x, y]) => [r.a*x + r.c*y + r.e, r.b*x + r.d*y + r.f]);
        x0 = Math.min(...pts.map(p => p[0])); x1 = Math.max(...pts.map(p => p[0]));
        y0 = Math.min(...pts.map(p => p[1])); y1 = Math.max(...pts.map(p => p[1]));
      }
      if (x0 < vb.x - 1 || x1 > vb.x + vb.width + 1 || y0 < vb.y - 1 || y1 > vb.y + vb.height + 1)
        out.Clipped.push(name + ': "' + t.textContent + '" at ' + [x0, y0, x1, y1].map(Math.round).join(','));
    });
  });
  const fid = document.querySelector('table.fid');
  out.FidRows = fid ? fid.querySelectorAll('tbody tr').length : 0;
  out.Score = /Fidelity score \d\.\d{3}/.test(document.body.innerText);
  for (const el of [document.body, ...document.body.querySelectorAll('*')]) {
    if (el.closest('svg')) continue;
    const cs = getComputedStyle(el);
    if (cs.display.startsWith('inline') || el.clientWidth === 0) continue;
    const scrolls = cs.overflowX === 'auto' || cs.overflowX === 'scroll';
    if (!scrolls && el.scrollWidth > el.clientWidth + 1)
      out.Spills.push(el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ': ' + el.scrollWidth + ' > ' + el.clientWidth);
  }
  const doc = document.documentElement;
  out.PageWider = doc.scrollWidth > doc.clientWidth + 1;
  const pre = document.querySelector('details pre');
  if (pre) {
    const cs = getComputedStyle(pre);
    out.SummaryOK = pre.textContent.includes('decision log sha256') &&
      (pre.scrollWidth <= pre.clientWidth + 1 || cs.overflowX === 'auto' || cs.overflowX === 'scroll') &&
      pre.getBoundingClientRect().right <= doc.clientWidth + 1;
  }
  return out;
})()`

// TestReplayReport reads the replay's HTML report in chromium at a phone's,
// a laptop's and a desktop's width: no script error, no request but the
// file itself (the report is self-contained), the fidelity table and score,
// every chart with lines and numeric tick labels, no chart text outside its
// chart, and nothing wider than its box (the text summary scrolls inside
// its own).
func TestReplayReport(t *testing.T) {
	exe := chromium(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace")
	if _, err := gen.Generate(trace, gen.Options{Seed: 11, Machines: 120, Duration: 30 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	sum, err := replay.Run(replay.Options{Trace: trace, Interval: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "replay.html")
	if err := os.WriteFile(file, replay.HTML(sum), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + file

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()

	var seen problems
	err = chromedp.Listen(bctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			seen.add("page error: %s (line %d)", msg, d.LineNumber)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				seen.add("console %s: %s", e.Type, strings.Join(args, " "))
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; u != url {
				seen.add("request for %s: the report must be self-contained", u)
			}
		}
	})
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	if err := chromedp.Do(bctx); err != nil { // starts the browser; chromedp enables the runtime and network events
		t.Fatalf("starting chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()
	for _, w := range reportWidths {
		err := chromedp.Do(ctx,
			chromedp.EmulateViewport(w, 900),
			chromedp.Navigate(url),
			chromedp.WaitReady("body"),
		)
		var got layout
		if err == nil {
			got, err = chromedp.Run(ctx, chromedp.Evaluate[layout](reportCheck))
		}
		if err != nil {
			t.Fatalf("%d px: %v", w, err)
		}
		for _, p := range seen.take() {
			t.Errorf("%d px: %s", w, p)
		}
		if got.Charts < 4 || len(got.Bare) > 0 {
			t.Errorf("%d px: %d charts; without lines or ticks: %v", w, got.Charts, got.Bare)
		}
		if len(got.Clipped) > 0 {
			t.Errorf("%d px: chart text outside its chart: %v", w, got.Clipped)
		}
		if got.FidRows < 2 || !got.Score {
			t.Errorf("%d px: fidelity table rows %d, score stated %v", w, got.FidRows, got.Score)
		}
		if len(got.Spills) > 0 || got.PageWider {
			t.Errorf("%d px: content wider than its box %v; page scrolls sideways: %v", w, got.Spills, got.PageWider)
		}
		if !got.SummaryOK {
			t.Errorf("%d px: the text summary is missing or spills out of its box", w)
		}
	}
}
