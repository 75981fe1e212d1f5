-- Key mode acquire: claim one machine ID, the caller's candidate.
--
-- KEYS[1]      NAME (the hash-mode key; checked, never written)
-- KEYS[2..n+1] {NAME}:0 .. {NAME}:n-1, one key per machine ID
-- ARGV[1] candidate ID (0..n-1), ARGV[2] token, ARGV[3] TTL in milliseconds,
-- ARGV[4] pick: -1 names the lowest free ID as the next candidate, else
-- the free ID at pick modulo the number of free IDs. ARGV[5] and ARGV[6]:
-- the first and last ID that may be named next (Options.MachineIDs;
-- 0 and n-1 when absent).
--
-- Returns {code, time_s, time_us, next}: code is the candidate when
-- claimed (or already holding this token: a client's retry of this very
-- claim, whose first run was applied and whose reply was lost), -1 when every ID from ARGV[5] to ARGV[6] is held, -2 when NAME holds a hash (hash-mode
-- data: refuse to mix layouts), -3 when the candidate is held (next is a
-- free ID to try instead). Claiming only the caller's candidate lets the
-- caller name the lease a lost reply may have claimed. Every key is
-- declared in KEYS and shares NAME's hash slot, and TIME is read on the
-- node that applies the claim.
local now = redis.call('TIME')
if redis.call('TYPE', KEYS[1]).ok == 'hash' then
  return {-2, now[1], now[2], 0}
end
local c = tonumber(ARGV[1])
if redis.call('SET', KEYS[c + 2], ARGV[2], 'NX', 'PX', ARGV[3]) or
    redis.call('GET', KEYS[c + 2]) == ARGV[2] then
  return {c, now[1], now[2], 0}
end
local free = {}
local lo, hi = tonumber(ARGV[5]) or 0, tonumber(ARGV[6]) or (#KEYS - 2)
for id = lo, hi do
  if redis.call('EXISTS', KEYS[id + 2]) == 0 then
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
