-- wrk script: HTTP/1.1 pipelining, in the style of the TechEmpower "plaintext" test.
--
-- Every write on a connection carries DEPTH identical GET requests back to back;
-- wrk waits for all DEPTH responses before it sends the next batch. wrk counts
-- each response as one request, so req/s stays comparable with keep-alive runs,
-- but its latency histogram holds one sample per batch (time from writing the
-- batch to reading its last response).
--
-- The batch is built once. A script with a request() function makes wrk call
-- into Lua and copy the batch for every write; without one, wrk takes its
-- request once per thread from wrk.format() (called after init), and counts the
-- requests in it to know how many responses a write waits for. So init hands
-- wrk.format the batch. Cheaper for wrk, which is what bounds the fastest
-- servers' pipelined req/s on two CPUs (some 2-5 % more of them).
--
-- usage: wrk -s bench/wrk/pipeline.lua http://127.0.0.1:8080/benchmark/hello -- 16

function init(args)
  local depth = tonumber(args[1] or "") or 16
  if depth < 1 then depth = 1 end
  -- wrk.format fills in Host and the path taken from the URL on the command line.
  local batch = string.rep(wrk.format("GET", wrk.path), depth)
  wrk.format = function()
    return batch
  end
end
