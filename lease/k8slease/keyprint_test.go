package k8slease_test

import (
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/once-go/once/internal/keysuite"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/k8slease"
)

// TestKeyFingerprint runs the key fingerprint suite (see keysuite) on the
// Kubernetes Lease API. The foreign holding is a Lease another writer
// holds, its holderIdentity a bare name.
func TestKeyFingerprint(t *testing.T) {
	keysuite.Run(t, []keysuite.Coordinator{{Name: "kubernetes", Setup: func(t *testing.T) (func() driver.Strategy, func(*testing.T) int) {
		cfg := restConfig(t)
		cs := clientset(t, cfg)
		ns := namespace(t, cs)
		newStrategy := func() driver.Strategy { return strategy(t, cfg, ns, k8slease.Options{}) }
		foreign := func(t *testing.T) int {
			const id = 500
			holder, secs, now := "other-writer", int32(3600), metav1.NewMicroTime(time.Now())
			rec := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: k8slease.DefaultPrefix + "-500",
				Labels: map[string]string{k8slease.LabelPool: k8slease.DefaultPrefix}},
				Spec: coordv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, AcquireTime: &now, RenewTime: &now}}
			if _, err := cs.CoordinationV1().Leases(ns).Create(ctxT(t), rec, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			return id
		}
		return newStrategy, foreign
	}}})
}
