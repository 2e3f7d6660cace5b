package replay

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
	"time"
)

func renderHTML(s *Summary) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Paddock trace replay</title>")
	b.WriteString("<style>body{font-family:sans-serif;margin:2em;max-width:1000px}pre{background:#f4f4f4;padding:1em;overflow-x:auto}svg.chart{box-sizing:border-box;background:#fff;border:1px solid #ddd;margin:0.5em 0;width:100%;height:auto}pre{font-size:12px}table.fid{border-collapse:collapse;font-size:14px;display:block;max-width:100%;overflow-x:auto}@media (max-width:600px){body{margin:0.5em}}table.fid td,table.fid th{border:1px solid #ddd;padding:3px 8px;text-align:right}table.fid td:first-child{text-align:left}.yes{color:#1a7f37}.no{color:#c62828}.note{font-size:13px;color:#555}</style></head><body>")
	b.WriteString("<h1>Paddock trace replay</h1>")
	b.WriteString(FidelityHTML(s))
	b.WriteString(SplitHTML(s))
	fmt.Fprintf(&b, "<details><summary>The text summary (as printed by paddock replay)</summary><pre>%s</pre></details>", html.EscapeString(s.String()))
	b.WriteString(ChartsHTML(s))
	if s.Format == "2019" {
		b.WriteString("<p>Trace in the format of the Google cluster-usage traces v3 (clusterdata_2019): Google's data is CC-BY 4.0; <code>paddock generate</code> writes synthetic traces in this format.</p>")
	} else {
		b.WriteString("<p>Trace data: Google cluster-usage trace clusterdata-2011-2 (J. Wilkes, C. Reiss), Google Inc., CC-BY 4.0.</p>")
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

// FidelityHTML renders the fidelity table: per tier the delay quantiles of
// the replay and the trace, the KS statistic, the log-ratio, whether p50 and
// p90 are close, and the run's fidelity score.
func FidelityHTML(s *Summary) string {
	f := s.Fidelity()
	var b bytes.Buffer
	b.WriteString("<h2>Fidelity to the trace</h2>")
	if len(f.Tiers) == 0 {
		b.WriteString("<p>No scheduling delays to compare.</p>")
		return b.String()
	}
	fmt.Fprintf(&b, "<p>Fidelity score <b>%.3f</b> (1 = the replay's delay distributions are the trace's; 1 &minus; the KS statistic weighted by the trace's tasks per tier), mean log-ratio %.2f.</p>", f.Score, f.LogRatio)
	b.WriteString(`<table class="fid"><thead><tr><th>tier</th><th>Paddock tasks</th><th>p50</th><th>p90</th><th>p99</th><th>trace tasks</th><th>p50</th><th>p90</th><th>p99</th><th>KS</th><th>log-ratio</th><th>p50 &amp; p90 close</th></tr></thead><tbody>`)
	for i, t := range tiers {
		ours, theirs := s.Delays[i], s.TraceDelays[i]
		var tf *TierFidelity
		for j := range f.Tiers {
			if f.Tiers[j].Tier == t.name {
				tf = &f.Tiers[j]
			}
		}
		if tf == nil {
			continue
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td>", t.name,
			len(ours), fmtD(Percentile(ours, 50)), fmtD(Percentile(ours, 90)), fmtD(Percentile(ours, 99)),
			len(theirs), fmtD(Percentile(theirs, 50)), fmtD(Percentile(theirs, 90)), fmtD(Percentile(theirs, 99)))
		if !tf.Compared {
			b.WriteString("<td>&ndash;</td><td>&ndash;</td><td>no trace delays</td></tr>")
			continue
		}
		mark := `<span class="no">no</span>`
		if tf.Within {
			mark = `<span class="yes">yes</span>`
		}
		lr := fmt.Sprintf("%.2f", tf.LogRatio)
		if tf.Ours == 0 {
			lr = "&ndash;"
		}
		fmt.Fprintf(&b, "<td>%.3f</td><td>%s</td><td>%s</td></tr>", tf.KS, lr, mark)
	}
	b.WriteString("</tbody></table>")
	fmt.Fprintf(&b, "<p class=\"note\">Delays: submission to placement (Paddock) and the trace's SUBMIT to its SCHEDULE (Borg). KS: the largest gap between the two delay CDFs (0 same, 1 disjoint). Log-ratio: mean |log<sub>10</sub>(Paddock/trace)| of p50, p90 and p99, both counted from 1 s (1 = a factor of 10). Close: p50 and p90 within %gx of the trace's, or within %s where the trace's value is under %[2]s.</p>", WithinFactor, fmtD(WithinSlack))
	return b.String()
}

// SplitHTML renders, per tier, where the replay's delays come from: the
// modelled latency before the ask reached the scheduler, the scheduler's
// own wait, and their sum, the delay the fidelity compares.
func SplitHTML(s *Summary) string {
	var b bytes.Buffer
	b.WriteString("<h2>Where the delay comes from</h2>")
	if len(all(s.Delays)) == 0 {
		b.WriteString("<p>No task placed in the window.</p>")
		return b.String()
	}
	b.WriteString(`<table class="fid"><thead><tr><th rowspan="2">tier</th><th rowspan="2">tasks</th><th colspan="3">modelled latency</th><th colspan="3">scheduler&#39;s own wait</th><th colspan="3">sum (compared)</th></tr><tr>`)
	b.WriteString(strings.Repeat("<th>p50</th><th>p90</th><th>p99</th>", 3))
	b.WriteString("</tr></thead><tbody>")
	row := func(name string, sets ...[]time.Duration) {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td>", name, len(sets[0]))
		for _, ds := range sets {
			fmt.Fprintf(&b, "<td>%s</td><td>%s</td><td>%s</td>", fmtD(Percentile(ds, 50)), fmtD(Percentile(ds, 90)), fmtD(Percentile(ds, 99)))
		}
		b.WriteString("</tr>")
	}
	row("all", all(s.ModelDelays), all(s.SchedDelays), all(s.Delays))
	for i, t := range tiers {
		if len(s.Delays[i]) > 0 {
			row(t.name, s.ModelDelays[i], s.SchedDelays[i], s.Delays[i])
		}
	}
	b.WriteString("</tbody></table>")
	b.WriteString("<p class=\"note\">Modelled latency: from the task&#39;s submission in the trace to its ask reaching Paddock (the resource model&#39;s submission latency and drawn tail, the wait for Borg&#39;s throughput in tasks and in classes of like tasks; on 2019 traces the batch scheduler&#39;s queueing). Scheduler&#39;s own wait: from there to the cycle that placed it. Their sum is the delay compared with the trace&#39;s above; only the scheduler&#39;s wait is Paddock&#39;s.</p>")
	return b.String()
}

// ChartsHTML renders the report's plots as an HTML fragment: allocated
// share, pending asks, CPU share per queue and the delay CDFs per tier.
// Every plot has labelled axes with units and ticks, a legend outside the
// plotting area and hover values (SVG titles); nothing is loaded from the
// network.
func ChartsHTML(s *Summary) string {
	var b bytes.Buffer
	b.WriteString("<h2>Allocated share of the cluster</h2>")
	b.WriteString(lineChart(s.Series, []series{
		{"CPU", "#1f77b4", func(x Sample) float64 { return x.CPU }},
		{"memory", "#ff7f0e", func(x Sample) float64 { return x.Mem }},
	}, 1, true, "allocated (% of the cluster)"))
	b.WriteString("<h2>Pending asks</h2>")
	maxPending := 1.0
	for _, x := range s.Series {
		maxPending = max(maxPending, float64(x.Pending))
	}
	b.WriteString(lineChart(s.Series, []series{{"pending asks", "#d62728", func(x Sample) float64 { return float64(x.Pending) }}}, maxPending, false, "asks waiting"))
	b.WriteString("<h2>CPU share per queue</h2>")
	var qs []series
	for i, name := range sampledQueues(s.Series) {
		qs = append(qs, series{name, palette[i%len(palette)], func(x Sample) float64 { return x.Queues[name] }})
	}
	b.WriteString(lineChart(s.Series, qs, 1, true, "allocated CPU (% of the cluster)"))
	b.WriteString(queueDelayTable(s))
	b.WriteString("<h2>Scheduling delay per tier</h2>")
	b.WriteString("<p class=\"note\">Share of the tier's tasks placed within a delay; solid: Paddock, dashed: the trace's own delays.</p>")
	b.WriteString(cdfChart(s))
	return b.String()
}

// queueDelayTable lists the delays per leaf queue the placement rules
// chose, with a bar of each queue's share of the placed tasks.
func queueDelayTable(s *Summary) string {
	if len(s.QueueDelays) == 0 {
		return ""
	}
	names := make([]string, 0, len(s.QueueDelays))
	total := 0
	for q, ds := range s.QueueDelays {
		names = append(names, q)
		total += len(ds)
	}
	slices.Sort(names)
	var b bytes.Buffer
	b.WriteString("<h2>Scheduling delay per queue</h2>")
	b.WriteString(`<table class="fid"><thead><tr><th>queue</th><th>tasks placed</th><th>share of placements</th><th>p50</th><th>p90</th><th>p99</th></tr></thead><tbody>`)
	for _, q := range names {
		ds := s.QueueDelays[q]
		share := float64(len(ds)) / float64(max(1, total))
		fmt.Fprintf(&b, `<tr><td>%s</td><td>%d</td><td><svg width="120" height="10" viewBox="0 0 120 10"><rect width="120" height="10" fill="#eee"/><rect width="%.1f" height="10" fill="#1f77b4"><title>%.1f%%</title></rect></svg> %.1f%%</td><td>%s</td><td>%s</td><td>%s</td></tr>`,
			html.EscapeString(q), len(ds), 120*share, 100*share, 100*share, fmtD(Percentile(ds, 50)), fmtD(Percentile(ds, 90)), fmtD(Percentile(ds, 99)))
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

var palette = []string{"#9467bd", "#2ca02c", "#8c564b", "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"}

// sampledQueues names the queues of the samples: the tier queues first,
// in tier order, then any others a configuration has, sorted.
func sampledQueues(pts []Sample) []string {
	var names, others []string
	for _, t := range tiers {
		names = append(names, t.queue)
	}
	for _, x := range pts {
		for q := range x.Queues {
			if !slices.Contains(names, q) && !slices.Contains(others, q) {
				others = append(others, q)
			}
		}
	}
	slices.Sort(others)
	return append(names, others...)
}

type series struct {
	name  string
	color string
	value func(Sample) float64
}

// The plot geometry: the plotting area is inset by the margins, the legend
// sits above it.
const (
	chartW, chartH               = 900.0, 300.0
	marginL, marginR             = 70.0, 20.0
	marginT, marginB             = 36.0, 46.0
	maxPoints                    = 600 // per polyline
	hoverPoints                  = 60  // hover markers per series
	plotW                        = chartW - marginL - marginR
	plotH                        = chartH - marginT - marginB
	svgOpen                      = `<svg class="chart" viewBox="0 0 %.0f %.0f" xmlns="http://www.w3.org/2000/svg" role="img" font-family="sans-serif" font-size="12">`
	axisColor, gridColor, txtCol = "#333", "#e5e5e5", "#333"
)

// legend draws the entries in a row above the plotting area.
func legend(b *bytes.Buffer, entries []legendEntry) {
	x := marginL
	for _, e := range entries {
		dash := ""
		if e.dashed {
			dash = ` stroke-dasharray="5,3"`
		}
		fmt.Fprintf(b, `<line x1="%.0f" y1="14" x2="%.0f" y2="14" stroke="%s" stroke-width="2"%s/>`, x, x+18, e.color, dash)
		fmt.Fprintf(b, `<text x="%.0f" y="18" fill="%s">%s</text>`, x+22, txtCol, html.EscapeString(e.name))
		x += 34 + 7*float64(len(e.name))
	}
}

type legendEntry struct {
	name   string
	color  string
	dashed bool
}

// yAxis draws the y axis with ticks and grid lines at the given values.
func yAxis(b *bytes.Buffer, ticks []float64, label func(float64) string, y func(float64) float64, title string) {
	for _, v := range ticks {
		fmt.Fprintf(b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="%s"/>`, marginL, y(v), chartW-marginR, y(v), gridColor)
		fmt.Fprintf(b, `<text x="%.0f" y="%.1f" text-anchor="end" fill="%s">%s</text>`, marginL-6, y(v)+4, txtCol, label(v))
	}
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s"/>`, marginL, marginT, marginL, chartH-marginB, axisColor)
	fmt.Fprintf(b, `<text transform="translate(14 %.0f) rotate(-90)" text-anchor="middle" fill="%s">%s</text>`, marginT+plotH/2, txtCol, html.EscapeString(title))
}

// xAxis draws the x axis with ticks at the given positions and labels.
func xAxis(b *bytes.Buffer, xs []float64, labels []string, title string) {
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s"/>`, marginL, chartH-marginB, chartW-marginR, chartH-marginB, axisColor)
	for i, x := range xs {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="%s"/>`, x, chartH-marginB, x, chartH-marginB+5, axisColor)
		fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="%s">%s</text>`, x, chartH-marginB+18, txtCol, html.EscapeString(labels[i]))
	}
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="middle" fill="%s">%s</text>`, marginL+plotW/2, chartH-6, txtCol, html.EscapeString(title))
}

// niceStep returns a round step (1, 2 or 5 times a power of ten) that cuts
// span into about n pieces.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// timeStep returns a round trace-time step for about n ticks over span.
func timeStep(span time.Duration, n int) time.Duration {
	for _, st := range []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
		time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour} {
		if span/st <= time.Duration(n) {
			return st
		}
	}
	return span / time.Duration(n)
}

// fmtTick formats a trace time for an axis: 1h30m, 45m, 2d.
func fmtTick(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d >= time.Hour && d%time.Minute == 0:
		return fmt.Sprintf("%dh%02dm", d/time.Hour, (d%time.Hour)/time.Minute)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return fmtD(d)
}

func lineChart(pts []Sample, ss []series, ymax float64, percent bool, ytitle string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, svgOpen, chartW, chartH)
	if len(pts) < 2 {
		b.WriteString(`<text x="20" y="40">not enough samples</text></svg>`)
		return b.String()
	}
	t0, t1 := pts[0].At, pts[len(pts)-1].At
	x := func(t time.Duration) float64 {
		return marginL + plotW*float64(t-t0)/float64(max(1, t1-t0))
	}
	var yticks []float64
	if percent {
		ymax = 1
		yticks = []float64{0, 0.25, 0.5, 0.75, 1}
	} else {
		st := niceStep(ymax, 4)
		ymax = math.Ceil(ymax/st) * st
		for v := 0.0; v <= ymax+st/2; v += st {
			yticks = append(yticks, v)
		}
	}
	y := func(v float64) float64 { return chartH - marginB - plotH*v/ymax }
	label := func(v float64) string {
		if percent {
			return fmt.Sprintf("%.0f%%", 100*v)
		}
		return fmt.Sprintf("%.0f", v)
	}
	yAxis(&b, yticks, label, y, ytitle)
	st := timeStep(t1-t0, 8)
	var xs []float64
	var xl []string
	for t := (t0 + st - 1) / st * st; t <= t1; t += st {
		xs = append(xs, x(t))
		xl = append(xl, fmtTick(t))
	}
	xAxis(&b, xs, xl, "trace time")
	var entries []legendEntry
	step := max(1, len(pts)/maxPoints)
	hover := max(1, len(pts)/hoverPoints)
	for _, sr := range ss {
		entries = append(entries, legendEntry{sr.name, sr.color, false})
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="`, sr.color)
		for i := 0; i < len(pts); i += step {
			fmt.Fprintf(&b, "%.1f,%.1f ", x(pts[i].At), y(sr.value(pts[i])))
		}
		last := pts[len(pts)-1]
		fmt.Fprintf(&b, "%.1f,%.1f", x(last.At), y(sr.value(last)))
		b.WriteString(`"/>`)
		for i := 0; i < len(pts); i += hover {
			p := pts[i]
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" fill-opacity="0" stroke="none"><title>%s at %s: %s</title></circle>`,
				x(p.At), y(sr.value(p)), sr.color, html.EscapeString(sr.name), fmtD(p.At), label2(sr.value(p), percent))
		}
	}
	legend(&b, entries)
	b.WriteString("</svg>")
	return b.String()
}

