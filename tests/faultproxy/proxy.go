package faultproxy

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Mode is what the proxy does with traffic.
type Mode int

// Modes. The zero value forwards.
const (
	// Forward copies bytes both ways.
	Forward Mode = iota
	// Reset (set by [Proxy.Cut]) resets every connection with a TCP RST
	// and resets new ones as soon as they are accepted, so clients fail at
	// once ("connection reset by peer").
	Reset
	// Stall (set by [Proxy.Blackhole]) holds every byte in both directions
	// and accepts new connections without dialling the server: clients
	// hang until their own deadlines. After [Proxy.Heal] held bytes flow on.
	Stall
	// Drop (set by [Proxy.DropReplies]) forwards requests to the server and
	// swallows its replies; connections that lost reply bytes are reset
	// when the dropping ends.
	Drop
)

func (m Mode) String() string {
	switch m {
	case Forward:
		return "forward"
	case Reset:
		return "reset"
	case Stall:
		return "stall"
	case Drop:
		return "drop"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// DialTimeout bounds the proxy's connection to the target.
const DialTimeout = 5 * time.Second

// Proxy forwards TCP connections from a loopback port to one target and
// injects faults on demand. Its methods are safe for concurrent use.
type Proxy struct {
	ln     net.Listener
	target string

	mu        sync.Mutex
	mode      Mode
	dropLeft  int64         // Drop: bytes still to swallow; < 0 until Heal
	changed   chan struct{} // closed and replaced on every mode change
	conns     map[*pair]struct{}
	closed    bool
	accepted  int
	swallowed int64
	resets    int

	wg sync.WaitGroup
}

// pair is one client connection and its connection to the target.
type pair struct {
	client net.Conn
	server net.Conn // nil until dialled
	dead   bool     // reset or closed: stop forwarding
	lost   bool     // reply bytes were swallowed: the stream is corrupt
}

// New starts a proxy on 127.0.0.1 (a free port) in front of target
// ("host:port"). Close it when done.
func New(target string) (*Proxy, error) {
	if target == "" {
		return nil, errors.New("faultproxy: empty target")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{ln: ln, target: target, changed: make(chan struct{}), conns: make(map[*pair]struct{})}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's address ("127.0.0.1:port"): point clients here.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target is the address the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

// Mode returns the current mode.
func (p *Proxy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// Cut partitions the client from the server by resetting: every open
// connection is reset (RST) now, and every new one as soon as it is
// accepted, until [Proxy.Heal].
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for pr := range p.conns {
		p.resetLocked(pr)
	}
	p.setModeLocked(Reset)
}

// Blackhole partitions the client from the server by silence: bytes in
// both directions are held (not lost) and new connections are accepted but
// not forwarded, so clients hang until their own deadlines, as behind a
// dropped route. [Proxy.Heal] lets the held bytes flow on. A chunk the
// proxy was already writing when Blackhole was called may still arrive.
func (p *Proxy) Blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setModeLocked(Stall)
}

// DropReplies lets requests through to the server but swallows its
// replies: the next n bytes (counted in whole reads, so at least n) when
// n > 0, after which forwarding resumes by itself; every reply until
// [Proxy.Heal] when n <= 0. A connection that lost reply bytes is reset
// when the dropping ends (its stream is corrupt), so its client sees an
// error for a request the server did apply.
func (p *Proxy) DropReplies(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n <= 0 {
		n = -1
	}
	p.dropLeft = n
	p.setModeLocked(Drop)
}

// Heal ends any fault: forwarding resumes, held bytes flow on, and
// connections that lost reply bytes are reset.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.healLocked()
}

func (p *Proxy) healLocked() {
	for pr := range p.conns {
		if pr.lost {
			p.resetLocked(pr)
		}
	}
	p.dropLeft = 0
	p.setModeLocked(Forward)
}

// ResetAll resets every open connection once without changing the mode:
// new connections are served as before (a server-side connection kill).
func (p *Proxy) ResetAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for pr := range p.conns {
		p.resetLocked(pr)
	}
	p.setModeLocked(p.mode)
}

// Stats are the proxy's counters.
type Stats struct {
	Accepted  int   // connections accepted since New
	Open      int   // connections open now
	Resets    int   // connections reset by a fault
	Swallowed int64 // reply bytes swallowed by DropReplies
}

// Stats returns the counters.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	open := 0
	for pr := range p.conns {
		if !pr.dead {
			open++
		}
	}
	return Stats{Accepted: p.accepted, Open: open, Resets: p.resets, Swallowed: p.swallowed}
}

// UpstreamAddrs returns the local addresses ("127.0.0.1:port") of the
// proxy's open connections to the target: what the server sees as client
// addresses, so a test can find (and kill) these sessions server-side.
func (p *Proxy) UpstreamAddrs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for pr := range p.conns {
		if !pr.dead && pr.server != nil {
			out = append(out, pr.server.LocalAddr().String())
		}
	}
	return out
}

// Close stops listening, closes every connection and waits for the
// proxy's goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	err := p.ln.Close()
	for pr := range p.conns {
		pr.dead = true
		pr.client.Close()
		if pr.server != nil {
			pr.server.Close()
		}
	}
	p.setModeLocked(p.mode)
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

// setModeLocked switches mode and wakes everything waiting on a change.
func (p *Proxy) setModeLocked(m Mode) {
	p.mode = m
	close(p.changed)
	p.changed = make(chan struct{})
}

// resetLocked aborts pr with a TCP RST on both sides.
func (p *Proxy) resetLocked(pr *pair) {
	if pr.dead {
		return
	}
	pr.dead = true
	p.resets++
	reset(pr.client)
	if pr.server != nil {
		reset(pr.server)
	}
}

// reset closes c with SO_LINGER 0, which sends RST instead of FIN.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}
