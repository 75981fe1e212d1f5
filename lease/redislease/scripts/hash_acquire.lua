-- Hash mode acquire: claim one machine ID, the caller's candidate, with
-- the Elixir library's layout ("<id>" -> token, "token.<id>.<token>" ->
-- "<id>", one HSETEX with one TTL) when "<id>" is free.
--
-- The script checks the field itself and writes with a plain HSETEX, never
-- FNX: Redis 8 logs the write to its append-only file and replicas as
-- HSETEX with the absolute expiry (PXAT), and a conditional write replayed
-- there, once that expiry has passed, can set nothing and make every later
-- renewal of the lease find no field (the renew script does the same).
--
-- KEYS[1]      NAME (the hash)
-- KEYS[2..n+1] {NAME}:0 .. {NAME}:n-1, the key-mode keys (checked, never written)
-- ARGV[1] candidate ID (0..n-1), ARGV[2] token, ARGV[3] TTL in milliseconds,
-- ARGV[4] pick: -1 names the lowest free ID as the next candidate, else
-- the free ID at pick modulo the number of free IDs. ARGV[5] and ARGV[6]:
-- the first and last ID that may be named next (Options.MachineIDs;
-- 0 and n-1 when absent).
--
-- Returns {code, time_s, time_us, next} as the key-mode acquire script:
-- the candidate when claimed (or already holding this token: a retry of
-- this very claim), -1 when every ID from ARGV[5] to ARGV[6] is held, -2 when a key-mode
-- key exists (refuse to mix layouts), -3 when the candidate is held (next
-- is a free ID to try instead). The check for key-mode data is atomic with
-- the claim, and TIME is read on the node that applies it.
local now = redis.call('TIME')
if redis.call('EXISTS', unpack(KEYS, 2)) > 0 then
  return {-2, now[1], now[2], 0}
end
local c = ARGV[1]
local v = redis.call('HGET', KEYS[1], c)
if not v then
  redis.call('HSETEX', KEYS[1], 'PX', ARGV[3], 'FIELDS', 2,
    c, ARGV[2], 'token.' .. c .. '.' .. ARGV[2], c)
end
if not v or v == ARGV[2] then
  return {tonumber(c), now[1], now[2], 0}
end
local free = {}
local lo, hi = tonumber(ARGV[5]) or 0, tonumber(ARGV[6]) or (#KEYS - 2)
for id = lo, hi do
  if redis.call('HEXISTS', KEYS[1], tostring(id)) == 0 then
    free[#free + 1] = id
  end
end
if #free == 0 then
  return {-1, now[1], now[2], 0}
end
local pick = tonumber(ARGV[4])
if pick < 0 then
  return {-3, now[1], now[2], free[1]}
end
return {-3, now[1], now[2], free[pick % #free + 1]}
