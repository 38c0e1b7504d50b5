"""The Lua scripts of the Redis store's games, channels and deadlines, each atomic on the
server (see :mod:`bot.store.redis.store`; those of the finished games kept for good:
:mod:`bot.store.redis.kept_scripts`).

Every key a script touches starts with the store's ``base`` (which carries
the hash tag), so all of them hash to one Redis Cluster slot.  A script
checks what it reads before it writes anything (a script that fails half
way keeps its writes): a damaged game record makes it answer "no" for that
game, never fail.
"""

from bot.store.buckets import LUA_BUCKET

# Shared by the scripts.
#
# num(s): s as a finite number if it is written as one (as Python writes a
# float), else nil.  The Python side (bot.store.redis.ops.number) reads the
# same way.
#
# state(k, now): what the game hash at k is at time now: 'gone' (no game,
# or past its exp), 'bad' (a record this store cannot read) or 'ok'; and its
# fields {rev, data, exp, channel, srev, tok, stok, toks} ({} if k is no hash).
#
# done(k, g, t): whether the write marked t was done already (the same script
# sent again after its answer was lost): t is among the tokens of the last
# writes (toks).  If so the write is told again, unchanged (HSET of
# the same tokens), so that a WAIT after it confirms that it reached the replicas.
# remember(k, g, t): t becomes the newest of the tokens kept (the last 8: 200
# characters, each token 24).
#
# late(by): whether Redis's clock (ms) is past ``by``, the last ARGV of every write
# script: a write that reaches Redis after the store stopped waiting for its answer
# is not done (it answers -1), so a write the store said was not done never is.
#
# fix_due(k): the deadlines key, moved aside (to k .. ':damaged') if
# something other than a sorted set took its place; 1 if it was moved.
HELPERS = (
    LUA_BUCKET
    + """
local function num(s)
  if type(s) ~= 'string' then return nil end
  if not (string.match(s, '^%-?%d+%.?%d*$') or string.match(s, '^%-?%d+%.?%d*[eE][%+%-]?%d+$')) then
    return nil
  end
  local n = tonumber(s)
  if n == nil or n ~= n or n == math.huge or n == -math.huge then return nil end
  return n
end
local function state(k, now)
  local g = redis.pcall('HMGET', k, 'rev', 'data', 'exp', 'channel', 'srev', 'tok', 'stok', 'toks')
  if g['err'] then return 'bad', {} end
  if not g[1] and not g[2] and not g[3] then return 'gone', g end
  local e = num(g[3])
  if not e then return 'bad', g end
  if e <= now then return 'gone', g end
  if not g[1] or not string.match(g[1], '^%d+$') or tonumber(g[1]) < 1 then return 'bad', g end
  if not g[2] or not g[4] then return 'bad', g end
  if g[5] and not string.match(g[5], '^%d+$') then return 'bad', g end
  return 'ok', g
end
local function done(k, g, t)
  local toks = g[8]
  if type(toks) == 'string' and string.find(toks, t, 1, true) then
    redis.call('HSET', k, 'toks', toks)
    return true
  end
  return false
end
local function remember(k, g, t)
  local toks = t
  if type(g[8]) == 'string' then toks = string.sub(t .. ',' .. g[8], 1, 200) end
  redis.call('HSET', k, 'toks', toks)
end
local function late(by)
  if by == nil or by == '' then return false end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(by)
end
local function fix_due(k)
  local t = redis.call('TYPE', k)['ok']
  if t ~= 'zset' and t ~= 'none' then
    redis.call('RENAME', k, k .. ':damaged')
    return 1
  end
  return 0
end
"""
)

