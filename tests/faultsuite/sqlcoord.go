package faultsuite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/once-go/once/internal/sqlitedrv"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/tests/faultproxy"
)

// sqlCoordinator is the table entry of one SQL dialect: a fresh lease
// table per test on the shared server (SQLite: a file of the test's own).
// Wiping loses our table's rows (DELETE, then migrations refill it);
// "restarting" kills our own sessions server-side. The shared PostgreSQL
// and MariaDB servers are never restarted.
func sqlCoordinator(name string, d migrations.Dialect) Coordinator {
	return Coordinator{
		Name:       name,
		Network:    d != migrations.SQLite,
		PrevExpiry: true,
		Setup:      func(t *testing.T, _ bool) *Space { return sqlSetup(t, d) },
		Connect:    func(target, ns string, pool int) (*Client, error) { return sqlConnect(d, target, ns, pool) },
	}
}

// sqlDriver is the database/sql driver name of d.
func sqlDriver(d migrations.Dialect) string {
	switch d {
	case migrations.Postgres:
		return "pgx"
	case migrations.MySQL:
		return "mysql"
	}
	return sqlitedrv.DriverName
}

func sqlConnect(d migrations.Dialect, target, table string, pool int) (*Client, error) {
	dsn := target
	if d == migrations.SQLite {
		dsn = sqliteDSN(target)
	}
	db, err := sql.Open(sqlDriver(d), dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	return &Client{
		Strategy: func(lowest bool) (driver.Strategy, error) {
			return sqllease.New(db, sqllease.Options{Dialect: d, Table: table, LowestFirst: lowest})
		},
		Close: db.Close,
	}, nil
}

// sqliteDSN is testenv's DSN (WAL, busy timeout) with synchronous=NORMAL:
// in WAL mode a commit then survives the crash of the process (what the
// suite does to holders) but not of the machine, and is not fsynced one by
// one, which would make 600 contenders on one file take half a minute.
func sqliteDSN(path string) string {
	return testenv.SQLiteDSN(path) + "&_pragma=synchronous(NORMAL)"
}

func sqlSetup(t *testing.T, d migrations.Dialect) *Space {
	t.Helper()
	var (
		admin    *sql.DB
		target   string
		upstream string
		via      func(string) string
		oneTrip  func(string) string
	)
	switch d {
	case migrations.Postgres:
		admin = testenv.Postgres(t)
		target = testenv.PostgresDSN()
		u, err := url.Parse(target)
		if err != nil {
			t.Fatalf("PostgreSQL DSN: %v", err)
		}
		upstream = u.Host
		via = func(addr string) string {
			v := *u
			v.Host = addr
			q := v.Query()
			q.Set("connect_timeout", "2")
			v.RawQuery = q.Encode()
			return v.String()
		}
	case migrations.MySQL:
		admin = testenv.MySQL(t)
		target = testenv.MySQLDSN()
		cfg, err := mysql.ParseDSN(target)
		if err != nil {
			t.Fatalf("MySQL DSN: %v", err)
		}
		upstream = cfg.Addr
		via = func(addr string) string {
			c := cfg.Clone()
			c.Addr = addr
			c.Timeout = 2 * time.Second
			return c.FormatDSN()
		}
		oneTrip = func(addr string) string {
			c := cfg.Clone()
			c.Addr = addr
			c.Timeout = 2 * time.Second
			c.InterpolateParams = true
			return c.FormatDSN()
		}
	default:
		target = testenv.SQLitePath(t)
		db, err := sql.Open(sqlitedrv.DriverName, sqliteDSN(target))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		admin = db
	}
	admin.SetMaxOpenConns(4)
	table := testenv.Unique(t, "fault")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := migrations.Apply(ctx, admin, d, table); err != nil {
		t.Fatalf("migrations.Apply: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := migrations.Down(ctx, admin, d, table); err != nil {
			t.Errorf("migrations.Down: %v", err)
		}
	})
	rows, err := sqllease.New(admin, sqllease.Options{Dialect: d, Table: table})
	if err != nil {
		t.Fatal(err)
	}
	quoted, err := migrations.QuoteTable(d, table)
	if err != nil {
		t.Fatal(err)
	}
	sp := &Space{
		NS: table, Target: target, Via: via, OneTrip: oneTrip, Upstream: upstream,
		Expiry: func(ctx context.Context, id int) (time.Time, bool, error) {
			rs, err := rows.Rows(ctx)
			if err != nil {
				return time.Time{}, false, err
			}
			for _, r := range rs {
				if r.ID == id {
					return r.ExpiresAt, r.Held, nil
				}
			}
			return time.Time{}, false, nil
		},
		Held: func(ctx context.Context) (int, error) {
			rs, err := rows.Rows(ctx)
			n := 0
			for _, r := range rs {
				if r.Held {
					n++
				}
			}
			return n, err
		},
		Fill: func(ctx context.Context, keep int, _ time.Duration) error {
			// Far-future expiries: held for the whole test.
			q := "UPDATE " + quoted + " SET token = ?, expires_at = ?, lock_version = lock_version + 1 WHERE id <> ?"
			until := "2100-01-01 00:00:00"
			switch d {
			case migrations.Postgres:
				q = "UPDATE " + quoted + " SET token = $1, expires_at = $2::timestamp, lock_version = lock_version + 1 WHERE id <> $3"
			case migrations.SQLite:
				until = "2100-01-01T00:00:00.000000Z"
			}
			_, err := admin.ExecContext(ctx, q, bytes.Repeat([]byte{0xee}, 16), until, keep)
			return err
		},
		Wipe: func(ctx context.Context) error {
			if _, err := admin.ExecContext(ctx, "DELETE FROM "+quoted); err != nil {
				return err
			}
			return migrations.Apply(ctx, admin, d, table)
		},
	}
	switch d {
	case migrations.Postgres:
		sp.Restart = func(ctx context.Context, p *faultproxy.Proxy) error { return pgKill(ctx, admin, p) }
	case migrations.MySQL:
		sp.Restart = func(ctx context.Context, p *faultproxy.Proxy) error { return mysqlKill(ctx, admin, p) }
	}
	return sp
}

