package whatif

import (
	"bytes"
	"fmt"
	"html"

	"github.com/paddock-sched/paddock/internal/replay"
)

// HTML renders the comparison: the table, then each replay's fidelity to
// the trace and plots side by side.
func HTML(r *Result) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"><title>Paddock what-if</title>")
	b.WriteString("<style>body{font-family:sans-serif;margin:2em}pre{background:#f4f4f4;padding:1em;overflow-x:auto}" +
		"table{width:100%;border-collapse:collapse;table-layout:fixed}td{vertical-align:top;padding:0 0.5em}" +
		"svg.chart{background:#fff;border:1px solid #ddd;margin:0.5em 0;width:100%;height:auto}" +
		"table.fid{border-collapse:collapse;font-size:13px;table-layout:auto}table.fid td,table.fid th{border:1px solid #ddd;padding:2px 6px;text-align:right}" +
		".yes{color:#1a7f37}.no{color:#c62828}.note{font-size:13px;color:#555}</style></head><body>")
	b.WriteString("<h1>Paddock what-if: one trace, two queue configurations</h1>")
	fmt.Fprintf(&b, "<pre>%s</pre>", html.EscapeString(r.String()))
	fmt.Fprintf(&b, "<table><tr><th>A: %s</th><th>B: %s</th></tr><tr><td>%s</td><td>%s</td></tr></table>",
		html.EscapeString(r.NameA), html.EscapeString(r.NameB), replay.FidelityHTML(r.A)+replay.SplitHTML(r.A)+replay.ChartsHTML(r.A), replay.FidelityHTML(r.B)+replay.SplitHTML(r.B)+replay.ChartsHTML(r.B))
	b.WriteString("</body></html>\n")
	return b.Bytes()
}
