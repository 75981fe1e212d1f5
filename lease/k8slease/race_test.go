package k8slease_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/once-go/once/lease/k8slease"
)

// Shape of TestProcessRace600: processes × contenders each.
const (
	raceProcs      = 6
	racePerProc    = 100
	raceContenders = raceProcs * racePerProc
)

// TestProcessRace600: 600 contenders in 6 processes (100 each, every
// contender its own strategy and clientset) race for the 512 IDs of one
// namespace, released at once: exactly 512 win, no ID is won twice, the
// other 88 see ErrExhausted, and the API server holds each winner's Lease
// with its token.
func TestProcessRace600(t *testing.T) {
	cfg := restConfig(t)
	cs := clientset(t, cfg)
	ns := namespace(t, cs)
	procs := make([]*child, raceProcs)
	for i := range procs {
		procs[i] = startChild(t, "racer", "K8SLEASE_NS="+ns, "K8SLEASE_RACERS="+strconv.Itoa(racePerProc))
	}
	for _, p := range procs {
		p.next(t, "ready", 60*time.Second)
	}
	start := time.Now()
	for _, p := range procs {
		fmt.Fprintln(p.stdin)
	}
	won := map[int]string{}
	exhausted := 0
	for _, p := range procs {
		for range racePerProc {
			l := p.next(t, "", 120*time.Second)
			switch {
			case strings.HasPrefix(l, "won "):
				var id int
				var token string
				if _, err := fmt.Sscanf(l, "won %d %s", &id, &token); err != nil {
					t.Fatalf("%q: %v", l, err)
				}
				if prev, dup := won[id]; dup {
					t.Errorf("machine ID %d won twice (tokens %q and %q)", id, prev, token)
				}
				won[id] = token
			case l == "exhausted":
				exhausted++
			default:
				t.Errorf("racer: %s", l)
			}
		}
	}
	t.Logf("%d contenders in %d processes: %d won, %d exhausted, in %v", raceContenders, raceProcs, len(won), exhausted, time.Since(start).Round(time.Millisecond))
	if len(won) != k8slease.Capacity || exhausted != raceContenders-k8slease.Capacity {
		t.Fatalf("%d winners, %d exhausted; want %d and %d", len(won), exhausted, k8slease.Capacity, raceContenders-k8slease.Capacity)
	}
	list, err := cs.CoordinationV1().Leases(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != k8slease.Capacity {
		t.Fatalf("%d Leases in the namespace, want %d", len(list.Items), k8slease.Capacity)
	}
	for _, rec := range list.Items {
		id, _ := strconv.Atoi(strings.TrimPrefix(rec.Name, k8slease.DefaultPrefix+"-"))
		if h := rec.Spec.HolderIdentity; h == nil || *h != won[id] {
			t.Fatalf("Lease %s held by %v; the winner's token is %q", rec.Name, h, won[id])
		}
	}
}
