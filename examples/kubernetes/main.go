// Command kubernetes shows the wiring for a StatefulSet: the machine ID is
// the pod's ordinal, so no coordinator is needed. The Downward API passes
// it as POD_INDEX, from the pod's apps.kubernetes.io/pod-index label
// (Kubernetes 1.28+), or as POD_NAME, whose trailing digits are the
// ordinal (any version); POD_INDEX wins when it is set. It serves new IDs
// on $ADDR (default :8080):
//
//	POD_INDEX=3 go run ./examples/kubernetes
//	curl localhost:8080/id   # {"id":"ord_..."}
//
// A Deployment has no ordinals: examples/kubernetes/deployment leases its
// machine IDs from the API server instead.
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
	"strconv"
	"syscall"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/envlease"
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
		fmt.Fprintln(os.Stderr, "kubernetes example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	getenv := os.Getenv
	// ONCE_ID_OFFSET separates StatefulSets that share one ID space.
	offset := 0
	if v := getenv("ONCE_ID_OFFSET"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("ONCE_ID_OFFSET: want a whole number, got %.20q", v)
		}
		offset = n
	}
	// No fallback key: a pod without the application's key would mask IDs
	// that no other pod parses (and a public key hides nothing).
	key := getenv("ONCE_KEY")
	if key == "" {
		return errors.New("ONCE_KEY is not set: every pod needs the application's key (32+ bytes, the same in every pod), " +
			"e.g. a Secret made with kubectl create secret generic once-key --from-literal=ONCE_KEY=$(openssl rand -hex 32)")
	}
	f, err := nonce.New(nonce.Config{BaseKey: []byte(key)})
	if err != nil {
		return err
	}
	// The wiring: strategy -> lease manager -> factory -> once's generator.
	strategy := envlease.New("POD_NAME", offset)
	if _, ok := os.LookupEnv("POD_INDEX"); ok {
		strategy = envlease.PodIndex("POD_INDEX", offset)
	}
	m, err := lease.Start(context.WithoutCancel(ctx), strategy, lease.Options{
		Factories: []*nonce.Factory{f},
		Logger:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err // e.g. POD_INDEX empty (no pod-index label), POD_NAME without trailing digits
	}
	defer m.Close(context.Background())
	once.DefaultBinding().Set(f)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if m.Err() != nil {
			http.Error(w, m.Err().Error(), http.StatusServiceUnavailable)
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
	addr := getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(out, "machine ID %d; listening on http://%s\n", m.MachineID(), ln.Addr())
	go srv.Serve(ln)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
