package faultproxy_test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/once-go/once/tests/faultproxy"
)

// server is a line server: every line it reads is "applied" (counted)
// and answered with "ok N\n".
type server struct {
	ln      net.Listener
	applied atomic.Int64
	mu      sync.Mutex
	remotes []string // client addresses it accepted
}

func newServer(t *testing.T) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{ln: ln}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.remotes = append(s.remotes, c.RemoteAddr().String())
			s.mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					if _, err := r.ReadString('\n'); err != nil {
						return
					}
					n := s.applied.Add(1)
					if _, err := fmt.Fprintf(c, "ok %d\n", n); err != nil {
						return
					}
				}
			})
		}
	})
	return s
}

func (s *server) accepted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.remotes)
}

func newProxy(t *testing.T, target string) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

type client struct {
	c net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{c: c, r: bufio.NewReader(c)}
}

// ask sends a request and waits up to d for the reply.
func (c *client) ask(d time.Duration) (string, error) {
	c.c.SetDeadline(time.Now().Add(d))
	if _, err := c.c.Write([]byte("req\n")); err != nil {
		return "", err
	}
	return c.r.ReadString('\n')
}

// askNew connects to addr and asks once. A reset can surface in connect
// itself: the proxy may reset an accepted connection before the client's
// connect call has returned.
func askNew(addr string, d time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, d)
	if err != nil {
		return "", err
	}
	defer c.Close()
	return (&client{c: c, r: bufio.NewReader(c)}).ask(d)
}

// wait reads a reply already asked for, waiting up to d.
func (c *client) wait(d time.Duration) (string, error) {
	c.c.SetDeadline(time.Now().Add(d))
	return c.r.ReadString('\n')
}

func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}

func TestForward(t *testing.T) {
	s := newServer(t)
	p := newProxy(t, s.ln.Addr().String())
	c := dial(t, p.Addr())
	for i := 1; i <= 3; i++ {
		got, err := c.ask(2 * time.Second)
		if want := fmt.Sprintf("ok %d\n", i); err != nil || got != want {
			t.Fatalf("reply %d = %q, %v; want %q", i, got, err, want)
		}
	}
	if st := p.Stats(); st.Accepted != 1 || st.Open != 1 || st.Resets != 0 {
		t.Errorf("stats %+v", st)
	}
	if p.Mode() != faultproxy.Forward || p.Target() != s.ln.Addr().String() {
		t.Errorf("mode %v, target %s", p.Mode(), p.Target())
	}
}

