-- Hash mode reclaim: while the lease holds the old token, move both of its
-- fields to a new token with a new TTL, in one step: "<id>" -> new token,
-- "token.<id>.<new>" -> "<id>" (HSETEX PX), and "token.<id>.<old>" deleted.
--
-- KEYS[1] NAME; ARGV[1] id, ARGV[2] old token, ARGV[3] new token, ARGV[4]
-- TTL in milliseconds. Returns {1, time_s, time_us} when replaced (or
-- already holding the new token: a client's retry of this very reclaim),
-- {0, ...} when the lease is gone or another token's (lost).
local now = redis.call('TIME')
local id, old, new = ARGV[1], ARGV[2], ARGV[3]
local oldField = 'token.' .. id .. '.' .. old
local v = redis.call('HGET', KEYS[1], id)
if v == new and redis.call('HEXISTS', KEYS[1], 'token.' .. id .. '.' .. new) == 1 then
  return {1, now[1], now[2]}
end
if v ~= old or redis.call('HEXISTS', KEYS[1], oldField) == 0 then
  return {0, now[1], now[2]}
end
redis.call('HSETEX', KEYS[1], 'PX', ARGV[4], 'FIELDS', 2, id, new, 'token.' .. id .. '.' .. new, id)
redis.call('HDEL', KEYS[1], oldField)
return {1, now[1], now[2]}
