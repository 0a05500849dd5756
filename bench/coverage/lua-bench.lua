-- A mixed workload: table sort, string building and matching, arithmetic.
local t = {}
local seed = 42
for i = 1, 200000 do seed = (seed * 1103515245 + 12345) % 2147483648; t[i] = seed end
table.sort(t)
local parts = {}
for i = 1, 100000 do parts[#parts + 1] = tostring(t[i] % 1000) end
local s = table.concat(parts, ",")
local n = 0
for w in s:gmatch("%d+") do n = n + #w end
local r = s:gsub("1", "one")
local acc = 0.0
for i = 1, 3000000 do acc = acc + math.sin(i) * 0.5 end
print(#t, n, #r, string.format("%.3f", acc))
