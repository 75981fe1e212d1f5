package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// childEnv makes the test binary run the program (TestCrashRestart kills
// it with SIGKILL, which an in-process run cannot survive).
const childEnv = "DEPLOYMENT_EXAMPLE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// kubeconfig is ONCE_TEST_KUBECONFIG, or the test API server's
// (../shared/tools/k8s-apiserver.sh), after checking that the server
// answers; it skips the test with the reason, or fails it when
// ONCE_TEST_REQUIRE=1.
func kubeconfig(t *testing.T) (string, kubernetes.Interface) {
	t.Helper()
	path := os.Getenv("ONCE_TEST_KUBECONFIG")
	if path == "" {
		path = "/tmp/once-k8s/kubeconfig"
	}
	if _, err := os.Stat(path); err != nil {
		testenv.Unavailable(t, "no kubeconfig at "+path+" (set ONCE_TEST_KUBECONFIG, or run ../shared/tools/k8s-apiserver.sh start)")
		return "", nil
	}
	cfg, _, err := k8slease.LoadConfig(path)
	require.NoError(t, err)
	cs, err := k8slease.NewClientset(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error(); err != nil {
		testenv.Unavailable(t, "kube-apiserver at "+cfg.Host+" not ready: "+strings.SplitN(err.Error(), "\n", 2)[0])
	}
	return path, cs
}

// namespace creates a fresh namespace, deleted (with its objects) when the
// test ends; no namespace controller runs beside the test server, so the
// test deletes what it made and finalizes the namespace itself.
func namespace(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	name := strings.ReplaceAll(testenv.Unique(t, "ex"), "_", "-")
	ctx := context.Background()
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err, "namespace %s", name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		deleteAll(ctx, cs, name)
		if cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}) == nil {
			if n, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{}); err == nil {
				n.Spec.Finalizers = nil
				cs.CoreV1().Namespaces().Finalize(ctx, n, metav1.UpdateOptions{})
			}
		}
	})
	return name
}

// deleteAll deletes the kinds of objects the tests create in ns.
func deleteAll(ctx context.Context, cs kubernetes.Interface, ns string) {
	all, none := metav1.DeleteOptions{}, metav1.ListOptions{}
	cs.CoordinationV1().Leases(ns).DeleteCollection(ctx, all, none)
	cs.AppsV1().Deployments(ns).DeleteCollection(ctx, all, none)
	cs.AppsV1().StatefulSets(ns).DeleteCollection(ctx, all, none)
	cs.CoreV1().Secrets(ns).DeleteCollection(ctx, all, none)
	cs.CoreV1().ServiceAccounts(ns).DeleteCollection(ctx, all, none)
	cs.RbacV1().Roles(ns).DeleteCollection(ctx, all, none)
	cs.RbacV1().RoleBindings(ns).DeleteCollection(ctx, all, none)
	if svcs, err := cs.CoreV1().Services(ns).List(ctx, none); err == nil {
		for _, s := range svcs.Items {
			cs.CoreV1().Services(ns).Delete(ctx, s.Name, all)
		}
	}
}

// lineWriter hands each line written to it to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   strings.Builder
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		s := w.buf.String()
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines <- s[:i]
		w.buf.Reset()
		w.buf.WriteString(s[i+1:])
	}
}

var listening = regexp.MustCompile(`machine ID (\d+) \(Lease (\S+)\); listening on (\S+)`)

// waitListening reads lines until the program says it listens, returning
// the machine ID, Lease and base URL.
func waitListening(t *testing.T, lines <-chan string, failed <-chan error) (id, leaseName, base string) {
	t.Helper()
	for {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "the program's output ended before it listened")
			t.Log(l)
			if m := listening.FindStringSubmatch(l); m != nil {
				return m[1], m[2], m[3]
			}
		case err := <-failed:
			require.Failf(t, "the program ended early", "error: %v", err)
		case <-time.After(60 * time.Second):
			require.Fail(t, "not listening after 60s")
		}
	}
}

// testKey is the ONCE_KEY of the tests (what openssl rand -hex 32 prints).
const testKey = "5be2c9d04f1a7e38b6d9c0a2f4e6b8d1c3a5e7f9021b4d6f8a0c2e4f6a8b0c2d"

// TestNoKey: without ONCE_KEY the program refuses to start (no demo key to
// fall back to), saying how to make the Secret, before it reaches the API
// server; with the placeholder of deployment.yaml's Secret it refuses too.
func TestNoKey(t *testing.T) {
	t.Setenv("ADDR", "127.0.0.1:0")
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "no-kubeconfig"))
	t.Setenv("ONCE_KEY", "")
	var out strings.Builder
	err := run(t.Context(), &out)
	if assert.Error(t, err, "run without ONCE_KEY; output:\n%s", out.String()) {
		assert.Contains(t, err.Error(), "ONCE_KEY is not set", "run without ONCE_KEY: want the missing key named")
		assert.Contains(t, err.Error(), "openssl rand -hex 32")
	}

	b, err := os.ReadFile("../deployment.yaml")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s*ONCE_KEY:\s*"([^"]+)"`).FindSubmatch(b)
	require.NotNil(t, m, "deployment.yaml sets no ONCE_KEY")
	t.Setenv("ONCE_KEY", string(m[1]))
	assert.ErrorIs(t, run(t.Context(), io.Discard), nonce.ErrConfig, "run with the manifest's placeholder ONCE_KEY")
}

