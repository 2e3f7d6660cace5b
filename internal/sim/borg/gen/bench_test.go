package gen

import (
	"testing"
	"time"
)

// BenchmarkGenerate measures rows written per second for a 1,000-machine
// cell and one hour: the model alone (Model) and with JSON and gzip
// (Files).
func BenchmarkGenerate(b *testing.B) {
	o, err := Options{Seed: 1, Machines: 1000, Duration: time.Hour}.withDefaults()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Model", func(b *testing.B) {
		var rows int64
		for b.Loop() {
			c := &counter{}
			if _, err := generate(o, "", c); err != nil {
				b.Fatal(err)
			}
			rows += c.n
		}
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("Files", func(b *testing.B) {
		var rows int64
		for b.Loop() {
			w, err := newJSONWriter(b.TempDir(), o.ShardRows)
			if err != nil {
				b.Fatal(err)
			}
			rep, err := generate(o, "", w)
			if err != nil {
				b.Fatal(err)
			}
			rows += rep.MachineRows + rep.JobRows + rep.TaskRows
		}
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	})
}
