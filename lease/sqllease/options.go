package sqllease

import (
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/migrations"
)

// DefaultCandidates is how many free rows Acquire reads before it tries to
// claim them one by one.
const DefaultCandidates = 5

// Options configure a [Strategy]. The zero value works with a table created
// by [migrations.Apply] under the default name on a recognised driver.
type Options struct {
	// Dialect of the database. Zero: detected from db.Driver() with
	// [migrations.DetectDialect] (pgx and lib/pq, go-sql-driver/mysql,
	// modernc.org/sqlite, glebarez/go-sqlite, mattn/go-sqlite3). Set it when the driver is
	// wrapped (tracing, metrics) or not one of those.
	Dialect migrations.Dialect
	// Table is the lease table, a plain lowercase identifier. Default
	// [migrations.DefaultTable] ("once_leases"); "no_noncense_leases" shares
	// the Elixir library's table. On PostgreSQL it may name its schema,
	// "schema.table"; an unqualified name resolves through the
	// search_path of the connection that first checks the table, and
	// every statement then names the schema found ([Strategy.Table]
	// reports it). Processes whose sessions have different search_paths
	// (another role, a DSN's search_path) can resolve one name to
	// different tables and hold the same machine IDs: name the schema
	// when more than one schema may hold a lease table.
	Table string
	// Candidates is how many free rows one Acquire reads and tries, 1..512.
	// Default [DefaultCandidates]. More candidates mean fewer ErrConflict
	// results when many processes start at once.
	Candidates int
	// Sharing says whether the table is shared with the Elixir NoNoncense
	// library. Default [SharedByName]: shared when Table is
	// "no_noncense_leases". On a shared PostgreSQL or MySQL table the
	// strategy refuses to start (ErrConfig) unless the database's default
	// time zone is UTC: the Elixir library reads its clock in that zone.
	Sharing Sharing
	// LowestFirst makes Acquire try free rows from ID 0 upwards. By default
	// it starts at a random ID and wraps around, so processes starting
	// together rarely race for the same rows. Deterministic order is for
	// examples and tests; it makes every starting process race for the
	// same lowest free IDs.
	LowestFirst bool
	// MachineIDs restricts the machine IDs Acquire and Claim take to a
	// range ([driver.IDRange]): processes that share the table with
	// others of another range (regions, services) never take their IDs.
	// Nil: every ID, 0..511. A range outside 0..511 or with Min > Max is
	// refused with driver.ErrConfig.
	MachineIDs *driver.IDRange
	// Holder is recorded beside each lease this strategy claims, in the
	// table's optional holder column ([migrations.HolderColumn]), for
	// `once lease ls` and [Strategy.List]: printable ASCII, cut to fit.
	// Default: the host name and process ID ("web-7f9c/4242"). The lease
	// manager's key fingerprint (driver.KeyFingerprint) is recorded before
	// it, "key=<fingerprint> web-7f9c/4242", and reported as
	// Row.Fingerprint and Slot.Fingerprint. A table without the column
	// records nothing.
	Holder string
}

func (o Options) withDefaults() (Options, error) {
	if o.Table == "" {
		o.Table = migrations.DefaultTable
	}
	ids, err := leasekit.MachineIDs(pkg, o.MachineIDs)
	if err != nil {
		return o, err
	}
	o.MachineIDs = &ids
	if err := migrations.ValidateTable(o.Table); err != nil {
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "%w", err)
	}
	if o.Candidates == 0 {
		o.Candidates = DefaultCandidates
	}
	if o.Candidates < 1 || o.Candidates > leasekit.IDs {
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "Candidates %d outside 1..%d", o.Candidates, leasekit.IDs)
	}
	if o.Sharing < SharedByName || o.Sharing > GoOnly {
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "unknown Sharing %d", o.Sharing)
	}
	if o.Holder == "" {
		o.Holder = leasekit.Holder()
	}
	o.Holder = leasekit.CleanHolder(o.Holder)
	if o.Dialect != 0 && !o.Dialect.Valid() {
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "unknown dialect %d", o.Dialect)
	}
	return o, nil
}