# KEYS: game key, channel key, due key
# ARGV: data, channel, now, exp, ttl_ms (exp - now, in ms), base, game_id, token,
#       due ('' for none), by
CREATE = (
    HELPERS
    + """
local now = tonumber(ARGV[3])
local st, g = state(KEYS[1], now)
if st == 'ok' then
  -- this very create, sent again after its reply was lost: it was done
  if done(KEYS[1], g, ARGV[8]) then return 1 end
  return 0
end
if st == 'bad' then return 0 end
if late(ARGV[#ARGV]) then return -1 end
local bound = redis.pcall('GET', KEYS[2])
if type(bound) == 'string' then
  local bst, bg = state(at(ARGV[6], bound) .. 'game:' .. bound, now)
  if bst == 'ok' and bg[4] == ARGV[2] then return 0 end
  if bst == 'bad' and (not bg[4] or bg[4] == ARGV[2]) then return 0 end
end
-- leftovers of an expired game with this id: its channel binding (its notes
-- and deadline go below)
if g[4] and g[4] ~= ARGV[2] then
  local ok = at(ARGV[6], g[4]) .. 'chan:' .. g[4]
  if redis.pcall('GET', ok) == ARGV[7] then redis.call('DEL', ok) end
end
fix_due(KEYS[3])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'rev', '1', 'data', ARGV[1], 'channel', ARGV[2], 'exp', ARGV[4],
           'tok', ARGV[8], 'toks', ARGV[8])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('SET', KEYS[2], ARGV[7], 'PX', ARGV[5])
if ARGV[9] == '' then
  redis.call('ZREM', KEYS[3], ARGV[7])
else
  redis.call('ZADD', KEYS[3], ARGV[9], ARGV[7])
end
return 1
"""
)

# KEYS: game key, due key
# ARGV: rev, data, now, exp, ttl_ms (exp - now, in ms), base, game_id, token,
#       due ('keep', 'none' or the deadline), release ('1' or '0'), by
SAVE = (
    HELPERS
    + """
local st, g = state(KEYS[1], tonumber(ARGV[3]))
if st ~= 'ok' then return 0 end
-- this very save, sent again after its reply was lost: it was done, even if
-- other saves came after it
if done(KEYS[1], g, ARGV[8]) then return 1 end
if late(ARGV[#ARGV]) then return -1 end
if g[1] ~= ARGV[1] then return 0 end
-- the expiry renewed; with the deadline kept, one set to outlast it stays
local exp, ms = ARGV[4], ARGV[5]
local old = num(g[3])
if ARGV[9] == 'keep' and old > tonumber(exp) then
  exp, ms = g[3], math.max(1, math.floor((old - tonumber(ARGV[3])) * 1000))
end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('HSET', KEYS[1], 'data', ARGV[2], 'exp', exp, 'tok', ARGV[8])
remember(KEYS[1], g, ARGV[8])
redis.call('PEXPIRE', KEYS[1], ms)
local ck = at(ARGV[6], g[4]) .. 'chan:' .. g[4]
if redis.pcall('GET', ck) == ARGV[7] then
  if ARGV[10] == '1' then
    redis.call('DEL', ck)
  else
    redis.call('PEXPIRE', ck, ms)
  end
end
if ARGV[9] ~= 'keep' then
  fix_due(KEYS[2])
  if ARGV[9] == 'none' then
    redis.call('ZREM', KEYS[2], ARGV[7])
  else
    redis.call('ZADD', KEYS[2], ARGV[9], ARGV[7])
  end
end
return 1
"""
)

# KEYS: game key
# ARGV: rev (of the notes), data, now, token, by
SAVE_SHOWN = (
    HELPERS
    + """
local st, g = state(KEYS[1], tonumber(ARGV[3]))
if st ~= 'ok' then return 0 end
local srev = tonumber(g[5] or '0')
-- this very write, sent again after its reply was lost: it was done
if done(KEYS[1], g, ARGV[4]) then return 1 end
if late(ARGV[#ARGV]) then return -1 end
if srev ~= tonumber(ARGV[1]) then return 0 end
-- HSET keeps the key's expiry: the notes do not renew the game
redis.call('HSET', KEYS[1], 'shown', ARGV[2], 'srev', tostring(srev + 1), 'stok', ARGV[4])
remember(KEYS[1], g, ARGV[4])
return 1
"""
)

# KEYS: channel key
# ARGV: base
# false (nothing bound), {id, 'wrongtype'} (the game key is no hash), or
# {id, 'hash', rev, data, exp, channel, shown, srev}: read by the Python side.
LOAD_IN = (
    LUA_BUCKET
    + """
local id = redis.pcall('GET', KEYS[1])
if type(id) ~= 'string' then return false end
local g = redis.pcall('HMGET', at(ARGV[1], id) .. 'game:' .. id,
                      'rev', 'data', 'exp', 'channel', 'shown', 'srev')
if g['err'] then return {id, 'wrongtype'} end
return {id, 'hash', g[1], g[2], g[3], g[4], g[5], g[6]}
"""
)

