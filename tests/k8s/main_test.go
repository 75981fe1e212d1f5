package k8s_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/once-go/once/internal/testonly"
)

func TestMain(m *testing.M) {
	// client-go logs transport errors through klog; the tests check them
	// as returned errors.
	testonly.SkipPackage()
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
