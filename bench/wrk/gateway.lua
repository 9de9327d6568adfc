-- wrk script for bench/gateway.sh: POSTs a small message to /gateway/publish and counts the
-- answers by status, in total and per second of the run, so the table can give the success rate
-- (202s out of every request, socket errors included) and the timeline of a fault run.
--   wrk -s bench/wrk/gateway.lua ... http://127.0.0.1:PORT/gateway/publish
-- The routing key comes from the environment (ROUTING_KEY, default keel.gateway). DELAY_MS, when
-- set, makes each connection wait that long before each request (a steady rate: connections x
-- 1000 / (DELAY_MS + latency)), for latency figures that a saturated server would not give.
-- IDS_FILE, when set, gives every request an id of its own (ID_PREFIX, thread number, counter), as
-- its Message-Id header and in its body, and each thread writes the ids answered 202 (from the
-- answer's messageId), one a line, to IDS_FILE.<thread>: the messages the broker confirmed.

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Routing-Key"] = os.getenv("ROUTING_KEY") or "keel.gateway"
wrk.body = '{"device":"bench","temperature":21.5}'

local threads = {}

local delay_ms = tonumber(os.getenv("DELAY_MS") or "")
if delay_ms then
  function delay()
    return delay_ms
  end
end

-- How many answers took longer than limit_us: the rank where the latency percentiles cross it.
local function count_over(latency, total, limit_us)
  if total == 0 or latency.max <= limit_us then return 0 end
  local low, high = 0, 100
  for _ = 1, 60 do
    local mid = (low + high) / 2
    if latency:percentile(mid) <= limit_us then low = mid else high = mid end
  end
  return math.max(0, math.floor(total * (100 - low) / 100 + 0.5))
end

local ids_file = os.getenv("IDS_FILE")

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_number", #threads)
end

function init(args)
  statuses = {}
  timeline = {}
  if ids_file then
    ids_out = assert(io.open(ids_file .. "." .. thread_number, "w"))
    id_prefix = (os.getenv("ID_PREFIX") or "wrk") .. "-t" .. thread_number .. "-"
    sent, flushed_at = 0, os.time()
    -- wrk.format takes the headers whole, not on top of wrk.headers.
    id_headers = {}
    for name, value in pairs(wrk.headers) do id_headers[name] = value end
  end
end

if ids_file then
  function request()
    sent = sent + 1
    local id = id_prefix .. sent
    id_headers["Message-Id"] = id
    return wrk.format(nil, nil, id_headers,
      '{"id":"' .. id .. '","device":"bench","temperature":21.5}')
  end
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  local class = (status == 202) and "ok" or (status >= 500 and "5xx" or "other")
  local now = os.time()
  -- Flat string keys: wrk's copy of a thread's tables mishandles nested ones and epoch-sized integer keys.
  local key = now .. " " .. class
  timeline[key] = (timeline[key] or 0) + 1
  if ids_out and status == 202 then
    ids_out:write(body:match('"messageId":"([^"]*)"') or "?", "\n")
    -- Buffered, flushed once a second: an interrupted run loses at most its last second.
    if now ~= flushed_at then ids_out:flush(); flushed_at = now end
  end
end

function done(summary, latency, requests)
  local totals, seconds = {}, {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do
      totals[status] = (totals[status] or 0) + n
    end
    for key, n in pairs(thread:get("timeline")) do
      local second, class = key:match("^(%d+) (%S+)$")
      seconds[second] = seconds[second] or { ok = 0, ["5xx"] = 0, other = 0 }
      seconds[second][class] = seconds[second][class] + n
    end
  end
  local e = summary.errors
  io.write(string.format("GATEWAY requests=%d socket_errors=%d timeouts=%d p95_ms=%.2f p99_ms=%.2f\n",
    summary.requests, e.connect + e.read + e.write, e.timeout,
    latency:percentile(95) / 1000, latency:percentile(99) / 1000))
  io.write(string.format("LATENCY p50_ms=%.2f p99_ms=%.2f max_ms=%.2f over_2s=%d\n", latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, count_over(latency, summary.requests, 2000000)))
  for status, n in pairs(totals) do
    io.write(string.format("STATUS %d %d\n", status, n))
  end
  local keys = {}
  for second in pairs(seconds) do table.insert(keys, second) end
  table.sort(keys)
  for _, second in ipairs(keys) do
    local b = seconds[second]
    io.write(string.format("SECOND %s ok=%d 5xx=%d other=%d\n", second, b.ok, b["5xx"], b.other))
  end
end
