-- Key mode release: while the key still holds our token, shorten it to the
-- release hold (the ID stays taken that long, then expires), or delete it
-- when the hold is 0. A stale release never touches another holder's lease.
--
-- KEYS[1] {NAME}:<id>; ARGV[1] token, ARGV[2] hold in milliseconds (>= 0).
-- Returns 1 when shortened or deleted, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  local hold = tonumber(ARGV[2])
  if hold > 0 then
    return redis.call('PEXPIRE', KEYS[1], hold)
  end
  return redis.call('DEL', KEYS[1])
end
return 0
