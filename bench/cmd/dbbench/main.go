// Command dbbench measures what a primary-key type costs a real database:
// it inserts the same rows into one table per key type (once counter,
// sortable and encrypted IDs as bigint; UUIDv4 and UUIDv7 made in the
// client, with Go 1.27 also the standard library's uuid.NewV7; a
// server-assigned serial, and on PostgreSQL 18 a server-assigned uuidv7()),
// then reports table and primary-index size from the catalog, the
// insert rate and point-lookup latency; on PostgreSQL also the WAL written
// and the table's buffer reads and hits during the load, optionally with
// concurrent readers looking rows up while it runs (-readers; -recent: only
// the newest rows), with their own buffer hit ratio (-reader-sample), and the
// INSERTs' own WAL and buffer counts (-explain).
//
// Usage:
//
//	go run ./cmd/dbbench -db postgres -rows 1000000 -svg charts/postgres.svg
//	go run ./cmd/dbbench -db mysql -json
//	go run ./cmd/dbbench -db postgres -keys once-counter,uuidv4 -rows 200000 -writers 2
//	go run ./cmd/dbbench -db postgres -rows 6000000 -readers 1 -recent 100000 -keys serial,once-counter,uuidv7 # cache pressure: see BENCHMARKS.md
//	go run ./cmd/dbbench -db postgres -rows 10000000 -readers 1 -explain -keys once-counter,once-sortable,serial,uuidv4,uuidv7
//	GOTOOLCHAIN=go1.27.3 go run ./cmd/dbbench -dsn postgres://postgres@127.0.0.1:5433/test -rows 200000 # PostgreSQL 18 (.ci/pg18.sh)
//
// DSNs default to the test services (see -dsn), overridable with
// ONCE_TEST_POSTGRES_DSN and ONCE_TEST_MYSQL_DSN. Every table it creates is
// dropped again, also on error or interrupt.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

const (
	defaultPostgresDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	defaultMySQLDSN    = "root@tcp(127.0.0.1:3306)/test?parseTime=true"
)