# KEYS: channel key
# ARGV: channel, now, base
CHANNEL_GAME = (
    HELPERS
    + """
local id = redis.pcall('GET', KEYS[1])
if type(id) ~= 'string' then return false end
local st, g = state(at(ARGV[3], id) .. 'game:' .. id, tonumber(ARGV[2]))
if st == 'ok' and g[4] == ARGV[1] then return id end
if st == 'bad' and (not g[4] or g[4] == ARGV[1]) then return id end
return false
"""
)

# KEYS: channel key
# ARGV: game_id
# (a channel key that is not a string is no binding at all: it goes)
RELEASE = """
local b = redis.pcall('GET', KEYS[1])
if b == ARGV[1] or type(b) == 'table' then redis.call('DEL', KEYS[1]) end
return 1
"""

# KEYS: game key, channel key, due key
# ARGV: game_id, base
DISCARD = (
    LUA_BUCKET
    + """
local ch = redis.pcall('HGET', KEYS[1], 'channel')
if type(ch) == 'string' then
  local ck = at(ARGV[2], ch) .. 'chan:' .. ch
  if ck ~= KEYS[2] and redis.pcall('GET', ck) == ARGV[1] then redis.call('DEL', ck) end
end
local b = redis.pcall('GET', KEYS[2])
if b == ARGV[1] or type(b) == 'table' then redis.call('DEL', KEYS[2]) end
redis.call('DEL', KEYS[1])
if redis.call('TYPE', KEYS[3])['ok'] == 'zset' then redis.call('ZREM', KEYS[3], ARGV[1]) end
return 1
"""
)

# KEYS: due key
# ARGV: game_id, due ('' to remove the deadline)
SCHEDULE = (
    HELPERS
    + """
fix_due(KEYS[1])
if ARGV[2] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
end
return 1
"""
)

# KEYS: due key
# ARGV: now (deadlines), clock now (expiry), new score (now + lease), limit, base
# {claimed ids, ids of damaged games skipped, 1 if the due key was moved aside,
#  the claimed ids' deadlines}
CLAIM = (
    HELPERS
    + """
local moved = fix_due(KEYS[1])
local now = tonumber(ARGV[2])
local limit = tonumber(ARGV[4])
local out, dead, bad = {}, {}, {}
local offset = 0
while #out < limit do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', offset, limit)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    if #out >= limit then break end
    local st = state(ARGV[5] .. 'game:' .. id, now)
    if st == 'ok' then
      out[#out + 1] = id
    else
      dead[#dead + 1] = id
      if st == 'bad' then bad[#bad + 1] = id end
    end
  end
  offset = offset + #ids
end
for _, id in ipairs(dead) do redis.call('ZREM', KEYS[1], id) end
local scores = {}
for i, id in ipairs(out) do
  scores[i] = redis.call('ZSCORE', KEYS[1], id)
  redis.call('ZADD', KEYS[1], ARGV[3], id)
end
return {out, bad, moved, scores}
"""
)

# Moving one game from the key names of ludo-bot before hash tags (one
# server only: these keys hash to several slots).
# KEYS: old game key, new game key, old due key, new due key
# ARGV: game_id, old channel key prefix, new channel key prefix
# 1 if moved, 0 if there was nothing to move or a game with the id is there already.
MIGRATE_GAME = (
    LUA_BUCKET
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local ch = redis.pcall('HGET', KEYS[1], 'channel')
local oc = nil
if type(ch) == 'string' and redis.pcall('GET', ARGV[2] .. ch) == ARGV[1] then
  oc = ARGV[2] .. ch
end
local score = nil
if redis.call('TYPE', KEYS[3])['ok'] == 'zset' then
  score = redis.call('ZSCORE', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  -- a game with this id under the new names is the live one
  redis.call('DEL', KEYS[1])
  if oc then redis.call('DEL', oc) end
  return 0
end
redis.call('RENAME', KEYS[1], KEYS[2])
if oc then
  local nc = at(ARGV[3], ch) .. 'chan:' .. ch
  if redis.call('EXISTS', nc) == 0 then redis.call('RENAME', oc, nc) else redis.call('DEL', oc) end
end
local t = redis.call('TYPE', KEYS[4])['ok']
if score and (t == 'zset' or t == 'none') then redis.call('ZADD', KEYS[4], score, ARGV[1]) end
return 1
"""
)
