package k8slease_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/nonce"
)

// exampleManifest is the Deployment example's manifest, whose
// ServiceAccount, Role and RoleBinding TestRBAC applies.
const exampleManifest = "../../examples/kubernetes/deployment.yaml"

// TestRBAC, on a private API server that enforces RBAC:
//   - the example's ServiceAccount, Role and RoleBinding grant everything
//     the strategy does (acquire, renew, list, claim, reclaim, release),
//     as the service account itself (a token from the TokenRequest API);
//   - a Role without create makes Acquire fail with ErrConfig naming the
//     verb create and the resource, and a user without any Role fails with
//     ErrConfig naming list; lease.Start then returns that ErrConfig at
//     once instead of retrying until its timeout.
func TestRBAC(t *testing.T) {
	srv := startAPIServer(t, "nobody")
	admin := kubernetes.NewForConfigOrDie(srv.config("admin"))
	ns := namespace(t, admin)
	ctx := ctxT(t)

	sa, role, binding := exampleRBAC(t)
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding.Subjects[0].Namespace = ns
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	app := saConfig(t, srv, admin, ns, sa.Name)
	s := strategy(t, app, ns, k8slease.Options{})
	l, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatalf("Acquire as the example's service account: %v", err)
	}
	if l, err = s.Renew(ctx, l, time.Minute); err != nil {
		t.Errorf("Renew: %v", err)
	}
	if slots, err := s.List(ctx); err != nil || len(slots) != 1 {
		t.Errorf("List: %v, %v", slots, err)
	}
	if l, err = s.Reclaim(ctx, lease.Lease{MachineID: l.MachineID, Token: l.Token}, time.Minute); err != nil {
		t.Errorf("Reclaim: %v", err)
	}
	if err := s.Release(ctx, l); err != nil {
		t.Errorf("Release: %v", err)
	}
	if _, err := s.Claim(ctx, 7, time.Minute); err != nil {
		t.Errorf("Claim: %v", err)
	}

	// A Role that grants reading only.
	reader := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "lease-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list"}}}}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, reader, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "reader"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "lease-reader"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "reader", Namespace: ns}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := strategy(t, saConfig(t, srv, admin, ns, "reader"), ns, k8slease.Options{})
	for _, c := range []struct {
		who  string
		s    *k8slease.Strategy
		verb string
	}{{"a service account that may only read", r, "create"}, {"a user without a Role", strategy(t, srv.config("nobody"), ns, k8slease.Options{}), "list"}} {
		_, err := c.s.Acquire(ctx, time.Minute)
		want := "forbids " + c.verb + ` on leases (API group "coordination.k8s.io")`
		if !errors.Is(err, lease.ErrConfig) || errors.Is(err, lease.ErrRetry) || !strings.Contains(err.Error(), want) {
			t.Errorf("Acquire by %s: %v; want ErrConfig containing %q", c.who, err, want)
		}
		f, _ := nonce.New(nonce.Config{})
		t0 := time.Now()
		_, err = lease.Start(context.Background(), c.s, lease.Options{Factories: []lease.Factory{f}, LeaseDuration: time.Minute,
			Logger: discardLogger()})
		if !errors.Is(err, lease.ErrConfig) || time.Since(t0) > 10*time.Second {
			t.Errorf("lease.Start by %s: %v after %v; want ErrConfig at once", c.who, err, time.Since(t0))
		}
	}
	// Renewing a held lease with update forbidden.
	if _, err := r.Renew(ctx, lease.Lease{MachineID: 7, Token: "x"}, time.Minute); !errors.Is(err, lease.ErrLost) {
		t.Errorf("reader renewing someone else's lease: %v, want ErrLost", err)
	}
	held, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Renew(ctx, held, time.Minute); !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "forbids update") {
		t.Errorf("Renew with update forbidden: %v, want ErrConfig naming update", err)
	}
}

// exampleRBAC reads the ServiceAccount, Role and RoleBinding of the
// Deployment example's manifest.
func exampleRBAC(t *testing.T) (*corev1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding) {
	t.Helper()
	f, err := os.Open(exampleManifest)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		sa      *corev1.ServiceAccount
		role    *rbacv1.Role
		binding *rbacv1.RoleBinding
	)
	rd := utilyaml.NewYAMLReader(bufio.NewReader(f))
	for {
		doc, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(doc)) == "" {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", exampleManifest, err)
		}
		switch o := obj.(type) {
		case *corev1.ServiceAccount:
			sa = o
		case *rbacv1.Role:
			role = o
		case *rbacv1.RoleBinding:
			binding = o
		}
	}
	if sa == nil || role == nil || binding == nil || len(binding.Subjects) != 1 {
		t.Fatalf("%s lacks a ServiceAccount, Role or RoleBinding with one subject", exampleManifest)
	}
	sa.Namespace, role.Namespace, binding.Namespace = "", "", ""
	return sa, role, binding
}

// saConfig is a client configuration authenticating as service account
// name in ns, with a token from the TokenRequest API.
func saConfig(t *testing.T, srv *apiServer, admin kubernetes.Interface, ns, name string) *rest.Config {
	t.Helper()
	tr, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctxT(t), name,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for service account %s/%s: %v", ns, name, err)
	}
	cfg := srv.config("admin")
	cfg.BearerToken = tr.Status.Token
	return cfg
}

func ptr[T any](v T) *T { return &v }
