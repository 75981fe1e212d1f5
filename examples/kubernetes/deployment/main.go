// Command deployment shows the wiring for a Deployment, whose pods have no
// ordinal: each pod leases a machine ID from the Kubernetes API server
// (lease/k8slease, one Lease object per ID), keeps the lease in a state
// file on an emptyDir so that a restarted container takes it back, and
// serves new IDs on $ADDR (default :8080).
//
// In a pod it uses the service account's in-cluster configuration and
// namespace (see ../deployment.yaml for the RBAC it needs). Elsewhere,
// point it at a cluster:
//
//	KUBECONFIG=~/.kube/config ONCE_STATE_FILE=/tmp/once-lease go run .
//	curl localhost:8080/id   # {"id":"ord_..."}
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/k8slease"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type orderSpec struct{}

func (orderSpec) Options() once.Options { return once.Options{Prefix: "ord_", Mask: true} }

// OrderID is what this service hands out.
type OrderID = once.Typed[orderSpec]

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "deployment example:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends, then drains the HTTP server, then closes the
// lease manager (which stops the factories, then releases the ID).
func run(ctx context.Context, out io.Writer) error {
	// No fallback key: a pod without the application's key would mask IDs
	// that no other pod parses (and a public key hides nothing).
	key := os.Getenv("ONCE_KEY")
	if key == "" {
		return errors.New("ONCE_KEY is not set: every pod needs the application's key (32+ bytes, the same in every pod), " +
			"e.g. a Secret made with kubectl create secret generic once-key --from-literal=ONCE_KEY=$(openssl rand -hex 32)")
	}
	f, err := nonce.New(nonce.Config{BaseKey: []byte(key)})
	if err != nil {
		return err
	}
	// KUBECONFIG empty (in a pod): the in-cluster configuration, and the
	// Leases live in the pod's namespace unless ONCE_LEASE_NAMESPACE says
	// otherwise.
	s, err := k8slease.Open(os.Getenv("KUBECONFIG"), k8slease.Options{Namespace: os.Getenv("ONCE_LEASE_NAMESPACE")})
	if err != nil {
		return err
	}
	// The wiring: strategy -> lease manager -> factory -> once's generator.
	// Start's context bounds the start only; the manager lives until Close.
	m, err := lease.Start(context.WithoutCancel(ctx), s, lease.Options{
		Factories:      []*nonce.Factory{f},
		LeaseDuration:  k8slease.LeaseDuration, // 1m: a dead pod's ID frees within minutes, not hours
		RenewInterval:  k8slease.RenewInterval,
		AcquireTimeout: k8slease.AcquireTimeout,      // room to watch a dead holder's Lease expire
		StateFile:      os.Getenv("ONCE_STATE_FILE"), // on an emptyDir: a restarted container reclaims its ID
		Logger:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err // e.g. lease.ErrConfig naming the RBAC verb the service account lacks
	}
	closeLease := func() error {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return m.Close(cctx)
	}
	once.DefaultBinding().Set(f)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if err := m.Err(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /id", func(w http.ResponseWriter, _ *http.Request) {
		id, err := once.NewAs[OrderID]()
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]OrderID{"id": id})
	})
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errors.Join(err, closeLease())
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(out, "machine ID %d (Lease %s/%s); listening on http://%s\n",
		m.MachineID(), s.Namespace(), s.LeaseName(m.MachineID()), ln.Addr())
	go srv.Serve(ln)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, closeLease())
}
