package exampledb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// Serve is the main loop of the API examples: it opens DATABASE_URL (an
// empty one is the SQLite file sqliteFile in os.TempDir()), holds a lease
// (StartLease), builds the handler with newHandler, listens on ADDR
// (default 127.0.0.1:8080; 127.0.0.1:0 picks a free port) and prints
// "listening on http://ADDR" and note, then serves until ctx ends or the
// lease is lost. It then finishes the requests in flight (10 s at most)
// and releases the lease. The server bounds each phase of a connection.
func Serve(ctx context.Context, out io.Writer, getenv func(string) string, sqliteFile, note string,
	newHandler func(context.Context, *DB) (http.Handler, error)) (err error) {
	db, err := Open(ctx, getenv("DATABASE_URL"), sqliteFile)
	if err != nil {
		return err
	}
	defer db.Close()
	// The lease outlives ctx: it is released after the server has finished
	// the requests in flight, not when the signal arrives.
	l, err := StartLease(context.WithoutCancel(ctx), db, os.Stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := l.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if l.DemoKey {
		fmt.Fprintln(out, DemoKeyNote)
	}
	h, err := newHandler(ctx, db)
	if err != nil {
		return err
	}
	addr := getenv("ADDR")
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 15 * time.Second, IdleTimeout: 60 * time.Second, MaxHeaderBytes: 16 << 10}
	fmt.Fprintf(out, "%s, machine ID %d\nlistening on http://%s %s\n", db.Where, l.MachineID(), ln.Addr(), note)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case <-ctx.Done():
	case err = <-served:
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil && err == nil {
		err = serr
	}
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
