package main

import (
	"fmt"
	"io"
	"slices"
)

// result is one configuration's medians over the rounds; the JSON names
// are the format of -save and -from.
type result struct {
	DB             string    `json:"db"`
	ORM            string    `json:"orm"`
	Mode           string    `json:"mode"`
	Key            string    `json:"key"`
	Rows           int       `json:"rows"`
	Batch          int       `json:"batch"`
	Rounds         int       `json:"rounds"`
	Seconds        float64   `json:"seconds"`                         // median wall time of the inserts
	RowsPerSecond  float64   `json:"rows_per_second"`                 // rows / median seconds
	AllocsPerRow   float64   `json:"allocs_per_row"`                  // median heap allocations per row
	BytesPerRow    float64   `json:"bytes_per_row"`                   // median heap bytes allocated per row
	CPUUsPerRow    float64   `json:"cpu_us_per_row"`                  // median CPU time of the Go process per row, µs (-1: not read; 0: not recorded)
	ServerUsPerRow float64   `json:"server_cpu_us_per_row,omitempty"` // median CPU time of the database server per row, µs (0: not recorded)
	RoundRates     []float64 `json:"round_rows_per_second"`
}

func summarize(db, orm, mode, key string, batch int, ss []sample) result {
	r := result{DB: db, ORM: orm, Mode: mode, Key: key, Batch: batch, Rounds: len(ss)}
	var secs, allocs, bytes, cpu, srv []float64
	for _, s := range ss {
		secs = append(secs, s.seconds)
		allocs = append(allocs, s.allocsPerRow)
		bytes = append(bytes, s.bytesPerRow)
		cpu = append(cpu, s.cpuUsPerRow)
		srv = append(srv, s.serverUsPerRow)
		r.RoundRates = append(r.RoundRates, float64(s.rows)/s.seconds)
	}
	if len(ss) > 0 {
		r.Rows = ss[0].rows
	}
	r.Seconds = median(secs)
	r.RowsPerSecond = float64(r.Rows) / r.Seconds
	r.AllocsPerRow = median(allocs)
	r.BytesPerRow = median(bytes)
	r.CPUUsPerRow = median(cpu)
	if m := median(srv); m > 0 {
		r.ServerUsPerRow = m
	}
	return r
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Sorted(slices.Values(v))
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func find(rs []result, db, orm, mode, key string) *result {
	i := slices.IndexFunc(rs, func(r result) bool { return r.DB == db && r.ORM == orm && r.Mode == mode && r.Key == key })
	if i < 0 {
		return nil
	}
	return &rs[i]
}

var dbTitles = map[string]string{"postgres": "PostgreSQL", "mysql": "MariaDB"}

var modeTitles = map[string]string{"one": "one row per INSERT", "batch": "multi-row INSERTs"}

// writeMarkdown prints one table per database: rows per second, the rate
// relative to the same ORM and mode with auto-increment and with UUIDv7
// keys, the Go process's CPU time (and the server's, where recorded),
// allocations and bytes per row, and each round's rate.
func writeMarkdown(w io.Writer, rs []result) {
	var dbs []string
	for _, r := range rs {
		if !slices.Contains(dbs, r.DB) {
			dbs = append(dbs, r.DB)
		}
	}
	for i, db := range dbs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n\n", dbTitles[db])
		server := slices.ContainsFunc(rs, func(r result) bool { return r.DB == db && r.ServerUsPerRow > 0 })
		if server {
			fmt.Fprintln(w, "| ORM | mode | key | rows | rows/s | / auto | / uuidv7 | client CPU µs/row | server CPU µs/row | allocs/row | B/row | rows/s per round |")
			fmt.Fprintln(w, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|")
		} else {
			fmt.Fprintln(w, "| ORM | mode | key | rows | rows/s | / auto | / uuidv7 | client CPU µs/row | allocs/row | B/row | rows/s per round |")
			fmt.Fprintln(w, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|")
		}
		for _, r := range rs {
			if r.DB != db {
				continue
			}
			mode := "one by one"
			if r.Mode == "batch" {
				mode = fmt.Sprintf("batches of %d", r.Batch)
			}
			rel := func(key string) string {
				o := find(rs, r.DB, r.ORM, r.Mode, key)
				if o == nil || o.RowsPerSecond == 0 {
					return "–"
				}
				return fmt.Sprintf("%.2fx", r.RowsPerSecond/o.RowsPerSecond)
			}
			rounds := ""
			for j, v := range r.RoundRates {
				if j > 0 {
					rounds += ", "
				}
				rounds += fmt.Sprintf("%.0f", v)
			}
			cpu := "–"
			if r.CPUUsPerRow > 0 {
				cpu = fmt.Sprintf("%.2f", r.CPUUsPerRow)
			}
			if server {
				srv := "–"
				if r.ServerUsPerRow > 0 {
					srv = fmt.Sprintf("%.2f", r.ServerUsPerRow)
				}
				cpu += " | " + srv
			}
			fmt.Fprintf(w, "| %s | %s | %s | %d | %.0f | %s | %s | %s | %.1f | %.0f | %s |\n",
				r.ORM, mode, r.Key, r.Rows, r.RowsPerSecond, rel("auto"), rel("uuidv7"), cpu, r.AllocsPerRow, r.BytesPerRow, rounds)
		}
	}
}
