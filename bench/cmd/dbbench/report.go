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
}
