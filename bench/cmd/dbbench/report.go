package main

import (
	"fmt"
	"io"
	"slices"
)

// mb formats bytes as decimal megabytes (10^6), as the figures are.
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func find(results []result, key string) *result {
	i := slices.IndexFunc(results, func(r result) bool { return r.Key == key })
	if i < 0 {
		return nil
	}
	return &results[i]
}

func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// writeMarkdown prints one table row per key type, with index size relative
// to serial and to UUIDv4 and insert rate relative to UUIDv4 when those ran.
func writeMarkdown(w io.Writer, c config, results []result) {
	fmt.Fprintf(w, "%s, %d rows per key type, batches of %d, %d writer(s), %d lookups",
		c.db, c.rows, c.batch, c.writers, c.lookups)
	if c.repeat > 1 {
		fmt.Fprintf(w, ", median of %d rounds", c.repeat)
	}
	fmt.Fprint(w, "\n\n")
	fmt.Fprintln(w, "| key | insert s | rows/s | index | table | index / serial | index / uuidv4 | rows/s / uuidv4 | lookup median | lookup p99 |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	serial, v4 := find(results, "serial"), find(results, "uuidv4")
	for _, r := range results {
		idxSerial, idxV4, rateV4 := "–", "–", "–"
		if serial != nil {
			idxSerial = ratio(float64(r.IndexBytes), float64(serial.IndexBytes))
		}
		if v4 != nil {
			idxV4 = ratio(float64(r.IndexBytes), float64(v4.IndexBytes))
			rateV4 = ratio(r.RowsPerSecond, v4.RowsPerSecond)
		}
		fmt.Fprintf(w, "| %s | %.2f | %.0f | %s | %s | %s | %s | %s | %.1f µs | %.1f µs |\n",
			r.Key, r.InsertSeconds, r.RowsPerSecond, mb(r.IndexBytes), mb(r.TableBytes),
			idxSerial, idxV4, rateV4, float64(r.LookupNs)/1e3, float64(r.LookupP99Ns)/1e3)
	}
	if c.db == "mysql" {
		fmt.Fprintln(w, "\nInnoDB clusters rows in the primary key: index = table = data_length (the whole clustered index).")
	} else {
		fmt.Fprintln(w, "\nindex = pg_relation_size(primary-key index), table = pg_relation_size(heap), after VACUUM ANALYZE.")
	}
	writeLoadMarkdown(w, results)
}

// writeLoadMarkdown prints what the server counted during each load, when
// it was measured (PostgreSQL).
func writeLoadMarkdown(w io.Writer, results []result) {
	if len(results) == 0 || results[0].ServerNotes == "" {
		return
	}
	fmt.Fprintf(w, "\nDuring the load (server: %s)\n\n", results[0].ServerNotes)
	fmt.Fprintln(w, "| key | WAL | WAL / row | WAL / serial | WAL full-page images | INSERT full-page images | INSERT reads | INSERT hits | table+index reads of existing pages | hits | lookups during load | lookup median | lookup p99 | reader hit ratio |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	serial := find(results, "serial")
	for _, r := range results {
		walSerial := "–"
		if serial != nil {
			walSerial = ratio(float64(r.WALBytes), float64(serial.WALBytes))
		}
		fpi, insRead, insHit := "–", "–", "–"
		if r.InsertWALRecords > 0 {
			fpi, insRead, insHit = count(r.InsertWALFPI), count(r.InsertBlksRead), count(r.InsertBlksHit)
		}
		lookups, med, p99 := "–", "–", "–"
		if r.LoadReaders > 0 {
			lookups = count(int64(r.LoadLookups))
			med, p99 = fmt.Sprintf("%.1f µs", float64(r.LoadLookupNs)/1e3), fmt.Sprintf("%.1f µs", float64(r.LoadLookupP99Ns)/1e3)
		}
		hit := "–"
		if h := r.readerHitRatio(); h >= 0 {
			hit = fmt.Sprintf("%.1f%% (%d)", h*100, r.LoadSampled)
		}
		fmt.Fprintf(w, "| %s | %s | %.0f B | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Key, mb(r.WALBytes), float64(r.WALBytes)/float64(r.Rows), walSerial, count(r.WALFPI), fpi, insRead, insHit,
			count(existingReads(r)), count(r.HeapHit+r.IdxHit), lookups, med, p99, hit)
	}
	fmt.Fprintln(w, "\nWAL = pg_current_wal_lsn() after the load minus before, WAL full-page images = pg_stat_wal.wal_fpi after minus before (both: every session on the server). "+
		"INSERT full-page images, reads and hits: the INSERT statements' own counts (EXPLAIN (ANALYZE, BUFFERS, WAL), with -explain). "+
		"Reads and hits: pg_statio_user_tables of the table and its indexes, writers and readers together; "+
		"reads of existing pages leave out the pages the load added (pg_statio counts each new page as a read). "+
		"Reader hit ratio: shared-buffer hits / (hits + reads) of the readers' sampled lookups (EXPLAIN (ANALYZE, BUFFERS), -reader-sample; their number in parentheses)"+
		recentNote(results)+".")
	writeTargets(w, results)
	writeWALRecords(w, results)
}

// writeWALRecords prints, per key, the WAL record types that make up at
// least 1% of its load's WAL (-walinspect).
func writeWALRecords(w io.Writer, results []result) {
	if !slices.ContainsFunc(results, func(r result) bool { return len(r.WALRecords) > 0 }) {
		return
	}
	fmt.Fprintln(w, "\nWAL by record type (pg_walinspect, pg_get_wal_stats between the load's first and last position; record types of at least 1% of the key's WAL)")
	fmt.Fprintln(w, "\n| key | record type | records | record bytes | full-page image bytes | share of the WAL |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|")
	for _, r := range results {
		var total int64
		for _, x := range r.WALRecords {
			total += x.Bytes + x.FPIBytes
		}
		for _, x := range r.WALRecords {
			if total == 0 || (x.Bytes+x.FPIBytes)*100 < total {
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.1f%% |\n", r.Key, x.Type, count(x.Count), mb(x.Bytes), mb(x.FPIBytes),
				float64(x.Bytes+x.FPIBytes)*100/float64(total))
		}
	}
}

func recentNote(results []result) string {
	if results[0].LoadRecent > 0 {
		return fmt.Sprintf("; readers look up rows among the newest %s committed (-recent)", thousands(results[0].LoadRecent))
	}
	return ""
}

// writeTargets prints each key's figures relative to serial (bigserial)
// and to the server's uuidv7() (uuidv7-server), the ratios BENCHMARKS.md sets
// targets on, when both ran.
func writeTargets(w io.Writer, results []result) {
	serial, v7 := find(results, "serial"), find(results, "uuidv7-server")
	if serial == nil || v7 == nil {
		return
	}
	fmt.Fprintln(w, "\nRatios (targets: once keys within 5% of serial on all four; index <= 0.70x, WAL <= 0.90x and rows/s >= 1.25x of uuidv7-server)")
	fmt.Fprintln(w, "\n| key | index / serial | WAL / serial | rows/s / serial | reader hit ratio / serial | index / uuidv7() | WAL / uuidv7() | rows/s / uuidv7() |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, r := range results {
		hit := "–"
		if r.readerHitRatio() >= 0 && serial.readerHitRatio() > 0 {
			hit = ratio(r.readerHitRatio(), serial.readerHitRatio())
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Key,
			ratio(float64(r.IndexBytes), float64(serial.IndexBytes)), ratio(float64(r.WALBytes), float64(serial.WALBytes)),
			ratio(r.RowsPerSecond, serial.RowsPerSecond), hit,
			ratio(float64(r.IndexBytes), float64(v7.IndexBytes)), ratio(float64(r.WALBytes), float64(v7.WALBytes)),
			ratio(r.RowsPerSecond, v7.RowsPerSecond))
	}
}

// existingReads is the table's and its indexes' block reads during the
// load less the blocks the load added (the heap and primary-index size at
// the end, in 8 KB pages, less the index's metapage, there before).
func existingReads(r result) int64 {
	added := r.TableBytes/8192 + max(r.IndexBytes/8192-1, 0)
	return max(r.HeapRead+r.IdxRead-added, 0)
}

// count formats n with thousands separators.
func count(n int64) string { return thousands(int(n)) }
