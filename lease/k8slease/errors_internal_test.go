package k8slease

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/once-go/once/lease/driver"
)

// TestClassify: the API server's errors map to the lease sentinels; a 403
// names the verb and the resource to grant.
func TestClassify(t *testing.T) {
	s := &Strategy{opts: Options{Namespace: "ns", Prefix: DefaultPrefix}}
	gr := schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	for _, c := range []struct {
		verb string
		err  error
		want error
		text string
	}{
		{"create", apierrors.NewForbidden(gr, "once-leases-3", errors.New(`User "x" cannot create`)), driver.ErrConfig,
			`the API server forbids create on leases (API group "coordination.k8s.io")`},
		{"update", apierrors.NewUnauthorized("bad token"), driver.ErrConfig, "rejected the credentials"},
		{"update", apierrors.NewInvalid(schema.GroupKind{Group: "coordination.k8s.io", Kind: "Lease"}, "x", field.ErrorList{}), driver.ErrConfig, "refused the request"},
		{"create", apierrors.NewBadRequest("no"), driver.ErrConfig, "refused the request"},
		{"create", apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "ns"), driver.ErrConfig, "the namespace does not exist"},
		{"get", apierrors.NewTooManyRequests("slow down", 1), driver.ErrRetry, ""},
		{"update", apierrors.NewInternalError(errors.New("etcd")), driver.ErrRetry, ""},
		{"update", apierrors.NewServiceUnavailable("shutting down"), driver.ErrRetry, ""},
		{"update", apierrors.NewTimeoutError("slow", 1), driver.ErrRetry, ""},
		{"list", context.DeadlineExceeded, driver.ErrRetry, ""},
		{"get", errors.New("dial tcp: connection refused"), driver.ErrRetry, ""},
	} {
		err := s.classify("renew", c.verb, 3, c.err)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) || !strings.HasPrefix(err.Error(), "k8slease: renew of machine ID 3 in namespace \"ns\"") {
			t.Errorf("%s: %v -> %v; want %v containing %q", c.verb, c.err, err, c.want, c.text)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("%v does not wrap the cause %v", err, c.err)
		}
		for _, other := range []error{driver.ErrLost, driver.ErrRetry, driver.ErrConfig} {
			if other != c.want && errors.Is(err, other) {
				t.Errorf("%v matches %v as well", err, other)
			}
		}
	}
}
