// Command ormbench measures what the primary-key type costs an application
// that inserts through an ORM: it inserts the same rows through GORM, bun
// and ent (and, as the floor, plain database/sql: "sql"), one row per
// INSERT and in batches, into tables keyed by a once
// counter ID (bigint, filled in Go by the once adapters), by the database's
// auto-increment, and by a UUIDv7 made in Go (uuid on PostgreSQL,
// BINARY(16) on MariaDB), and reports rows per second (wall time), the Go
// process's CPU time and heap allocations per row, the medians of several
// rounds.
//
// Usage:
//
//	go run ./cmd/ormbench -rows 100000 -rounds 3 -svg charts/orm.svg -save results/ormbench.json
//	go run ./cmd/ormbench -rows 2000 -rounds 1                 # a quick check
//	go run ./cmd/ormbench -db mysql -orms gorm -modes batch
//	go run ./cmd/ormbench -from results/ormbench.json -svg charts/orm.svg
//	go run ./cmd/ormbench -db postgres -orms bun -modes batch -cpuprofile cpu.out -memprofile mem.out
//	go run ./cmd/ormbench -db mysql -orms gorm,sql -modes batch -keys once,auto -prepare -server-pid $(pgrep -xo mariadbd)
//
// Every configuration (database, ORM, mode, key) inserts into a fresh table
// of its own inside a schema (PostgreSQL) or database (MariaDB) that the
// run creates under a unique name and drops when it ends, also after an
// error or interrupt. DSNs default to the test services, overridable with
// -pg-dsn / -mysql-dsn or ONCE_TEST_POSTGRES_DSN / ONCE_TEST_MYSQL_DSN.
//
// The once IDs come from a nonce factory with the fixed machine ID 1 set
// as the process default (once.DefaultBinding().Set): a benchmark holds
// no lease.
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
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
)

const (
	defaultPostgresDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	defaultMySQLDSN    = "root@tcp(127.0.0.1:3306)/test"
)

var (
	allDBs   = []string{"postgres", "mysql"}
	allORMs  = []string{"gorm", "bun", "ent", "sql"}
	allModes = []string{"one", "batch"}
	allKeys  = []string{"once", "auto", "uuidv7"}
)

