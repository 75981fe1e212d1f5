//go:build oncetest

package lease

// ShortLeases marks o so that the manager built from it accepts lease
// durations down to 100ms and renew intervals below driver.SafetyMargin,
// and scales its fixed margins to the lease duration (the safety margin
// becomes a tenth of it, the minimum TTL three tenths), so that fault tests with real
// servers, proxies and processes finish in seconds. It exists only in
// builds with the oncetest tag (go test -tags oncetest), for this module's
// tests; production builds carry neither it nor the mark.
func ShortLeases(o *Options) { o.test.short = true }

// testOptions holds the marks of a test build.
type testOptions struct {
	short bool // set by ShortLeases
}

func (t testOptions) shortLeases() bool { return t.short }
