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

func TestParseMemoryInfo(t *testing.T) {
	for info, want := range map[string]memoryInfo{
		"# Memory\r\nused_memory:1\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n": {0, "noeviction", true},
		"maxmemory:5242880\r\nmaxmemory_policy:volatile-lru\r\n":                      {5242880, "volatile-lru", true},
		"maxmemory:5242880\r\n":                           {5242880, "", false},
		"maxmemory:-1\r\nmaxmemory_policy:noeviction\r\n": {-1, "noeviction", false},
		"maxmemory_policy:noeviction\r\n":                 {0, "noeviction", false},
		"":                                                {},
	} {
		if got := parseMemoryInfo(info); got != want {
			t.Errorf("parseMemoryInfo(%q) = %+v, want %+v", info, got, want)
		}
	}
}

func TestSafePolicy(t *testing.T) {
	for _, c := range []struct {
		mode      Mode
		maxmemory int64
		policy    string
		safe      bool
	}{
		{ModeKey, 0, "allkeys-lru", true},
		{ModeHash, 0, "allkeys-lru", true},
		{ModeKey, 1 << 20, "noeviction", true},
		{ModeHash, 1 << 20, "noeviction", true},
		{ModeKey, 1 << 20, "volatile-lru", false},
		{ModeHash, 1 << 20, "volatile-lru", true},
		{ModeHash, 1 << 20, "volatile-ttl", true},
		{ModeHash, 1 << 20, "allkeys-lfu", false},
		{ModeKey, 1 << 20, "allkeys-random", false},
		{ModeHash, 1 << 20, "volatile-something-new", false},
	} {
		if got := safePolicy(c.mode, c.maxmemory, c.policy); got != c.safe {
			t.Errorf("safePolicy(%v, %d, %s) = %v, want %v", c.mode, c.maxmemory, c.policy, got, c.safe)
		}
	}
}
