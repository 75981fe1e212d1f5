package soakrun

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/tests/faultproxy"
)

// coord is the coordinator of one run: the server, a fault proxy per
// worker in front of it, and what the runner can do to it.
type coord struct {
	name        string
	ns          string
	network     bool                                                         // workers reach it over TCP (through proxies)
	server      string                                                       // host:port the proxies forward to
	target      func(addr string) string                                     // the worker's DSN for a proxy address
	restart     func(ctx context.Context, proxies []*faultproxy.Proxy) error // nil: not supported
	restartKind string
	cleanup     func()
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// setupCoord prepares a fresh namespace on the coordinator: a table of
// its own on the shared SQL servers (whose "restart" kills our sessions:
// the shared servers are never restarted), or a private Redis, Valkey or
// etcd process (restarted for real, with its data kept).
func setupCoord(ctx context.Context, name, dir, ns string) (*coord, error) {
	c := &coord{name: name, ns: ns, network: true, cleanup: func() {}}
	switch name {
	case "postgres", "guard":
		c.server = "127.0.0.1:5432"
		c.target = func(a string) string { return "postgres://postgres@" + a + "/test?sslmode=disable" }
		admin, err := sql.Open("pgx", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
		if err != nil {
			return nil, err
		}
		c.restartKind = "coordinator-kill-sessions"
		c.restart = func(ctx context.Context, ps []*faultproxy.Proxy) error { return pgKill(ctx, admin, ps) }
		c.cleanup = func() { admin.Exec("DROP TABLE IF EXISTS " + ns); admin.Close() }
	case "postgres-private":
		// A PostgreSQL server of the run's own (initdb into -out), killed
		// with SIGKILL and started again (crash recovery) by the
		// coordinator fault: a real restart, unlike the shared server's.
		s, err := startServer(ctx, &server{kind: "postgres", bin: envOr("ONCE_TEST_PG_BINDIR", "/usr/lib/postgresql/15/bin"), dir: filepath.Join(dir, "postgres")})
		if err != nil {
			return nil, err
		}
		c.server = s.addr
		c.target = func(a string) string { return "postgres://postgres@" + a + "/postgres?sslmode=disable" }
		c.restartKind = "coordinator-restart"
		c.restart = func(ctx context.Context, _ []*faultproxy.Proxy) error { return s.restart(ctx) }
		c.cleanup = s.kill
	case "mariadb", "mysql9":
		port, dsnBase := "3306", "root@tcp(127.0.0.1:3306)/test?parseTime=true"
		if name == "mysql9" {
			port, dsnBase = "3307", envOr("ONCE_TEST_MYSQL9_DSN", "root@tcp(127.0.0.1:3307)/test?parseTime=true")
		}
		c.server = "127.0.0.1:" + port
		c.target = func(a string) string { return strings.Replace(dsnBase, "127.0.0.1:"+port, a, 1) }
		admin, err := sql.Open("mysql", dsnBase)
		if err != nil {
			return nil, err
		}
		c.restartKind = "coordinator-kill-sessions"
		c.restart = func(ctx context.Context, ps []*faultproxy.Proxy) error { return mysqlKill(ctx, admin, ps) }
		c.cleanup = func() { admin.Exec("DROP TABLE IF EXISTS " + ns); admin.Close() }
	case "sqlite":
		c.network = false
		path := filepath.Join(dir, "leases.db")
		c.target = func(string) string {
			return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
		}
	case "redis7", "redis8", "valkey9":
		bin := map[string]string{
			"redis7":  envOr("ONCE_TEST_REDIS7_BIN", "redis-server"),
			"redis8":  envOr("ONCE_TEST_REDIS8_BIN", filepath.Join(envOr("KV_DIR", "/opt/once-kv"), "redis8.sh")),
			"valkey9": envOr("ONCE_TEST_VALKEY9_BIN", filepath.Join(envOr("KV_DIR", "/opt/once-kv"), "valkey9.sh")),
		}[name]
		s, err := startServer(ctx, &server{kind: "redis", bin: bin, dir: filepath.Join(dir, name)})
		if err != nil {
			return nil, err
		}
		c.server = s.addr
		c.target = func(a string) string { return a }
		c.restartKind = "coordinator-restart"
		c.restart = func(ctx context.Context, _ []*faultproxy.Proxy) error { return s.restart(ctx) }
		c.cleanup = s.kill
	case "etcd":
		s, err := startServer(ctx, &server{kind: "etcd", bin: envOr("ONCE_TEST_ETCD_BIN", "etcd"), dir: filepath.Join(dir, "etcd")})
		if err != nil {
			return nil, err
		}
		c.server = s.addr
		c.target = func(a string) string { return a }
		c.restartKind = "coordinator-restart"
		c.restart = func(ctx context.Context, _ []*faultproxy.Proxy) error { return s.restart(ctx) }
		c.cleanup = s.kill
	case "kubernetes":
		// The shared kube-apiserver: each worker gets a copy of the
		// kubeconfig whose server is its proxy; a "restart" resets every
		// connection (the server itself is shared and not restarted).
		kc := envOr("ONCE_TEST_KUBECONFIG", "/tmp/once-k8s/kubeconfig")
		b, err := os.ReadFile(kc)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig: %w", err)
		}
		c.server = "127.0.0.1:6443"
		if i := strings.Index(string(b), "https://"); i >= 0 {
			if j := strings.IndexAny(string(b[i+8:]), "\"/ \n"); j >= 0 {
				c.server = string(b[i+8 : i+8+j])
			}
		}
		n := 0
		c.target = func(a string) string {
			n++
			p := filepath.Join(dir, fmt.Sprintf("kubeconfig.%d", n))
			os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "https://"+c.server, "https://"+a)), 0o600)
			return p
		}
		// Best effort: the run's Lease objects go with kubectl when it is
		// installed.
		c.cleanup = func() {
			exec.Command("kubectl", "--kubeconfig", kc, "delete", "leases", "-l", "once-go.github.io/pool="+strings.ReplaceAll(ns, "_", "-")).Run()
		}
		c.restartKind = "coordinator-reset-connections"
		c.restart = func(ctx context.Context, ps []*faultproxy.Proxy) error {
			for _, p := range ps {
				p.ResetAll()
			}
			return nil
		}
	case "redis-cluster":
		// Cluster clients follow the nodes' own addresses: no proxies.
		cl, err := startCluster(ctx, dir, ns)
		if err != nil {
			return nil, err
		}
		c.network = false
		c.target = func(string) string { return strings.Join(cl.addrs(), ",") }
		c.restartKind = "cluster-failover"
		c.restart = func(ctx context.Context, _ []*faultproxy.Proxy) error { return cl.failover(ctx) }
		c.cleanup = cl.kill
	default:
		return nil, fmt.Errorf("coordinator %q is not supported by the runner", name)
	}
	return c, nil
}

