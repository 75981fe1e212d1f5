// Package faultproxy is an in-test TCP proxy that puts network faults
// between a client and a real server: a partition that resets connections,
// a partition that black-holes them (clients hang until their own
// deadlines), and replies lost after the server applied a request.
//
// A [Proxy] listens on 127.0.0.1 on a free port and forwards every
// connection to one target address. Point the client at [Proxy.Addr]
// instead of the server, then switch modes while the test runs:
//
//	p, err := faultproxy.New("127.0.0.1:5432")
//	...
//	p.Cut()            // RST every connection; new ones are reset at once
//	p.Heal()           // forward again
//	p.Blackhole()      // stall every byte both ways; new connections hang
//	p.Heal()           // stalled bytes flow on, as after a healed partition
//	p.DropReplies(-1)  // requests reach the server, replies vanish
//	p.Heal()           // connections that lost replies are reset
//
// A TCP stream cannot lose bytes and stay usable: a connection from which
// the proxy swallowed reply bytes is reset as soon as the swallowing ends
// (after n bytes, or at Heal), so the client sees an error, never a
// corrupt reply. This is what a lost reply looks like to a client in
// practice: the request was applied, the connection broke before the
// answer arrived, and the outcome is unknown.
//
// Only for tests: the proxy favours observability over throughput.
package faultproxy
