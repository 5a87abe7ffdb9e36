-- charge.lua - wrk: charges of one page spread over 100 accounts, each
-- request with a fresh request id (thread id and a counter).
local counter = 0
local tid = 0
local threads = 0

function setup(thread)
	thread:set("tid", threads)
	threads = threads + 1
end

function init(args)
	tid = wrk.thread:get("tid") or 0
end

request = function()
	counter = counter + 1
	local uid = string.format("bench%03d", (tid * 7919 + counter) % 100)
	local body = string.format('{"request_id":"wrk-%d-%d","amount":1}', tid, counter)
	return wrk.format("POST", "/v1/accounts/" .. uid .. "/quotas/print.pages/charges",
		{ ["Authorization"] = "Bearer " .. os.getenv("KEY"),
		  ["Content-Type"] = "application/json" }, body)
end
