package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// result is one key type's measurements; the JSON names are an interface.
type result struct {
	Key           string  `json:"key"`
	DB            string  `json:"db"`
	Rows          int     `json:"rows"`
	Batch         int     `json:"batch"`
	Writers       int     `json:"writers"`
	InsertSeconds float64 `json:"insert_seconds"`
	RowsPerSecond float64 `json:"rows_per_second"`
	IndexBytes    int64   `json:"index_bytes"` // primary-key index (InnoDB: the clustered index, rows included)
	TableBytes    int64   `json:"table_bytes"` // heap (InnoDB: data_length, the same clustered index)
	LookupNs      int64   `json:"lookup_ns"`   // median point-lookup latency
	LookupP99Ns   int64   `json:"lookup_p99_ns"`
	Lookups       int     `json:"lookups"`
	Rounds        int     `json:"rounds"` // measurements behind the medians (-repeat)
}

// medianResult combines the rounds of one key type: each figure is the
// median over the rounds (rows per second is recomputed from the median
// insert time).
func medianResult(rs []result) result {
	r := rs[0]
	r.Rounds = len(rs)
	r.InsertSeconds = median(rs, func(r result) float64 { return r.InsertSeconds })
	r.RowsPerSecond = float64(r.Rows) / r.InsertSeconds
	r.IndexBytes = int64(median(rs, func(r result) float64 { return float64(r.IndexBytes) }))
	r.TableBytes = int64(median(rs, func(r result) float64 { return float64(r.TableBytes) }))
	r.LookupNs = int64(median(rs, func(r result) float64 { return float64(r.LookupNs) }))
	r.LookupP99Ns = int64(median(rs, func(r result) float64 { return float64(r.LookupP99Ns) }))
	return r
}

func median(rs []result, f func(result) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

type bench struct {
	c     config
	d     dialect
	db    *sql.DB
	runID string

	mu     sync.Mutex
	tables []string // created and not yet dropped
}

func open(ctx context.Context, c config, d dialect) (*bench, error) {
	db, err := sql.Open(d.driver(), c.dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(c.writers + 2)
	db.SetMaxIdleConns(c.writers + 2)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to %s: %w", c.db, err)
	}
	return &bench{c: c, d: d, db: db, runID: fmt.Sprintf("%06x", rand.Uint32()&0xffffff)}, nil
}

// close drops every table this run created that is still present, on a fresh
// context so that it also runs after an interrupt.
func (b *bench) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b.mu.Lock()
	tables := slices.Clone(b.tables)
	b.mu.Unlock()
	for _, t := range tables {
		b.drop(ctx, t)
	}
	b.db.Close()
}

func (b *bench) drop(ctx context.Context, table string) {
	if _, err := b.db.ExecContext(ctx, b.d.dropTable(table)); err != nil {
		fmt.Fprintf(os.Stderr, "dbbench: could not drop %s: %v\n", table, err)
		return
	}
	b.mu.Lock()
	b.tables = slices.DeleteFunc(b.tables, func(t string) bool { return t == table })
	b.mu.Unlock()
}

func (b *bench) measure(ctx context.Context, kt keyType) (result, error) {
	r := result{Key: kt.name, DB: b.c.db, Rows: b.c.rows, Batch: b.c.batch, Writers: b.c.writers, Rounds: 1}
	table := "oncebench_" + b.runID + "_" + strings.ReplaceAll(kt.name, "-", "_")
	b.mu.Lock()
	b.tables = append(b.tables, table)
	b.mu.Unlock()
	if _, err := b.db.ExecContext(ctx, b.d.createTable(table, kt.col)); err != nil {
		return r, fmt.Errorf("create table: %w", err)
	}
	defer b.drop(context.WithoutCancel(ctx), table)

	elapsed, ks, err := b.insert(ctx, table, kt)
	if err != nil {
		return r, fmt.Errorf("insert: %w", err)
	}
	r.InsertSeconds = elapsed.Seconds()
	r.RowsPerSecond = float64(b.c.rows) / elapsed.Seconds()

	if r.TableBytes, r.IndexBytes, err = b.d.sizes(ctx, b.db, table); err != nil {
		return r, fmt.Errorf("sizes: %w", err)
	}
	lat, err := b.lookups(ctx, table, kt, ks)
	if err != nil {
		return r, fmt.Errorf("lookups: %w", err)
	}
	r.Lookups = len(lat)
	r.LookupNs = int64(lat[len(lat)/2])
	r.LookupP99Ns = int64(lat[len(lat)*99/100])
	return r, nil
}

