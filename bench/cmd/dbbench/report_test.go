package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

var sample = []result{
	{Key: "once-counter", DB: "postgres", Rows: 1000, InsertSeconds: 0.5, RowsPerSecond: 2000, IndexBytes: 22_500_000, TableBytes: 60_000_000, LookupNs: 50_000},
	{Key: "uuidv4", DB: "postgres", Rows: 1000, InsertSeconds: 1, RowsPerSecond: 1000, IndexBytes: 39_700_000, TableBytes: 65_000_000, LookupNs: 60_000},
	{Key: "serial", DB: "postgres", Rows: 1000, InsertSeconds: 0.5, RowsPerSecond: 2000, IndexBytes: 22_400_000, TableBytes: 60_000_000, LookupNs: 50_000},
}

func TestChartSVGIsWellFormed(t *testing.T) {
	for _, db := range []string{"postgres", "mysql"} {
		svg := chartSVG(config{db: db, rows: 1000, batch: 100, writers: 1}, sample)
		d := xml.NewDecoder(strings.NewReader(svg))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: malformed SVG: %v\n%s", db, err, svg)
			}
		}
		for _, want := range []string{"once-counter", "22.5", "39.7", "thousand rows per second", "primary-key type"} {
			if !strings.Contains(svg, want) {
				t.Errorf("%s: SVG lacks %q", db, want)
			}
		}
	}
}

func TestMarkdownRatios(t *testing.T) {
	var buf bytes.Buffer
	writeMarkdown(&buf, config{db: "postgres", rows: 1000, batch: 100, writers: 1, lookups: 10}, sample)
	out := buf.String()
	for _, want := range []string{"| once-counter |", "1.00x", "0.57x", "2.00x"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

func TestNiceScale(t *testing.T) {
	for _, c := range []struct{ max, step, axis float64 }{
		{39.7, 10, 40}, {7.3, 2, 8}, {120, 50, 150}, {0, 1, 1}, {1, 0.2, 1},
	} {
		step, axis := niceScale(c.max)
		if step != c.step || axis != c.axis {
			t.Errorf("niceScale(%v) = %v, %v; want %v, %v", c.max, step, axis, c.step, c.axis)
		}
	}
}

func TestInsertSQL(t *testing.T) {
	if got, want := insertSQL(postgres{}, "t", colBigint, 2), "INSERT INTO t (id, n, s) VALUES ($1,$2,$3),($4,$5,$6)"; got != want {
		t.Errorf("postgres: %q, want %q", got, want)
	}
	if got, want := insertSQL(mysql{}, "t", colSerial, 2), "INSERT INTO t (n, s) VALUES (?,?),(?,?)"; got != want {
		t.Errorf("mysql serial: %q, want %q", got, want)
	}
}

func TestSelectKeys(t *testing.T) {
	ks, err := selectKeys("uuidv4, once-counter,uuidv4")
	if err != nil || len(ks) != 2 || ks[0].name != "uuidv4" || ks[1].name != "once-counter" {
		t.Fatalf("selectKeys = %v, %v", ks, err)
	}
	if _, err := selectKeys("nope"); err == nil {
		t.Fatal("unknown key accepted")
	}
}
