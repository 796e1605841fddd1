-- report: a sales report: grouping rows, sorting, money with thousands
-- separators, padded columns with string.format, one text built with
-- table.concat.
local REGIONS = {"north", "south", "east", "west", "central"}
local PRODUCTS = {"apples", "pears", "plums", "cherries", "quinces", "figs", "dates"}

local function money(cents)
  local int = tostring(cents // 100):reverse():gsub("(%d%d%d)", "%1,"):reverse()
  if int:sub(1, 1) == "," then int = int:sub(2) end
  return string.format("%s.%02d", int, cents % 100)
end

local function make_rows(n)
  local rows, seed = {}, 7
  for i = 1, n do
    seed = (seed * 1103515245 + 12345) % 2147483648
    rows[i] = {
      region = REGIONS[seed % #REGIONS + 1],
      product = PRODUCTS[(seed // 7) % #PRODUCTS + 1],
      qty = seed % 50 + 1,
      price = 99 + (seed // 13) % 5000,
    }
  end
  return rows
end

local function group(rows)
  local by_region = {}
  for _, r in ipairs(rows) do
    local g = by_region[r.region]
    if not g then
      g = {name = r.region, total = 0, products = {}}
      by_region[r.region] = g
    end
    local p = g.products[r.product]
    if not p then
      p = {name = r.product, qty = 0, total = 0}
      g.products[r.product] = p
    end
    p.qty = p.qty + r.qty
    p.total = p.total + r.qty * r.price
    g.total = g.total + r.qty * r.price
  end
  return by_region
end

local function by_total(a, b)
  if a.total ~= b.total then return a.total > b.total end
  return a.name < b.name
end

local function render(by_region)
  local regions = {}
  for _, g in pairs(by_region) do regions[#regions + 1] = g end
  table.sort(regions, by_total)
  local out = {}
  for _, g in ipairs(regions) do
    out[#out + 1] = string.format("== %s (%s) ==", g.name:upper(), money(g.total))
    local products = {}
    for _, p in pairs(g.products) do products[#products + 1] = p end
    table.sort(products, by_total)
    for rank, p in ipairs(products) do
      out[#out + 1] = string.format("%2d. %-10s %8d %16s %6.1f%%", rank, p.name, p.qty,
                                    money(p.total), p.total * 100 / g.total)
    end
  end
  return table.concat(out, "\n")
end

function bench(n)
  local rows = make_rows(n)
  local size, lines = 0, 0
  for chunk = 1, 20 do
    local part = {}
    for i = chunk, #rows, 20 do part[#part + 1] = rows[i] end
    local text = render(group(part))
    size = size + #text
    lines = lines + select(2, text:gsub("\n", "\n"))
  end
  local money_chars = 0
  for i = 1, #rows do money_chars = money_chars + #money(rows[i].qty * rows[i].price) end
  return size * 1000 + lines + money_chars
end
