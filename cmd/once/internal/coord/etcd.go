//go:build etcd

package coord

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/once-go/once/cmd/once/internal/msg"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/etcdlease"
)

func init() {
	Register(&Driver{Name: "etcd", NoMigrate: true, ReleaseHold: etcdlease.DefaultReleaseHold,
		DSN:  "http://[USER:PASS@]HOST:2379[,http://HOST:PORT...] (also https://, HOST:PORT); --table is the key prefix (default once_leases/)",
		Open: openEtcd})
}

// etcdConfig parses --dsn: comma-separated client endpoints, each
// http://HOST:PORT, https://HOST:PORT (TLS with the system's roots) or a
// bare HOST:PORT; credentials, if any, in the first one's user info.
func etcdConfig(dsn string) (clientv3.Config, error) {
	cfg := clientv3.Config{DialTimeout: 5 * time.Second, Logger: zap.NewNop()}
	var scheme string
	for i, ep := range strings.Split(dsn, ",") {
		ep = strings.TrimSpace(ep)
		if ep == "" {
			return cfg, fmt.Errorf("--dsn: empty endpoint in %s", msg.Quote(dsn))
		}
		if !strings.Contains(ep, "://") {
			ep = "http://" + ep
		}
		u, err := url.Parse(ep)
		if err != nil {
			return cfg, fmt.Errorf("--dsn: %v", err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return cfg, fmt.Errorf("--dsn: scheme %s is not http or https", msg.Quote(u.Scheme))
		}
		if scheme != "" && u.Scheme != scheme {
			return cfg, errors.New("--dsn: mixes http and https endpoints")
		}
		scheme = u.Scheme
		if u.Host == "" || u.Port() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return cfg, fmt.Errorf("--dsn: endpoint %s is not SCHEME://HOST:PORT", msg.Quote(u.Redacted()))
		}
		if u.User != nil {
			if i > 0 {
				return cfg, errors.New("--dsn: put USER:PASS@ in the first endpoint only")
			}
			cfg.Username = u.User.Username()
			cfg.Password, _ = u.User.Password()
		}
		cfg.Endpoints = append(cfg.Endpoints, u.Scheme+"://"+u.Host)
	}
	if scheme == "https" {
		cfg.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return cfg, nil
}

// openEtcd prepares a client of an etcd cluster; its check reads the key
// range of the prefix.
func openEtcd(ctx context.Context, cfg Config) (*Backend, error) {
	ccfg, err := etcdConfig(cfg.DSN)
	if err != nil {
		return nil, UsageError{Err: err}
	}
	ccfg.Context = ctx
	c, err := clientv3.New(ccfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to etcd: %w", err)
	}
	s, err := etcdlease.New(c, etcdlease.Options{Prefix: cfg.Table, ReleaseHold: releaseHold(cfg)})
	if err != nil {
		c.Close()
		return nil, UsageError{Err: fmt.Errorf("--table: %w", err)}
	}
	check := func(ctx context.Context) error {
		err := s.Check(ctx)
		if err == nil || errors.Is(err, lease.ErrConfig) {
			return err
		}
		return fmt.Errorf("connecting to etcd at %s: %w", strings.Join(ccfg.Endpoints, ","), err)
	}
	return &Backend{
		Strategy: s,
		Check:    check,
		Released: etcdReleased,
		Close:    c.Close,
	}, nil
}

// etcdReleased reports a key that etcdlease keeps, after a release, under
// the value "released" for its release hold (see etcdlease's List): its
// token is the hold's etcd lease ID, a dot, and that value.
func etcdReleased(s driver.Slot) bool {
	return s.Holder == "" && strings.HasSuffix(s.Token, ".released")
}
