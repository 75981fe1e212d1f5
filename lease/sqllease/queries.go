package sqllease

import (
	"strconv"

	"github.com/once-go/once/migrations"
)

// queries holds one dialect's statements for one table. Every statement
// reads the clock from the database, in UTC, once per statement:
//
//	PostgreSQL  statement_timestamp() AT TIME ZONE 'UTC'  (the statement's start,
//	            not the transaction's, and independent of the session TimeZone)
//	MySQL       UTC_TIMESTAMP(6)                           (statement start; DATETIME
//	            columns are never converted by the session time_zone)
//	SQLite      strftime(..., 'now')                       (fixed within one statement;
//	            milliseconds, UTC by definition)
//
// Timestamps come back as text in textLayout.
type queries struct {
	// candidates(lo, hi, limit) -> id, lock_version, expires_at, now
	// for free rows with lo <= id <= hi, in ID (primary key) order, so the
	// scan stops at limit rows.
	candidates string
	// claim(expiry..., token, [holder], id, lock_version) -> [expires_at, now] (RETURNING dialects)
	claim string
	// renew(expiry..., id, token) -> [expires_at, now]
	renew string
	// reclaim(expiry..., new token, [holder], id, old token) -> previous expires_at,
	// expires_at, now: renew and replace the token in one statement that
	// also returns the expiry it replaced (PostgreSQL only; empty elsewhere).
	reclaim string
	// current(id, token) -> expires_at, lock_version, now: the row as the
	// read-then-write reclaim (MySQL, SQLite) sees it first.
	current string
	// reclaimSeen(expiry..., new token, [holder], id, old token, lock_version) ->
	// [expires_at, now]: renew and replace the token, only if the row was
	// not written since it was read.
	reclaimSeen string
	// release(id, token)
	release string
	// list() -> id, token, expires_at, lock_version, held, now, holder
	list string
	// probe() changes no row, and fails in a session that cannot write.
	probe string
	// holder: claim, reclaim and reclaimSeen write the holder column,
	// whose value comes right after the new token.
	holder bool
	// returning: claim and renew return a row (PostgreSQL, SQLite);
	// otherwise the affected row count says whether they matched (MySQL).
	returning bool
	// expiry turns a duration in microseconds into the parameters of the
	// "now + d" expression, which comes first in claim and renew.
	expiry func(us int64) []any
}

// newQueries builds d's statements on the table t (quoted, as it goes
// into SQL) with or without the holder column.
func newQueries(d migrations.Dialect, t string, holder bool) (*queries, error) {
	c, err := clockOf(d)
	if err != nil {
		return nil, err
	}
	now, exp, free, text := c.now, c.exp, c.free, c.text
	q := &queries{returning: c.returning, expiry: c.expiry, holder: holder}
	n := len(q.expiry(0))
	p := &params{numbered: d == migrations.Postgres}
	q.candidates = `SELECT id, lock_version, ` + text("expires_at") + `, ` + text(now) +
		` FROM ` + t + ` WHERE ` + free + ` AND id >= ` + p.int() + ` AND id <= ` + p.int() +
		` ORDER BY id LIMIT ` + p.int()
	// setHolder is ", holder = <next parameter>" with the holder column.
	setHolder := func() string {
		if !holder {
			return ""
		}
		return `, holder = ` + p.next()
	}
	q.claim = `UPDATE ` + t + ` SET expires_at = ` + exp + `, token = ` + p.from(n).next() + setHolder() +
		`, lock_version = lock_version + 1 WHERE id = ` + p.next() + ` AND lock_version = ` + p.next() + ` AND ` + free
	q.renew = `UPDATE ` + t + ` SET expires_at = ` + exp + `, lock_version = lock_version + 1 WHERE id = ` +
		p.from(n).next() + ` AND token = ` + p.next()
	q.reclaimSeen = `UPDATE ` + t + ` SET expires_at = ` + exp + `, token = ` + p.from(n).next() + setHolder() +
		`, lock_version = lock_version + 1 WHERE id = ` + p.next() + ` AND token = ` + p.next() + ` AND lock_version = ` + p.next()
	if q.returning {
		ret := ` RETURNING ` + text("expires_at") + `, ` + text(now)
		q.claim += ret
		q.renew += ret
		q.reclaimSeen += ret
	}
	q.current = `SELECT ` + text("expires_at") + `, lock_version, ` + text(now) + ` FROM ` + t +
		` WHERE id = ` + p.from(0).next() + ` AND token = ` + p.next()
	if d == migrations.Postgres {
		// The CTE locks the row and reads its expiry; the UPDATE joined to
		// it writes the new expiry and token and returns both expiries
		// (PostgreSQL's RETURNING sees only new values of the updated
		// table, but the old ones of a joined relation). A second reclaim
		// of the same token waits for the row lock, then finds the token
		// replaced and matches nothing.
		newToken := p.from(n).next()
		setNew := `token = ` + newToken + setHolder()
		id, token := p.next(), p.next()
		q.reclaim = `WITH old AS (SELECT id, expires_at FROM ` + t + ` WHERE id = ` + id + ` AND token = ` + token + ` FOR UPDATE) ` +
			`UPDATE ` + t + ` AS cur SET expires_at = ` + exp + `, ` + setNew + `, lock_version = cur.lock_version + 1 FROM old` +
			` WHERE cur.id = old.id AND cur.token = ` + token +
			` RETURNING ` + text("old.expires_at") + `, ` + text("cur.expires_at") + `, ` + text(now)
	}
	q.release = `UPDATE ` + t + ` SET expires_at = ` + now + `, lock_version = lock_version + 1 WHERE id = ` +
		p.from(0).next() + ` AND token = ` + p.next()
	holderCol := "NULL"
	if holder {
		holderCol = "holder"
	}
	q.list = `SELECT id, token, ` + text("expires_at") + `, lock_version, CASE WHEN ` + free + ` THEN 0 ELSE 1 END, ` + text(now) + `, ` + holderCol +
		` FROM ` + t + ` ORDER BY id`
	// probe writes nothing, but fails where the session cannot write.
	q.probe = `UPDATE ` + t + ` SET lock_version = lock_version WHERE 1 = 0`
	return q, nil
}

