//go:build kubernetes

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/k8slease"
)

func init() {
	buildTags = append(buildTags, "kubernetes")
	taggedBackends = append(taggedBackends, leaseBackend{name: "kubernetes", setup: k8sCLISetup})
	taggedDead["kubernetes"] = func(t *testing.T, _ string) []string {
		return []string{"--driver", "kubernetes", "--dsn", deadKubeconfig(t)}
	}
}

// testKubeconfig is ONCE_TEST_KUBECONFIG, or where
// ../shared/tools/k8s-apiserver.sh (and CI) write the test API server's.
func testKubeconfig() string {
	if p := os.Getenv("ONCE_TEST_KUBECONFIG"); p != "" {
		return p
	}
	return "/tmp/once-k8s/kubeconfig"
}

// k8sCLISetup creates a fresh namespace on the test API server (deleted
// when the test ends) and a copy of the test kubeconfig whose context
// names it, and returns the CLI flags that select a fresh Lease prefix
// there and a function that makes another holder take machine IDs
// 0..n-1 for an hour. It skips the test with a reason when the server
// does not answer (fails it with ONCE_TEST_REQUIRE=1).
func k8sCLISetup(t *testing.T) ([]string, func(t *testing.T, n int)) {
	t.Helper()
	path := testKubeconfig()
	if _, err := os.Stat(path); err != nil {
		testenv.Unavailable(t, "no kubeconfig at "+path+" (set ONCE_TEST_KUBECONFIG, or run ../shared/tools/k8s-apiserver.sh start)")
	}
	cfg, _, err := k8slease.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS = -1 // the claims make 512 requests
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error(); err != nil {
		testenv.Unavailable(t, "kube-apiserver at "+cfg.Host+" not ready: "+firstLine(err.Error())+" (run ../shared/tools/k8s-apiserver.sh start)")
	}
	ns := dnsName(testenv.Unique(t, "cli"), 63)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", ns, err)
	}
	t.Cleanup(func() { deleteNamespace(cs, ns) })

	kc, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kc.Contexts[kc.CurrentContext].Namespace = ns
	copied := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, copied); err != nil {
		t.Fatal(err)
	}
	prefix := dnsName(testenv.Unique(t, "p"), 40)
	flags := []string{"--driver", "kubernetes", "--dsn", copied, "--table", prefix}
	return flags, func(t *testing.T, n int) {
		t.Helper()
		s, err := k8slease.New(cs, k8slease.Options{Namespace: ns, Prefix: prefix, LowestFirst: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, err := s.Acquire(context.Background(), time.Hour); err != nil {
				t.Fatalf("claim %d of %d: %v", i+1, n, err)
			}
		}
	}
}

// dnsName makes s a DNS label of at most n bytes.
func dnsName(s string, n int) string {
	s = strings.ToLower(strings.ReplaceAll(s, "_", "-"))
	if len(s) > n {
		s = s[:n/3] + s[len(s)-(n-n/3):]
	}
	return strings.Trim(s, "-")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// deleteNamespace deletes ns's Leases and ns itself, best effort
// (finalizing it: no namespace controller runs beside the test server).
func deleteNamespace(cs kubernetes.Interface, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = cs.CoordinationV1().Leases(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		return
	}
	if n, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
		n.Spec.Finalizers = nil
		_, _ = cs.CoreV1().Namespaces().Finalize(ctx, n, metav1.UpdateOptions{})
	}
}

// TestK8sLeaseHold: hold --driver kubernetes prints machine_id=N in the
// kubeconfig's namespace, ls shows the hold process as its holder, SIGTERM
// releases it (exit 0) and ls shows it free; migrate says none is needed.
func TestK8sLeaseHold(t *testing.T) {
	t.Parallel()
	flags, claim := k8sCLISetup(t)
	claim(t, 2)
	p := startHold(t, append(flags, shortLease...)...)
	id := p.machineID(t)
	rows := ls(t, flags)
	if r := rows[id]; !r.held || r.holder != holderOf(p) || r.ttl < 29*time.Second || r.ttl > 30*time.Second || id < 2 || len(heldIDs(rows)) != 3 {
		t.Fatalf("ls during hold: held %v, machine ID %d %+v; want it held by %s for its recorded 30s, and the 2 claimed",
			heldIDs(rows), id, r, holderOf(p))
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("hold after SIGTERM: exit %d, stderr %s", code, p.errb.String())
	}
	if held := heldIDs(ls(t, flags)); len(held) != 2 {
		t.Errorf("held after SIGTERM: %v, want only the 2 claimed (released %d)", held, id)
	}
	r := runBin(t, append([]string{"lease", "migrate"}, flags...)...)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "needs no migration") {
		t.Errorf("lease migrate --driver kubernetes: %v", r)
	}
}

