-- Hash mode renew: extend both fields of the lease, only while both exist
-- and "<id>" holds our token.
--
-- KEYS[1] NAME; ARGV[1] id, ARGV[2] token, ARGV[3] TTL in milliseconds.
-- Returns {1, time_s, time_us} when renewed, {0, ...} when lost. TIME is
-- read on the node that applies the renewal.
local now = redis.call('TIME')
local id, token = ARGV[1], ARGV[2]
if redis.call('HGET', KEYS[1], id) ~= token then
  return {0, now[1], now[2]}
end
local n = redis.call('HSETEX', KEYS[1], 'FXX', 'PX', ARGV[3], 'FIELDS', 2,
  id, token, 'token.' .. id .. '.' .. token, id)
return {n, now[1], now[2]}
