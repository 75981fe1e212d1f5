package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
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

func TestParseExplain(t *testing.T) {
	js := `[{"Plan": {"Node Type": "ModifyTable", "Shared Hit Blocks": 10, "Shared Read Blocks": 2,
		"Shared Dirtied Blocks": 3, "Shared Written Blocks": 1, "WAL Records": 7, "WAL FPI": 4, "WAL Bytes": 900,
		"Plans": [{"Shared Hit Blocks": 99}]}, "Planning": {"Shared Hit Blocks": 5}}]`
	c, err := parseExplain(js)
	if err != nil {
		t.Fatal(err)
	}
	if c != (explainCounts{Hit: 10, Read: 2, Dirtied: 3, Written: 1, Records: 7, FPI: 4, WALBytes: 900}) {
		t.Errorf("parseExplain = %+v; want the top plan node's counts", c)
	}
	c.add(c)
	if c.WALBytes != 1800 || c.Hit != 20 {
		t.Errorf("add = %+v", c)
	}
	for _, bad := range []string{"", "[]", "{}", `[{"Plan": {}}, {"Plan": {}}]`} {
		if _, err := parseExplain(bad); err == nil {
			t.Errorf("parseExplain(%q) accepted", bad)
		}
	}
}

func TestProgressPick(t *testing.T) {
	p := &progress{batch: 10, rows: 25}
	rng := rand.New(rand.NewPCG(1, 2))
	if _, ok := p.pick(rng, 0); ok {
		t.Fatal("picked a row before any batch committed")
	}
	p.commit(2) // rows 20..24: the short tail
	for range 100 {
		if i, ok := p.pick(rng, 0); !ok || i < 20 || i > 24 {
			t.Fatalf("pick = %d, %v; want a row of batch 2 (20..24)", i, ok)
		}
	}
	p.commit(0)
	p.commit(1)
	seen := map[int]bool{}
	for range 200 {
		i, ok := p.pick(rng, 10) // the newest 10 rows: batch 1 (committed last)
		if !ok || i < 10 || i > 19 {
			t.Fatalf("pick(recent 10) = %d, %v; want a row of batch 1 (10..19)", i, ok)
		}
		i, _ = p.pick(rng, 11) // rounds up to the last two batches: 0 and 1
		seen[i/10] = true
	}
	if !seen[0] || !seen[1] || seen[2] {
		t.Errorf("pick(recent 11) drew from batches %v; want 0 and 1", seen)
	}
}

var loadSample = []result{
	{Key: "once-counter", DB: "postgres", Rows: 1000, TableBytes: 8192 * 10, IndexBytes: 8192 * 4, WALBytes: 200_000, WALFPI: 7,
		HeapRead: 12, IdxRead: 5, HeapHit: 100, IdxHit: 50, ServerNotes: "shared_buffers=128MB",
		InsertWALRecords: 2000, InsertWALFPI: 3, InsertBlksRead: 1, InsertBlksHit: 140, LoadReaders: 1, LoadLookups: 500, LoadLookupNs: 50_000, LoadLookupP99Ns: 900_000,
		LoadSampled: 50, LoadReaderHit: 90, LoadReaderRead: 10, RowsPerSecond: 1200,
		WALRecords: []walRecord{{"Heap/INSERT", 1000, 150_000, 0}, {"Btree/INSERT_LEAF", 1000, 44_000, 8000}, {"XLOG/FPI", 1, 50, 1000}}},
	{Key: "serial", DB: "postgres", Rows: 1000, TableBytes: 8192 * 10, IndexBytes: 8192 * 4, WALBytes: 100_000,
		HeapRead: 10, IdxRead: 3, ServerNotes: "shared_buffers=128MB", LoadReaders: 1,
		LoadSampled: 40, LoadReaderHit: 60, LoadReaderRead: 40, RowsPerSecond: 1000},
	{Key: "uuidv7-server", DB: "postgres", Rows: 1000, TableBytes: 8192 * 10, IndexBytes: 8192 * 8, WALBytes: 400_000,
		ServerNotes: "shared_buffers=128MB", RowsPerSecond: 600},
}

