package testenv

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// DefaultEtcdEndpoints is where integration tests look for etcd when
// ONCE_TEST_ETCD_ENDPOINTS is not set (.ci/etcd.sh starts it there).
const DefaultEtcdEndpoints = "127.0.0.1:2379"

// EtcdEndpoints returns the etcd client endpoints the tests use, as
// host:port: ONCE_TEST_ETCD_ENDPOINTS (comma-separated, with or without
// http://), default 127.0.0.1:2379.
func EtcdEndpoints() []string {
	var eps []string
	for _, ep := range strings.Split(env("ONCE_TEST_ETCD_ENDPOINTS", DefaultEtcdEndpoints), ",") {
		ep = strings.TrimSpace(ep)
		ep = strings.TrimPrefix(strings.TrimPrefix(ep, "http://"), "https://")
		if ep != "" {
			eps = append(eps, strings.TrimSuffix(ep, "/"))
		}
	}
	return eps
}

// Etcd returns the etcd endpoints after checking that the first one
// answers its /health endpoint, so this package needs no etcd client. It
// skips the test with a one-line reason when etcd is unreachable, or fails
// it when ONCE_TEST_REQUIRE=1.
func Etcd(t testing.TB) []string {
	t.Helper()
	Short(t, "etcd")
	eps := EtcdEndpoints()
	if len(eps) == 0 {
		Unavailable(t, "ONCE_TEST_ETCD_ENDPOINTS names no endpoint")
		return nil
	}
	if err := EtcdHealthy(eps[0], 3*time.Second); err != nil {
		Unavailable(t, "etcd unreachable at "+eps[0]+": "+firstLine(err.Error())+" (start it with .ci/etcd.sh)")
	}
	return eps
}

// EtcdHealthy reports, as an error, whether the etcd server at addr
// (host:port, plain HTTP) answers GET /health with health "true" within
// timeout.
func EtcdHealthy(addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 512))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"health":"true"`) {
		return fmt.Errorf("GET /health: %s %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
