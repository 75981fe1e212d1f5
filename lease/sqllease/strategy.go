package sqllease

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/migrations"
)

// Strategy leases machine IDs from rows of an SQL table through the
// application's *sql.DB. It is safe for concurrent use; every call is one
// or a few statements bounded by its context, each committed on its own.
type Strategy struct {
	db      *sql.DB
	opts    Options
	dialect migrations.Dialect
	tab     atomic.Pointer[table] // the table, once it passed ready's checks
}

var (
	_ driver.Strategy  = (*Strategy)(nil)
	_ driver.Reclaimer = (*Strategy)(nil)
	_ driver.Lister    = (*Strategy)(nil)
	_ driver.Ranged    = (*Strategy)(nil)
)

// New returns a strategy on db's lease table. It does not touch the
// database: before its first call the strategy checks the table (see
// [Strategy.Check]); a missing table or a failed check is an ErrConfig
// from that call (run [migrations.Apply] first). Errors match
// driver.ErrConfig.
func New(db *sql.DB, opts Options) (*Strategy, error) {
	if db == nil {
		return nil, leasekit.Errorf(pkg, driver.ErrConfig, "nil *sql.DB")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if opts.Dialect == 0 {
		if opts.Dialect, err = migrations.DetectDialect(db); err != nil {
			return nil, leasekit.Errorf(pkg, driver.ErrConfig, "%w", err)
		}
	}
	if _, err := migrations.QuoteTable(opts.Dialect, opts.Table); err != nil {
		return nil, leasekit.Errorf(pkg, driver.ErrConfig, "%w", err)
	}
	if _, err := clockOf(opts.Dialect); err != nil {
		return nil, err
	}
	return &Strategy{db: db, opts: opts, dialect: opts.Dialect}, nil
}

// Name returns "sql", whatever the table: the lease manager records it in
// its state file and reclaims only a lease recorded under the same name,
// so a name that moved with the table or its schema would cost every
// process its lease (held on until it expires) at an upgrade. A state
// file's lease reclaimed against another table matches no token there
// and is refused (driver.ErrLost).
func (s *Strategy) Name() string { return "sql" }

// DefaultLeaseDuration is the lease a manager asks for when its
// Options.LeaseDuration is zero: [driver.DefaultDBLeaseDuration] (1 h), since
// the coordinator is the application's own database (see
// [driver.DurationDefaulter]).
func (s *Strategy) DefaultLeaseDuration() time.Duration { return driver.DefaultDBLeaseDuration }

// MachineIDs returns the range of machine IDs Acquire and Claim take
// (Options.MachineIDs; 0..511 when it is nil) ([driver.Ranged]).
func (s *Strategy) MachineIDs() driver.IDRange { return *s.opts.MachineIDs }

// Deterministic returns false: a new Acquire may yield any free ID.
func (s *Strategy) Deterministic() bool { return false }

// Dialect returns the dialect in use (given or detected).
func (s *Strategy) Dialect() migrations.Dialect { return s.dialect }

// Table returns the lease table's name: once the table has been checked
// (see [Strategy.Check]), on PostgreSQL qualified by the schema the name
// resolved to ("public.once_leases"), the table every statement names from
// then on; before that, and on MySQL and SQLite, as configured.
func (s *Strategy) Table() string {
	if t := s.tab.Load(); t != nil {
		return t.name
	}
	return s.opts.Table
}

// String describes where the leases are held, for the manager's acquire
// log and event: the dialect and [Strategy.Table] ("postgres table
// public.once_leases").
func (s *Strategy) String() string { return s.dialect.String() + " table " + s.Table() }

// Check runs now the checks the strategy runs before its first call, and
// only once they have passed: that the table exists (on PostgreSQL, which
// table an unqualified name resolves to, through the search_path of the
// connection checking it; [Strategy.Table] then reports it), that its
// column types can be read and written exactly (expires_at zone-free), that
// id is a unique key with no duplicates ([migrations.CheckKey]), that the
// session can write (not read-only, not a standby), and, on a table shared
// with the Elixir library (Options.Sharing), that the database's default
// time zone is UTC. A failed check is driver.ErrConfig naming the setting
// and the fix; a database that cannot be reached is driver.ErrRetry.
func (s *Strategy) Check(ctx context.Context) error {
	_, ss, err := s.begin(ctx, "check table "+s.opts.Table, true)
	if err == nil {
		ss.done()
	}
	return err
}

type candidate struct {
	id, lockVersion int64
	prev            time.Time
}

// Acquire reads up to Options.Candidates rows of Options.MachineIDs whose
// expires_at is before the database's now, in ID order from a random
// start in the range (wrapping around), and claims the first one it can:
//
//	UPDATE t SET expires_at = now + d, token = :new, lock_version = lock_version + 1
//	 WHERE id = :id AND lock_version = :seen AND expires_at < now
//
// One row updated means the ID is ours. No free row: driver.ErrExhausted.
// Every candidate taken by a racing contender first: driver.ErrConflict.
// The lease carries the row's previous expires_at (PrevExpiry; 1970 for a
// row never held) and the database's clock (CoordinatorNow; on MySQL,
// which has no UPDATE ... RETURNING, the clock of the candidate query,
// read just before the claim).
//
// When a claim was sent but its outcome is unknown (driver.ErrRetry: a
// timeout, a broken connection), Acquire returns the lease it may have
// claimed, MachineID and Token set, beside the error, for the caller to
// release.
func (s *Strategy) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	const op = "acquire"
	us, err := micros(d)
	if err != nil {
		return driver.Lease{}, fail(ctx, op, s.opts.Table, err)
	}
	t, ss, err := s.begin(ctx, op, true)
	if err != nil {
		return driver.Lease{}, err
	}
	defer ss.done()
	ids := *s.opts.MachineIDs
	start := ids.Min
	if !s.opts.LowestFirst {
		start += rand.IntN(ids.Len())
	}
	// From start up to the range's last ID, then wrapping around from its first.
	cands, now, err := s.candidates(ctx, ss, t, nil, start, ids.Max)
	if err == nil && len(cands) < s.opts.Candidates && start > ids.Min {
		var now2 time.Time
		cands, now2, err = s.candidates(ctx, ss, t, cands, ids.Min, start-1)
		if !now2.IsZero() {
			now = now2
		}
	}
	if err != nil {
		return driver.Lease{}, fail(ctx, op, t.name, err)
	}
	if len(cands) == 0 {
		return driver.Lease{}, leasekit.Errorf(pkg, driver.ErrExhausted, "all %d rows of %s in Options.MachineIDs %v are held", ids.Len(), t.name, ids)
	}
	token, text := newToken()
	for _, c := range cands {
		l, ok, err := s.write(ctx, ss, t, t.q.claim, s.claimArgs(ctx, t, us, token, c.id, c.lockVersion), us)
		if err != nil {
			err = fail(ctx, op+" machine ID "+strconv.FormatInt(c.id, 10), t.name, err)
			if errors.Is(err, driver.ErrRetry) {
				return driver.Lease{MachineID: int(c.id), Token: text}, err // the claim may have been applied
			}
			return driver.Lease{}, err
		}
		if !ok {
			continue // a racing contender claimed it first
		}
		l.MachineID, l.Token, l.PrevExpiry = int(c.id), text, c.prev
		if l.CoordinatorNow.IsZero() {
			l.CoordinatorNow = now
		}
		return l, nil
	}
	return driver.Lease{}, leasekit.Errorf(pkg, driver.ErrConflict, "%d free rows of %s claimed by others first", len(cands), t.name)
}

