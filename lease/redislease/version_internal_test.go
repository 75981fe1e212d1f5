package redislease

import "testing"

func TestParseVersion(t *testing.T) {
	for info, want := range map[string]string{
		"# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n":                     "Redis 7.0.15",
		"# Server\r\nredis_version:8.0.2\r\n":                                               "Redis 8.0.2",
		"# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:9.1.2\r\n": "Valkey 9.1.2",
		"# Server\r\nvalkey_version:8.1.0\r\nredis_version:7.2.4\r\n":                       "Valkey 8.1.0",
		"": "of unknown version",
	} {
		if got := parseVersion(info); got != want {
			t.Errorf("parseVersion(%q) = %q, want %q", info, got, want)
		}
	}
}

func TestParseID(t *testing.T) {
	for f, want := range map[string]int{"0": 0, "17": 17, "511": 511, "512": -1, "token.1.x": -1, "": -1, "-1": -1, "1000": -1, "1a": -1} {
		id, ok := parseID(f)
		if (want < 0) == ok || (ok && id != want) {
			t.Errorf("parseID(%q) = %d, %v; want %d", f, id, ok, want)
		}
	}
	free := freeIDs([]string{"0", "token.0.abc", "2", "meta", "511"})
	if len(free) != Capacity-3 || free[0] != 1 || free[1] != 3 || free[len(free)-1] != 510 {
		t.Errorf("freeIDs = %v...", free[:3])
	}
}
