// Package oncesql starts once on the application's own SQL database in one
// call: the common case, where the database that stores the rows is also
// the coordinator of machine IDs.
//
//	g, err := oncesql.Start(ctx, db, oncesql.Config{
//		Key:   []byte(os.Getenv("ONCE_KEY")),
//		Check: []once.Spec{UserID{}, PostID{}},
//	})
//	if err != nil {
//		return err
//	}
//	defer g.Close(context.Background())
//
// [Start] creates the lease table unless it exists, makes the nonce factory
// from the key, holds a machine-ID lease on the same database (with a state
// file, so that a restarted process takes its own lease back), binds the
// factory for every ID type ([once.DefaultBinding]) and checks the ID
// types' options. The lease manager logs through slog.Default.
//
// Every piece stays available for the uncommon cases (another coordinator,
// several factories, custom timing): [migrations.Apply], [nonce.New],
// [lease.Start] with a strategy of [lease/sqllease] or another, and
// [once.Binding]. docs/leases.md shows them one by one.
package oncesql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// ErrConfig is the error of a Config that Start cannot use; the message
// names the field and the fix. It also matches the ErrConfig of the
// package that refused the setting (nonce, once, lease, migrations).
var ErrConfig = errors.New("oncesql: invalid configuration")

// DefaultStateFile is the state file Start gives the lease manager when
// Config.StateFile is empty: in the working directory.
const DefaultStateFile = "once-lease.json"

// Config configures Start. Key is required; the zero value of every other
// field selects its default.
type Config struct {
	// Key is the base key of the nonce factory and of masking: at least 32
	// bytes, used as is (never decoded), the same in every service of one
	// ID space. Generate one with openssl rand -hex 32.
	Key []byte
	// Check lists the application's ID types (UserID{}, or their specs):
	// Start fails when the options of one are invalid (once.Check).
	Check []once.Spec
	// Keyring, if set, holds the masking keys of every key generation
	// (once.KeyringFromEnv, docs/ids.md): masked types format with its
	// current generation and read every generation it holds. Key still
	// keys the nonce factory; the lease holder records the fingerprint of
	// the current generation's key, so that `once lease ls` shows a fleet
	// in the middle of a rotation.
	Keyring *once.Keyring
	// StateFile is where the lease manager records the lease it holds, so
	// that a process restarted in the same place takes its own unexpired
	// lease back instead of leaving a machine ID taken per crash (see
	// lease.Options.StateFile). Default DefaultStateFile; give each
	// instance its own file, on storage that survives its restarts.
	StateFile string
	// NoStateFile keeps no state file: each restart takes another machine
	// ID, and the previous one stays taken until its lease expires.
	NoStateFile bool
	// NoMigrate leaves the lease table alone: it was created beforehand
	// (once lease migrate, or the embedded golang-migrate files). By
	// default Start runs migrations.Apply, which is harmless at every start.
	NoMigrate bool
	// Dialect of the database; zero: detected from the driver.
	Dialect migrations.Dialect
	// Table is the lease table; default migrations.DefaultTable.
	Table string
	// Lease holds the lease manager's other options (timing, Logger,
	// Events); Start sets its Factories and StateFile.
	Lease lease.Options
	// AllowDemoKey accepts a key that once publishes (an example's demo
	// key): for demos only, whose masked IDs hide nothing.
	AllowDemoKey bool
}

// A Generator is once running on a database: a nonce factory bound for
// every ID type, kept generating by a machine-ID lease on the database.
type Generator struct {
	m *lease.Manager
	f *nonce.Factory
}

