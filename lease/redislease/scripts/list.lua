-- Key mode list: every held machine ID with its value and remaining TTL,
-- read in one step.
--
-- KEYS[1..n] {NAME}:0 .. {NAME}:n-1, one key per machine ID.
-- Returns {id, value, pttl, id, value, pttl, ...} for every key that
-- exists, in ascending ID order; pttl is -1 for a key without a TTL.
local out = {}
local values = redis.call('MGET', unpack(KEYS))
for i = 1, #KEYS do
  local v = values[i]
  if v then
    out[#out + 1] = i - 1
    out[#out + 1] = v
    out[#out + 1] = redis.call('PTTL', KEYS[i])
  end
end
return out
