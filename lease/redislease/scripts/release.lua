-- Key mode release: delete the key only while it still holds our token, so a
-- stale release never frees another holder's lease.
--
-- KEYS[1] {NAME}:<id>; ARGV[1] token. Returns 1 when deleted, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
