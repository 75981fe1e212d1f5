package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// progress records which batches have committed, so that a reader running
// during the load looks up only rows that exist.
type progress struct {
	mu    sync.Mutex
	done  []int // committed batch indexes, in commit order
	batch int   // rows per batch
	rows  int   // rows in all
}

func (p *progress) commit(bi int) {
	p.mu.Lock()
	p.done = append(p.done, bi)
	p.mu.Unlock()
}

// pick returns a random committed row index, or false before the first
// commit. With recent > 0 it picks among the batches committed last that
// hold the newest recent rows (rounded up to whole batches).
func (p *progress) pick(rng *rand.Rand, recent int) (int, bool) {
	p.mu.Lock()
	n := len(p.done)
	var bi int
	if n > 0 {
		from := 0
		if recent > 0 {
			from = max(n-(recent+p.batch-1)/p.batch, 0)
		}
		bi = p.done[from+rng.IntN(n-from)]
	}
	p.mu.Unlock()
	if n == 0 {
		return 0, false
	}
	lo := bi * p.batch
	return lo + rng.IntN(min(lo+p.batch, p.rows)-lo), true
}

// readerStats are the point lookups one reader made during the load.
type readerStats struct {
	lat    []time.Duration // sorted
	misses int             // serial keys only: a row not yet visible (see lookupKey)
	// Lookups run under EXPLAIN (ANALYZE, BUFFERS) (-reader-sample): their
	// number and summed shared-buffer hits and reads (index and heap).
	sampled   int
	hit, read int64
}

// reader runs point lookups by key, one after the other on its own
// connection, until ctx ends: the concurrent reader of the load. A lookup
// is not interrupted when ctx ends (that would break the connection, whose
// statistics are read afterwards); one that ends after it is not counted. It picks
// rows whose batch has committed. A serial table's keys are assigned by the
// server: row i of a single writer is id i+1, which the reader looks up; with
// several writers ids interleave, and a lookup may find no row (counted as
// a miss, not an error).
func (b *bench) reader(ctx context.Context, table string, kt keyType, ks *keyStore, p *progress, seed uint64) (readerStats, *sql.Conn, error) {
	var rs readerStats
	conn, err := b.db.Conn(context.WithoutCancel(ctx))
	if err != nil {
		return rs, nil, err
	}
	stmt, err := conn.PrepareContext(context.WithoutCancel(ctx), fmt.Sprintf("SELECT n FROM %s WHERE id = %s", table, b.d.placeholder(1)))
	if err != nil {
		conn.Close()
		return rs, nil, err
	}
	defer stmt.Close()
	var explain *sql.Stmt
	if b.c.sample > 0 && b.d.pgStats() {
		q := fmt.Sprintf("EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY OFF, FORMAT JSON) SELECT n FROM %s WHERE id = $1", table)
		if explain, err = conn.PrepareContext(context.WithoutCancel(ctx), q); err != nil {
			conn.Close()
			return rs, nil, err
		}
		defer explain.Close()
	}
	if kt.col == colUUIDServer && b.c.explain {
		// Under EXPLAIN the INSERTs return no keys, so a uuidv7-server
		// row cannot be looked up during the load: no lookups.
		<-ctx.Done()
		return rs, conn, nil
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	qctx := context.WithoutCancel(ctx)
	for count := 1; ctx.Err() == nil; count++ {
		i, ok := p.pick(rng, b.c.recent)
		if !ok {
			time.Sleep(time.Millisecond)
			continue
		}
		k := lookupKey(kt, ks, i)
		if explain != nil && count%b.c.sample == 0 {
			// A sampled lookup: its own buffer counts, not timed.
			var js string
			if err := explain.QueryRowContext(qctx, k).Scan(&js); err != nil {
				conn.Close()
				return rs, nil, fmt.Errorf("EXPLAIN of the lookup of row %d: %w", i, err)
			}
			c, err := parseExplain(js)
			if err != nil {
				conn.Close()
				return rs, nil, err
			}
			if ctx.Err() == nil {
				rs.sampled++
				rs.hit += c.Hit
				rs.read += c.Read
			}
			continue
		}
		var n int64
		t0 := time.Now()
		err := stmt.QueryRowContext(qctx, k).Scan(&n)
		dt := time.Since(t0)
		switch {
		case ctx.Err() != nil:
			// the load ended during this lookup: not counted
		case errors.Is(err, sql.ErrNoRows) && kt.col == colSerial:
			rs.misses++
		case err != nil:
			conn.Close()
			return rs, nil, fmt.Errorf("lookup of row %d: %w", i, err)
		case n != int64(i) && kt.col != colSerial:
			conn.Close()
			return rs, nil, fmt.Errorf("lookup of row %d found n = %d", i, n)
		default:
			rs.lat = append(rs.lat, dt)
		}
	}
	slices.Sort(rs.lat)
	return rs, conn, nil
}

// lookupKey is the SQL argument that finds row i.
func lookupKey(kt keyType, ks *keyStore, i int) any {
	switch kt.col {
	case colBigint:
		return ks.ints[i]
	case colUUID, colUUIDServer:
		return ks.uuidArg(ks.uuids[i])
	}
	return int64(i + 1)
}