func TestCutResetsAndRefuses(t *testing.T) {
	s := newServer(t)
	p := newProxy(t, s.ln.Addr().String())
	old := dial(t, p.Addr())
	if _, err := old.ask(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	p.Cut()
	if p.Mode() != faultproxy.Reset {
		t.Fatalf("mode %v after Cut", p.Mode())
	}
	start := time.Now()
	if got, err := old.ask(2 * time.Second); err == nil || isTimeout(err) {
		t.Errorf("open connection after Cut: %q, %v; want a reset", got, err)
	}
	// A new connection is accepted and reset at once: the client fails
	// fast (in connect or on first use), it does not hang.
	if got, err := askNew(p.Addr(), 2*time.Second); err == nil || isTimeout(err) {
		t.Errorf("new connection during Cut: %q, %v; want a reset", got, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("failures took %v; a cut must fail fast", d)
	}
	if n := s.applied.Load(); n != 1 {
		t.Errorf("server applied %d requests, want 1", n)
	}
	p.Heal()
	if got, err := dial(t, p.Addr()).ask(2 * time.Second); err != nil || got != "ok 2\n" {
		t.Errorf("after Heal: %q, %v", got, err)
	}
	if st := p.Stats(); st.Resets < 2 || st.Accepted != 3 {
		t.Errorf("stats %+v: want >= 2 resets, 3 accepted", st)
	}
}

func TestBlackholeHoldsThenDelivers(t *testing.T) {
	s := newServer(t)
	p := newProxy(t, s.ln.Addr().String())
	old := dial(t, p.Addr())
	if _, err := old.ask(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	p.Blackhole()
	if _, err := old.ask(200 * time.Millisecond); !isTimeout(err) {
		t.Fatalf("open connection during Blackhole: %v; want a timeout", err)
	}
	// A new connection is accepted but never reaches the server.
	fresh := dial(t, p.Addr())
	if _, err := fresh.ask(200 * time.Millisecond); !isTimeout(err) {
		t.Fatalf("new connection during Blackhole: %v; want a timeout", err)
	}
	if n := len(s.accepted()); n != 1 {
		t.Errorf("server accepted %d connections during Blackhole, want 1 (the one before)", n)
	}
	if n := s.applied.Load(); n != 1 {
		t.Errorf("server applied %d requests during Blackhole, want 1", n)
	}
	// Healing delivers what was held, in both directions.
	p.Heal()
	for name, c := range map[string]*client{"old": old, "fresh": fresh} {
		if got, err := c.wait(2 * time.Second); err != nil || len(got) < 4 {
			t.Errorf("%s connection after Heal: %q, %v", name, got, err)
		}
	}
	if n := s.applied.Load(); n != 3 {
		t.Errorf("server applied %d requests after Heal, want 3", n)
	}
}

func TestCutDuringBlackholeResetsStalledConnections(t *testing.T) {
	s := newServer(t)
	p := newProxy(t, s.ln.Addr().String())
	old := dial(t, p.Addr())
	if _, err := old.ask(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	p.Blackhole()
	fresh := dial(t, p.Addr())
	old.c.Write([]byte("req\n"))
	fresh.c.Write([]byte("req\n"))
	time.Sleep(50 * time.Millisecond) // let the proxy read and hold them
	p.Cut()
	for name, c := range map[string]*client{"old": old, "fresh": fresh} {
		if got, err := c.wait(2 * time.Second); err == nil || isTimeout(err) {
			t.Errorf("%s stalled connection after Cut: %q, %v; want a reset", name, got, err)
		}
	}
	p.Heal()
	if n := s.applied.Load(); n != 1 {
		t.Errorf("server applied %d requests, want 1: held bytes of reset connections are dropped", n)
	}
}

func TestDropRepliesUntilHeal(t *testing.T) {
	s := newServer(t)
	p := newProxy(t, s.ln.Addr().String())
	c := dial(t, p.Addr())
	if _, err := c.ask(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	p.DropReplies(-1)
	if _, err := c.ask(300 * time.Millisecond); !isTimeout(err) {
		t.Fatalf("reply during DropReplies: %v; want a timeout", err)
	}
	if n := s.applied.Load(); n != 2 {
		t.Fatalf("server applied %d requests, want 2: requests must get through", n)
	}
	if st := p.Stats(); st.Swallowed != int64(len("ok 2\n")) {
		t.Errorf("swallowed %d bytes, want %d", st.Swallowed, len("ok 2\n"))
	}
	p.Heal()
	// The connection that lost a reply is reset; the client learns that
	// the outcome of its request is unknown.
	if got, err := c.wait(2 * time.Second); err == nil || isTimeout(err) {
		t.Errorf("connection that lost a reply, after Heal: %q, %v; want a reset", got, err)
	}
	if got, err := dial(t, p.Addr()).ask(2 * time.Second); err != nil || got != "ok 3\n" {
		t.Errorf("new connection after Heal: %q, %v", got, err)
	}
}

func TestDropRepliesCountResetsAndResumes(t *testing.T) {
	s := newServer(t)
	p := newProxy(t, s.ln.Addr().String())
	idle := dial(t, p.Addr())
	if _, err := idle.ask(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	c := dial(t, p.Addr())
	p.DropReplies(1)
	start := time.Now()
	if got, err := c.ask(2 * time.Second); err == nil || isTimeout(err) {
		t.Errorf("reply after DropReplies(1): %q, %v; want a reset", got, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("reset took %v", d)
	}
	if p.Mode() != faultproxy.Forward {
		t.Errorf("mode %v after the budget was swallowed, want forward", p.Mode())
	}
	// Connections that lost nothing are untouched.
	if got, err := idle.ask(2 * time.Second); err != nil || got != "ok 3\n" {
		t.Errorf("other connection: %q, %v", got, err)
	}
	if n := s.applied.Load(); n != 3 {
		t.Errorf("server applied %d, want 3", n)
	}
}

func TestUpstreamAddrsAndResetAll(t *testing.T) {
	s := newServer(t)
	p := newProxy(t, s.ln.Addr().String())
	a, b := dial(t, p.Addr()), dial(t, p.Addr())
	for _, c := range []*client{a, b} {
		if _, err := c.ask(2 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	got := p.UpstreamAddrs()
	slices.Sort(got)
	want := s.accepted()
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("UpstreamAddrs %v, server saw %v", got, want)
	}
	p.ResetAll()
	for _, c := range []*client{a, b} {
		if _, err := c.ask(2 * time.Second); err == nil || isTimeout(err) {
			t.Errorf("after ResetAll: %v; want a reset", err)
		}
	}
	if got, err := dial(t, p.Addr()).ask(2 * time.Second); err != nil || got != "ok 3\n" {
		t.Errorf("new connection after ResetAll: %q, %v", got, err)
	}
}

func TestCloseEndsEverything(t *testing.T) {
	s := newServer(t)
	p, err := faultproxy.New(s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, p.Addr())
	if _, err := c.ask(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	p.Blackhole()
	stalled := dial(t, p.Addr())
	stalled.c.Write([]byte("req\n"))
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs with stalled connections")
	}
	if _, err := c.ask(time.Second); err == nil {
		t.Error("connection still works after Close")
	}
	if _, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		t.Error("proxy still accepts after Close")
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestDeadTarget(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := newProxy(t, addr)
	if _, err := askNew(p.Addr(), 2*time.Second); err == nil || isTimeout(err) {
		t.Errorf("through a proxy to a dead port: %v; want a reset", err)
	}
	if _, err := faultproxy.New(""); err == nil {
		t.Error("New with an empty target succeeded")
	}
}