func TestLoadMarkdown(t *testing.T) {
	if got := existingReads(loadSample[0]); got != 17-13 {
		t.Errorf("existingReads = %d, want 4 (17 reads less 10 heap and 3 new index pages)", got)
	}
	if got := existingReads(loadSample[1]); got != 0 {
		t.Errorf("existingReads = %d, want 0", got)
	}
	var buf bytes.Buffer
	writeMarkdown(&buf, config{db: "postgres", rows: 1000, batch: 100, writers: 1, lookups: 10, readers: 1}, loadSample)
	out := buf.String()
	for _, want := range []string{"During the load (server: shared_buffers=128MB)",
		"| once-counter | 0.2 MB | 200 B | 2.00x | 7 | 3 | 1 | 140 | 4 | 150 | 500 | 50.0 µs | 900.0 µs | 90.0% (50) |",
		"| serial | 0.1 MB | 100 B | 1.00x | 0 | – | – | – | 0 | 0 | 0 | 0.0 µs | 0.0 µs | 60.0% (40) |",
		"| uuidv7-server | 0.4 MB | 400 B | 4.00x | 0 | – | – | – | 0 | 0 | – | – | – | – |",
		"| once-counter | 1.00x | 2.00x | 1.20x | 1.50x | 0.50x | 0.50x | 2.00x |",
		"| uuidv7-server | 2.00x | 4.00x | 0.60x | – | 1.00x | 1.00x | 1.00x |",
		"| once-counter | Heap/INSERT | 1,000 | 0.1 MB | 0.0 MB | 73.9% |",
		"| once-counter | Btree/INSERT_LEAF | 1,000 | 0.0 MB | 0.0 MB | 25.6% |"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "XLOG/FPI") {
		t.Errorf("markdown lists a record type under 1%% of the WAL:\n%s", out)
	}
	if n := len(chartPanels(config{db: "postgres"}, loadSample)); n != 7 {
		t.Errorf("%d chart panels with load figures, want 7", n)
	}
	if n := len(chartPanels(config{db: "postgres"}, sample)); n != 2 {
		t.Errorf("%d chart panels without load figures, want 2", n)
	}
}

// TestRenderCombines checks that -from with several files combines a key
// type's results as rounds (median of each figure) and keeps the others.
func TestRenderCombines(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, rs ...result) string {
		js, err := json.Marshal(rs)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, js, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.json", result{Key: "serial", DB: "postgres", Rows: 10, Rounds: 1, WALBytes: 100, InsertSeconds: 1},
		result{Key: "uuidv4", DB: "postgres", Rows: 10, Rounds: 1, WALBytes: 900, InsertSeconds: 9})
	b := write("b.json", result{Key: "serial", DB: "postgres", Rows: 10, Rounds: 1, WALBytes: 300, InsertSeconds: 3,
		WALRecords: []walRecord{{Type: "from b"}}})
	c := write("c.json", result{Key: "serial", DB: "postgres", Rows: 10, Rounds: 1, WALBytes: 200, InsertSeconds: 2})
	var out bytes.Buffer
	if err := run([]string{"-from", a + "," + b + "," + c, "-json"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var rs []result
	if err := json.Unmarshal(out.Bytes(), &rs); err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Key != "serial" || rs[0].WALBytes != 200 || rs[0].Rounds != 3 || rs[0].InsertSeconds != 2 ||
		rs[1].Key != "uuidv4" || rs[1].WALBytes != 900 || rs[1].Rounds != 1 ||
		len(rs[0].WALRecords) != 1 || rs[0].WALRecords[0].Type != "from b" { // the only round with a breakdown
		t.Errorf("combined = %+v", rs)
	}
}