// TestK8sLeaseHoldExhausted: with all 512 IDs held, hold gives up after
// the acquire timeout with exit status 3. The timeout leaves time for a
// listing of 512 holdings on a loaded machine.
func TestK8sLeaseHoldExhausted(t *testing.T) {
	t.Parallel()
	flags, claim := k8sCLISetup(t)
	claim(t, 512)
	start := time.Now()
	r := runBin(t, append(append([]string{"lease", "hold"}, flags...), append(shortLease, "--acquire-timeout", "8s", "--for", "1s")...)...)
	if r.code != exitNoLease || r.stdout != "" || !strings.Contains(r.stderr, "acquire timeout") {
		t.Fatalf("hold with every ID taken: %v", r)
	}
	if took := time.Since(start); took < 8*time.Second {
		t.Errorf("hold gave up after %v, before its 8s acquire timeout", took)
	}
}

// TestK8sLeaseInProcess runs hold and ls through run(), so the race
// detector sees the kubernetes driver.
func TestK8sLeaseInProcess(t *testing.T) {
	t.Parallel()
	flags, _ := k8sCLISetup(t)
	r := cli("", append(append([]string{"lease", "hold"}, flags...), append(shortLease, "--for", "1500ms", "--verbose")...)...)
	if r.code != 0 || len(r.lines()) != 1 || !strings.Contains(r.stderr, "lease release done") || !strings.Contains(r.stderr, "strategy=kubernetes") {
		t.Fatalf("hold: %v", r)
	}
	id, err := parseMachineID(r.lines()[0])
	if err != nil {
		t.Fatal(err)
	}
	if row := lsIn(t, flags)[id]; row.held {
		t.Fatalf("ls after hold: machine ID %d %+v, want it free", id, row)
	}
}

// TestK8sUsage: a bad prefix is a usage error (exit 2) naming --table; a
// missing kubeconfig, no --dsn outside a pod and an unreachable server
// are failures (exit 1) saying which; kubernetes takes no --mode or
// --release-hold.
func TestK8sUsage(t *testing.T) {
	t.Parallel()
	// Usage errors come before any connection: a kubeconfig whose server
	// is down shows that, and needs no API server to run.
	dead := deadKubeconfig(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--dsn", dead, "--table", "Bad_Prefix"}, exitUsage, `--table "Bad_Prefix" must be a DNS label`},
		{[]string{"--dsn", dead, "--mode", "key"}, exitUsage, "--driver kubernetes takes no --mode"},
		{[]string{"--dsn", filepath.Join(t.TempDir(), "none")}, exitFail, "no such file"},
		{[]string{"--dsn", dead}, exitFail, "connecting to the Kubernetes API server"},
		{nil, exitFail, "in-cluster configuration"},
	} {
		r := cli("", append([]string{"lease", "ls", "--driver", "kubernetes"}, c.args...)...)
		if r.code != c.code || r.stdout != "" || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "Options.") {
			t.Errorf("lease ls --driver kubernetes %q: %v\nwant exit %d and %q", c.args, r, c.code, c.want)
		}
	}
	r := cli("", "lease", "hold", "--driver", "kubernetes", "--dsn", dead, "--release-hold", "1s")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--driver kubernetes takes no --release-hold") {
		t.Errorf("--release-hold with --driver kubernetes: %v", r)
	}
}

// deadKubeconfig writes a kubeconfig whose server is a loopback port
// nobody listens on.
func deadKubeconfig(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	kc := `apiVersion: v1
kind: Config
clusters:
- name: dead
  cluster: {server: "https://` + testenv.DeadAddr(t) + `", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: not-a-token}
contexts:
- name: dead
  context: {cluster: dead, user: u, namespace: default}
current-context: dead
`
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestK8sLeaseFreeKeepsEvidence: free --force on Kubernetes frees the ID
// but keeps the hand-off evidence its gone holder wrote in its own clock,
// here an hour ahead of this process's: the next holder starts above the
// gone holder's timestamps, not at the freeing process's clock.
func TestK8sLeaseFreeKeepsEvidence(t *testing.T) {
	flags, claim := k8sCLISetup(t)
	claim(t, 1)
	cfg, ns, err := k8slease.LoadConfig(flagValue(flags, "--dsn"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	leases := cs.CoordinationV1().Leases(ns)
	name := flagValue(flags, "--table") + "-0"
	rec, err := leases.Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ahead := time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)
	rec.Annotations[k8slease.AnnotationTimestampsBefore] = ahead // a holder an hour ahead
	if _, err := leases.Update(t.Context(), rec, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := cli("", append(append([]string{"lease", "free"}, flags...), "--id", "0", "--force")...)
	if r.code != 0 || !strings.Contains(r.stdout, "machine ID 0: released; free now") {
		t.Fatalf("free --force: %v", r)
	}
	rec, err = leases.Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Spec.HolderIdentity != nil {
		t.Errorf("after free --force the Lease is held by %q", *rec.Spec.HolderIdentity)
	}
	if got := rec.Annotations[k8slease.AnnotationTimestampsBefore]; got < ahead {
		t.Errorf("after free --force the evidence is %s, below the gone holder's %s", got, ahead)
	}
}
