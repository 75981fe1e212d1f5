-- Key mode renew: extend the lease only while it still holds our token.
--
-- KEYS[1] {NAME}:<id>; ARGV[1] token, ARGV[2] TTL in milliseconds.
-- Returns {1, time_s, time_us} when renewed, {0, ...} when the key is gone
-- or holds another token (lost). Replaying an applied renewal returns 1.
local now = redis.call('TIME')
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, now[1], now[2]}
end
return {0, now[1], now[2]}