func upstreamPorts(ps []*faultproxy.Proxy) []string {
	var ports []string
	for _, p := range ps {
		for _, a := range p.UpstreamAddrs() {
			if _, port, err := net.SplitHostPort(a); err == nil {
				ports = append(ports, port)
			}
		}
	}
	return ports
}

// pgKill terminates our sessions (those behind the proxies) on the shared
// PostgreSQL server, as a server restart would end them.
func pgKill(ctx context.Context, admin *sql.DB, ps []*faultproxy.Proxy) error {
	ports := upstreamPorts(ps)
	if len(ports) == 0 {
		return errors.New("no open session to kill")
	}
	_, err := admin.ExecContext(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE client_port IN ("+
		strings.Join(ports, ",")+") AND pid <> pg_backend_pid()")
	return err
}

// mysqlKill kills our connections on the shared MariaDB / MySQL server.
func mysqlKill(ctx context.Context, admin *sql.DB, ps []*faultproxy.Proxy) error {
	want := map[string]bool{}
	for _, p := range upstreamPorts(ps) {
		want[p] = true
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
	for _, id := range ids {
		admin.ExecContext(ctx, "KILL CONNECTION "+strconv.FormatInt(id, 10))
	}
	return rows.Err()
}

// server is a private Redis/Valkey (append-only file, fsync always: a
// restart keeps every acknowledged lease) or etcd process on free ports.
type server struct {
	kind, bin, dir string
	addr, peer     string
	cmd            *exec.Cmd
	exited         chan struct{}
}

func startServer(ctx context.Context, s *server) (*server, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, err
	}
	var err error
	for range 3 {
		var p1, p2 int
		if p1, err = freePort(); err != nil {
			continue
		}
		if p2, err = freePort(); err != nil {
			continue
		}
		s.addr = "127.0.0.1:" + strconv.Itoa(p1)
		s.peer = "127.0.0.1:" + strconv.Itoa(p2)
		if err = s.start(ctx); err == nil {
			return s, nil
		}
	}
	return nil, fmt.Errorf("private %s (%s): %w", s.kind, s.bin, err)
}

func (s *server) start(ctx context.Context) error {
	var cmd *exec.Cmd
	log, err := os.OpenFile(filepath.Join(s.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	switch s.kind {
	case "redis":
		_, port, _ := net.SplitHostPort(s.addr)
		cmd = exec.Command(s.bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes",
			"--appendfsync", "always", "--daemonize", "no", "--dir", s.dir)
	case "postgres":
		cmd, err = s.postgres()
		if err != nil {
			return err
		}
	case "etcd":
		cmd = exec.Command(s.bin, "--name", "soak", "--data-dir", filepath.Join(s.dir, "data"),
			"--listen-client-urls", "http://"+s.addr, "--advertise-client-urls", "http://"+s.addr,
			"--listen-peer-urls", "http://"+s.peer, "--initial-advertise-peer-urls", "http://"+s.peer,
			"--initial-cluster", "soak=http://"+s.peer, "--log-level", "warn")
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := s.ping(ctx); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("%s on %s did not answer: %v", s.bin, s.addr, err)
		}
		select {
		case <-s.exited:
			return fmt.Errorf("%s on %s exited (see %s)", s.bin, s.addr, filepath.Join(s.dir, "server.log"))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *server) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	switch s.kind {
	case "redis":
		c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
		defer c.Close()
		return c.Ping(ctx).Err()
	case "postgres":
		db, err := sql.Open("pgx", "postgres://postgres@"+s.addr+"/postgres?sslmode=disable&connect_timeout=1")
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	default:
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", s.addr)
		if err != nil {
			return err
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET /health HTTP/1.0\r\nHost: %s\r\n\r\n", s.addr)
		conn.SetReadDeadline(time.Now().Add(time.Second))
		b := make([]byte, 512)
		n, _ := conn.Read(b)
		if !strings.Contains(string(b[:n]), "200 OK") {
			return fmt.Errorf("etcd /health: %.60q", b[:n])
		}
		return nil
	}
}

// restart kills the server with SIGKILL (its data survives: Redis's
// append-only file is fsynced on every write, etcd's WAL) and starts it
// again on the same ports.
func (s *server) restart(ctx context.Context) error {
	s.kill()
	var err error
	for range 20 { // the port may linger a moment
		if err = s.start(ctx); err == nil {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return err
}

func (s *server) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
}

// postgres returns the command that runs the private PostgreSQL server in
// s.dir/data (initdb first, when the directory is new) on s.addr. The
// server runs as the user postgres when the runner is root (PostgreSQL
// refuses root); fsync stays on, so a SIGKILL loses nothing committed.
func (s *server) postgres() (*exec.Cmd, error) {
	data := filepath.Join(s.dir, "data")
	var as []string
	if os.Geteuid() == 0 {
		as = []string{"runuser", "-u", "postgres", "--"}
		if err := exec.Command("chown", "-R", "postgres", s.dir).Run(); err != nil {
			return nil, fmt.Errorf("chown %s to postgres: %w", s.dir, err)
		}
	}
	command := func(args ...string) *exec.Cmd {
		args = append(slices.Clone(as), args...)
		return exec.Command(args[0], args[1:]...)
	}
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err != nil {
		out, err := command(filepath.Join(s.bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8").CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("initdb: %v: %s", err, lastLine(out))
		}
	}
	_, port, _ := net.SplitHostPort(s.addr)
	return command(filepath.Join(s.bin, "postgres"), "-D", data, "-p", port, "-k", s.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=on", "-c", "max_connections=50"), nil
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