// begin is how every call starts: the checked table and a session on the
// database (call its done when finished), for a call that writes once the
// session has been found to be writable. Errors are returned as the
// operation op returns them.
func (s *Strategy) begin(ctx context.Context, op string, write bool) (*table, *session, error) {
	t, err := s.ready(ctx)
	if err != nil {
		return nil, nil, err
	}
	ss, err := s.session(ctx)
	if err != nil {
		return nil, nil, fail(ctx, op, t.name, err)
	}
	if write {
		if err := s.probe(ctx, ss, t); err != nil {
			ss.done()
			return nil, nil, err
		}
	}
	return t, ss, nil
}

// claimArgs are the arguments of t's claim statement: the expiry, the
// new token and the holder recorded with it, the row and its version.
func (s *Strategy) claimArgs(ctx context.Context, t *table, us int64, token []byte, id, lockVersion any) []any {
	return append(s.tokenArgs(ctx, t, us, token), id, lockVersion)
}

// tokenArgs are the first arguments of a statement that writes a new
// token: the expiry, the token and, with a holder column, the holder
// recorded with it and with the key fingerprint ctx carries.
func (s *Strategy) tokenArgs(ctx context.Context, t *table, us int64, token []byte) []any {
	args := append(t.q.expiry(us), token)
	if t.q.holder {
		args = append(args, s.holderValue(t, token, driver.KeyFingerprint(ctx)))
	}
	return args
}