// TestExample runs two instances of the program (two pods) on the test API
// server: they get distinct machine IDs, serve IDs, and on shutdown drain,
// then release: the Lease's holder is cleared and the state file emptied.
func TestExample(t *testing.T) {
	path, cs := kubeconfig(t)
	ns := namespace(t, cs)
	t.Setenv("KUBECONFIG", path)
	t.Setenv("ONCE_LEASE_NAMESPACE", ns)
	t.Setenv("ADDR", "127.0.0.1:0")
	t.Setenv("ONCE_KEY", testKey)
	seen := map[string]bool{}
	for i := range 2 {
		state := filepath.Join(t.TempDir(), "lease")
		t.Setenv("ONCE_STATE_FILE", state)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out := &lineWriter{lines: make(chan string, 16)}
		done := make(chan error, 1)
		go func() { done <- run(ctx, out) }()
		id, leaseName, base := waitListening(t, out.lines, done)
		require.False(t, seen[id], "pod %d got machine ID %s, already held by the other", i, id)
		seen[id] = true
		resp, err := http.Get(base + "/id")
		require.NoError(t, err)
		var body map[string]string
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		_, err = once.ParseAs[OrderID](body["id"])
		assert.NoError(t, err, "GET /id: %v", body)
		if i == 0 {
			continue // keep the first pod running while the second starts
		}
		cancel()
		assert.NoError(t, <-done, "run")
		name := strings.TrimPrefix(leaseName, ns+"/")
		rec, err := cs.CoordinationV1().Leases(ns).Get(context.Background(), name, metav1.GetOptions{})
		if assert.NoError(t, err, "after shutdown Lease %s", name) {
			assert.Nil(t, rec.Spec.HolderIdentity, "after shutdown Lease %s: %v; want it released", name, rec)
		}
		b, _ := os.ReadFile(state)
		assert.Empty(t, strings.TrimSpace(string(b)), "state file still holds a lease after a clean shutdown")
	}
}

// child runs the program in a child process with env (name=value).
type child struct {
	cmd    *exec.Cmd
	lines  chan string
	ended  chan error    // the exit, once
	exited chan struct{} // closed on exit
}

func startChild(t *testing.T, env ...string) *child {
	t.Helper()
	c := &child{lines: make(chan string, 64), ended: make(chan error, 1), exited: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], "-test.run=^$")
	c.cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	stdout, err := c.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, c.cmd.Start())
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.ended <- c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() { c.cmd.Process.Kill(); <-c.exited })
	return c
}

// TestCrashRestart: a container restarting in its pod. The program is
// killed with SIGKILL (no release) and started again with the same state
// file (the pod's emptyDir): it takes its own unexpired lease back at once
// (same machine ID, a new token, no new Lease, no takeover counted). Without
// the state file a restart takes another ID and leaves the old one held
// until it expires: how a crash loop drains the pool.
func TestCrashRestart(t *testing.T) {
	path, cs := kubeconfig(t)
	ns := namespace(t, cs)
	state := filepath.Join(t.TempDir(), "lease")
	env := []string{"KUBECONFIG=" + path, "ONCE_LEASE_NAMESPACE=" + ns, "ADDR=127.0.0.1:0", "ONCE_KEY=" + testKey}
	start := func(state string) (id, leaseName string) {
		c := startChild(t, append(env, "ONCE_STATE_FILE="+state)...)
		id, leaseName, _ = waitListening(t, c.lines, c.ended)
		c.cmd.Process.Kill()
		<-c.exited
		return id, leaseName
	}
	id1, name := start(state)
	name = strings.TrimPrefix(name, ns+"/")
	before, err := cs.CoordinationV1().Leases(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	t0 := time.Now()
	id2, _ := start(state)
	t.Logf("restart with the state file: machine ID %s, then %s (%v to listen again)", id1, id2, time.Since(t0).Round(time.Millisecond))
	require.Equal(t, id1, id2, "restarted with its state file, the program took another machine ID than the one it held")
	after, err := cs.CoordinationV1().Leases(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, *before.Spec.HolderIdentity, *after.Spec.HolderIdentity, "reclaim: holder; want a new token")
	assert.Equal(t, *before.Spec.LeaseTransitions, *after.Spec.LeaseTransitions, "reclaim: transitions; want no takeover")
	id3, _ := start(filepath.Join(t.TempDir(), "lease"))
	leases, err := cs.CoordinationV1().Leases(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	t.Logf("restart without it: machine ID %s; %d Leases held", id3, len(leases.Items))
	assert.NotEqual(t, id1, id3, "a restart without the state file took the killed one's machine ID")
	assert.Equal(t, 2, len(leases.Items), "Leases after a restart without the state file (machine ID %s, the killed one held %s); want another ID and 2 Leases", id3, id1)
}