func label2(v float64, percent bool) string {
	if percent {
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	return fmt.Sprintf("%.0f", v)
}

// cdfChart plots, per tier, the share of tasks scheduled within a delay, on
// a log time axis from 100 ms to the longest delay.
func cdfChart(s *Summary) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, svgOpen, chartW, chartH)
	longest := 10 * time.Second
	for _, ds := range append(slices.Clone(s.Delays), s.TraceDelays...) {
		for _, d := range ds {
			longest = max(longest, d)
		}
	}
	floor := 100 * time.Millisecond
	lo, hi := logf(float64(floor)), logf(float64(longest))
	x := func(d time.Duration) float64 {
		v := logf(float64(max(d, floor)))
		return marginL + plotW*(v-lo)/(hi-lo)
	}
	y := func(f float64) float64 { return chartH - marginB - plotH*f }
	yAxis(&b, []float64{0, 0.25, 0.5, 0.75, 1}, func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }, y, "tasks placed (%)")
	var xs []float64
	var xl []string
	for _, d := range []time.Duration{100 * time.Millisecond, time.Second, 10 * time.Second, time.Minute, 10 * time.Minute, time.Hour, 10 * time.Hour, 100 * time.Hour} {
		if d <= longest {
			xs = append(xs, x(d))
			xl = append(xl, fmtTick(d))
		}
	}
	xs[0], xl[0] = x(floor), "≤100ms"
	xAxis(&b, xs, xl, "scheduling delay (log scale)")
	var entries []legendEntry
	for i, t := range tiers {
		if len(s.Delays[i])+len(s.TraceDelays[i]) == 0 {
			continue
		}
		entries = append(entries, legendEntry{t.name, palette[i], false})
		for dash, ds := range [][]time.Duration{s.Delays[i], s.TraceDelays[i]} {
			if len(ds) == 0 {
				continue
			}
			c := slices.Clone(ds)
			slices.Sort(c)
			style, who := "", "Paddock"
			if dash == 1 {
				style, who = ` stroke-dasharray="5,3"`, "trace"
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s"%s stroke-width="1.5" points="`, palette[i], style)
			step := max(1, len(c)/maxPoints)
			for j := 0; j < len(c); j += step {
				fmt.Fprintf(&b, "%.1f,%.1f ", x(c[j]), y(float64(j+1)/float64(len(c))))
			}
			fmt.Fprintf(&b, "%.1f,%.1f", x(c[len(c)-1]), y(1))
			b.WriteString(`"/>`)
			for _, p := range []float64{50, 90, 99} {
				d := sortedPercentile(c, p)
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" fill-opacity="0.6"><title>%s, %s: p%.0f %s (%d tasks)</title></circle>`,
					x(d), y(p/100), palette[i], t.name, who, p, fmtD(d), len(c))
			}
		}
	}
	entries = append(entries, legendEntry{"Paddock", "#333", false}, legendEntry{"trace", "#333", true})
	legend(&b, entries)
	b.WriteString("</svg>")
	return b.String()
}

func logf(v float64) float64 { return math.Log10(v) }
