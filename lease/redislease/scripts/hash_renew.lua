-- Hash mode renew: extend both fields of the lease, only while both exist
-- and "<id>" holds our token. The script checks both and then writes with
-- a plain HSETEX, never FXX: Redis 8 logs the write as HSETEX with the
-- absolute expiry (PXAT), and replaying an FXX from the append-only file
-- after a restart sets nothing when the fields' logged expiry (the claim's
-- or an earlier renewal's) has passed, which loses the lease.
--
-- KEYS[1] NAME; ARGV[1] id, ARGV[2] token, ARGV[3] TTL in milliseconds.
-- Returns {1, time_s, time_us} when renewed, {0, ...} when lost. TIME is
-- read on the node that applies the renewal.
local now = redis.call('TIME')
local id, token = ARGV[1], ARGV[2]
local tokenField = 'token.' .. id .. '.' .. token
if redis.call('HGET', KEYS[1], id) ~= token or
    redis.call('HEXISTS', KEYS[1], tokenField) == 0 then
  return {0, now[1], now[2]}
end
redis.call('HSETEX', KEYS[1], 'PX', ARGV[3], 'FIELDS', 2, id, token, tokenField, id)
return {1, now[1], now[2]}
