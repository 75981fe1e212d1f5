// Command benchratios checks the performance targets of BENCHMARKS.md against one run: it
// reads `go test -bench` output (several -count runs are reduced to their
// median) and, optionally, the -json output of dbbench for PostgreSQL and
// MariaDB, and prints a Markdown table of each target, the measured ratio
// and whether it was met.
//
//	go test -run '^$' -bench . -benchtime=1s -count=3 | tee go.txt
//	go run ./cmd/dbbench -db postgres -json > pg.json
//	go run ./cmd/benchratios -go go.txt -pg pg.json -mysql mysql.json
//	go test -run '^$' -bench . | go run ./cmd/benchratios -go -
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// unit is the benchmark metric compared (-unit).
var unit = "ns/op"

// peers are the other libraries' sub-benchmark names (the std-* ones, the
// standard library's uuid package, appear only in runs with Go 1.27).
var peers = []string{"xid", "ulid", "uuidv4", "uuidv7", "uuid", "snowflake", "sonyflake", "typeid", "ksuid",
	"std-uuidv7", "std-uuidv4", "std-uuid"}

func main() {
	goFile := flag.String("go", "", "go test -bench output (- = stdin)")
	pgFile := flag.String("pg", "", "dbbench -json output for PostgreSQL")
	myFile := flag.String("mysql", "", "dbbench -json output for MariaDB")
	flag.StringVar(&unit, "unit", "ns/op", "benchmark metric to compare: ns/op (wall) or cpu-ns/op (thread CPU time)")
	flag.Parse()
	if err := run(*goFile, *pgFile, *myFile, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchratios:", err)
		os.Exit(1)
	}
}

func run(goFile, pgFile, myFile string, w io.Writer) error {
	ns := map[string]float64{}
	if goFile != "" {
		var in io.Reader = os.Stdin
		if goFile != "-" {
			f, err := os.Open(goFile)
			if err != nil {
				return err
			}
			defer f.Close()
			in = f
		}
		var err error
		if ns, err = readBench(in); err != nil {
			return err
		}
	}
	var rows [][4]string
	add := func(target, detail string, ok bool) {
		verdict := "missed"
		if ok {
			verdict = "met"
		}
		rows = append(rows, [4]string{target, detail, verdict})
	}
	if len(ns) > 0 {
		for _, op := range []string{"Generate", "GenerateParallel"} {
			ours, ok := ns[op+"/once-counter"]
			peer, peerNs := fastestPeer(ns, op)
			if !ok || peer == "" {
				continue
			}
			add(fmt.Sprintf("%s: once-counter ≥ 10x faster than the fastest peer", op),
				fmt.Sprintf("once-counter %.1f vs %s %.1f %s: %.1fx", ours, peer, peerNs, unit, peerNs/ours), peerNs/ours >= 10)
		}
		for _, op := range []string{"Parse", "Format"} {
			ours, ok := ns[op+"/once-prefixed"]
			peer, peerNs := fastestPeer(ns, op)
			if ok && peer != "" {
				add(fmt.Sprintf("%s: once-prefixed at least as fast as the fastest peer", op),
					fmt.Sprintf("once-prefixed %.1f vs %s %.1f %s: %.2fx the time", ours, peer, peerNs, unit, ours/peerNs), ours <= peerNs)
			}
			plain, ok1 := ns[op+"/once"]
			masked, ok2 := ns[op+"/once-masked"]
			if ok1 && ok2 {
				add(fmt.Sprintf("%s: once-masked (Speck) ≤ 3x once", op),
					fmt.Sprintf("%.1f vs %.1f %s: %.2fx", masked, plain, unit, masked/plain), masked <= 3*plain)
			}
		}
	}
	for _, db := range []struct{ name, file string }{{"PostgreSQL", pgFile}, {"MariaDB", myFile}} {
		if db.file == "" {
			continue
		}
		res, err := readDB(db.file)
		if err != nil {
			return err
		}
		c, s, v4 := res["once-counter"], res["serial"], res["uuidv4"]
		if c == nil || s == nil || v4 == nil {
			return fmt.Errorf("%s: need once-counter, serial and uuidv4 results", db.file)
		}
		suffix := ""
		if db.name != "PostgreSQL" {
			suffix = " (target set for PostgreSQL; shown for comparison)"
		}
		add(fmt.Sprintf("%s %d rows: once-counter index ≤ 1.05x serial%s", db.name, c.Rows, suffix),
			fmt.Sprintf("%s vs %s: %.3fx", mb(c.IndexBytes), mb(s.IndexBytes), float64(c.IndexBytes)/float64(s.IndexBytes)),
			float64(c.IndexBytes) <= 1.05*float64(s.IndexBytes))
		add(fmt.Sprintf("%s %d rows: once-counter index ≤ 0.6x uuidv4%s", db.name, c.Rows, suffix),
			fmt.Sprintf("%s vs %s: %.3fx", mb(c.IndexBytes), mb(v4.IndexBytes), float64(c.IndexBytes)/float64(v4.IndexBytes)),
			float64(c.IndexBytes) <= 0.6*float64(v4.IndexBytes))
		add(fmt.Sprintf("%s %d rows: once-counter insert rate ≥ 1.5x uuidv4%s", db.name, c.Rows, suffix),
			fmt.Sprintf("%.0f vs %.0f rows/s: %.2fx", c.RowsPerSecond, v4.RowsPerSecond, c.RowsPerSecond/v4.RowsPerSecond),
			c.RowsPerSecond >= 1.5*v4.RowsPerSecond)
	}
	if len(rows) == 0 {
		return errors.New("no results to check")
	}
	fmt.Fprintln(w, "| target | measured | result |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s |\n", r[0], r[1], r[2])
	}
	return nil
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// readBench returns the median of the chosen unit for every benchmark
// ("Op/impl") that reports it.
func readBench(r io.Reader) (map[string]float64, error) {
	all := map[string][]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			if f[i+1] != unit {
				continue
			}
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, err
			}
			all[m[1]] = append(all[m[1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	med := make(map[string]float64, len(all))
	for k, vs := range all {
		slices.Sort(vs)
		if len(vs)%2 == 1 {
			med[k] = vs[len(vs)/2]
		} else {
			med[k] = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
		}
	}
	return med, nil
}

func fastestPeer(ns map[string]float64, op string) (string, float64) {
	best, bestNs := "", 0.0
	for _, p := range peers {
		if v, ok := ns[op+"/"+p]; ok && (best == "" || v < bestNs) {
			best, bestNs = p, v
		}
	}
	return best, bestNs
}

type dbResult struct {
	Key           string  `json:"key"`
	Rows          int     `json:"rows"`
	RowsPerSecond float64 `json:"rows_per_second"`
	IndexBytes    int64   `json:"index_bytes"`
}

func readDB(file string) (map[string]*dbResult, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var list []dbResult
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	out := map[string]*dbResult{}
	for i := range list {
		out[list[i].Key] = &list[i]
	}
	return out, nil
}
