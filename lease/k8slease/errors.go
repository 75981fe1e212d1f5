package k8slease

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// resource names what the strategy reads and writes, in the words an RBAC
// rule uses.
const resource = `leases (API group "coordination.k8s.io")`

// classify wraps an API error of verb (get, list, create, update) in the
// call op on the machine ID (or -1):
//
//   - [driver.ErrConfig] when retrying cannot help: 403 Forbidden (RBAC; the
//     message names the verb and the resource to grant), 401 Unauthorized
//     (credentials), 400/422 (a request the server refuses: a bad name or
//     value), and 404 from a create or list (the namespace does not exist,
//     or the server does not serve coordination.k8s.io/v1);
//   - [driver.ErrRetry] for everything else: timeouts, 429 (API priority and
//     fairness), 5xx, connection errors, ended contexts, whose outcome is
//     unknown.
//
// 404 and 409 from other verbs mean something definite to each call and
// are handled there before classify.
func (s *Strategy) classify(op, verb string, id int, err error) error {
	what := op
	if id >= 0 {
		what = fmt.Sprintf("%s of machine ID %d", op, id)
	}
	where := fmt.Sprintf("in namespace %s", leasekit.Quote(s.opts.Namespace))
	switch {
	case apierrors.IsForbidden(err):
		return leasekit.Errorf("k8slease", driver.ErrConfig,
			"%s %s: the API server forbids %s on %s: grant it to the pod's service account with a Role and RoleBinding (verbs get, list, watch, create, update, patch): %w",
			what, where, verb, resource, err)
	case apierrors.IsUnauthorized(err):
		return leasekit.Errorf("k8slease", driver.ErrConfig, "%s %s: the API server rejected the credentials: %w", what, where, err)
	case apierrors.IsBadRequest(err), apierrors.IsInvalid(err), apierrors.IsMethodNotSupported(err),
		apierrors.IsNotAcceptable(err), apierrors.IsUnsupportedMediaType(err), apierrors.IsRequestEntityTooLargeError(err):
		return leasekit.Errorf("k8slease", driver.ErrConfig, "%s %s: the API server refused the request: %w", what, where, err)
	case (verb == "create" || verb == "list") && apierrors.IsNotFound(err):
		return leasekit.Errorf("k8slease", driver.ErrConfig,
			"%s %s: the namespace does not exist, or the server does not serve coordination.k8s.io/v1: %w", what, where, err)
	}
	return leasekit.Errorf("k8slease", driver.ErrRetry, "%s %s: %w", what, where, err)
}
