package leasenotice

import (
	"sync"
	"sync/atomic"

	"github.com/once-go/once/lease"
)

// DefaultFeedBuffer is the channel capacity [Feed.Subscribe] uses when
// asked for 0.
const DefaultFeedBuffer = 64

// Feed fans a manager's lease notices out to any number of subscribers,
// like the etcd3 client's Lease event emitter, without ever blocking the
// manager: each subscriber has a bounded channel, and a notice that does
// not fit is dropped for that subscriber and counted ([Subscription.Dropped]).
// A slow subscriber therefore loses notices, never delays a renewal.
//
// Install it as the manager's event hook, alone or next to your own:
//
//	feed := lease.NewFeed()
//	defer feed.Close()
//	sub := feed.Subscribe(0)
//	m, err := lease.Start(ctx, s, lease.Options{Factories: fs, Events: feed.Hook})
//	...
//	for n := range sub.C() { log.Info("lease", "notice", n) }
//
// One Feed serves one manager (it numbers attempts per lease). Nonce
// generation never goes through it.
type Feed struct {
	mu     sync.Mutex
	nf     Notifier
	subs   map[*Subscription]struct{}
	closed bool
}

// NewFeed returns a feed without subscribers.
func NewFeed() *Feed { return &Feed{subs: make(map[*Subscription]struct{})} }

// Subscription is one subscriber's channel of notices.
type Subscription struct {
	f       *Feed
	ch      chan Notice
	dropped atomic.Uint64
}

// Hook is the manager's event hook (Options.Events): it turns e into a
// notice (see [Notifier]) and offers it to every subscriber without
// waiting. It is safe to call from several goroutines, but notices keep
// their meaning only when one manager calls it in order.
func (f *Feed) Hook(e lease.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	n, ok := f.nf.Notice(e)
	if !ok {
		return
	}
	for s := range f.subs {
		select {
		case s.ch <- n:
		default:
			s.dropped.Add(1)
		}
	}
}

// Subscribe adds a subscriber whose channel holds up to buffer notices
// (0: [DefaultFeedBuffer]); notices arriving while it is full are dropped
// and counted. Subscribing to a closed feed returns a closed channel.
func (f *Feed) Subscribe(buffer int) *Subscription {
	if buffer <= 0 {
		buffer = DefaultFeedBuffer
	}
	s := &Subscription{f: f, ch: make(chan Notice, buffer)}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		close(s.ch)
		return s
	}
	f.subs[s] = struct{}{}
	return s
}

// Close closes every subscriber's channel (after the notices already in
// it); later events are ignored. Call it once the manager has stopped
// (after Manager.Close, or when Done is closed) to end the subscribers'
// range loops. Calling it again does nothing.
func (f *Feed) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	for s := range f.subs {
		close(s.ch)
	}
	clear(f.subs)
}

// C returns the subscriber's channel. It is closed by [Subscription.Close]
// and [Feed.Close].
func (s *Subscription) C() <-chan Notice { return s.ch }

// Dropped returns how many notices did not fit in the channel and were
// dropped.
func (s *Subscription) Dropped() uint64 { return s.dropped.Load() }

// Close unsubscribes and closes the channel. Calling it again, or after
// [Feed.Close], does nothing.
func (s *Subscription) Close() {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subs[s]; ok {
		delete(f.subs, s)
		close(s.ch)
	}
}
