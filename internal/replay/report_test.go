package replay

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReportReadable checks what a reader of out/replay.html needs: the
// fidelity table, plots with axis titles, tick labels, legends and hover
// values, and nothing fetched from the network.
func TestReportReadable(t *testing.T) {
	s, err := Run(Options{Trace: idleFixture(t), End: 4000 * time.Second, CPUOvercommit: 1})
	if err != nil {
		t.Fatal(err)
	}
	page := string(HTML(s))
	for _, want := range []string{
		"<h2>Fidelity to the trace</h2>", "Fidelity score", "<th>KS</th>", // the table
		">trace time<", ">scheduling delay (log scale)<", ">allocated (% of the cluster)<", ">asks waiting<", // axis titles
		">0%<", ">50%<", ">100%<", ">1s<", // tick labels
		">CPU<", ">memory<", ">Paddock<", ">trace<", ">batch<", // legends
		"<title>batch, Paddock: p50", "<title>CPU at ", // hover values
		"<h2>Scheduling delay per queue</h2>", "<td>root.batch</td>", // per-queue delays
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// x ticks of the time plots are round trace times within the window
	if !regexp.MustCompile(`>(10m|15m|30m|1h)<`).MatchString(page) {
		t.Error("no round trace-time ticks")
	}
	// self-contained: no scripts, styles or images from elsewhere
	for _, bad := range []string{"<script src", "<link", "@import", "<img", "url(http"} {
		if strings.Contains(page, bad) {
			t.Errorf("report loads something: %q", bad)
		}
	}
	// a long replay's plots stay small: at most maxPoints points a line
	for _, pl := range regexp.MustCompile(`points="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if n := len(strings.Fields(pl[1])); n > maxPoints+2 {
			t.Errorf("polyline of %d points", n)
		}
	}
}
