"""The Lua scripts of the Redis store, each atomic on the server (see :mod:`bot.store.redis`)."""

# Shared by the scripts: is the game at key k there and not past its exp?
ALIVE = """
local function alive(k, now)
  local e = redis.call('HGET', k, 'exp')
  return e ~= false and tonumber(e) > now
end
"""

# KEYS: game key, channel key
# ARGV: data, channel, now, exp, ttl_ms, prefix, game_id, token, due ('' for none)
CREATE = (
    ALIVE
    + """
-- this very create, sent again after its reply was lost: it was done
if redis.call('HGET', KEYS[1], 'tok') == ARGV[8] then return 1 end
local now = tonumber(ARGV[3])
if alive(KEYS[1], now) then return 0 end
local bound = redis.call('GET', KEYS[2])
if bound then
  local bk = ARGV[6] .. 'game:' .. bound
  if alive(bk, now) and redis.call('HGET', bk, 'channel') == ARGV[2] then return 0 end
end
-- leftovers of an expired game with this id: its channel binding, notes and deadline
local old = redis.call('HGET', KEYS[1], 'channel')
if old and old ~= ARGV[2] then
  local ok = ARGV[6] .. 'chan:' .. old
  if redis.call('GET', ok) == ARGV[7] then redis.call('DEL', ok) end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'rev', '1', 'data', ARGV[1], 'channel', ARGV[2], 'exp', ARGV[4],
           'tok', ARGV[8])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('SET', KEYS[2], ARGV[7], 'PX', ARGV[5])
if ARGV[9] == '' then
  redis.call('ZREM', ARGV[6] .. 'due', ARGV[7])
else
  redis.call('ZADD', ARGV[6] .. 'due', ARGV[9], ARGV[7])
end
return 1
"""
)

# KEYS: game key, due key
# ARGV: rev, data, now, exp, ttl_ms, prefix, game_id, token,
#       due ('keep', 'none' or the deadline), release ('1' or '0')
SAVE = """
local cur = redis.call('HMGET', KEYS[1], 'rev', 'exp', 'channel', 'tok')
if not cur[1] or not cur[2] then return 0 end
-- this very save, sent again after its reply was lost: it was done
if cur[4] == ARGV[8] and tonumber(cur[1]) == tonumber(ARGV[1]) + 1 then return 1 end
if tonumber(cur[2]) <= tonumber(ARGV[3]) then return 0 end
if cur[1] ~= ARGV[1] then return 0 end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('HSET', KEYS[1], 'data', ARGV[2], 'exp', ARGV[4], 'tok', ARGV[8])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if cur[3] then
  local ck = ARGV[6] .. 'chan:' .. cur[3]
  if redis.call('GET', ck) == ARGV[7] then
    if ARGV[10] == '1' then
      redis.call('DEL', ck)
    else
      redis.call('PEXPIRE', ck, ARGV[5])
    end
  end
end
if ARGV[9] == 'none' then
  redis.call('ZREM', KEYS[2], ARGV[7])
elseif ARGV[9] ~= 'keep' then
  redis.call('ZADD', KEYS[2], ARGV[9], ARGV[7])
end
return 1
"""

# KEYS: game key
# ARGV: rev (of the notes), data, now, token
SAVE_SHOWN = """
local cur = redis.call('HMGET', KEYS[1], 'exp', 'srev', 'stok')
if not cur[1] or tonumber(cur[1]) <= tonumber(ARGV[3]) then return 0 end
local srev = tonumber(cur[2] or '0')
-- this very write, sent again after its reply was lost: it was done
if cur[3] == ARGV[4] and srev == tonumber(ARGV[1]) + 1 then return 1 end
if srev ~= tonumber(ARGV[1]) then return 0 end
-- HSET keeps the key's expiry: the notes do not renew the game
redis.call('HSET', KEYS[1], 'shown', ARGV[2], 'srev', tostring(srev + 1), 'stok', ARGV[4])
return 1
"""

# KEYS: channel key
# ARGV: channel, now, prefix
# The game bound to the channel as {rev, data, shown, srev}, or false.
LOAD_IN = """
local id = redis.call('GET', KEYS[1])
if not id then return false end
local g = redis.call('HMGET', ARGV[3] .. 'game:' .. id,
                     'rev', 'data', 'exp', 'channel', 'shown', 'srev')
if not g[1] or not g[2] or not g[3] or tonumber(g[3]) <= tonumber(ARGV[2]) then return false end
if g[4] ~= ARGV[1] then return false end
return {g[1], g[2], g[5] or '', g[6] or '0'}
"""

# KEYS: channel key
# ARGV: channel, now, prefix
CHANNEL_GAME = (
    ALIVE
    + """
local id = redis.call('GET', KEYS[1])
if not id then return false end
local gk = ARGV[3] .. 'game:' .. id
if alive(gk, tonumber(ARGV[2])) and redis.call('HGET', gk, 'channel') == ARGV[1] then
  return id
end
return false
"""
)

# KEYS: channel key
# ARGV: game_id
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

# KEYS: due key
# ARGV: now (deadlines), clock now (expiry), new score (now + lease), limit, prefix
CLAIM = (
    ALIVE
    + """
local now = tonumber(ARGV[2])
local limit = tonumber(ARGV[4])
local out, dead = {}, {}
local offset = 0
while #out < limit do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', offset, limit)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    if #out >= limit then break end
    if alive(ARGV[5] .. 'game:' .. id, now) then
      out[#out + 1] = id
    else
      dead[#dead + 1] = id
    end
  end
  offset = offset + #ids
end
for _, id in ipairs(dead) do redis.call('ZREM', KEYS[1], id) end
for _, id in ipairs(out) do redis.call('ZADD', KEYS[1], ARGV[3], id) end
return out
"""
)
