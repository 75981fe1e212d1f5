package soakwork

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // registers "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"

	_ "github.com/once-go/once/internal/sqlitedrv" // registers "sqlite"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/envlease"
	"github.com/once-go/once/lease/etcdlease"
	"github.com/once-go/once/lease/guardlease"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// Coordinators the soak runs on.
var Coordinators = []string{"postgres", "postgres-private", "mariadb", "mysql9", "sqlite", "redis7", "redis8", "valkey9", "redis-cluster", "etcd", "kubernetes", "guard"}

// FixedIDVar names the environment variable from which a worker on the
// "guard" coordinator reads its fixed machine ID (envlease), guarded by a
// lease in PostgreSQL (guardlease): two workers that share an ID take
// turns, as two pods with one StatefulSet ordinal do in a rolling deploy.
const FixedIDVar = "ONCE_SOAK_FIXED_ID"

// ReleaseHoldVar names the environment variable that makes the Redis
// coordinators (redis7, redis8, valkey9) release the way the Elixir
// library does: "delete" sets redislease.Options.ReleaseHold negative (a
// release deletes the lease at once, and each new holder's first
// timestamp waits about the hand-off skew); anything else keeps the
// default hold. The runner sets it for every process of a run, since all
// holders of a NAME must agree.
const ReleaseHoldVar = "ONCE_SOAK_RELEASE_HOLD"

// releaseHold is redislease.Options.ReleaseHold as ReleaseHoldVar says.
func releaseHold() time.Duration {
	if os.Getenv(ReleaseHoldVar) == "delete" {
		return -1
	}
	return 0
}

// Connect opens the coordinator the way a service does (its own client,
// the table created at every start) and returns the strategy and a
// closer. A non-nil ids restricts the strategy to those machine IDs
// (Options.MachineIDs).
func Connect(ctx context.Context, coord, target, ns string, ids *driver.IDRange) (driver.Strategy, func() error, error) {
	switch coord {
	case "guard":
		s, closeFn, err := Connect(ctx, "postgres", target, ns, ids)
		if err != nil || os.Getenv(FixedIDVar) == "" {
			return s, closeFn, err // the runner's forced free: the coordinator itself
		}
		g, err := guardlease.New(envlease.New(FixedIDVar, 0), s.(guardlease.Coordinator), "the soak's PostgreSQL table")
		if err != nil {
			closeFn()
			return nil, nil, err
		}
		return g, closeFn, nil
	case "postgres", "postgres-private", "mariadb", "mysql9", "sqlite":
		driver := map[string]string{"postgres": "pgx", "postgres-private": "pgx", "mariadb": "mysql", "mysql9": "mysql", "sqlite": "sqlite"}[coord]
		db, err := sql.Open(driver, target)
		if err != nil {
			return nil, nil, err
		}
		db.SetMaxOpenConns(4)
		if err := migrations.Apply(ctx, db, 0, ns); err != nil {
			db.Close()
			return nil, nil, fmt.Errorf("migrations.Apply: %w", err)
		}
		s, err := sqllease.New(db, sqllease.Options{Table: ns, MachineIDs: ids})
		if err != nil {
			db.Close()
			return nil, nil, err
		}
		return s, db.Close, nil
	case "redis7", "redis8", "valkey9":
		mode := redislease.ModeHash
		if coord == "redis7" {
			mode = redislease.ModeKey
		}
		c := redis.NewClient(&redis.Options{Addr: target, DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second, ContextTimeoutEnabled: true})
		s, err := redislease.New(c, redislease.Options{Mode: mode, Name: ns, MachineIDs: ids, ReleaseHold: releaseHold()})
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		return s, c.Close, nil
	case "redis-cluster":
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(target, ","), DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: time.Second, ContextTimeoutEnabled: true})
		// Every claim and renewal waits for the one replica a failover
		// may promote.
		s, err := redislease.New(c, redislease.Options{Mode: redislease.ModeKey, Name: ns, WaitReplicas: 1, MachineIDs: ids})
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		return s, c.Close, nil
	case "kubernetes":
		// target is a kubeconfig file (the runner's copy points at the
		// worker's proxy); ns the Lease name prefix.
		cfg, kns, err := k8slease.LoadConfig(target)
		if err != nil {
			return nil, nil, err
		}
		// A waiting worker tries every Align, a few requests a try: above
		// client-go's default rate limit (5 requests a second), which
		// would queue its claims for up to a second and spread the
		// simultaneous claims the beat is for.
		cfg.QPS, cfg.Burst = 100, 200
		cs, err := k8slease.NewClientset(cfg)
		if err != nil {
			return nil, nil, err
		}
		s, err := k8slease.New(cs, k8slease.Options{Namespace: kns, Prefix: strings.ReplaceAll(ns, "_", "-"), MachineIDs: ids})
		if err != nil {
			return nil, nil, err
		}
		return s, func() error { return nil }, nil
	case "etcd":
		c, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(target, ","), DialTimeout: 2 * time.Second})
		if err != nil {
			return nil, nil, err
		}
		s, err := etcdlease.New(c, etcdlease.Options{Prefix: ns + "/", MachineIDs: ids})
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		return s, c.Close, nil
	}
	return nil, nil, fmt.Errorf("unknown coordinator %q (one of %s)", coord, strings.Join(Coordinators, ", "))
}
