package replay

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"slices"
	"time"
)

func renderHTML(s *Summary) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"><title>Paddock trace replay</title>")
	b.WriteString("<style>body{font-family:sans-serif;margin:2em;max-width:1000px}pre{background:#f4f4f4;padding:1em;overflow-x:auto}svg{background:#fff;border:1px solid #ddd;margin:0.5em 0;max-width:100%;height:auto}table.fid{border-collapse:collapse;font-size:14px}table.fid td,table.fid th{border:1px solid #ddd;padding:3px 8px;text-align:right}table.fid td:first-child{text-align:left}.yes{color:#1a7f37}.no{color:#c62828}.note{font-size:13px;color:#555}</style></head><body>")
	b.WriteString("<h1>Paddock trace replay</h1>")
	b.WriteString(FidelityHTML(s))
	fmt.Fprintf(&b, "<pre>%s</pre>", html.EscapeString(s.String()))
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
		fmt.Fprintf(&b, "<td>%.3f</td><td>%.2f</td><td>%s</td></tr>", tf.KS, tf.LogRatio, mark)
	}
	b.WriteString("</tbody></table>")
	fmt.Fprintf(&b, "<p class=\"note\">Delays: submission to placement (Paddock) and the trace's SUBMIT to its SCHEDULE (Borg). KS: the largest gap between the two delay CDFs (0 same, 1 disjoint). Log-ratio: mean |log<sub>10</sub>(Paddock/trace)| of p50, p90 and p99, both counted from 1 s (1 = a factor of 10). Close: p50 and p90 within %gx of the trace's, or within %s where the trace's value is under %[2]s.</p>", WithinFactor, fmtD(WithinSlack))
	return b.String()
}

// ChartsHTML renders the report's plots as an HTML fragment: allocated
// share, pending asks, CPU share per queue and the delay CDFs per tier.
func ChartsHTML(s *Summary) string {
	var b bytes.Buffer
	b.WriteString("<h2>Allocated share of the cluster</h2>")
	b.WriteString(lineChart(s.Series, []series{
		{"CPU", "#1f77b4", func(x Sample) float64 { return x.CPU }},
		{"memory", "#ff7f0e", func(x Sample) float64 { return x.Mem }},
	}, 1))
	b.WriteString("<h2>Pending asks</h2>")
	maxPending := 1.0
	for _, x := range s.Series {
		maxPending = max(maxPending, float64(x.Pending))
	}
	b.WriteString(lineChart(s.Series, []series{{"pending", "#d62728", func(x Sample) float64 { return float64(x.Pending) }}}, maxPending))
	b.WriteString("<h2>CPU share per queue</h2>")
	colors := []string{"#9467bd", "#2ca02c", "#8c564b", "#e377c2", "#7f7f7f"}
	var qs []series
	for i, name := range sampledQueues(s.Series) {
		qs = append(qs, series{name, colors[i%len(colors)], func(x Sample) float64 { return x.Queues[name] }})
	}
	b.WriteString(lineChart(s.Series, qs, 1))
	b.WriteString("<h2>Scheduling delay CDF per tier (solid: Paddock, dashed: the trace)</h2>")
	b.WriteString(cdfChart(s))
	return b.String()
}

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

const chartW, chartH, pad = 900.0, 260.0, 40.0

func lineChart(pts []Sample, ss []series, ymax float64) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg width="%.0f" height="%.0f" viewBox="0 0 %[1]g %[2]g" xmlns="http://www.w3.org/2000/svg">`, chartW, chartH)
	if len(pts) < 2 {
		b.WriteString(`<text x="20" y="40">not enough samples</text></svg>`)
		return b.String()
	}
	t0, t1 := pts[0].At, pts[len(pts)-1].At
	x := func(t time.Duration) float64 {
		return pad + (chartW-2*pad)*float64(t-t0)/float64(max(1, t1-t0))
	}
	y := func(v float64) float64 { return chartH - pad - (chartH-2*pad)*v/ymax }
	axes(&b, fmt.Sprintf("%s .. %s trace time", fmtD(t0), fmtD(t1)), ymax)
	for i, sr := range ss {
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="`, sr.color)
		for _, p := range pts {
			fmt.Fprintf(&b, "%.1f,%.1f ", x(p.At), y(sr.value(p)))
		}
		b.WriteString(`"/>`)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="%s" font-size="12">%s</text>`, chartW-pad-150, pad+14*float64(i), sr.color, html.EscapeString(sr.name))
	}
	b.WriteString("</svg>")
	return b.String()
}

func axes(b *bytes.Buffer, xlabel string, ymax float64) {
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#333"/>`, pad, chartH-pad, chartW-pad, chartH-pad)
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#333"/>`, pad, pad, pad, chartH-pad)
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" font-size="12">%s</text>`, pad, chartH-10, html.EscapeString(xlabel))
	fmt.Fprintf(b, `<text x="2" y="%.0f" font-size="12">%g</text>`, pad, ymax)
	fmt.Fprintf(b, `<text x="2" y="%.0f" font-size="12">0</text>`, chartH-pad)
}

// cdfChart plots, per tier, the share of tasks scheduled within a delay, on
// a log time axis from 1 ms to the longest delay.
func cdfChart(s *Summary) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg width="%.0f" height="%.0f" viewBox="0 0 %[1]g %[2]g" xmlns="http://www.w3.org/2000/svg">`, chartW, chartH)
	longest := time.Second
	for _, ds := range append(slices.Clone(s.Delays), s.TraceDelays...) {
		for _, d := range ds {
			longest = max(longest, d)
		}
	}
	lo, hi := logf(float64(time.Millisecond)), logf(float64(longest))
	x := func(d time.Duration) float64 {
		v := logf(float64(max(d, time.Millisecond)))
		return pad + (chartW-2*pad)*(v-lo)/(hi-lo)
	}
	y := func(f float64) float64 { return chartH - pad - (chartH-2*pad)*f }
	axes(&b, "delay (log scale) from 1ms to "+fmtD(longest), 1)
	colors := []string{"#9467bd", "#2ca02c", "#8c564b", "#e377c2", "#7f7f7f"}
	for i, t := range tiers {
		for dash, ds := range [][]time.Duration{s.Delays[i], s.TraceDelays[i]} {
			if len(ds) == 0 {
				continue
			}
			c := slices.Clone(ds)
			slices.Sort(c)
			style := ""
			if dash == 1 {
				style = ` stroke-dasharray="5,3"`
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s"%s stroke-width="1.5" points="`, colors[i], style)
			step := max(1, len(c)/300)
			for j := 0; j < len(c); j += step {
				fmt.Fprintf(&b, "%.1f,%.1f ", x(c[j]), y(float64(j+1)/float64(len(c))))
			}
			fmt.Fprintf(&b, "%.1f,%.1f", x(c[len(c)-1]), y(1))
			b.WriteString(`"/>`)
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="%s" font-size="12">%s</text>`, chartW-pad-150, pad+14*float64(i), colors[i], t.name)
	}
	b.WriteString("</svg>")
	return b.String()
}

func logf(v float64) float64 { return math.Log10(v) }
