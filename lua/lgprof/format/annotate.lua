--- lgprof.report.annotate (and so `lgprof --annotate-lines[=FILE]`,
-- lgprof.cmd.annotate): source files listed line by line with each line's count, sampled self time and
-- share of the total, and a mark where that time came from inlined code.
local args = require "lgprof.util.args"

local annotate = {}

local OPTIONS = { source = "string", directories = "table" }

local function basename(p) return (p:match("[^/]*$")) end

-- The first readable of: the path DWARF gives (joined to the compilation
-- directory: where), then each directory joined to the DWARF name and to its
-- basename. Returns the lines of the file and its path, or nil and the
-- paths tried.
local function read_source(path, where, dirs)
  local tried = { where }
  for _, d in ipairs(dirs) do
    tried[#tried + 1] = d .. "/" .. path:gsub("^/", "")
    tried[#tried + 1] = d .. "/" .. basename(path)
  end
  for _, t in ipairs(tried) do
    local f = io.open(t, "r")
    if f then
      local text = {}
      for l in f:lines() do text[#text + 1] = l end
      f:close()
      return text, t
    end
  end
  return nil, tried
end

annotate.read_source = read_source -- (lgprof.format.asm's too)

-- Per source file, per line: {self, calls, inlined}; and each file's self.
local function collect(profile, want)
  local files, order = {}, {}
  for l in profile:lines() do
    local file, n = l.file, l.line
    if file and n and (not want or file == want or file:sub(-#want - 1) == "/" .. want) then
      local f = files[file]
      if not f then
        f = { path = file, where = l.path, self = 0, rows = {} }
        files[file] = f
        order[#order + 1] = f
      end
      local r = f.rows[n] or { self = 0 }
      f.rows[n] = r
      r.self = r.self + l.self
      f.self = f.self + l.self
      if l.calls then r.calls = (r.calls or 0) + l.calls end
      if l.is_inlined and l.self > 0 then r.inlined = true end
    end
  end
  return order
end

local HEADER = "     count      self   share   line  source\n"

local function row(out, r, n, text, total)
  local count = r and r.calls and ("%10d"):format(r.calls) or (" "):rep(10)
  local self = r and r.self > 0 and ("%10.3f"):format(r.self) or (" "):rep(10)
  local share = r and r.self > 0 and total > 0 and ("%7.2f%%"):format(100 * r.self / total)
    or (" "):rep(8)
  out:write(count, self, share, r and r.inlined and " i" or "  ", ("%5d  "):format(n), text, "\n")
end

-- One file's listing: every source line, or only the counted ones (with an
-- empty text) when the source cannot be read.
local function listing(out, f, dirs, total)
  local text, where = read_source(f.path, f.where, dirs)
  out:write(("*** %s: %.3f s, %.2f%% of %.3f s\n"):format(text and where or f.path, f.self,
    total > 0 and 100 * f.self / total or 0, total))
  out:write(HEADER)
  if text then
    for n, s in ipairs(text) do row(out, f.rows[n], n, s, total) end
  else
    out:write(("(source not found; tried %s)\n"):format(table.concat(where, ", ")))
    local ns = {}
    for n in pairs(f.rows) do ns[#ns + 1] = n end
    table.sort(ns)
    for _, n in ipairs(ns) do row(out, f.rows[n], n, "", total) end
  end
  out:write("\n")
  return text ~= nil, where
end

--- Writes the annotated listing of options.source (a file name or its last
-- path components), or of every source file with samples (most time first),
-- to file (a Lua file or a path). Returns true, or nil and a message: the
-- one source cannot be found (with every file, a file not found is listed
-- with its counted lines only), or the output cannot be written.
function annotate.write(profile, file, options)
  args.check_profile(profile, 1, "annotate")
  args.check(type(file) == "string" or io.type(file) == "file", 2, "annotate",
    "file or path expected, got " .. type(file))
  args.check(options == nil or type(options) == "table", 3, "annotate",
    "table expected, got " .. type(options))
  options = options or {}
  for k, v in pairs(options) do
    args.check(OPTIONS[k], 3, "annotate", ("unknown option '%s'"):format(tostring(k)))
    args.check(type(v) == OPTIONS[k], 3, "annotate",
      ("option '%s' must be a %s"):format(k, OPTIONS[k]))
  end
  local dirs = options.directories or {}
  for i, d in ipairs(dirs) do
    args.check(type(d) == "string", 3, "annotate",
      ("option 'directories' must be a list of strings (item %d is a %s)"):format(i, type(d)))
  end
  local want = options.source
  args.check(want == nil or want ~= "", 3, "annotate", "option 'source' is empty")
  local files = collect(profile, want)
  if want and #files == 0 then return nil, ("%s: no line of this file has code"):format(want) end
  if want then
    for _, f in ipairs(files) do
      local _, where = read_source(f.path, f.where, dirs)
      if type(where) == "table" then
        return nil, ("%s: cannot find the source file (tried %s)"):format(f.path,
          table.concat(where, ", "))
      end
    end
  else
    local kept = {}
    for _, f in ipairs(files) do if f.self > 0 then kept[#kept + 1] = f end end
    table.sort(kept, function(a, b)
      if a.self ~= b.self then return a.self > b.self end
      return a.path < b.path
    end)
    files = kept
  end
  local out, err = file, nil
  if type(file) == "string" then
    out, err = io.open(file, "w")
    if not out then return nil, err end
  end
  local total = profile.total_time
  for _, f in ipairs(files) do listing(out, f, dirs, total) end
  local ok, werr = out:flush()
  if out ~= file then
    local cok, cerr = out:close()
    ok, werr = ok and cok, werr or cerr
  end
  if not ok then return nil, werr or "write error" end
  return true
end

return annotate
