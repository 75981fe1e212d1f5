-- Key mode acquire: claim the first free machine ID at or after a start offset.
--
-- KEYS[1]      NAME (the hash-mode key; checked, never written)
-- KEYS[2..n+1] {NAME}:0 .. {NAME}:n-1, one key per machine ID
-- ARGV[1]      start offset (0..n-1), ARGV[2] token, ARGV[3] TTL in milliseconds
--
-- Returns {id, time_s, time_us}: id >= 0 when claimed, -1 when every ID is
-- held, -2 when NAME holds a hash (hash-mode data: refuse to mix layouts).
-- Every key is declared in KEYS and shares NAME's hash slot, so the script
-- is Redis Cluster correct.
local now = redis.call('TIME')
if redis.call('TYPE', KEYS[1]).ok == 'hash' then
  return {-2, now[1], now[2]}
end
local n = #KEYS - 1
local start = tonumber(ARGV[1]) % n
for i = 0, n - 1 do
  local id = (start + i) % n
  if redis.call('SET', KEYS[id + 2], ARGV[2], 'NX', 'PX', ARGV[3]) then
    return {id, now[1], now[2]}
  end
end
return {-1, now[1], now[2]}
