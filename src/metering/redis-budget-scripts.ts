// The Lua scripts behind the shared budget counters (redis-budgets.ts). Each budget period is one hash:
//   spent        integer microdollars settled in the period (seeded from Postgres)
//   r:<id>       a reservation in flight: "<amount>:<deadline epoch ms>"
// Reservations carry a deadline so that an instance that dies mid-call cannot hold headroom forever:
// expired ones are dropped by the next reserve. Times come from Redis' clock (TIME), shared by all.
// Scripts touch several keys at once, so shared mode needs one Redis (or all keys in one Cluster slot).

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** KEYS[1] the period hash; ARGV spent, expire-at epoch ms. Creates it only if absent (seed NX). */
export const SEED = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'spent', ARGV[1])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/**
 * KEYS the enforced budgets' period hashes; ARGV reservation id, amount, ttl ms, then one limit per key.
 * Admits while spent + live reservations < limit for every key, then adds the reservation to each.
 * Returns {1,0,0} admitted; {0,i,spent} refused by key i; {-1,i,0} key i is not seeded yet.
 */
export const RESERVE = `${NOW}
local n = #KEYS
for i = 1, n do
  if redis.call('EXISTS', KEYS[i]) == 0 then return {-1, i, 0} end
end
for i = 1, n do
  local h = redis.call('HGETALL', KEYS[i])
  local spent = 0
  local reserved = 0
  for j = 1, #h, 2 do
    local f = h[j]
    if f == 'spent' then
      spent = tonumber(h[j + 1])
    elseif string.sub(f, 1, 2) == 'r:' then
      local v = h[j + 1]
      local sep = string.find(v, ':', 1, true)
      if tonumber(string.sub(v, sep + 1)) < now then
        redis.call('HDEL', KEYS[i], f)
      else
        reserved = reserved + tonumber(string.sub(v, 1, sep - 1))
      end
    end
  end
  if spent + reserved >= tonumber(ARGV[3 + i]) then return {0, i, spent} end
end
local entry = ARGV[2] .. ':' .. string.format('%d', now + tonumber(ARGV[3]))
for i = 1, n do
  redis.call('HSET', KEYS[i], 'r:' .. ARGV[1], entry)
end
return {1, 0, 0}
`;

/**
 * KEYS the hashes holding the reservation (ARGV[2] of them), then the hashes the cost counts in;
 * ARGV reservation id, number of holds, cost. Spend is added only to seeded periods: an absent one
 * will be seeded from Postgres, which gets this call's record.
 */
export const SETTLE = `
local holds = tonumber(ARGV[2])
for i = 1, holds do
  redis.call('HDEL', KEYS[i], 'r:' .. ARGV[1])
end
if tonumber(ARGV[3]) > 0 then
  for i = holds + 1, #KEYS do
    if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('HINCRBY', KEYS[i], 'spent', ARGV[3]) end
  end
end
return 1
`;
