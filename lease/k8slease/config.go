package k8slease

import (
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// serviceAccountNamespace is where a pod finds its own namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// LoadConfig loads a client configuration and its namespace: from the
// kubeconfig file at path (its current context; the namespace "default"
// when the context names none), or, when path is empty, the in-cluster
// configuration of the pod's service account (the namespace from
// $POD_NAMESPACE, else the service account's namespace file). Errors wrap
// [driver.ErrConfig].
func LoadConfig(path string) (*rest.Config, string, error) {
	if path == "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, "", leasekit.Errorf("k8slease", driver.ErrConfig, "in-cluster configuration (no kubeconfig path given): %w", err)
		}
		ns := os.Getenv("POD_NAMESPACE")
		if ns == "" {
			b, err := os.ReadFile(serviceAccountNamespace)
			if err != nil {
				return nil, "", leasekit.Errorf("k8slease", driver.ErrConfig, "in-cluster namespace: $POD_NAMESPACE is empty and %w", err)
			}
			ns = strings.TrimSpace(string(b))
		}
		return cfg, ns, nil
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(&clientcmd.ClientConfigLoadingRules{ExplicitPath: path}, &clientcmd.ConfigOverrides{})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", leasekit.Errorf("k8slease", driver.ErrConfig, "kubeconfig %s: %w", leasekit.Quote(path), err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", leasekit.Errorf("k8slease", driver.ErrConfig, "kubeconfig %s: namespace: %w", leasekit.Quote(path), err)
	}
	return cfg, ns, nil
}

// NewClientset returns a clientset for the strategy's own use from cfg
// (which it does not modify): Lease objects travel as protobuf, and the
// requests are throttled by their own client-side rate limiter (cfg's QPS
// and Burst, client-go's 5 and 10 when zero), so an application's other
// API calls sharing a clientset cannot hold up a renewal.
func NewClientset(cfg *rest.Config) (kubernetes.Interface, error) {
	if cfg == nil {
		return nil, leasekit.Errorf("k8slease", driver.ErrConfig, "nil rest.Config")
	}
	c := rest.CopyConfig(cfg)
	c.ContentType = runtime.ContentTypeProtobuf
	c.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	c.DisableCompression = true
	if c.UserAgent == "" {
		c.UserAgent = "once-k8slease"
	}
	cs, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, leasekit.Errorf("k8slease", driver.ErrConfig, "client: %w", err)
	}
	return cs, nil
}

// Open returns a strategy from a kubeconfig file, or from the in-cluster
// configuration when path is empty (see [LoadConfig]), on a clientset of
// its own ([NewClientset]). An empty opts.Namespace is the configuration's
// namespace. It does no I/O beyond reading the configuration;
// [Strategy.Check] verifies access.
func Open(path string, opts Options) (*Strategy, error) {
	cfg, ns, err := LoadConfig(path)
	if err != nil {
		return nil, err
	}
	cs, err := NewClientset(cfg)
	if err != nil {
		return nil, err
	}
	if opts.Namespace == "" {
		opts.Namespace = ns
	}
	return New(cs, opts)
}
