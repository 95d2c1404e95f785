// The Lua scripts behind shared admission (redis-admission.ts). Each budget period is one hash:
//   spent        integer microdollars settled in the period (seeded from Postgres)
//   r:<id>       a reservation in flight: "<amount>:<deadline epoch ms>"
// and each workspace's credit holds one hash of `h:<id>` fields in the same format (redis-credit-holds.ts).
// Reservations and holds carry a deadline so that an instance that dies mid-call cannot hold headroom forever:
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
 * The admission of one call, atomically: its reservation in every enforced budget and, when it holds
 * credit, its credit hold (redis-admission.ts). KEYS the enforced budgets' period hashes, then the
 * workspace's credit-holds hash when ARGV[4] > 0; ARGV reservation id, amount, ttl ms, credit mode (0 no
 * hold; 1 a hold if the balance allows, else the call goes on without one; 2 a hold or a refusal),
 * balance, then one limit per budget key. Credit: balance − live holds > 0. Budgets: spent + live
 * reservations < limit for every key. Expired entries are dropped on the way; nothing else is written
 * unless everything is granted. Returns {1,0,0,held,spent of each budget key} admitted (held 1 when the
 * credit hold was taken); {0,i,spent,0} refused by budget key i; {-1,i,0,0} key i is not seeded yet;
 * {2,0,0,0} no credit.
 */
export const RESERVE = `${NOW}
local function live(key, prefix)
  local h = redis.call('HGETALL', key)
  local spent = 0
  local sum = 0
  for j = 1, #h, 2 do
    local f = h[j]
    if f == 'spent' then
      spent = tonumber(h[j + 1])
    elseif string.sub(f, 1, 2) == prefix then
      local v = h[j + 1]
      local sep = string.find(v, ':', 1, true)
      if tonumber(string.sub(v, sep + 1)) < now then
        redis.call('HDEL', key, f)
      else
        sum = sum + tonumber(string.sub(v, 1, sep - 1))
      end
    end
  end
  return spent, sum
end
local mode = tonumber(ARGV[4])
local n = #KEYS
local credit = 0
if mode > 0 then
  n = n - 1
  local _, held = live(KEYS[n + 1], 'h:')
  if tonumber(ARGV[5]) - held > 0 then
    credit = 1
  elseif mode == 2 then
    return {2, 0, 0, 0}
  end
end
for i = 1, n do
  if redis.call('EXISTS', KEYS[i]) == 0 then return {-1, i, 0, 0} end
end
local out = {1, 0, 0, 0}
for i = 1, n do
  local spent, reserved = live(KEYS[i], 'r:')
  if spent + reserved >= tonumber(ARGV[5 + i]) then return {0, i, spent, 0} end
  out[4 + i] = spent
end
local entry = ARGV[2] .. ':' .. string.format('%d', now + tonumber(ARGV[3]))
for i = 1, n do
  redis.call('HSET', KEYS[i], 'r:' .. ARGV[1], entry)
end
if credit == 1 then
  redis.call('HSET', KEYS[n + 1], 'h:' .. ARGV[1], entry)
  redis.call('PEXPIRE', KEYS[n + 1], ARGV[3])
end
out[4] = credit
return out
`;

/**
 * The ends of many calls in one script (redis-settle-queue.ts). ARGV triples: "d", key index, field
 * (HDEL: a reservation or a credit hold ends) or "i", key index, cost (the cost adds to a period's
 * spend, only if the period is seeded: an absent one will be seeded from Postgres, which gets this
 * call's record). Returns key index, new spend, for each cost added.
 */
export const SETTLE = `
local out = {}
for j = 1, #ARGV, 3 do
  local key = KEYS[tonumber(ARGV[j + 1])]
  if ARGV[j] == 'd' then
    redis.call('HDEL', key, ARGV[j + 2])
  elseif redis.call('EXISTS', key) == 1 then
    out[#out + 1] = tonumber(ARGV[j + 1])
    out[#out + 1] = redis.call('HINCRBY', key, 'spent', ARGV[j + 2])
  end
end
return out
`;
