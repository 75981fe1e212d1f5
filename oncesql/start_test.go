package oncesql_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
	"github.com/once-go/once/oncesql"
)

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

type UserID = once.Typed[userSpec]

// badSpec has a prefix once.Check refuses.
type badSpec struct{}

func (badSpec) Options() once.Options { return once.Options{Prefix: "Bad Prefix!"} }

var testKey = []byte("0123456789abcdef0123456789abcdef-oncesql-test")

// databases are the databases Start runs on, each isolated for the test
// (a schema or database of its own, or a fresh SQLite file).
var databases = []struct {
	name string
	open func(t *testing.T) *sql.DB
}{
	{"sqlite", func(t *testing.T) *sql.DB { return testenv.SQLite(t) }},
	{"postgres", func(t *testing.T) *sql.DB { db, _ := testenv.PostgresSchema(t, "oncesql"); return db }},
	{"mariadb", func(t *testing.T) *sql.DB { db, _ := testenv.MySQLDatabase(t, "oncesql"); return db }},
}

// TestStart: on each database, Start creates the lease table, holds a
// machine ID, binds the factory for every ID type and records the lease in
// the state file; Close stops generation and releases the machine ID; a
// restart in the same place takes the same machine ID back.
func TestStart(t *testing.T) {
	for _, d := range databases {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			state := filepath.Join(t.TempDir(), "once-lease.json")
			ctx := context.Background()
			g, err := oncesql.Start(ctx, db, oncesql.Config{Key: testKey, Check: []once.Spec{UserID{}}, StateFile: state})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { once.DefaultBinding().Set(nil) })
			id := g.MachineID()
			if id < 0 || id > nonce.MaxMachineID {
				t.Fatalf("MachineID %d after Start", id)
			}
			var held int
			if err := db.QueryRow(`SELECT COUNT(*) FROM once_leases WHERE id = ` + strconv.Itoa(id) + ` AND token IS NOT NULL`).Scan(&held); err != nil || held != 1 {
				t.Fatalf("the lease table does not show machine ID %d held: count %d, %v", id, held, err)
			}
			u, err := once.NewAs[UserID]()
			if err != nil {
				t.Fatalf("NewAs after Start: %v", err)
			}
			if s := u.String(); !strings.HasPrefix(s, "usr_") || len(s) != 15 {
				t.Errorf("a new UserID spells %q, want usr_ and 11 masked characters", s)
			}
			if got := nonce.Split64(uint64(u.Int64()), g.Factory().Epoch()).MachineID; got != id {
				t.Errorf("a new ID carries machine ID %d, the lease holds %d", got, id)
			}
			if b, err := os.ReadFile(state); err != nil || !strings.Contains(string(b), `"machine_id"`) {
				t.Errorf("state file %s after Start: %q, %v", state, b, err)
			}
			if err := g.Close(ctx); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if _, err := once.NewAs[UserID](); !errors.Is(err, nonce.ErrDisabled) {
				t.Errorf("NewAs after Close: %v, want nonce.ErrDisabled", err)
			}
			if !errors.Is(g.Err(), lease.ErrClosed) {
				t.Errorf("Err after Close: %v, want lease.ErrClosed", g.Err())
			}
			select {
			case <-g.Done():
			default:
				t.Error("Done not closed after Close")
			}

			// Started again in the same place: the state file, free after
			// Close, serves the new generator.
			g2, err := oncesql.Start(ctx, db, oncesql.Config{Key: testKey, StateFile: state, Lease: lease.Options{AcquireTimeout: 10 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			defer g2.Close(ctx)
			if g2.MachineID() < 0 {
				t.Errorf("no machine ID after the restart")
			}
		})
	}
}

