package main

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

// chartSVG draws, by hand, one panel of horizontal bars per database and
// mode: rows per second for each ORM and key type. Modes get panels of
// their own because one-by-one and batched rates differ by two orders of
// magnitude.
func chartSVG(rs []result) string {
	const (
		width    = 780
		left     = 150 // room for labels
		right    = 50
		barH     = 16
		barGap   = 3
		groupGap = 12
		panelTop = 34
		axisH    = 44
	)
	type panel struct{ db, mode string }
	var panels []panel
	var orms, keys []string
	for _, r := range rs {
		if p := (panel{r.DB, r.Mode}); !slices.Contains(panels, p) {
			panels = append(panels, p)
		}
		if !slices.Contains(orms, r.ORM) {
			orms = append(orms, r.ORM)
		}
		if !slices.Contains(keys, r.Key) {
			keys = append(keys, r.Key)
		}
	}
	groupH := len(keys)*(barH+barGap) - barGap + groupGap
	panelH := panelTop + len(orms)*groupH + axisH
	height := 60 + len(panels)*panelH + 24

	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&s, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&s, `<text x="20" y="24" font-size="15" font-weight="bold">Inserts through an ORM: rows per second by primary-key type</text>`+"\n")
	sub := "wall time, larger is better"
	if len(rs) > 0 && rs[0].Rounds > 1 {
		sub += fmt.Sprintf(", median of %d rounds", rs[0].Rounds)
	}
	fmt.Fprintf(&s, `<text x="20" y="42" fill="#4a5568">%s</text>`+"\n", esc(sub))
	for pi, p := range panels {
		top := 60 + pi*panelH
		var maxV float64
		rows := 0
		for _, r := range rs {
			if r.DB == p.db && r.Mode == p.mode {
				maxV = math.Max(maxV, r.RowsPerSecond)
				rows = r.Rows
			}
		}
		step, axisMax := niceScale(maxV / 1e3)
		plotW := float64(width - left - right)
		x := func(v float64) float64 { return float64(left) + v/axisMax*plotW }
		title := fmt.Sprintf("%s, %s, %s rows", dbTitles[p.db], modeTitles[p.mode], thousands(rows))
		fmt.Fprintf(&s, `<text x="20" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", top+16, esc(title))
		barsTop := top + panelTop
		barsBottom := barsTop + len(orms)*groupH - groupGap
		for v := 0.0; v <= axisMax+step/2; v += step {
			fmt.Fprintf(&s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e2e8f0"/>`+"\n", x(v), barsTop-4, x(v), barsBottom+4)
			fmt.Fprintf(&s, `<text x="%.1f" y="%d" text-anchor="middle" fill="#4a5568">%s</text>`+"\n", x(v), barsBottom+20, trimFloat(v))
		}
		fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#2d3748"/>`+"\n", left, barsTop-4, left, barsBottom+4)
		fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#2d3748"/>`+"\n", left, barsBottom+4, width-right, barsBottom+4)
		fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="middle" fill="#2d3748">thousand rows per second</text>`+"\n", left+int(plotW/2), barsBottom+36)
		for gi, orm := range orms {
			gy := barsTop + gi*groupH
			for ki, key := range keys {
				r := find(rs, p.db, orm, p.mode, key)
				if r == nil {
					continue
				}
				y := gy + ki*(barH+barGap)
				v := r.RowsPerSecond / 1e3
				fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", left-8, y+barH/2, esc(orm+" · "+key))
				fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", left, y, x(v)-float64(left), barH, color(key))
				fmt.Fprintf(&s, `<text x="%.1f" y="%d" dominant-baseline="middle" fill="#1a202c">%s</text>`+"\n", x(v)+4, y+barH/2, trimFloat(math.Round(v*10)/10))
			}
		}
	}
	fmt.Fprintf(&s, `<text x="20" y="%d" fill="#718096" font-size="11">blue: once counter ID (bigint) · grey: auto-increment · orange: UUIDv7 · shared 2-core machine: rates are noisy</text>`+"\n", height-8)
	s.WriteString("</svg>\n")
	return s.String()
}

func color(key string) string {
	switch key {
	case "once":
		return "#2b6cb0"
	case "uuidv7":
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