type config struct {
	db      string
	dsn     string
	rows    int
	batch   int
	writers int
	lookups int
	readers int
	recent  int // readers look up only the last recent rows committed (0: any committed row)
	sample  int // every sample-th lookup of a reader runs under EXPLAIN (ANALYZE, BUFFERS), untimed (0: none)
	explain bool
	walinsp bool // -walinspect: the load's WAL by record type (pg_walinspect)
	repeat  int
	json    bool
	save    string
	from    string
	svg     string
	keys    []keyType
	allKeys bool // -keys not given: the key types the server supports
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "dbbench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var keys string
	fs := flag.NewFlagSet("dbbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.db, "db", "postgres", "database: postgres or mysql (MariaDB)")
	fs.StringVar(&c.dsn, "dsn", "", "data source name (default: $ONCE_TEST_POSTGRES_DSN or "+defaultPostgresDSN+
		"; for mysql $ONCE_TEST_MYSQL_DSN or "+defaultMySQLDSN+")")
	fs.IntVar(&c.rows, "rows", 1_000_000, "rows to insert per key type")
	fs.IntVar(&c.batch, "batch", 1000, "rows per multi-row INSERT")
	fs.IntVar(&c.writers, "writers", 1, "concurrent writer goroutines (connections)")
	fs.IntVar(&c.lookups, "lookups", 10_000, "timed point lookups per key type, after the load")
	fs.IntVar(&c.readers, "readers", 0, "concurrent readers during the load, each running point lookups of committed rows back to back on its own connection")
	fs.IntVar(&c.recent, "recent", 0, "readers look up only rows among the last N committed (0: any committed row)")
	fs.IntVar(&c.sample, "reader-sample", 10, "every Nth lookup of a reader runs under EXPLAIN (ANALYZE, BUFFERS), untimed, for the readers' own buffer hit ratio (PostgreSQL; 0: none)")
	fs.BoolVar(&c.explain, "explain", false, "run each INSERT under EXPLAIN (ANALYZE, BUFFERS, WAL) and report the INSERTs' own WAL and buffer counts (PostgreSQL)")
	fs.BoolVar(&c.walinsp, "walinspect", false, "after each load, break its WAL down by record type with pg_walinspect (PostgreSQL 15+, superuser; the server must keep the load's WAL: set wal_keep_size above it)")
	fs.IntVar(&c.repeat, "repeat", 1, "rounds over all key types (order rotated each round); the median of each figure is reported")
	fs.BoolVar(&c.json, "json", false, "print a JSON array instead of a Markdown table")
	fs.StringVar(&c.save, "save", "", "also write the JSON array to this file")
	fs.StringVar(&c.from, "from", "", "render the table/SVG from JSON files written by -save or -json (comma-separated; a key type's results from several files are combined, median of each figure) instead of measuring")
	fs.StringVar(&c.svg, "svg", "", "write an SVG bar chart (index size, insert rate) to this file")
	fs.StringVar(&keys, "keys", "", "comma-separated subset of key types: "+strings.Join(keyNames(), ","))
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if c.dsn == "" {
		switch c.db {
		case "postgres":
			c.dsn = envOr("ONCE_TEST_POSTGRES_DSN", defaultPostgresDSN)
		case "mysql":
			c.dsn = envOr("ONCE_TEST_MYSQL_DSN", defaultMySQLDSN)
		}
	}
	switch {
	case c.rows < 1:
		return c, errors.New("-rows must be at least 1")
	case c.batch < 1 || c.batch > 20_000:
		return c, errors.New("-batch must be in 1..20000 (bind-parameter limits)")
	case c.writers < 1:
		return c, errors.New("-writers must be at least 1")
	case c.lookups < 1:
		return c, errors.New("-lookups must be at least 1")
	case c.readers < 0:
		return c, errors.New("-readers must not be negative")
	case c.recent < 0:
		return c, errors.New("-recent must not be negative")
	case c.sample < 0:
		return c, errors.New("-reader-sample must not be negative")
	case c.explain && c.db != "postgres":
		return c, errors.New("-explain needs -db postgres")
	case c.walinsp && c.db != "postgres":
		return c, errors.New("-walinspect needs -db postgres")
	case c.repeat < 1:
		return c, errors.New("-repeat must be at least 1")
	}
	var err error
	c.keys, err = selectKeys(keys)
	c.allKeys = strings.TrimSpace(keys) == ""
	return c, err
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if c.from != "" {
		return render(c, stdout)
	}
	d, err := newDialect(c.db)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	b, err := open(ctx, c, d)
	if err != nil {
		return err
	}
	defer b.close() // drops every table still present, even after an error or interrupt
	if c.keys, err = b.keysFor(ctx, c.keys, c.allKeys, stderr); err != nil {
		return err
	}
	b.c.keys = c.keys

	rounds := make(map[string][]result, len(c.keys))
	for round := range c.repeat {
		// Rotate the order each round, so that a change of load on a shared
		// machine does not always hit the same key type.
		for i := range c.keys {
			kt := c.keys[(i+round)%len(c.keys)]
			fmt.Fprintf(stderr, "dbbench: %s %s: %d rows (round %d of %d) ...\n", c.db, kt.name, c.rows, round+1, c.repeat)
			r, err := b.measure(ctx, kt)
			if err != nil {
				return fmt.Errorf("%s: %w", kt.name, err)
			}
			fmt.Fprintf(stderr, "dbbench: %s %s: %.2fs, %.0f rows/s, index %s, table %s, lookup %.1fµs\n",
				c.db, kt.name, r.InsertSeconds, r.RowsPerSecond, mb(r.IndexBytes), mb(r.TableBytes), float64(r.LookupNs)/1e3)
			rounds[kt.name] = append(rounds[kt.name], r)
		}
	}
	results := make([]result, 0, len(c.keys))
	for _, kt := range c.keys {
		results = append(results, medianResult(rounds[kt.name]))
	}

	return output(c, results, stdout)
}

// render reads results saved by -save or -json (one file, or several
// separated by commas) and prints/draws them. Results of the same key type
// from several files are combined as rounds: each figure is their median.
func render(c config, stdout io.Writer) error {
	var order []string
	byKey := map[string][]result{}
	for name := range strings.SplitSeq(c.from, ",") {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		var rs []result
		if err := json.Unmarshal(data, &rs); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, r := range rs {
			if _, ok := byKey[r.Key]; !ok {
				order = append(order, r.Key)
			}
			byKey[r.Key] = append(byKey[r.Key], r)
		}
	}
	if len(order) == 0 {
		return fmt.Errorf("%s: no results", c.from)
	}
	results := make([]result, 0, len(order))
	for _, k := range order {
		rs := byKey[k]
		if len(rs) == 1 {
			results = append(results, rs[0])
			continue
		}
		var rounds int
		for _, r := range rs {
			rounds += max(r.Rounds, 1)
		}
		m := medianResult(rs)
		m.Rounds = rounds
		results = append(results, m)
	}
	r := results[0]
	c.db, c.rows, c.batch, c.writers, c.repeat, c.lookups = r.DB, r.Rows, r.Batch, r.Writers, max(r.Rounds, 1), r.Lookups
	c.readers, c.explain, c.recent = r.LoadReaders, r.InsertWALRecords > 0, r.LoadRecent
	c.save = ""
	return output(c, results, stdout)
}

// output prints the results (JSON or Markdown) and writes the -save and
// -svg files.
func output(c config, results []result, stdout io.Writer) error {
	js, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	if c.json {
		if _, err := stdout.Write(js); err != nil {
			return err
		}
	} else {
		writeMarkdown(stdout, c, results)
	}
	if c.save != "" {
		if err := os.WriteFile(c.save, js, 0o644); err != nil {
			return err
		}
	}
	if c.svg != "" {
		if err := os.WriteFile(c.svg, []byte(chartSVG(c, results)), 0o644); err != nil {
			return err
		}
	}
	return nil
}
