-- Hash mode list: every held machine ID with its value and remaining TTL,
-- read in one step.
--
-- KEYS[1] NAME; ARGV[1] the number of machine IDs n.
-- Returns {id, value, pttl, id, value, pttl, ...} for every field "<id>"
-- (0..n-1) that exists, in ascending ID order; pttl is -1 for a field
-- without a TTL.
local out = {}
if redis.call('EXISTS', KEYS[1]) == 0 then
  return out
end
local fields = {}
for id = 0, tonumber(ARGV[1]) - 1 do
  fields[#fields + 1] = tostring(id)
end
local values = redis.call('HMGET', KEYS[1], unpack(fields))
local held = {}
for i = 1, #fields do
  if values[i] then
    held[#held + 1] = i
  end
end
if #held == 0 then
  return out
end
local names = {}
for j = 1, #held do
  names[j] = fields[held[j]]
end
local ttls = redis.call('HPTTL', KEYS[1], 'FIELDS', #names, unpack(names))
for j = 1, #held do
  out[#out + 1] = held[j] - 1
  out[#out + 1] = values[held[j]]
  out[#out + 1] = ttls[j]
end
return out
