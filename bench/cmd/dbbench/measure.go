package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
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

	// During the load (PostgreSQL): WAL written by every session
	// (pg_current_wal_lsn() after minus before), and the table's and its
	// indexes' buffer accesses by the writers and readers together
	// (pg_statio_user_tables): hit = found in shared_buffers, read = read
	// into them (from the OS page cache or disk).
	WALBytes    int64  `json:"wal_bytes,omitempty"`
	WALFPI      int64  `json:"wal_fpi,omitempty"` // full-page images in it (pg_stat_wal.wal_fpi after minus before)
	HeapRead    int64  `json:"heap_blks_read,omitempty"`
	HeapHit     int64  `json:"heap_blks_hit,omitempty"`
	IdxRead     int64  `json:"idx_blks_read,omitempty"`
	IdxHit      int64  `json:"idx_blks_hit,omitempty"`
	ServerNotes string `json:"server_settings,omitempty"` // shared_buffers etc. as the server reported them

	// -explain: the INSERT statements' own counts, summed (EXPLAIN
	// (ANALYZE, BUFFERS, WAL)); other sessions do not enter them.
	InsertWALBytes    int64 `json:"insert_wal_bytes,omitempty"`
	InsertWALRecords  int64 `json:"insert_wal_records,omitempty"`
	InsertWALFPI      int64 `json:"insert_wal_fpi,omitempty"` // full-page images
	InsertBlksHit     int64 `json:"insert_blks_hit,omitempty"`
	InsertBlksRead    int64 `json:"insert_blks_read,omitempty"`
	InsertBlksDirtied int64 `json:"insert_blks_dirtied,omitempty"`
	InsertBlksWritten int64 `json:"insert_blks_written,omitempty"`

	// -readers: point lookups by key that ran during the load.
	LoadReaders      int   `json:"load_readers,omitempty"`
	LoadLookups      int   `json:"load_lookups,omitempty"`
	LoadLookupNs     int64 `json:"load_lookup_ns,omitempty"` // median
	LoadLookupP99Ns  int64 `json:"load_lookup_p99_ns,omitempty"`
	LoadLookupMisses int   `json:"load_lookup_misses,omitempty"` // serial only: rows not yet visible
	LoadRecent       int   `json:"load_recent,omitempty"`        // -recent: lookups among the newest rows only
	// -reader-sample: the readers' lookups run under EXPLAIN (ANALYZE,
	// BUFFERS) (untimed, not in LoadLookups), and their summed
	// shared-buffer hits and reads of the index and heap.
	LoadSampled    int   `json:"load_sampled,omitempty"`
	LoadReaderHit  int64 `json:"load_reader_blks_hit,omitempty"`
	LoadReaderRead int64 `json:"load_reader_blks_read,omitempty"`

	// -walinspect: the load's WAL by record type, largest first.
	WALRecords []walRecord `json:"wal_records,omitempty"`
}

// readerHitRatio is the share of the sampled reader lookups' buffer
// accesses found in shared_buffers, or -1 without samples.
func (r result) readerHitRatio() float64 {
	if r.LoadReaderHit+r.LoadReaderRead == 0 {
		return -1
	}
	return float64(r.LoadReaderHit) / float64(r.LoadReaderHit+r.LoadReaderRead)
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
	for _, f := range []func(*result) *int64{
		func(r *result) *int64 { return &r.WALBytes }, func(r *result) *int64 { return &r.WALFPI },
		func(r *result) *int64 { return &r.HeapRead },
		func(r *result) *int64 { return &r.HeapHit }, func(r *result) *int64 { return &r.IdxRead },
		func(r *result) *int64 { return &r.IdxHit }, func(r *result) *int64 { return &r.InsertWALBytes },
		func(r *result) *int64 { return &r.InsertWALRecords }, func(r *result) *int64 { return &r.InsertWALFPI },
		func(r *result) *int64 { return &r.InsertBlksHit }, func(r *result) *int64 { return &r.InsertBlksRead },
		func(r *result) *int64 { return &r.InsertBlksDirtied }, func(r *result) *int64 { return &r.InsertBlksWritten },
		func(r *result) *int64 { return &r.LoadLookupNs }, func(r *result) *int64 { return &r.LoadLookupP99Ns },
		func(r *result) *int64 { return &r.LoadReaderHit }, func(r *result) *int64 { return &r.LoadReaderRead },
	} {
		*f(&r) = int64(median(rs, func(x result) float64 { return float64(*f(&x)) }))
	}
	r.LoadLookups = int(median(rs, func(r result) float64 { return float64(r.LoadLookups) }))
	r.LoadLookupMisses = int(median(rs, func(r result) float64 { return float64(r.LoadLookupMisses) }))
	r.LoadSampled = int(median(rs, func(r result) float64 { return float64(r.LoadSampled) }))
	// The WAL breakdown of the round, among those that have one, whose WAL
	// is closest to the median.
	r.WALRecords = nil
	var best int64 = -1
	for _, x := range rs {
		if len(x.WALRecords) > 0 && (best < 0 || abs(x.WALBytes-r.WALBytes) < best) {
			r.WALRecords, best = x.WALRecords, abs(x.WALBytes-r.WALBytes)
		}
	}
	return r
}

