package k8slease_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/once-go/once/internal/testenv"
)

// apiServer is a private kube-apiserver for tests that kill, restart or
// reconfigure one (never the shared server other tests use): its own
// loopback port, its own key prefix in the shared etcd, RBAC
// authorization, and static tokens for an admin (system:masters) and the
// users named at start. It is killed when the test ends and its etcd
// prefix deleted.
type apiServer struct {
	bin, dir, etcd, prefix string
	port                   int
	tokens                 map[string]string // user -> bearer token

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// apiServerBinary is ONCE_TEST_KUBE_APISERVER, or the binary
// ../shared/tools/k8s-apiserver.sh builds into $K8S_DIR (/tmp/once-k8s).
func apiServerBinary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("ONCE_TEST_KUBE_APISERVER")
	if bin == "" {
		dir := os.Getenv("K8S_DIR")
		if dir == "" {
			dir = "/tmp/once-k8s"
		}
		bin = filepath.Join(dir, "kube-apiserver")
	}
	if _, err := os.Stat(bin); err != nil {
		testenv.Unavailable(t, "no kube-apiserver binary at "+bin+" (run ../shared/tools/k8s-apiserver.sh build, or set ONCE_TEST_KUBE_APISERVER)")
	}
	return bin
}

// startAPIServer starts a private server with users (besides "admin").
func startAPIServer(t testing.TB, users ...string) *apiServer {
	t.Helper()
	eps := testenv.Etcd(t)
	s := &apiServer{bin: apiServerBinary(t), dir: t.TempDir(), etcd: "http://" + eps[0], tokens: map[string]string{}}
	var b [6]byte
	rand.Read(b[:])
	s.prefix = "/once-k8s-test-" + hex.EncodeToString(b[:])
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(filepath.Join(s.dir, "sa.key"), keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	for i, u := range append([]string{"admin"}, users...) {
		rand.Read(b[:])
		s.tokens[u] = hex.EncodeToString(b[:])
		groups := ""
		if i == 0 {
			groups = ",system:masters"
		}
		fmt.Fprintf(&csv, "%s,%s,uid-%s%s\n", s.tokens[u], u, u, groups)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "tokens.csv"), []byte(csv.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 3 { // a free port can be taken between probing and binding
		s.port = testenv.FreePort(t)
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("private kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		s.kill()
		deleteEtcdPrefix(s.etcd, s.prefix+"/")
	})
	return s
}

// addr is the server's host:port.
func (s *apiServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// config is a client configuration for user (TLS verification off: the
// server's certificate is self-signed), without client-side rate limits.
func (s *apiServer) config(user string) *rest.Config {
	return &rest.Config{Host: "https://" + s.addr(), BearerToken: s.tokens[user], QPS: -1,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
}

// start runs the server and waits until it is ready.
func (s *apiServer) start() error {
	log, err := os.OpenFile(filepath.Join(s.dir, "apiserver.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin, "--etcd-servers="+s.etcd, "--etcd-prefix="+s.prefix,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+filepath.Join(s.dir, "sa.key"),
		"--service-account-signing-key-file="+filepath.Join(s.dir, "sa.key"),
		"--token-auth-file="+filepath.Join(s.dir, "tokens.csv"), "--authorization-mode=RBAC",
		fmt.Sprintf("--secure-port=%d", s.port), "--bind-address=127.0.0.1",
		"--cert-dir="+filepath.Join(s.dir, "certs"), "--service-cluster-ip-range=10.96.0.0/16")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(exited) }()
	s.mu.Lock()
	s.cmd, s.exited = cmd, exited
	s.mu.Unlock()
	deadline := time.Now().Add(120 * time.Second)
	for {
		err := ready(s.config("admin"), 2*time.Second)
		switch {
		case err == nil:
			return nil
		case time.Now().After(deadline):
			s.kill()
			return fmt.Errorf("not ready after 120s: %v (log %s)", err, s.logTail())
		}
		select {
		case <-exited:
			return fmt.Errorf("exited: %s", s.logTail())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (s *apiServer) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "apiserver.log"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(len(lines)-5, 0):], "\n")
}

// kill ends the server with SIGKILL.
func (s *apiServer) kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd != nil {
		cmd.Process.Kill()
		<-exited
	}
}

// restart kills the server and starts it again on the same port and etcd
// prefix: its data survives.
func (s *apiServer) restart() error {
	s.kill()
	return s.start()
}

// deleteEtcdPrefix deletes every key under prefix through etcd's JSON
// gateway, best effort.
func deleteEtcdPrefix(etcd, prefix string) {
	end := []byte(prefix)
	end[len(end)-1]++
	body := fmt.Sprintf(`{"key":%q,"range_end":%q}`,
		base64.StdEncoding.EncodeToString([]byte(prefix)), base64.StdEncoding.EncodeToString(end))
	c := http.Client{Timeout: 10 * time.Second}
	if resp, err := c.Post(etcd+"/v3/kv/deleterange", "application/json", bytes.NewBufferString(body)); err == nil {
		resp.Body.Close()
	}
}