// insert writes b.c.rows rows in batches of b.c.batch from b.c.writers
// goroutines, each on its own connection with its own prepared statements.
// Keys are generated at insert time from one shared source per table, so
// concurrent writers interleave keys as an application's requests would.
func (b *bench) insert(ctx context.Context, table string, kt keyType) (time.Duration, *keyStore, error) {
	rows, batch := b.c.rows, b.c.batch
	ks := &keyStore{uuidArg: b.d.uuidArg}
	var src keySource
	switch kt.col {
	case colBigint:
		ks.ints = make([]int64, rows)
	case colUUID:
		ks.uuids = make([][16]byte, rows)
	}
	if kt.newSource != nil {
		var err error
		if src, err = kt.newSource(); err != nil {
			return 0, nil, err
		}
	}

	nBatches := (rows + batch - 1) / batch
	var nextBatch atomic.Int64
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	start := time.Now()
	for range b.c.writers {
		wg.Go(func() {
			if err := b.writer(ctx, table, kt.col, src, ks, &nextBatch, nBatches); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := context.Cause(ctx); err != nil {
		return 0, nil, err
	}
	return elapsed, ks, nil
}

func (b *bench) writer(ctx context.Context, table string, col column, src keySource, ks *keyStore, next *atomic.Int64, nBatches int) error {
	conn, err := b.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	stmts := map[int]*sql.Stmt{} // by row count: the full batch and the tail
	defer func() {
		for _, s := range stmts {
			s.Close()
		}
	}()
	var args []any
	for {
		bi := int(next.Add(1) - 1)
		if bi >= nBatches {
			return nil
		}
		lo := bi * b.c.batch
		hi := min(lo+b.c.batch, b.c.rows)
		stmt := stmts[hi-lo]
		if stmt == nil {
			if stmt, err = conn.PrepareContext(ctx, insertSQL(b.d, table, col, hi-lo)); err != nil {
				return err
			}
			stmts[hi-lo] = stmt
		}
		args = args[:0]
		for i := lo; i < hi; i++ {
			if src != nil {
				k, err := src.next(ks, i)
				if err != nil {
					return err
				}
				args = append(args, k)
			}
			args = append(args, int64(i), payload(i))
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
}

// payload is row i's 32-character text, the same for every key type.
func payload(i int) string {
	x := uint64(i)*0x9e3779b97f4a7c15 + 0x6a09e667f3bcc908
	y := (x ^ x>>29) * 0xbf58476d1ce4e5b9
	return fmt.Sprintf("%016x%016x", x, y)
}

// lookups times b.c.lookups point queries for random existing keys on one
// connection with a prepared statement, after an untimed warm-up, and
// returns the sorted latencies.
func (b *bench) lookups(ctx context.Context, table string, kt keyType, ks *keyStore) ([]time.Duration, error) {
	conn, err := b.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stmt, err := conn.PrepareContext(ctx, fmt.Sprintf("SELECT n FROM %s WHERE id = %s", table, b.d.placeholder(1)))
	if err != nil {
		return nil, err
	}
	defer stmt.Close()

	rng := rand.New(rand.NewPCG(uint64(len(table)), 7))
	var lo, span int64 // serial: ids are dense in [lo, lo+span)
	if kt.col == colSerial {
		var hi int64
		q := fmt.Sprintf("SELECT min(id), max(id) FROM %s", table)
		if err := conn.QueryRowContext(ctx, q).Scan(&lo, &hi); err != nil {
			return nil, err
		}
		span = hi - lo + 1
	}
	key := func() any {
		switch kt.col {
		case colBigint:
			return ks.ints[rng.IntN(len(ks.ints))]
		case colUUID:
			return ks.uuidArg(ks.uuids[rng.IntN(len(ks.uuids))])
		}
		return lo + rng.Int64N(span)
	}

	warm := min(b.c.lookups/10, 1000)
	lat := make([]time.Duration, 0, b.c.lookups)
	misses := 0
	for i := range warm + b.c.lookups {
		k := key()
		var n int64
		t0 := time.Now()
		err := stmt.QueryRowContext(ctx, k).Scan(&n)
		dt := time.Since(t0)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			misses++
		case err != nil:
			return nil, err
		}
		if i >= warm {
			lat = append(lat, dt)
		}
	}
	if misses > 0 {
		return nil, fmt.Errorf("%d of %d lookups found no row", misses, warm+b.c.lookups)
	}
	slices.Sort(lat)
	return lat, nil
}