// Start migrates the lease table (unless Config.NoMigrate), makes the
// nonce factory from Config.Key, checks the types of Config.Check, holds a
// machine-ID lease on db and binds the factory (and Config.Keyring) for
// every ID type (once.DefaultBinding). It blocks until the lease is held: ctx bounds the
// start only (as does Config.Lease.AcquireTimeout, default 60 s); the lease
// is renewed in the background until Close.
//
// Errors match ErrConfig for a setting to fix (the message names it),
// lease.ErrTimeout when no machine ID was free in time, or the database's
// error.
func Start(ctx context.Context, db *sql.DB, cfg Config) (*Generator, error) {
	if db == nil {
		return nil, fmt.Errorf("%w: db is nil", ErrConfig)
	}
	if len(cfg.Key) == 0 {
		return nil, fmt.Errorf("%w: Config.Key is empty: give it 32 or more random bytes, the same in every service of one ID space (e.g. ONCE_KEY=$(openssl rand -hex 32))", ErrConfig)
	}
	if cfg.NoStateFile && cfg.StateFile != "" {
		return nil, fmt.Errorf("%w: Config.StateFile %.40q and NoStateFile are both set: keep one", ErrConfig, cfg.StateFile)
	}
	if len(cfg.Lease.Factories) != 0 || cfg.Lease.StateFile != "" {
		return nil, fmt.Errorf("%w: Config.Lease.Factories and Config.Lease.StateFile are Start's to set: use Config.StateFile, or lease.Start for several factories", ErrConfig)
	}
	g, err := start(ctx, db, cfg)
	if err != nil && cfg.Keyring != nil {
		once.DefaultBinding().SetKeyring(nil)
	}
	return g, err
}

func start(ctx context.Context, db *sql.DB, cfg Config) (*Generator, error) {
	nc := nonce.Config{BaseKey: cfg.Key, AllowDemoKey: cfg.AllowDemoKey}
	if cfg.Keyring != nil {
		// Check judges the types' prefixes against the keyring's generations.
		once.DefaultBinding().SetKeyring(cfg.Keyring)
		nc.Fingerprint = cfg.Keyring.Fingerprint()
	}
	if err := once.Check(cfg.Check...); err != nil {
		return nil, configErr("Config.Check", err)
	}
	f, err := nonce.New(nc)
	if err != nil {
		return nil, configErr("Config.Key", err)
	}
	if !cfg.NoMigrate {
		if err := migrations.Apply(ctx, db, cfg.Dialect, cfg.Table); err != nil {
			return nil, configErr("the lease table (migrations.Apply; Config.NoMigrate skips it)", err)
		}
	}
	s, err := sqllease.New(db, sqllease.Options{Dialect: cfg.Dialect, Table: cfg.Table})
	if err != nil {
		return nil, configErr("the lease strategy", err)
	}
	opts := cfg.Lease
	opts.Factories = []*nonce.Factory{f}
	if !cfg.NoStateFile {
		opts.StateFile = cfg.StateFile
		if opts.StateFile == "" {
			opts.StateFile = DefaultStateFile
		}
	}
	m, err := lease.Start(ctx, s, opts)
	if err != nil {
		return nil, configErr("the lease", err)
	}
	once.DefaultBinding().Set(f)
	return &Generator{m: m, f: f}, nil
}

// configErr prefixes err with what failed, and adds ErrConfig when err is
// a configuration error of the package that reported it.
func configErr(what string, err error) error {
	if isConfig(err) {
		return fmt.Errorf("%w: %s: %w", ErrConfig, what, err)
	}
	return fmt.Errorf("oncesql: %s: %w", what, err)
}

func isConfig(err error) bool {
	return errors.Is(err, nonce.ErrConfig) || errors.Is(err, once.ErrConfig) ||
		errors.Is(err, lease.ErrConfig) || errors.Is(err, migrations.ErrConfig)
}

// Close stops generation, then releases the machine ID (bounded by ctx and
// Config.Lease.ReleaseTimeout); new IDs then fail with nonce.ErrDisabled.
// Close the database after it. It returns the release's error; calling it
// again returns the same.
func (g *Generator) Close(ctx context.Context) error { return g.m.Close(ctx) }

// Done is closed when the generator stops: after Close. (The SQL lease is
// acquired again after a loss, while Err reports the loss.)
func (g *Generator) Done() <-chan struct{} { return g.m.Done() }

// Err is nil while a lease is held; otherwise why not: the loss reason
// (lease.ErrLost, lease.ErrExpired, ...) while a new lease is acquired,
// lease.ErrClosed after Close.
func (g *Generator) Err() error { return g.m.Err() }

// MachineID is the machine ID held, or -1 while none is.
func (g *Generator) MachineID() int { return g.m.MachineID() }

// Factory is the nonce factory the lease protects and every ID type draws
// from: for raw nonces (Sortable64, Encrypted128, ...).
func (g *Generator) Factory() *nonce.Factory { return g.f }

// Manager is the lease manager, for what Generator does not repeat
// (LeaseLost).
func (g *Generator) Manager() *lease.Manager { return g.m }