type config struct {
	dbs, orms, modes, keys []string
	pgDSN, mysqlDSN        string
	rows, rowsOne, batch   int
	rounds                 int
	json                   bool
	save, from, svg        string
	cpuProfile, memProfile string
	memProfileRate         int
	prepare                bool // reuse prepared statements (GORM PrepareStmt, a statement cache for ent and sql)
	serverPID              int  // the database server's process, for its CPU time per row (0: not read)
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ormbench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var dbs, orms, modes, keys string
	fs := flag.NewFlagSet("ormbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dbs, "db", strings.Join(allDBs, ","), "databases: postgres, mysql (MariaDB)")
	fs.StringVar(&orms, "orms", strings.Join(allORMs, ","), "ORMs: "+strings.Join(allORMs, ", "))
	fs.StringVar(&modes, "modes", strings.Join(allModes, ","), "modes: one (one row per INSERT), batch (-batch rows per INSERT)")
	fs.StringVar(&keys, "keys", strings.Join(allKeys, ","), "key types: "+strings.Join(allKeys, ", "))
	fs.StringVar(&c.pgDSN, "pg-dsn", envOr("ONCE_TEST_POSTGRES_DSN", defaultPostgresDSN), "PostgreSQL DSN")
	fs.StringVar(&c.mysqlDSN, "mysql-dsn", envOr("ONCE_TEST_MYSQL_DSN", defaultMySQLDSN), "MariaDB/MySQL DSN (go-sql-driver form)")
	fs.IntVar(&c.rows, "rows", 100_000, "rows per configuration in batch mode (and in one mode unless -rows-one)")
	fs.IntVar(&c.rowsOne, "rows-one", 0, "rows per configuration in one mode (0: -rows)")
	fs.IntVar(&c.batch, "batch", 1000, "rows per INSERT in batch mode")
	fs.IntVar(&c.rounds, "rounds", 3, "rounds over all configurations (key order rotated each round); medians are reported")
	fs.BoolVar(&c.json, "json", false, "print JSON instead of a Markdown table")
	fs.StringVar(&c.save, "save", "", "also write the JSON results to this file")
	fs.StringVar(&c.from, "from", "", "render a JSON file written by -save or -json instead of measuring")
	fs.StringVar(&c.svg, "svg", "", "write an SVG chart of rows per second to this file")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	fs.StringVar(&c.memProfile, "memprofile", "", "write a heap profile (allocations) at the end of the run to this file")
	fs.IntVar(&c.memProfileRate, "memprofilerate", 0, "runtime.MemProfileRate while measuring (0: the runtime's default; 1 records every allocation)")
	fs.BoolVar(&c.prepare, "prepare", false, "reuse prepared statements: GORM's PrepareStmt, a statement cache under ent and sql (bun sends no parameters)")
	fs.IntVar(&c.serverPID, "server-pid", 0, "with -db mysql, the MariaDB/MySQL server's process ID (same machine), to report its CPU time per row, e.g. $(pgrep -xo mariadbd)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if c.rowsOne == 0 {
		c.rowsOne = c.rows
	}
	switch {
	case c.rows < 1 || c.rowsOne < 1:
		return c, errors.New("-rows and -rows-one must be at least 1")
	case c.batch < 1 || c.batch > 10_000:
		return c, errors.New("-batch must be in 1..10000 (bind-parameter limits)")
	case c.rounds < 1:
		return c, errors.New("-rounds must be at least 1")
	case c.serverPID < 0:
		return c, errors.New("-server-pid must be a process ID")
	}
	var err error
	for _, l := range []struct {
		flag, list string
		all        []string
		dst        *[]string
	}{{"-db", dbs, allDBs, &c.dbs}, {"-orms", orms, allORMs, &c.orms}, {"-modes", modes, allModes, &c.modes}, {"-keys", keys, allKeys, &c.keys}} {
		if *l.dst, err = pick(l.flag, l.list, l.all); err != nil {
			return c, err
		}
	}
	if c.serverPID != 0 && (len(c.dbs) != 1 || c.dbs[0] != "mysql") {
		return c, errors.New("-server-pid needs -db mysql: it reads one process, and PostgreSQL runs one per connection")
	}
	return c, nil
}

// pick resolves a comma-separated subset of all, in the order given.
func pick(flagName, list string, all []string) ([]string, error) {
	var out []string
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(all, name) {
			return nil, fmt.Errorf("%s: unknown %q (have %s)", flagName, name, strings.Join(all, ", "))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func run(args []string, stdout, stderr io.Writer) (err error) {
	c, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if c.from != "" {
		data, err := os.ReadFile(c.from)
		if err != nil {
			return err
		}
		var rs []result
		if err := json.Unmarshal(data, &rs); err != nil {
			return fmt.Errorf("%s: %w", c.from, err)
		}
		c.save = ""
		return output(c, rs, stdout)
	}
	if err := setGenerator(); err != nil {
		return err
	}
	stopProfiles, err := startProfiles(c)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfiles()) }()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var results []result
	for _, db := range c.dbs {
		rs, err := runDB(ctx, c, db, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", db, err)
		}
		results = append(results, rs...)
	}
	return output(c, results, stdout)
}

// runDB measures every configuration on one database, c.rounds times.
// Within each ORM and mode the order of the key types rotates by one each
// round, so that a change of load on a shared machine does not always hit
// the same key type.
func runDB(ctx context.Context, c config, dbName string, stderr io.Writer) (_ []result, err error) {
	e, err := openEnv(ctx, c, dbName)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, e.close()) }()

	rounds := map[string][]sample{}
	for round := range c.rounds {
		for _, orm := range c.orms {
			ins := e.inserters[orm]
			for _, mode := range c.modes {
				rows, batch := c.rows, c.batch
				if mode == "one" {
					rows, batch = c.rowsOne, 1
				}
				for i := range c.keys {
					key := c.keys[(i+round)%len(c.keys)]
					id := strings.Join([]string{dbName, orm, mode, key}, "/")
					s, err := e.measure(ctx, ins, key, rows, batch)
					if err != nil {
						return nil, fmt.Errorf("%s %s %s: %w", orm, mode, key, err)
					}
					fmt.Fprintf(stderr, "ormbench: round %d/%d %-28s %7d rows %6.2fs %8.0f rows/s %6.2f cpu-µs/row %6.1f allocs/row\n",
						round+1, c.rounds, id, rows, s.seconds, float64(rows)/s.seconds, s.cpuUsPerRow, s.allocsPerRow)
					rounds[id] = append(rounds[id], s)
				}
			}
		}
	}
	var out []result
	for _, orm := range c.orms {
		for _, mode := range c.modes {
			for _, key := range c.keys {
				id := strings.Join([]string{dbName, orm, mode, key}, "/")
				out = append(out, summarize(dbName, orm, mode, key, batchOf(c, mode), rounds[id]))
			}
		}
	}
	return out, nil
}

func batchOf(c config, mode string) int {
	if mode == "one" {
		return 1
	}
	return c.batch
}

// output prints the results (JSON or Markdown) and writes -save and -svg.
func output(c config, rs []result, stdout io.Writer) error {
	js, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	if c.json {
		if _, err := stdout.Write(js); err != nil {
			return err
		}
	} else {
		writeMarkdown(stdout, rs)
	}
	if c.save != "" {
		if err := os.WriteFile(c.save, js, 0o644); err != nil {
			return err
		}
	}
	if c.svg != "" {
		if err := os.WriteFile(c.svg, []byte(chartSVG(rs)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// startProfiles starts the CPU profile and sets the memory profile rate
// that c asks for; the function it returns stops the CPU profile and writes
// the heap profile.
func startProfiles(c config) (func() error, error) {
	if c.memProfileRate > 0 {
		runtime.MemProfileRate = c.memProfileRate
	}
	var cpu *os.File
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		cpu = f
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if c.memProfile != "" {
			f, err := os.Create(c.memProfile)
			if err != nil {
				return errors.Join(append(errs, err)...)
			}
			errs = append(errs, pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
		}
		return errors.Join(errs...)
	}, nil
}