// candidates appends to out the free rows with lo <= id <= hi, up to
// Options.Candidates in all, and returns the database's clock.
func (s *Strategy) candidates(ctx context.Context, ss *session, t *table, out []candidate, lo, hi int) ([]candidate, time.Time, error) {
	var (
		now        time.Time
		prev, nowS string
	)
	err := ss.query(ctx, t.q.candidates, []any{lo, hi, s.opts.Candidates - len(out)}, func(rows *sql.Rows) error {
		var c candidate
		err := rows.Scan(&c.id, &c.lockVersion, &prev, &nowS)
		if err == nil {
			c.prev, err = parseTime("expires_at", prev)
		}
		if err == nil {
			now, err = parseTime("database clock", nowS)
		}
		out = append(out, c)
		return err
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	return out, now, nil
}

// write runs a claim or renew statement. ok reports whether it matched
// the row; on RETURNING dialects the lease gets the stored expiry and the
// database's clock, otherwise TTL is the microseconds asked for.
func (s *Strategy) write(ctx context.Context, ss *session, t *table, query string, args []any, us int64) (l driver.Lease, ok bool, err error) {
	if !t.q.returning {
		n, err := ss.exec(ctx, query, args...)
		if err != nil {
			return l, false, err
		}
		l.TTL = time.Duration(us) * time.Microsecond
		return l, n == 1, nil
	}
	var expS, nowS string
	switch err := ss.queryRow(ctx, query, args, &expS, &nowS); {
	case errors.Is(err, sql.ErrNoRows):
		return l, false, nil
	case err != nil:
		return l, false, err
	}
	exp, err := parseTime("expires_at", expS)
	if err != nil {
		return l, false, err
	}
	if l.CoordinatorNow, err = parseTime("database clock", nowS); err != nil {
		return l, false, err
	}
	l.TTL = exp.Sub(l.CoordinatorNow)
	return l, true, nil
}

// extension is how Renew and Reclaim (operation op) start: l's raw token,
// d in microseconds, the table and a session on the database (call its
// done when finished). Errors are returned as the operation returns them.
func (s *Strategy) extension(ctx context.Context, op string, l driver.Lease, d time.Duration) (token []byte, us int64, t *table, ss *session, err error) {
	if token, err = decode(l); err != nil {
		return nil, 0, nil, nil, err
	}
	if us, err = micros(d); err != nil {
		return nil, 0, nil, nil, fail(ctx, op, s.opts.Table, err)
	}
	if t, ss, err = s.begin(ctx, op, true); err != nil {
		return nil, 0, nil, nil, err
	}
	return token, us, t, ss, nil
}

// lost is the error of Renew and Reclaim when l's row is held by another
// token.
func (s *Strategy) lost(t *table, l driver.Lease) error {
	return leasekit.Errorf(pkg, driver.ErrLost, "machine ID %d is held by another token in %s", l.MachineID, t.name)
}

// Renew extends l to the database's now + d:
//
//	UPDATE t SET expires_at = now + d, lock_version = lock_version + 1
//	 WHERE id = :id AND token = :token
//
// No row matched: driver.ErrLost (the ID was taken over after expiring).
// Replaying a renewal succeeds. The lease keeps l's machine ID and token;
// PrevExpiry is zero (no hand-off happened).
func (s *Strategy) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	op := "renew machine ID " + strconv.Itoa(l.MachineID)
	token, us, t, ss, err := s.extension(ctx, op, l, d)
	if err != nil {
		return driver.Lease{}, err
	}
	defer ss.done()
	args := append(t.q.expiry(us), l.MachineID, token)
	nl, ok, err := s.write(ctx, ss, t, t.q.renew, args, us)
	if err != nil {
		return driver.Lease{}, fail(ctx, op, t.name, err)
	}
	if !ok {
		return driver.Lease{}, s.lost(t, l)
	}
	nl.MachineID, nl.Token = l.MachineID, l.Token
	return nl, nil
}

// reclaimReads bounds how often the read-then-write Reclaim (MySQL,
// SQLite) reads the row again after it changed between its read and its
// write.
const reclaimReads = 3

// Reclaim takes back a lease from its machine ID and token alone (as
// persisted in the manager's state file): it renews the row like Renew
// and writes a new token in the same statement, so l's token renews and
// releases nothing afterwards, and of two processes reclaiming copies of
// one record only the first wins (the other is driver.ErrLost). The
// returned lease carries the new token, the row's expires_at just before
// the reclaim as PrevExpiry and the database's clock as CoordinatorNow.
// The lease's previous holder is the process's previous incarnation,
// which may have emitted timestamps until it stopped; the manager starts
// the factories' timestamps after min(PrevExpiry, CoordinatorNow) plus its
// hand-off skew (see lease.Options.StateFile), which costs nothing when
// the lease expired long ago. A lease that expired but was not taken over
// is reclaimed; one held by another token is driver.ErrLost. When the write
// was sent but its outcome is unknown (driver.ErrRetry), Reclaim returns
// the lease with the new token beside the error, for the caller to
// release.
//
// PostgreSQL does it in one statement:
//
//	WITH old AS (SELECT id, expires_at FROM t WHERE id = :id AND token = :old FOR UPDATE)
//	UPDATE t AS cur SET expires_at = now + d, token = :new, lock_version = cur.lock_version + 1
//	  FROM old WHERE cur.id = old.id AND cur.token = :old
//	RETURNING old.expires_at, cur.expires_at, now
//
// MySQL (no RETURNING) and SQLite (whose RETURNING sees only new values,
// even in a subquery) read the row, then write it only if lock_version is
// still the one read:
//
//	SELECT expires_at, lock_version, now FROM t WHERE id = :id AND token = :old
//	UPDATE t SET expires_at = now + d, token = :new, lock_version = lock_version + 1
//	 WHERE id = :id AND token = :old AND lock_version = :seen
//
// reading again (up to three times) if the row changed in between.
func (s *Strategy) Reclaim(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	op := "reclaim machine ID " + strconv.Itoa(l.MachineID)
	old, us, t, ss, err := s.extension(ctx, op, l, d)
	if err != nil {
		return driver.Lease{}, err
	}
	defer ss.done()
	token, text := newToken()
	r := reclaim{op: op, l: l, old: old, token: token, us: us, t: t, ss: ss,
		sent: driver.Lease{MachineID: l.MachineID, Token: text}}
	if t.q.reclaim != "" {
		return s.reclaimReturning(ctx, r)
	}
	return s.reclaimReadWrite(ctx, r)
}

// reclaim is one Reclaim call: the lease, its raw old token, the new one,
// and what a write whose reply is lost may have left (sent).
type reclaim struct {
	op         string
	l, sent    driver.Lease
	old, token []byte
	us         int64
	t          *table
	ss         *session
}

// reclaimReturning reclaims in one statement that returns the old row
// (PostgreSQL).
func (s *Strategy) reclaimReturning(ctx context.Context, r reclaim) (driver.Lease, error) {
	var prevS, expS, nowS string
	args := append(s.tokenArgs(ctx, r.t, r.us, r.token), r.l.MachineID, r.old)
	switch err := r.ss.queryRow(ctx, r.t.q.reclaim, args, &prevS, &expS, &nowS); {
	case errors.Is(err, sql.ErrNoRows):
		return driver.Lease{}, s.lost(r.t, r.l)
	case err != nil:
		return s.unknown(ctx, r, err)
	}
	nl := r.sent
	var exp time.Time
	var err error
	if nl.PrevExpiry, err = parseTime("expires_at", prevS); err == nil {
		if exp, err = parseTime("expires_at", expS); err == nil {
			nl.CoordinatorNow, err = parseTime("database clock", nowS)
		}
	}
	if err != nil {
		return s.unknown(ctx, r, err)
	}
	nl.TTL = exp.Sub(nl.CoordinatorNow)
	return nl, nil
}

// reclaimReadWrite reclaims where one statement cannot return the old row
// (MySQL, SQLite): it reads the row, then writes guarded by the lock_version it
// read, and reads again when the row changed in between.
func (s *Strategy) reclaimReadWrite(ctx context.Context, r reclaim) (driver.Lease, error) {
	for range reclaimReads {
		var (
			prevS, nowS string
			seen        int64
		)
		switch err := r.ss.queryRow(ctx, r.t.q.current, []any{r.l.MachineID, r.old}, &prevS, &seen, &nowS); {
		case errors.Is(err, sql.ErrNoRows):
			return driver.Lease{}, s.lost(r.t, r.l)
		case err != nil:
			return driver.Lease{}, fail(ctx, r.op, r.t.name, err)
		}
		prev, err := parseTime("expires_at", prevS)
		if err != nil {
			return driver.Lease{}, fail(ctx, r.op, r.t.name, err)
		}
		now, err := parseTime("database clock", nowS)
		if err != nil {
			return driver.Lease{}, fail(ctx, r.op, r.t.name, err)
		}
		args := append(s.tokenArgs(ctx, r.t, r.us, r.token), r.l.MachineID, r.old, seen)
		nl, ok, err := s.write(ctx, r.ss, r.t, r.t.q.reclaimSeen, args, r.us)
		if err != nil {
			return s.unknown(ctx, r, err)
		}
		if !ok {
			continue // written since read (or taken over): read again
		}
		nl.MachineID, nl.Token, nl.PrevExpiry = r.sent.MachineID, r.sent.Token, prev
		if nl.CoordinatorNow.IsZero() {
			nl.CoordinatorNow = now // MySQL: the clock of the read, just before
		}
		return nl, nil
	}
	return driver.Lease{}, leasekit.Errorf(pkg, driver.ErrRetry, "%s: the row kept changing between read and write (%d tries)", r.op, reclaimReads)
}

// unknown is the result of a reclaim whose write failed: the lease with
// the new token beside the error when the outcome is unknown.
func (s *Strategy) unknown(ctx context.Context, r reclaim, err error) (driver.Lease, error) {
	err = fail(ctx, r.op, r.t.name, err)
	if errors.Is(err, driver.ErrRetry) {
		return r.sent, err
	}
	return driver.Lease{}, err
}

// Release ends l now:
//
//	UPDATE t SET expires_at = now, lock_version = lock_version + 1
//	 WHERE id = :id AND token = :token
//
// A lease already taken over by someone else matches no row and is left
// alone; that is not an error.
func (s *Strategy) Release(ctx context.Context, l driver.Lease) error {
	token, err := decode(l)
	if err != nil {
		return err
	}
	op := "release machine ID " + strconv.Itoa(l.MachineID)
	t, ss, err := s.begin(ctx, op, true)
	if err != nil {
		return err
	}
	defer ss.done()
	if _, err := ss.exec(ctx, t.q.release, l.MachineID, token); err != nil {
		return fail(ctx, op, t.name, err)
	}
	return nil
}