func abs(n int64) int64 { return max(n, -n) }

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

// keysFor returns the key types of keys that the server can run:
// uuidv7-server needs PostgreSQL's uuidv7() (PostgreSQL 18 and later). A
// key type the server cannot run is left out, saying so on stderr, when the
// list is the default one (all), and is an error when it was asked for.
func (b *bench) keysFor(ctx context.Context, keys []keyType, all bool, stderr io.Writer) ([]keyType, error) {
	var out []keyType
	for _, kt := range keys {
		if kt.col == colUUIDServer {
			has := false
			if b.c.db == "postgres" {
				if err := b.db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'uuidv7')").Scan(&has); err != nil {
					return nil, err
				}
			}
			if !has {
				if !all {
					return nil, fmt.Errorf("%s needs a server with uuidv7() (PostgreSQL 18 or later)", kt.name)
				}
				fmt.Fprintf(stderr, "dbbench: %s left out: the server has no uuidv7() (PostgreSQL 18 or later)\n", kt.name)
				continue
			}
		}
		out = append(out, kt)
	}
	return out, nil
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

	ks, err := b.load(ctx, table, kt, &r)
	if err != nil {
		return r, fmt.Errorf("insert: %w", err)
	}

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

// load inserts the rows (insert) while b.c.readers readers look rows up,
// and records in r the insert time and, on PostgreSQL, the WAL and buffer
// counts of the load.
func (b *bench) load(ctx context.Context, table string, kt keyType, r *result) (*keyStore, error) {
	var before serverStats
	if b.d.pgStats() {
		var err error
		if before, err = pgSnapshot(ctx, b.db, table); err != nil {
			return nil, fmt.Errorf("statistics before the load: %w", err)
		}
		if r.ServerNotes, err = pgSettings(ctx, b.db); err != nil {
			return nil, err
		}
	}
	ks := &keyStore{uuidArg: b.d.uuidArg}
	switch kt.col {
	case colBigint:
		ks.ints = make([]int64, b.c.rows)
	case colUUID, colUUIDServer:
		ks.uuids = make([][16]byte, b.c.rows)
	}
	p := &progress{batch: b.c.batch, rows: b.c.rows}

	readCtx, stopReaders := context.WithCancel(ctx)
	defer stopReaders()
	type readerOut struct {
		rs   readerStats
		conn *sql.Conn
		err  error
	}
	outs := make(chan readerOut, b.c.readers)
	for i := range b.c.readers {
		go func() {
			rs, conn, err := b.reader(readCtx, table, kt, ks, p, uint64(i+1))
			outs <- readerOut{rs, conn, err}
		}()
	}
	elapsed, counts, conns, err := b.insert(ctx, table, kt, ks, p)
	stopReaders()
	var lat []time.Duration
	for range b.c.readers {
		o := <-outs
		if o.err != nil && err == nil {
			err = fmt.Errorf("reader: %w", o.err)
		}
		if o.conn != nil {
			conns = append(conns, o.conn)
		}
		lat = append(lat, o.rs.lat...)
		r.LoadLookupMisses += o.rs.misses
		r.LoadSampled += o.rs.sampled
		r.LoadReaderHit += o.rs.hit
		r.LoadReaderRead += o.rs.read
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	if kt.col == colUUIDServer && b.c.explain {
		// Under EXPLAIN the INSERTs return no rows: read the keys the
		// server assigned, for the lookups after the load.
		if err := b.serverKeys(ctx, table, ks); err != nil {
			return nil, err
		}
	}
	r.InsertSeconds = elapsed.Seconds()
	r.RowsPerSecond = float64(b.c.rows) / elapsed.Seconds()
	if b.c.readers > 0 {
		slices.Sort(lat)
		r.LoadReaders, r.LoadLookups, r.LoadRecent = b.c.readers, len(lat), b.c.recent
		if len(lat) > 0 {
			r.LoadLookupNs, r.LoadLookupP99Ns = int64(lat[len(lat)/2]), int64(lat[len(lat)*99/100])
		}
	}
	if b.c.explain {
		r.InsertWALBytes, r.InsertWALRecords, r.InsertWALFPI = counts.WALBytes, counts.Records, counts.FPI
		r.InsertBlksHit, r.InsertBlksRead = counts.Hit, counts.Read
		r.InsertBlksDirtied, r.InsertBlksWritten = counts.Dirtied, counts.Written
	}
	if b.d.pgStats() {
		for _, c := range conns {
			if err := pgFlushStats(ctx, c); err != nil {
				return nil, err
			}
		}
		time.Sleep(pgStatsSettle)
		after, err := pgSnapshot(ctx, b.db, table)
		if err != nil {
			return nil, fmt.Errorf("statistics after the load: %w", err)
		}
		d, err := pgDelta(ctx, b.db, before, after)
		if err != nil {
			return nil, err
		}
		r.WALBytes, r.WALFPI = d.walBytes, d.walFPI
		r.HeapRead, r.HeapHit, r.IdxRead, r.IdxHit = d.heapRead, d.heapHit, d.idxRead, d.idxHit
		if b.c.walinsp {
			if r.WALRecords, err = pgWALRecords(ctx, b.db, before.lsn, after.lsn); err != nil {
				return nil, err
			}
		}
	}
	return ks, nil
}

// insert writes b.c.rows rows in batches of b.c.batch from b.c.writers
// goroutines, each on its own connection with its own prepared statements,
// and records each committed batch in p. Keys are generated at insert time
// from one shared source per table, so concurrent writers interleave keys
// as an application's requests would. It returns the writers' connections
// (open, for their statistics) and, with -explain, the INSERTs' summed
// EXPLAIN counts.
func (b *bench) insert(ctx context.Context, table string, kt keyType, ks *keyStore, p *progress) (time.Duration, explainCounts, []*sql.Conn, error) {
	var src keySource
	if kt.newSource != nil {
		var err error
		if src, err = kt.newSource(); err != nil {
			return 0, explainCounts{}, nil, err
		}
	}

	nBatches := (b.c.rows + b.c.batch - 1) / b.c.batch
	var nextBatch atomic.Int64
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		total  explainCounts
		conns  []*sql.Conn
		starts = make(chan struct{})
	)
	for range b.c.writers {
		wg.Go(func() {
			conn, err := b.db.Conn(ctx)
			if err != nil {
				cancel(err)
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			<-starts
			counts, err := b.writer(ctx, conn, table, kt.col, src, ks, p, &nextBatch, nBatches)
			if err != nil {
				cancel(err)
			}
			mu.Lock()
			total.add(counts)
			mu.Unlock()
		})
	}
	start := time.Now()
	close(starts)
	wg.Wait()
	elapsed := time.Since(start)
	if err := context.Cause(ctx); err != nil {
		for _, c := range conns {
			c.Close()
		}
		return 0, explainCounts{}, nil, err
	}
	return elapsed, total, conns, nil
}

func (b *bench) writer(ctx context.Context, conn *sql.Conn, table string, col column, src keySource, ks *keyStore, p *progress, next *atomic.Int64, nBatches int) (explainCounts, error) {
	var total explainCounts
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
			return total, nil
		}
		lo := bi * b.c.batch
		hi := min(lo+b.c.batch, b.c.rows)
		stmt := stmts[hi-lo]
		if stmt == nil {
			q := insertSQL(b.d, table, col, hi-lo)
			if col == colUUIDServer && !b.c.explain {
				// The server assigns the keys: the INSERT returns them,
				// as an application that needs its rows' keys would.
				q += " RETURNING id, n"
			}
			if b.c.explain {
				q = explainPrefix + q
			}
			var err error
			if stmt, err = conn.PrepareContext(ctx, q); err != nil {
				return total, err
			}
			stmts[hi-lo] = stmt
		}
		args = args[:0]
		for i := lo; i < hi; i++ {
			if src != nil {
				k, err := src.next(ks, i)
				if err != nil {
					return total, err
				}
				args = append(args, k)
			}
			args = append(args, int64(i), payload(i))
		}
		if b.c.explain {
			var js string
			if err := stmt.QueryRowContext(ctx, args...).Scan(&js); err != nil {
				return total, err
			}
			c, err := parseExplain(js)
			if err != nil {
				return total, err
			}
			total.add(c)
		} else if col == colUUIDServer {
			if err := returnedKeys(ctx, stmt, args, ks, hi-lo); err != nil {
				return total, err
			}
		} else if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return total, err
		}
		p.commit(bi)
	}
}

