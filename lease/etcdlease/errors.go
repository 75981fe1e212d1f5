package etcdlease

import (
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// configErrors are server replies that retrying cannot fix: the client
// lacks permission or credentials, or etcd refuses the request's shape.
var configErrors = []error{
	rpctypes.ErrPermissionDenied,
	rpctypes.ErrGRPCPermissionNotGiven,
	rpctypes.ErrPermissionNotGranted,
	rpctypes.ErrRoleNotGranted,
	rpctypes.ErrAuthFailed,
	rpctypes.ErrInvalidAuthToken,
	rpctypes.ErrInvalidAuthMgmt,
	rpctypes.ErrUserEmpty,
	rpctypes.ErrUserNotFound,
	rpctypes.ErrAuthNotEnabled,
	rpctypes.ErrLeaseTTLTooLarge,
	rpctypes.ErrRequestTooLarge,
	rpctypes.ErrTooManyOps,
}

// code returns the gRPC code of err, from an etcd server error or a gRPC
// status; codes.Unknown otherwise.
func code(err error) codes.Code {
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		return ee.Code()
	}
	if s, ok := status.FromError(err); ok {
		return s.Code()
	}
	return codes.Unknown
}

// isConfig reports whether err is a permission, authentication or request
// shape error.
func isConfig(err error) bool {
	switch code(err) {
	case codes.PermissionDenied, codes.Unauthenticated:
		return true
	}
	for _, c := range configErrors {
		if errors.Is(err, c) {
			return true
		}
	}
	return false
}

// isLeaseNotFound reports whether etcd says the lease does not exist
// (expired, revoked, or never granted on this cluster).
func isLeaseNotFound(err error) bool {
	return errors.Is(err, rpctypes.ErrLeaseNotFound) || errors.Is(err, rpctypes.ErrGRPCLeaseNotFound)
}

// classify wraps a client error of operation op on the machine ID (or -1)
// as [driver.ErrConfig] (permissions, authentication, refused request
// shapes) or [driver.ErrRetry] (everything else: Unavailable,
// DeadlineExceeded, ended contexts, transport errors, no leader, and
// other unknown outcomes).
func (s *Strategy) classify(op string, id int, err error) error {
	what := op
	if id >= 0 {
		what = fmt.Sprintf("%s of machine ID %d", op, id)
	}
	if isConfig(err) {
		return leasekit.Errorf("etcdlease", driver.ErrConfig, "%s under %s: etcd refused the request: %w", what, leasekit.Quote(s.opts.Prefix), err)
	}
	return leasekit.Errorf("etcdlease", driver.ErrRetry, "%s under %s: %w", what, leasekit.Quote(s.opts.Prefix), err)
}
