"""The Lua scripts of the finished games kept for good in Redis, each atomic on the
server (see :mod:`bot.store.redis.kept`).  Like the games' own
(:mod:`bot.store.redis.scripts`), a script checks the kind of every key it writes
before it writes anything, and is safe to send again after a lost reply."""

# KEYS: the kept hash, the game's stats hash, the chat's sorted set, the
#       channel's last game, then one person set for each entry, then one
#       named set for each person the game names
# ARGV: token, key, finished, game, channel, how many entries, then who and
#       entry for each entry
# 1 if kept (or this very keep was sent again after its reply was lost), 0 if
# the key was kept before; an error (before anything is written) if a key
# holds the wrong kind of value.  A last game of the wrong kind is replaced;
# a game that becomes its channel's last adds the channel to each named set.
KEEP = """
local function fits(k, t)
  local got = redis.call('TYPE', k)['ok']
  return got == t or got == 'none'
end
local bad = nil
if not fits(KEYS[1], 'hash') or not fits(KEYS[2], 'hash') then bad = 'hash' end
if not fits(KEYS[3], 'zset') then bad = 'sorted set' end
for i = 5, #KEYS do
  if not fits(KEYS[i], 'set') then bad = 'set' end
end
local n = tonumber(ARGV[6])
if bad then
  return redis.error_reply('WRONGTYPE a key of the kept games holds no ' .. bad)
end
local done = redis.call('HGET', KEYS[1], ARGV[2])
if done then
  if done == ARGV[1] then return 1 end
  return 0
end
-- first: a finished time that is no number fails here, before anything is written
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
for j = 1, n do
  redis.call('HSET', KEYS[2], ARGV[5 + 2 * j], ARGV[6 + 2 * j])
  redis.call('SADD', KEYS[4 + j], ARGV[2])
end
if not fits(KEYS[4], 'hash') then redis.call('DEL', KEYS[4]) end
local old = tonumber(redis.call('HGET', KEYS[4], 'finished') or '')
local new = tonumber(ARGV[3])
if not old or old ~= old or (new and new > old) then
  redis.call('HSET', KEYS[4], 'finished', ARGV[3], 'key', ARGV[2], 'game', ARGV[4])
  for i = 5 + n, #KEYS do redis.call('SADD', KEYS[i], ARGV[5]) end
end
-- last: a keep that failed half way wrote nothing that a retry would not write again
redis.call('HSET', KEYS[1], ARGV[2], ARGV[1])
return 1
"""

# KEYS: the chat's sorted set
# ARGV: since, base
# {key, {who, entry, ...}, key, {...}, ...}: the games finished at or after
# since, oldest first (ties by key).
ENTRIES = """
local out = {}
for _, k in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf')) do
  local e = redis.pcall('HGETALL', ARGV[2] .. 'stats:' .. k)
  if not e['err'] then
    out[#out + 1] = k
    out[#out + 1] = e
  end
end
return out
"""

# KEYS: the person's set, the person's named set
# ARGV: person, base
# how many entries of the person were deleted (both sets go)
FORGET = """
local n = 0
for _, k in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local d = redis.pcall('HDEL', ARGV[2] .. 'stats:' .. k, ARGV[1])
  if type(d) == 'number' then n = n + d end
end
redis.call('DEL', KEYS[1], KEYS[2])
return n
"""

# KEYS: a channel's last game
# ARGV: the key of the game read there, its bytes without a forgotten person
# 1 if replaced, 0 if another game is the channel's last by now
SCRUB = """
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then return 0 end
if redis.call('HGET', KEYS[1], 'key') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'game', ARGV[2])
return 1
"""
