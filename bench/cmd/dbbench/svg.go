package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// chartSVG draws horizontal bar panels by hand, one per figure of
// chartPanels, one bar per key type. No chart library.
func chartSVG(c config, results []result) string {
	const (
		width    = 760
		left     = 130 // room for key names
		right    = 40
		barH     = 22
		gap      = 8
		panelTop = 40 // panel title + spacing
		axisH    = 46 // ticks, tick labels and axis label under the bars
	)
	panels := chartPanels(c, results)
	panelH := panelTop + len(results)*(barH+gap) + axisH
	height := 56 + len(panels)*panelH + 20

	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&s, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	db := map[string]string{"postgres": "PostgreSQL", "mysql": "MariaDB (InnoDB)"}[c.db]
	fmt.Fprintf(&s, `<text x="%d" y="22" font-size="15" font-weight="bold">%s: %s rows per key type</text>`+"\n",
		left-110, esc(db), thousands(c.rows))
	sub := fmt.Sprintf("multi-row INSERTs of %d rows from Go, %d writer(s)", c.batch, c.writers)
	if c.readers > 0 {
		sub += fmt.Sprintf(", %d concurrent reader(s)", c.readers)
	}
	if c.repeat > 1 {
		sub += fmt.Sprintf(", median of %d rounds", c.repeat)
	}
	fmt.Fprintf(&s, `<text x="%d" y="40" fill="#4a5568">%s</text>`+"\n", left-110, esc(sub))
	for p, pn := range panels {
		top := 56 + p*panelH
		maxV := 0.0
		for _, r := range results {
			maxV = math.Max(maxV, pn.value(r))
		}
		step, axisMax := niceScale(maxV)
		plotW := float64(width - left - right)
		x := func(v float64) float64 { return float64(left) + v/axisMax*plotW }

		fmt.Fprintf(&s, `<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", left-110, top+16, esc(pn.title))
		barsTop := top + panelTop
		barsBottom := barsTop + len(results)*(barH+gap) - gap
		// grid lines and tick labels
		for v := 0.0; v <= axisMax+step/2; v += step {
			fmt.Fprintf(&s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e2e8f0"/>`+"\n", x(v), barsTop-4, x(v), barsBottom+4)
			fmt.Fprintf(&s, `<text x="%.1f" y="%d" text-anchor="middle" fill="#4a5568">%s</text>`+"\n", x(v), barsBottom+20, trimFloat(v))
		}
		// axes
		fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#2d3748"/>`+"\n", left, barsTop-4, left, barsBottom+4)
		fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#2d3748"/>`+"\n", left, barsBottom+4, width-right, barsBottom+4)
		fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="middle" fill="#2d3748">%s</text>`+"\n", left+int(plotW/2), barsBottom+38, esc(pn.axis))
		fmt.Fprintf(&s, `<text transform="translate(%d %d) rotate(-90)" text-anchor="middle" fill="#2d3748">primary-key type</text>`+"\n",
			14, (barsTop+barsBottom)/2)
		for i, r := range results {
			y := barsTop + i*(barH+gap)
			v := pn.value(r)
			fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", left-8, y+barH/2, esc(r.Key))
			fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", left, y, x(v)-float64(left), barH, color(r.Key))
			fmt.Fprintf(&s, `<text x="%.1f" y="%d" dominant-baseline="middle" fill="#1a202c">`+pn.format+`</text>`+"\n", x(v)+4, y+barH/2, v)
		}
	}
	fmt.Fprintf(&s, `<text x="%d" y="%d" fill="#718096" font-size="11">blue: once (bigint) · orange: UUID · grey: server-assigned serial · shared 2-core machine: rates are noisy</text>`+"\n", left-110, height-8)
	s.WriteString("</svg>\n")
	return s.String()
}

// panel is one bar chart of the SVG.
type panel struct {
	title, axis string
	value       func(result) float64
	format      string
}

// chartPanels are primary-index size and insert rate, and, when the
// results have them (PostgreSQL), the WAL and buffer reads of the load and
// the lookup latency during it.
func chartPanels(c config, results []result) []panel {
	indexTitle := "Primary-key index size (MB, smaller is better)"
	if c.db == "mysql" {
		indexTitle = "Clustered primary index = table size (MB, smaller is better)"
	}
	ps := []panel{
		{indexTitle, "megabytes (10^6 bytes)", func(r result) float64 { return float64(r.IndexBytes) / 1e6 }, "%.1f"},
		{"Insert rate (thousand rows/s, larger is better)", "thousand rows per second", func(r result) float64 { return r.RowsPerSecond / 1e3 }, "%.0f"},
	}
	has := func(f func(result) float64) bool {
		for _, r := range results {
			if f(r) > 0 {
				return true
			}
		}
		return false
	}
	wal := func(r result) float64 { return float64(r.WALBytes) / 1e6 }
	if has(wal) {
		ps = append(ps, panel{"WAL written during the load (MB, smaller is better)", "megabytes (10^6 bytes)", wal, "%.0f"})
	}
	fpi := func(r result) float64 { return float64(r.WALFPI) / 1e3 }
	if has(fpi) {
		ps = append(ps, panel{"Full-page images in that WAL (thousands, smaller is better)", "thousand full-page images (pg_stat_wal.wal_fpi)", fpi, "%.1f"})
	}
	reads := func(r result) float64 { return float64(existingReads(r)) / 1e3 }
	if has(reads) {
		ps = append(ps, panel{"Buffer reads of existing table and index pages during the load (thousands, smaller is better)",
			"thousand 8 KB blocks read into shared_buffers", reads, "%.0f"})
	}
	hit := func(r result) float64 { return max(r.readerHitRatio()*100, 0) }
	if has(hit) {
		ps = append(ps, panel{"Reader of recent rows: buffer hit ratio (%, larger is better)", "percent of its index and heap block accesses found in shared_buffers", hit, "%.1f"})
	}
	lat := func(r result) float64 { return float64(r.LoadLookupP99Ns) / 1e3 }
	if has(lat) {
		ps = append(ps, panel{"Point lookups during the load: p99 latency (µs, smaller is better)", "microseconds", lat, "%.0f"})
	}
	return ps
}

func color(key string) string {
	switch {
	case strings.HasPrefix(key, "once"):
		return "#2b6cb0"
	case strings.HasPrefix(key, "uuid"), strings.HasPrefix(key, "std-uuid"):
		return "#dd6b20"
	}
	return "#a0aec0"
}

// niceScale picks a tick step of 1, 2 or 5 x 10^k giving about five ticks and
// the axis maximum (a multiple of the step at or above maxV).
func niceScale(maxV float64) (step, axisMax float64) {
	if maxV <= 0 {
		return 1, 1
	}
	raw := maxV / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch r := raw / mag; {
	case r <= 1:
		step = mag
	case r <= 2:
		step = 2 * mag
	case r <= 5:
		step = 5 * mag
	default:
		step = 10 * mag
	}
	return step, math.Ceil(maxV/step) * step
}

func trimFloat(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func esc(s string) string { return html.EscapeString(s) }
