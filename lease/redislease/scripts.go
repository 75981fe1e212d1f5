package redislease

import (
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The Lua scripts, embedded and run with EVALSHA. Each declares every key
// it touches in KEYS, all in NAME's hash slot, and reads TIME itself, so
// the time a lease reports comes from the node that applied the write
// (Redis Cluster included).
var (
	//go:embed scripts/acquire.lua
	acquireLua    string
	acquireScript = redis.NewScript(acquireLua)

	//go:embed scripts/renew.lua
	renewLua    string
	renewScript = redis.NewScript(renewLua)

	//go:embed scripts/release.lua
	releaseLua    string
	releaseScript = redis.NewScript(releaseLua)

	//go:embed scripts/reclaim.lua
	reclaimLua    string
	reclaimScript = redis.NewScript(reclaimLua)

	//go:embed scripts/list.lua
	listLua    string
	listScript = redis.NewScript(listLua)

	//go:embed scripts/hash_list.lua
	hashListLua    string
	hashListScript = redis.NewScript(hashListLua)

	//go:embed scripts/hash_acquire.lua
	hashAcquireLua    string
	hashAcquireScript = redis.NewScript(hashAcquireLua)

	//go:embed scripts/hash_renew.lua
	hashRenewLua    string
	hashRenewScript = redis.NewScript(hashRenewLua)

	//go:embed scripts/hash_reclaim.lua
	hashReclaimLua    string
	hashReclaimScript = redis.NewScript(hashReclaimLua)

	//go:embed scripts/hash_release.lua
	hashReleaseLua    string
	hashReleaseScript = redis.NewScript(hashReleaseLua)
)

// modeScripts are the scripts each mode runs (Check loads them).
var modeScripts = map[Mode][]*redis.Script{
	ModeKey:  {acquireScript, renewScript, releaseScript, reclaimScript},
	ModeHash: {hashAcquireScript, hashRenewScript, hashReclaimScript, hashReleaseScript},
}

// scriptReply decodes {n, time_s, time_us} and the acquire scripts'
// {code, time_s, time_us, next}.
func scriptReply(r []any) (n int64, now time.Time, next int64, err error) {
	if len(r) != 3 && len(r) != 4 {
		return 0, time.Time{}, 0, fmt.Errorf("unexpected script reply of %d elements", len(r))
	}
	n, ok := r[0].(int64)
	if !ok {
		return 0, time.Time{}, 0, fmt.Errorf("unexpected script reply type %T", r[0])
	}
	if len(r) == 4 {
		if next, ok = r[3].(int64); !ok {
			return 0, time.Time{}, 0, fmt.Errorf("unexpected script reply type %T", r[3])
		}
	}
	return n, serverTime(r[1], r[2]), next, nil
}

// serverTime turns TIME's two strings into a time; zero if malformed.
func serverTime(sec, usec any) time.Time {
	ss, ok1 := sec.(string)
	us, ok2 := usec.(string)
	if !ok1 || !ok2 {
		return time.Time{}
	}
	s, err1 := strconv.ParseInt(ss, 10, 64)
	u, err2 := strconv.ParseInt(us, 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}
	}
	return time.Unix(s, u*1000)
}
