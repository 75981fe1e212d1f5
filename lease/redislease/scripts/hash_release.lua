-- Hash mode release: while both fields of the lease exist and "<id>"
-- holds our token, shorten both to the release hold (the ID stays taken
-- that long, then expires), or delete both when the hold is 0. A stale
-- release never touches another holder's lease.
--
-- The script checks the fields itself and writes with a plain HSETEX,
-- never FXX: Redis 8 logs the write as HSETEX with the absolute expiry
-- (PXAT), and an FXX replayed from the append-only file after the fields'
-- logged expiry sets nothing, which would end the hold early.
--
-- KEYS[1] NAME; ARGV[1] id, ARGV[2] token, ARGV[3] hold in milliseconds
-- (>= 0). Returns 1 when shortened or deleted, 0 otherwise.
local id, token = ARGV[1], ARGV[2]
local tokenField = 'token.' .. id .. '.' .. token
if redis.call('HGET', KEYS[1], id) ~= token or
    redis.call('HEXISTS', KEYS[1], tokenField) == 0 then
  return 0
end
if tonumber(ARGV[3]) > 0 then
  redis.call('HSETEX', KEYS[1], 'PX', ARGV[3], 'FIELDS', 2, id, token, tokenField, id)
else
  redis.call('HDEL', KEYS[1], id, tokenField)
end
return 1