// returnedKeys runs an INSERT ... RETURNING id, n of a uuidv7-server table
// and records each row's key under its n (its row number).
func returnedKeys(ctx context.Context, stmt *sql.Stmt, args []any, ks *keyStore, want int) error {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	got := 0
	for rows.Next() {
		var id uuid.UUID
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		if n < 0 || n >= int64(len(ks.uuids)) {
			return fmt.Errorf("INSERT returned row number %d", n)
		}
		ks.uuids[n] = id
		got++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("INSERT returned %d keys for %d rows", got, want)
	}
	return nil
}

// serverKeys reads every row's key of a uuidv7-server table into ks.
func (b *bench) serverKeys(ctx context.Context, table string, ks *keyStore) error {
	rows, err := b.db.QueryContext(ctx, "SELECT id, n FROM "+table)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		if n < 0 || n >= int64(len(ks.uuids)) {
			return fmt.Errorf("%s: row number %d", table, n)
		}
		ks.uuids[n] = id
	}
	return rows.Err()
}

// explainPrefix runs an INSERT under EXPLAIN, which executes it and reports
// its own buffer accesses and WAL (PostgreSQL); TIMING OFF leaves out the
// per-row clock reads.
const explainPrefix = "EXPLAIN (ANALYZE, BUFFERS, WAL, TIMING OFF, SUMMARY OFF, FORMAT JSON) "

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
		case colUUID, colUUIDServer:
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