// upstreamPorts are the local ports of p's connections to the server: the
// client ports the server sees for our sessions.
func upstreamPorts(p *faultproxy.Proxy) ([]int, error) {
	var ports []int
	for _, a := range p.UpstreamAddrs() {
		_, port, err := net.SplitHostPort(a)
		if err != nil {
			return nil, err
		}
		n, err := strconv.Atoi(port)
		if err != nil {
			return nil, err
		}
		ports = append(ports, n)
	}
	if len(ports) == 0 {
		return nil, errors.New("no open connection through the proxy: nothing to kill")
	}
	return ports, nil
}

// pgKill terminates our sessions (those behind proxy p) on the shared
// PostgreSQL server, as a server restart would end them.
func pgKill(ctx context.Context, admin *sql.DB, p *faultproxy.Proxy) error {
	ports, err := upstreamPorts(p)
	if err != nil {
		return err
	}
	list := make([]string, len(ports))
	for i, n := range ports {
		list[i] = strconv.Itoa(n)
	}
	var killed int
	q := "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE client_port IN (" +
		strings.Join(list, ",") + ") AND pid <> pg_backend_pid()) AS k"
	if err := admin.QueryRowContext(ctx, q).Scan(&killed); err != nil {
		return err
	}
	if killed == 0 {
		return fmt.Errorf("no PostgreSQL session on client ports %v", ports)
	}
	return nil
}

// mysqlKill kills our connections (those behind proxy p) on the shared
// MariaDB server.
func mysqlKill(ctx context.Context, admin *sql.DB, p *faultproxy.Proxy) error {
	ports, err := upstreamPorts(p)
	if err != nil {
		return err
	}
	want := make(map[string]bool, len(ports))
	for _, n := range ports {
		want[strconv.Itoa(n)] = true
	}
	rows, err := admin.QueryContext(ctx, "SELECT ID, HOST FROM information_schema.PROCESSLIST")
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		var host string
		if err := rows.Scan(&id, &host); err != nil {
			rows.Close()
			return err
		}
		if i := strings.LastIndexByte(host, ':'); i >= 0 && want[host[i+1:]] {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(ids) == 0 {
		return fmt.Errorf("no MariaDB connection on client ports %v", ports)
	}
	for _, id := range ids {
		if _, err := admin.ExecContext(ctx, "KILL CONNECTION "+strconv.FormatInt(id, 10)); err != nil {
			return err
		}
	}
	return nil
}
