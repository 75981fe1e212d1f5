package main

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/once-go/once/internal/testenv"
)

// TestLoadFigures runs every key type on PostgreSQL with a concurrent
// reader of recent rows and -explain, and checks that each load reports
// WAL, buffer counts, lookups and the reader's sampled buffer counts, and
// that no table is left behind.
func TestLoadFigures(t *testing.T) {
	admin := testenv.Postgres(t)
	tables := func() map[string]bool {
		rows, err := admin.Query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'oncebench\\_%'")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := map[string]bool{}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			m[n] = true
		}
		return m
	}
	before := tables()
	var out bytes.Buffer
	args := []string{"-db", "postgres", "-dsn", testenv.PostgresDSN(), "-rows", "3000", "-batch", "500",
		"-lookups", "50", "-readers", "1", "-recent", "1000", "-explain", "-json"}
	if err := run(args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var rs []result
	if err := json.Unmarshal(out.Bytes(), &rs); err != nil {
		t.Fatal(err)
	}
	// uuidv7-server runs only where the server has uuidv7() (PostgreSQL 18).
	var hasUUIDv7 bool
	if err := admin.QueryRow("SELECT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'uuidv7')").Scan(&hasUUIDv7); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, kt := range keyTypes {
		if kt.col != colUUIDServer || hasUUIDv7 {
			want++
		}
	}
	if len(rs) != want {
		t.Fatalf("%d results, want one per key type the server supports (%d)", len(rs), want)
	}
	for _, r := range rs {
		if r.WALBytes <= 0 || r.InsertWALBytes <= 0 || r.InsertWALRecords < int64(r.Rows) || r.InsertBlksHit <= 0 ||
			r.HeapHit+r.IdxHit <= 0 || r.ServerNotes == "" || r.LoadReaders != 1 || r.IndexBytes <= 0 {
			t.Errorf("%s: %+v", r.Key, r)
		}
		// The reader's sampled lookups (-reader-sample, every 10th) report
		// their own buffer accesses.
		if r.LoadLookups >= 20 && (r.LoadSampled == 0 || r.LoadReaderHit+r.LoadReaderRead == 0 || r.LoadRecent != 1000) {
			t.Errorf("%s: %d lookups during the load, %d sampled with %d hits and %d reads, recent %d",
				r.Key, r.LoadLookups, r.LoadSampled, r.LoadReaderHit, r.LoadReaderRead, r.LoadRecent)
		}
		if r.WALFPI < r.InsertWALFPI {
			t.Errorf("%s: server full-page images %d below the INSERTs' own %d", r.Key, r.WALFPI, r.InsertWALFPI)
		}
		if r.WALBytes < r.InsertWALBytes {
			t.Errorf("%s: server WAL %d below the INSERTs' own %d", r.Key, r.WALBytes, r.InsertWALBytes)
		}
	}
	for n := range tables() {
		if !before[n] {
			t.Errorf("table %s left behind", n)
		}
	}
}