// clock is how a dialect reads the database's UTC clock (now), computes
// an expiry from a duration (exp, with expiry's arguments), tells a free
// row (free), renders a timestamp as text in the one stored format (text),
// and whether UPDATE can return rows (returning).
type clock struct {
	now, exp, free string
	text           func(string) string
	returning      bool
	expiry         func(us int64) []any
}

func clockOf(d migrations.Dialect) (clock, error) {
	var c clock
	switch d {
	case migrations.Postgres:
		c.now = `(statement_timestamp() AT TIME ZONE 'UTC')`
		c.exp = c.now + ` + $1::bigint * INTERVAL '1 microsecond'`
		c.text = func(x string) string { return `to_char(` + x + `, 'YYYY-MM-DD"T"HH24:MI:SS.US')` }
		c.free = `expires_at < ` + c.now
		c.returning = true
		c.expiry = func(us int64) []any { return []any{us} }
	case migrations.MySQL:
		c.now = `UTC_TIMESTAMP(6)`
		c.exp = c.now + ` + INTERVAL ? MICROSECOND`
		c.text = func(x string) string { return `DATE_FORMAT(` + x + `, '%Y-%m-%dT%H:%i:%s.%f')` }
		c.free = `expires_at < ` + c.now
		c.expiry = func(us int64) []any { return []any{us} }
	case migrations.SQLite:
		// SQLite's clock has millisecond resolution: %f is "SS.SSS". The
		// stored format has microseconds, so now is rendered with three
		// zero digits and now+d gets d's last three digits appended.
		c.now = `strftime('%Y-%m-%dT%H:%M:%f000Z', 'now')`
		c.exp = `(strftime('%Y-%m-%dT%H:%M:%f', 'now', ?) || ?)`
		c.text = func(x string) string { return x }
		// A value not in the one format would compare wrongly as text: such
		// a row is never considered free (it stays out of reach, not stolen).
		c.free = `expires_at < ` + c.now + ` AND expires_at GLOB '` + sqliteGlob + `'`
		c.returning = true
		c.expiry = func(us int64) []any { m, s := sqliteExpiry(us); return []any{m, s} }
	default:
		return c, errUnknownDialect(d)
	}
	return c, nil
}

// sqliteGlob matches exactly the one SQLite time format, YYYY-MM-DDTHH:MM:SS.ffffffZ.
const sqliteGlob = `[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z`

// params writes parameter placeholders: $1, $2, ... for PostgreSQL (with
// an explicit type where PostgreSQL could not infer one), "?" in argument
// order for MySQL and SQLite.
type params struct {
	numbered bool
	n        int
}

func (p *params) next() string {
	p.n++
	if !p.numbered {
		return "?"
	}
	return "$" + strconv.Itoa(p.n)
}

// int is next for an integer parameter in a position without a type
// (ORDER BY arithmetic, LIMIT).
func (p *params) int() string {
	if p.numbered {
		return p.next() + "::integer"
	}
	return p.next()
}

// from continues numbering after the first k parameters.
func (p *params) from(k int) *params { p.n = k; return p }
