package coord

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/once-go/once/cmd/once/internal/msg"
)

// SQLiteDSN turns --dsn into the driver's DSN: a plain path becomes a file:
// URI that waits up to 10 s for locks held by other processes; a file: URI
// is used as is. Unless create, the database is opened without creating
// it (mode=rw, unless the URI sets a mode). Missing files and directories
// are reported here, in terms of --dsn: SQLite's own error for them is
// "unable to open database file".
func SQLiteDSN(dsn string, create bool) (string, error) {
	uri := strings.HasPrefix(dsn, "file:")
	path := dsn
	query := ""
	if uri {
		path, query, _ = strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
		if p, err := url.PathUnescape(path); err == nil {
			path = p
		}
	} else {
		dsn = "file:" + dsn + "?_pragma=busy_timeout(10000)"
	}
	if path != "" && !strings.HasPrefix(path, ":") { // not ":memory:"
		dir := filepath.Dir(path)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return "", fmt.Errorf("--dsn %s: no such directory %s", msg.Quote(path), msg.Quote(dir))
		}
		if _, err := os.Stat(path); !create && errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("--dsn %s: no such file (once lease migrate creates the database)", msg.Quote(path))
		}
	}
	if q, _ := url.ParseQuery(query); !create && !q.Has("mode") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + "mode=rw"
	}
	return dsn, nil
}

// MySQLDSN accepts a go-sql-driver DSN (USER@tcp(HOST:PORT)/DB?...) as is,
// and the spellings of a DATABASE_URL that the examples accept: mysql:// or
// mariadb:// followed by such a DSN, or by USER[:PASS]@HOST[:PORT]/DB?...
// (port 3306 by default).
func MySQLDSN(dsn string) (string, error) {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok || (scheme != "mysql" && scheme != "mariadb") {
		return dsn, nil
	}
	if strings.Contains(rest, "@tcp(") || strings.Contains(rest, "@unix(") || strings.HasPrefix(rest, "tcp(") || strings.HasPrefix(rest, "unix(") {
		cfg, err := mysql.ParseDSN(rest)
		if err != nil {
			return "", UsageError{Err: fmt.Errorf("--dsn: %v", err)}
		}
		return cfg.FormatDSN(), nil
	}
	u, err := url.Parse("mysql://" + rest)
	if err != nil || u.Host == "" {
		return "", UsageError{Err: fmt.Errorf("--dsn: not %s://USER[:PASS]@HOST[:PORT]/DB or %s://USER[:PASS]@tcp(HOST:PORT)/DB", scheme, scheme)}
	}
	cfg := mysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", u.Host, strings.TrimPrefix(u.Path, "/")
	if u.Port() == "" {
		cfg.Addr = net.JoinHostPort(u.Hostname(), "3306")
	}
	if u.RawQuery != "" {
		// The query parameters are go-sql-driver's: let its parser read them.
		q, err := mysql.ParseDSN(cfg.FormatDSN() + "?" + u.RawQuery)
		if err != nil {
			return "", UsageError{Err: fmt.Errorf("--dsn: %v", err)}
		}
		cfg = q
	}
	return cfg.FormatDSN(), nil
}
