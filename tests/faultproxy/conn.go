package faultproxy

import (
	"net"
	"sync"
)

// direction of a pump.
type direction int

const (
	toServer direction = iota // requests
	toClient                  // replies
)

// verdict on one chunk read by a pump.
type verdict int

const (
	forward verdict = iota
	swallow
	stop
)

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		switch {
		case p.closed:
			p.mu.Unlock()
			c.Close()
			return
		case p.mode == Reset:
			p.accepted++
			p.resets++
			p.mu.Unlock()
			reset(c)
			continue
		}
		pr := &pair{client: c}
		p.conns[pr] = struct{}{}
		p.accepted++
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(pr)
	}
}

// serve dials the target for pr (once the proxy is not stalled) and pumps
// bytes both ways until either side ends or a fault resets pr.
func (p *Proxy) serve(pr *pair) {
	defer p.wg.Done()
	defer p.forget(pr)
	if !p.waitFlow(pr) {
		return
	}
	srv, err := net.DialTimeout("tcp", p.target, DialTimeout)
	if err != nil {
		p.mu.Lock()
		p.resetLocked(pr)
		p.mu.Unlock()
		return
	}
	p.mu.Lock()
	if pr.dead {
		p.mu.Unlock()
		reset(srv)
		return
	}
	pr.server = srv
	p.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { p.pump(pr, toServer, pr.client, srv) })
	p.pump(pr, toClient, srv, pr.client)
	wg.Wait()
}

// forget closes pr (if no fault did) and drops it from the proxy.
func (p *Proxy) forget(pr *pair) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !pr.dead {
		pr.dead = true
		pr.client.Close()
		if pr.server != nil {
			pr.server.Close()
		}
	}
	delete(p.conns, pr)
}

// waitFlow blocks while the proxy stalls new connections; false if pr was
// reset or the proxy closed meanwhile.
func (p *Proxy) waitFlow(pr *pair) bool {
	p.mu.Lock()
	for {
		if pr.dead || p.closed {
			p.mu.Unlock()
			return false
		}
		if p.mode != Stall {
			p.mu.Unlock()
			return true
		}
		ch := p.changed
		p.mu.Unlock()
		<-ch
		p.mu.Lock()
	}
}

// pump copies src to dst chunk by chunk, asking admit about each chunk.
// When either side ends, it closes the pair (both pumps then stop).
func (p *Proxy) pump(pr *pair, dir direction, src, dst net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			switch p.admit(pr, dir, int64(n)) {
			case forward:
				if _, werr := dst.Write(buf[:n]); werr != nil {
					p.close(pr)
					return
				}
			case stop:
				return
			}
		}
		if err != nil {
			p.close(pr)
			return
		}
	}
}

// admit decides the fate of an n-byte chunk travelling in dir, waiting
// while the proxy stalls.
func (p *Proxy) admit(pr *pair, dir direction, n int64) verdict {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if pr.dead || p.closed {
			return stop
		}
		switch p.mode {
		case Forward:
			return forward
		case Reset:
			p.resetLocked(pr)
			return stop
		case Stall:
			ch := p.changed
			p.mu.Unlock()
			<-ch
			p.mu.Lock()
			continue
		}
		// Drop.
		if dir == toServer {
			return forward
		}
		pr.lost = true
		p.swallowed += n
		if p.dropLeft > 0 {
			if p.dropLeft -= n; p.dropLeft <= 0 {
				p.healLocked() // resets pr and every other pair that lost bytes
				return stop
			}
		}
		return swallow
	}
}

// close ends pr normally (FIN), unless a fault already reset it.
func (p *Proxy) close(pr *pair) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr.dead {
		return
	}
	pr.dead = true
	pr.client.Close()
	if pr.server != nil {
		pr.server.Close()
	}
}
