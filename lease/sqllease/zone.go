package sqllease

import (
	"context"
	"database/sql"
	"strings"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/migrations"
)

// ElixirTable is the Elixir NoNoncense library's default lease table name.
// Options.Table names it with or without a schema.
const ElixirTable = "no_noncense_leases"

// Sharing says whether the lease table is shared with the Elixir
// NoNoncense library (see Options.Sharing).
type Sharing int

const (
	// SharedByName treats the table as shared when it is named
	// [ElixirTable], the Elixir library's default.
	SharedByName Sharing = iota
	// SharedWithElixir treats the table as shared whatever its name.
	SharedWithElixir
	// GoOnly treats the table as used by this library only.
	GoOnly
)

// shared reports whether the table counts as shared with the Elixir library.
func (s *Strategy) shared() bool {
	switch s.opts.Sharing {
	case SharedWithElixir:
		return true
	case GoOnly:
		return false
	}
	name := s.opts.Table
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:] // schema.table
	}
	return name == ElixirTable
}

// utcZones are the zone names that mean UTC at every date, as PostgreSQL
// and MySQL spell them (compared without case). A zone whose offset is
// merely zero today (Europe/London in winter) is not among them.
var utcZones = map[string]bool{
	"utc": true, "etc/utc": true, "uct": true, "etc/uct": true, "universal": true, "etc/universal": true,
	"zulu": true, "etc/zulu": true, "gmt": true, "etc/gmt": true, "gmt0": true, "etc/gmt0": true,
	"gmt+0": true, "gmt-0": true, "etc/gmt+0": true, "etc/gmt-0": true, "greenwich": true, "etc/greenwich": true,
	"+00:00": true, "z": true,
}

// checkZone refuses a table shared with the Elixir library on a database
// whose default time zone is not UTC. The Elixir library writes and
// compares expires_at with CURRENT_TIMESTAMP, which is wall-clock time in
// the session's zone, and its drivers (Postgrex, MyXQL) set none, so the
// session gets the database's default. This strategy always uses UTC.
// Unless the default is UTC, the two disagree about which rows are free
// by the zone's offset: each takes IDs the other holds.
func (s *Strategy) checkZone(ctx context.Context, r runner, t *table) error {
	zone, err := s.defaultZone(ctx, r, t)
	if err != nil {
		return err
	}
	if utcZones[strings.ToLower(zone)] {
		return nil
	}
	fix := "ALTER DATABASE <db> SET timezone = 'UTC', then reconnect"
	if s.dialect == migrations.MySQL {
		fix = "default_time_zone = '+00:00' in the server's configuration"
	}
	return leasekit.Errorf(pkg, driver.ErrConfig,
		"table %s is shared with the Elixir NoNoncense library, which reads its clock as CURRENT_TIMESTAMP in the database's default time zone, "+
			"and that zone is %s, not UTC: the two libraries would take machine IDs the other holds; set the default time zone to UTC (%s), "+
			"or set Options.Sharing to GoOnly if no Elixir process uses this table",
		t.name, leasekit.Quote(zone), fix)
}

// defaultZone returns the time zone a session gets when it sets none.
//
// PostgreSQL: the TimeZone setting, unless this session's value came from
// the client (a DSN parameter) or a SET, in which case the database and
// role defaults are read from pg_db_role_setting; with none there, the
// server's configured default cannot be read and the check refuses.
// MySQL: @@global.time_zone, or the server's system zone when it is SYSTEM.
func (s *Strategy) defaultZone(ctx context.Context, r runner, t *table) (string, error) {
	const op = "check the database's default time zone"
	if s.dialect == migrations.MySQL {
		var global, system string
		if err := first(ctx, r, `SELECT @@global.time_zone, @@system_time_zone`, nil, &global, &system); err != nil {
			return "", fail(ctx, op, t.name, err)
		}
		if strings.EqualFold(global, "SYSTEM") {
			// An abbreviation taken from the server's OS zone at start:
			// only UTC means UTC all year ("GMT" is London in winter).
			if system == "UTC" {
				return system, nil
			}
			return "SYSTEM (" + system + ")", nil
		}
		return global, nil
	}
	var setting, source string
	var roleDB sql.NullString
	err := first(ctx, r, `SELECT setting, source,
		(SELECT substr(c, 10) FROM pg_db_role_setting r, unnest(r.setconfig) c, pg_database d
		  WHERE d.datname = current_database() AND lower(c) LIKE 'timezone=%'
		    AND (r.setdatabase = d.oid OR r.setdatabase = 0)
		    AND (r.setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user) OR r.setrole = 0)
		    AND NOT (r.setdatabase = 0 AND r.setrole = 0)
		  ORDER BY r.setrole = 0, r.setdatabase = 0 LIMIT 1)
		FROM pg_settings WHERE name = 'TimeZone'`, nil, &setting, &source, &roleDB)
	if err != nil {
		return "", fail(ctx, op, t.name, err)
	}
	switch {
	case source != "client" && source != "session":
		return setting, nil
	case roleDB.Valid:
		return roleDB.String, nil
	}
	return "", leasekit.Errorf(pkg, driver.ErrConfig,
		"table %s is shared with the Elixir NoNoncense library, which uses the database's default time zone, but this connection sets its own (%s, from the %s), "+
			"so the default cannot be read; connect without a time zone setting, set it per database (ALTER DATABASE <db> SET timezone = 'UTC'), "+
			"or set Options.Sharing to GoOnly if no Elixir process uses this table",
		t.name, leasekit.Quote(setting), source)
}
