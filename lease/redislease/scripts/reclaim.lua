-- Key mode reclaim: while the key holds the old token, replace it with a
-- new one and extend the lease, in one step.
--
-- KEYS[1] {NAME}:<id>; ARGV[1] old token, ARGV[2] new token, ARGV[3] TTL in
-- milliseconds. Returns {1, time_s, time_us} when replaced (or already
-- holding the new token: a client's retry of this very reclaim), {0, ...}
-- when the key is gone or holds another token (lost).
local now = redis.call('TIME')
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return {1, now[1], now[2]}
end
if v == ARGV[2] then
  return {1, now[1], now[2]}
end
return {0, now[1], now[2]}
