package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// serverStats is what the server counts during one load: WAL written by
// every session (PostgreSQL: the difference of pg_current_wal_lsn()), the
// full-page images in it (pg_stat_wal.wal_fpi, every session too) and
// the buffer accesses of the table and its indexes (pg_statio_user_tables:
// blocks found in shared_buffers, hit, and blocks read into them, read,
// from the OS page cache or disk), by the writers and readers together.
type serverStats struct {
	walBytes          int64
	walFPI            int64
	heapRead, heapHit int64
	idxRead, idxHit   int64
	lsn               string // at the snapshot
}

// pgSnapshot reads the current WAL position and table's I/O counters.
func pgSnapshot(ctx context.Context, db *sql.DB, table string) (serverStats, error) {
	var s serverStats
	err := db.QueryRowContext(ctx, `
		SELECT pg_current_wal_lsn()::text, (SELECT wal_fpi FROM pg_stat_wal),
		       coalesce(heap_blks_read, 0), coalesce(heap_blks_hit, 0),
		       coalesce(idx_blks_read, 0), coalesce(idx_blks_hit, 0)
		FROM pg_statio_user_tables WHERE relid = $1::regclass`, table).
		Scan(&s.lsn, &s.walFPI, &s.heapRead, &s.heapHit, &s.idxRead, &s.idxHit)
	return s, err
}

// pgDelta returns the counts between two snapshots.
func pgDelta(ctx context.Context, db *sql.DB, before, after serverStats) (serverStats, error) {
	d := serverStats{walFPI: after.walFPI - before.walFPI,
		heapRead: after.heapRead - before.heapRead, heapHit: after.heapHit - before.heapHit,
		idxRead: after.idxRead - before.idxRead, idxHit: after.idxHit - before.idxHit}
	err := db.QueryRowContext(ctx, "SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint", after.lsn, before.lsn).Scan(&d.walBytes)
	return d, err
}

// pgFlushStats makes conn's backend publish its pending statistics as soon
// as the call returns (PostgreSQL 15 otherwise holds them up to 10 s while
// idle), so that a snapshot taken a moment later counts its work.
func pgFlushStats(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, "SELECT pg_stat_force_next_flush()")
	return err
}

// pgStatsSettle is how long a snapshot waits for flushed statistics.
const pgStatsSettle = 300 * time.Millisecond

// pgSettings returns the server settings that shape the figures, as
// name=value pairs in a fixed order.
func pgSettings(ctx context.Context, db *sql.DB) (string, error) {
	var out string
	err := db.QueryRowContext(ctx, `
		SELECT string_agg(name || '=' || current_setting(name), ', ' ORDER BY ord)
		FROM unnest(ARRAY['shared_buffers', 'max_wal_size', 'checkpoint_timeout', 'full_page_writes',
		                  'wal_compression', 'synchronous_commit', 'autovacuum']) WITH ORDINALITY AS s(name, ord)`).Scan(&out)
	return out, err
}

// explainCounts is what EXPLAIN (ANALYZE, BUFFERS, WAL) reports for one
// statement: its own buffer accesses and WAL, not other sessions'.
type explainCounts struct {
	Hit      int64 `json:"Shared Hit Blocks"`
	Read     int64 `json:"Shared Read Blocks"`
	Dirtied  int64 `json:"Shared Dirtied Blocks"`
	Written  int64 `json:"Shared Written Blocks"`
	Records  int64 `json:"WAL Records"`
	FPI      int64 `json:"WAL FPI"`
	WALBytes int64 `json:"WAL Bytes"`
}

func (e *explainCounts) add(o explainCounts) {
	e.Hit += o.Hit
	e.Read += o.Read
	e.Dirtied += o.Dirtied
	e.Written += o.Written
	e.Records += o.Records
	e.FPI += o.FPI
	e.WALBytes += o.WALBytes
}

// parseExplain reads the top plan node's counts from EXPLAIN's JSON.
func parseExplain(js string) (explainCounts, error) {
	var plans []struct {
		Plan explainCounts `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(js), &plans); err != nil {
		return explainCounts{}, fmt.Errorf("EXPLAIN output: %w", err)
	}
	if len(plans) != 1 {
		return explainCounts{}, fmt.Errorf("EXPLAIN output: %d plans, want 1", len(plans))
	}
	return plans[0].Plan, nil
}

// walRecord is one WAL record type's share of a load's WAL
// (pg_walinspect's pg_get_wal_stats per record type).
type walRecord struct {
	Type     string `json:"type"` // resource manager/record type, e.g. Btree/INSERT_LEAF
	Count    int64  `json:"count"`
	Bytes    int64  `json:"record_bytes"` // the records without their full-page images
	FPIBytes int64  `json:"fpi_bytes"`    // the full-page images they carry
}

// pgWALRecords breaks the WAL between two positions down by record type,
// largest first. It needs the pg_walinspect extension (created here if
// missing) and the WAL still on the server (wal_keep_size).
func pgWALRecords(ctx context.Context, db *sql.DB, from, to string) ([]walRecord, error) {
	if _, err := db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_walinspect"); err != nil {
		return nil, fmt.Errorf("pg_walinspect: %w", err)
	}
	rows, err := db.QueryContext(ctx, `
		SELECT "resource_manager/record_type", count, record_size, fpi_size
		FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true)
		WHERE count > 0 ORDER BY combined_size DESC`, from, to)
	if err != nil {
		return nil, fmt.Errorf("pg_get_wal_stats (is the load's WAL kept? wal_keep_size): %w", err)
	}
	defer rows.Close()
	var out []walRecord
	for rows.Next() {
		var w walRecord
		if err := rows.Scan(&w.Type, &w.Count, &w.Bytes, &w.FPIBytes); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}
