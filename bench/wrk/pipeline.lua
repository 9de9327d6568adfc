-- wrk script: HTTP/1.1 pipelining, in the style of the TechEmpower "plaintext" test.
--
-- Every write on a connection carries DEPTH identical GET requests back to back;
-- wrk waits for all DEPTH responses before it sends the next batch. wrk counts
-- each response as one request, so req/s stays comparable with keep-alive runs,
-- but its latency histogram holds one sample per batch (time from writing the
-- batch to reading its last response).
--
-- usage: wrk -s bench/wrk/pipeline.lua http://127.0.0.1:8080/benchmark/hello -- 16

local batch

function init(args)
  local depth = tonumber(args[1] or "") or 16
  if depth < 1 then depth = 1 end
  -- wrk.format fills in Host and the path taken from the URL on the command line.
  batch = string.rep(wrk.format("GET", wrk.path), depth)
end

function request()
  return batch
end