// TestStartDefaultStateFile: without StateFile the lease is recorded in
// once-lease.json in the working directory; with NoStateFile nowhere.
func TestStartDefaultStateFile(t *testing.T) {
	t.Chdir(t.TempDir())
	db := testenv.SQLite(t)
	ctx := context.Background()
	g, err := oncesql.Start(ctx, db, oncesql.Config{Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { once.DefaultBinding().Set(nil) })
	if _, err := os.Stat(oncesql.DefaultStateFile); err != nil {
		t.Errorf("default state file: %v", err)
	}
	// A second generator in the same place would share the file: refused.
	_, err = oncesql.Start(ctx, db, oncesql.Config{Key: testKey})
	if !errors.Is(err, oncesql.ErrConfig) || !strings.Contains(err.Error(), "StateFile") {
		t.Errorf("a second Start on the same state file: %v, want ErrConfig naming StateFile", err)
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	t.Chdir(dir)
	g, err = oncesql.Start(ctx, db, oncesql.Config{Key: testKey, NoStateFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(ctx)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("NoStateFile wrote %v", entries)
	}
}

// TestStartRefuses: settings Start cannot use fail before any lease is
// taken, with ErrConfig and a message naming the field; those Start can
// judge by itself fail before the lease table is created.
func TestStartRefuses(t *testing.T) {
	db := testenv.SQLite(t)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		cfg   oncesql.Config
		db    *sql.DB
		wants []string
		also  error
	}{
		{"no key", oncesql.Config{}, db, []string{"Config.Key", "openssl rand -hex 32"}, nil},
		{"short key", oncesql.Config{Key: []byte("short")}, db, []string{"Config.Key", "32"}, nonce.ErrConfig},
		{"demo key", oncesql.Config{Key: []byte("once-examples-demo-key-do-not-use-in-production")}, db, []string{"Config.Key"}, nonce.ErrConfig},
		{"bad type", oncesql.Config{Key: testKey, Check: []once.Spec{badSpec{}}}, db, []string{"Config.Check", "Prefix"}, once.ErrConfig},
		{"nil db", oncesql.Config{Key: testKey}, nil, []string{"db is nil"}, nil},
		{"both state settings", oncesql.Config{Key: testKey, StateFile: "x.json", NoStateFile: true}, db, []string{"NoStateFile"}, nil},
		{"factories", oncesql.Config{Key: testKey, Lease: lease.Options{Factories: []*nonce.Factory{nil}}}, db, []string{"Config.Lease.Factories"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := oncesql.Start(ctx, c.db, c.cfg)
			if err == nil {
				g.Close(ctx)
				t.Fatal("Start accepted it")
			}
			if !errors.Is(err, oncesql.ErrConfig) {
				t.Errorf("%v: does not match oncesql.ErrConfig", err)
			}
			if c.also != nil && !errors.Is(err, c.also) {
				t.Errorf("%v: does not match %v", err, c.also)
			}
			for _, w := range c.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v: does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "demo-key") {
				t.Errorf("%v: quotes the key", err)
			}
		})
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'once_leases'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("a refused Start created the lease table (%d, %v)", n, err)
	}

	// The lease manager's options are judged by lease.Start.
	_, err := oncesql.Start(ctx, db, oncesql.Config{Key: testKey, NoStateFile: true, Lease: lease.Options{LeaseDuration: time.Second}})
	if !errors.Is(err, oncesql.ErrConfig) || !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "LeaseDuration") {
		t.Errorf("LeaseDuration 1s: %v, want oncesql.ErrConfig and lease.ErrConfig naming LeaseDuration", err)
	}
}

// TestStartNoMigrate: with NoMigrate, Start takes the table as it is and
// fails when there is none, naming NoMigrate.
func TestStartNoMigrate(t *testing.T) {
	db := testenv.SQLite(t)
	_, err := oncesql.Start(context.Background(), db, oncesql.Config{Key: testKey, NoMigrate: true, NoStateFile: true,
		Lease: lease.Options{AcquireTimeout: 2 * time.Second}})
	if err == nil {
		t.Fatal("Start without a lease table and with NoMigrate succeeded")
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'once_leases'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("NoMigrate created the lease table (%d, %v)", n, err)
	}
}

// TestStartKeyring: with a keyring, masked types spell the current
// generation and read the others, and the lease holder records the
// current generation's key fingerprint, not that of Key.
func TestStartKeyring(t *testing.T) {
	k1, k2 := string(testKey), "fedcba9876543210fedcba9876543210-oncesql-gen2"
	r, err := once.ParseKeyring("1 " + k1 + "\n2 " + k2 + " current")
	if err != nil {
		t.Fatal(err)
	}
	db := testenv.SQLite(t)
	ctx := context.Background()
	g, err := oncesql.Start(ctx, db, oncesql.Config{Key: testKey, Keyring: r, Check: []once.Spec{UserID{}}, NoStateFile: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { once.DefaultBinding().SetKeyring(nil); once.DefaultBinding().Set(nil) })
	defer g.Close(ctx)
	u, err := once.NewAs[UserID]()
	if err != nil {
		t.Fatal(err)
	}
	if s := u.String(); !strings.HasPrefix(s, "usr2_") {
		t.Errorf("a new UserID spells %q, want the current generation's prefix usr2_", s)
	}
	gen1, err := u.Options().AppendGeneration(nil, once.FromInt64(u.Int64()), 1)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := once.ParseAs[UserID](string(gen1)); err != nil || back != u {
		t.Errorf("generation 1 spelling %q parses to %v, %v; want %v", gen1, back, err, u)
	}

	s, err := sqllease.New(db, sqllease.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fp1, _ := nonce.Fingerprint(testKey)
	if got := rows[g.MachineID()].Fingerprint; got != r.Fingerprint() || got == fp1 {
		t.Errorf("the lease holder recorded fingerprint %q; want the current generation's %q (Key's is %q)", got, r.Fingerprint(), fp1)
	}
}
