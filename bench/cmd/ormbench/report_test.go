package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"slices"
	"strings"
	"testing"
)

var sample3 = []result{
	{DB: "postgres", ORM: "gorm", Mode: "batch", Key: "once", Rows: 1000, Batch: 100, Rounds: 3, RowsPerSecond: 3000, AllocsPerRow: 8, CPUUsPerRow: 4.25, RoundRates: []float64{2900, 3000, 3100}},
	{DB: "postgres", ORM: "gorm", Mode: "batch", Key: "auto", Rows: 1000, Batch: 100, Rounds: 3, RowsPerSecond: 2000, AllocsPerRow: 6},
	{DB: "postgres", ORM: "gorm", Mode: "batch", Key: "uuidv7", Rows: 1000, Batch: 100, Rounds: 3, RowsPerSecond: 1500, AllocsPerRow: 9},
	{DB: "mysql", ORM: "gorm", Mode: "one", Key: "once", Rows: 50, Batch: 1, Rounds: 3, RowsPerSecond: 400, AllocsPerRow: 44},
}

func TestSummarizeMedians(t *testing.T) {
	r := summarize("postgres", "bun", "batch", "once", 1000, []sample{
		{rows: 100, seconds: 2, allocsPerRow: 5, bytesPerRow: 300, cpuUsPerRow: 9},
		{rows: 100, seconds: 1, allocsPerRow: 7, bytesPerRow: 100, cpuUsPerRow: 3},
		{rows: 100, seconds: 4, allocsPerRow: 6, bytesPerRow: 200, cpuUsPerRow: 4},
	})
	if r.Seconds != 2 || r.RowsPerSecond != 50 || r.AllocsPerRow != 6 || r.BytesPerRow != 200 || r.CPUUsPerRow != 4 || r.Rounds != 3 {
		t.Errorf("summarize = %+v; want seconds 2, 50 rows/s, 6 allocs/row, 200 B/row, 4 cpu-µs/row, 3 rounds", r)
	}
	if got := r.RoundRates; len(got) != 3 || got[0] != 50 || got[1] != 100 || got[2] != 25 {
		t.Errorf("round rates = %v; want [50 100 25] (round order)", got)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median of 4 values = %v, want 2.5", m)
	}
}

// TestMarkdownServerColumn: the server's CPU column shows only for a
// database whose results recorded it.
func TestMarkdownServerColumn(t *testing.T) {
	rs := slices.Clone(sample3)
	for i := range rs {
		if rs[i].DB == "mysql" {
			rs[i].ServerUsPerRow = 2.5
		}
	}
	var buf bytes.Buffer
	writeMarkdown(&buf, rs)
	pg, my, _ := strings.Cut(buf.String(), "MariaDB")
	if strings.Contains(pg, "server CPU") || !strings.Contains(my, "| server CPU µs/row |") || !strings.Contains(my, "| 2.50 |") {
		t.Errorf("server CPU column: want it for MariaDB only:\n%s", buf.String())
	}
}

func TestMarkdownRatios(t *testing.T) {
	var buf bytes.Buffer
	writeMarkdown(&buf, sample3)
	out := buf.String()
	for _, want := range []string{
		"| gorm | batches of 100 | once | 1000 | 3000 | 1.50x | 2.00x | 4.25 | 8.0 |",
		"| gorm | one by one | once | 50 | 400 | – | – | – | 44.0 |",
		"2900, 3000, 3100",
		"PostgreSQL", "MariaDB",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

func TestChartSVGIsWellFormed(t *testing.T) {
	svg := chartSVG(sample3)
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("malformed SVG: %v\n%s", err, svg)
		}
	}
	for _, want := range []string{"gorm · once", "PostgreSQL, multi-row INSERTs, 1,000 rows", "MariaDB, one row per INSERT, 50 rows", ">3<", ">0.4<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestFlags(t *testing.T) {
	c, err := parseFlags([]string{"-rows", "500", "-orms", "ent, gorm,ent", "-modes", "batch"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.rowsOne != 500 || strings.Join(c.orms, ",") != "ent,gorm" || strings.Join(c.modes, ",") != "batch" || len(c.keys) != 3 {
		t.Errorf("parseFlags = %+v", c)
	}
	c, err = parseFlags([]string{"-db", "mysql", "-prepare", "-server-pid", "42"}, io.Discard)
	if err != nil || !c.prepare || c.serverPID != 42 {
		t.Errorf("-prepare -server-pid 42: %+v, %v", c, err)
	}
	for _, bad := range [][]string{{"-orms", "xorm"}, {"-rows", "0"}, {"-batch", "0"}, {"-rounds", "0"}, {"extra"},
		{"-server-pid", "42"}, {"-db", "postgres", "-server-pid", "42"}, {"-db", "mysql", "-server-pid", "-1"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", bad)
		}
	}
}
