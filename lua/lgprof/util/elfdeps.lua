--- The binaries a program will load, and whether each keeps frame pointers
-- (lgprof record's choice between perf's frame-pointer and DWARF
-- unwinding). The files are read as bytes (ELF64 little-endian), nothing is
-- run: the program's DT_NEEDED libraries, and theirs, are found as the
-- dynamic loader finds them (ld.so(8)): a name with a slash as it is, else
-- the requiring object's DT_RPATH (when it has no DT_RUNPATH) and then the
-- executable's, LD_LIBRARY_PATH, the requiring object's DT_RUNPATH,
-- /etc/ld.so.cache, and the system's folders.
local M = {}

local SHT_PROGBITS, SHT_SYMTAB, SHT_DYNAMIC, SHT_DYNSYM = 1, 2, 6, 11
local DT_NEEDED, DT_RPATH, DT_RUNPATH = 1, 15, 29
-- the first bytes of a function in which a frame pointer's set-up is looked for
local PROLOGUE_BYTES = 32

local read_file = require("lgprof.util.args").read_file

local function cstring(data, at)
  return data:match("^[^%z]*", at) or ""
end

-- The section headers of an ELF64 little-endian file (0-based list), or nil
-- and why not. string.unpack raises on a cut file: the caller's pcall says so.
local function sections_of(data)
  if data:sub(1, 4) ~= "\127ELF" then return nil, "not an ELF file" end
  if data:byte(5) ~= 2 or data:byte(6) ~= 1 then return nil, "not a 64-bit little-endian ELF file" end
  local shoff = string.unpack("<I8", data, 41)
  local shentsize, shnum = string.unpack("<I2", data, 59), string.unpack("<I2", data, 61)
  if shoff == 0 or shentsize < 64 or shoff + shnum * shentsize > #data then
    return nil, "no section headers"
  end
  local sections = {}
  for i = 0, shnum - 1 do
    local o = shoff + i * shentsize + 1
    local _, stype, _, addr, off, size, link, _, _, entsize =
      string.unpack("<I4I4I8I8I8I8I4I4I8I8", data, o)
    sections[i] = { type = stype, addr = addr, off = off, size = size, link = link, entsize = entsize }
  end
  sections.count = shnum
  return sections
end

-- The first `limit` function symbols of the symbol table `symtab` (with its
-- string table) defined in a section with contents, with their first bytes.
local function function_starts(data, sections, symtab, limit)
  local strtab = sections[symtab.link]
  local found = {}
  if symtab.entsize < 24 or symtab.off + symtab.size > #data or not strtab then return found end
  for o = symtab.off + 1, symtab.off + symtab.size - 24 + 1, symtab.entsize do
    local nameoff, info, _, shndx, value, size = string.unpack("<I4BBI2I8I8", data, o)
    local sec = sections[shndx]
    -- defined functions of some size in a section with contents (not NOBITS)
    if info & 0xf == 2 and size >= 8 and sec and sec.type == SHT_PROGBITS then
      local name = cstring(data, strtab.off + nameoff + 1)
      local at = sec.off + (value - sec.addr) + 1
      local len = math.min(size, PROLOGUE_BYTES)
      -- the C library's start-up code is no sign of how the program was built
      if not name:match("^_") and name ~= "frame_dummy" and not name:match("_tm_clones$")
         and at >= 1 and at + len - 1 <= #data then
        found[#found + 1] = { name = name, code = data:sub(at, at + len - 1) }
        if #found >= limit then break end
      end
    end
  end
  return found
end

-- The prologue of a function that keeps a frame pointer (x86-64): push
-- %rbp; mov %rsp,%rbp, among its first bytes (code: up to 32 of them): at
-- its start (after an optional endbr64), or after an early test and
-- return that gcc's shrink-wrapping puts before it.
local function keeps_frame_pointer(code)
  return code:find("\85\72\137\229", 1, true) ~= nil
end

-- The first bytes of up to `limit` functions whose starts the unwind
-- table's index (.eh_frame_hdr, found by its program header) lists: every
-- function of a stripped binary has one. Spread over the table.
local PT_LOAD, PT_GNU_EH_FRAME = 1, 0x6474e550
local function fde_starts(data, limit)
  local phoff = string.unpack("<I8", data, 33)
  local phentsize, phnum = string.unpack("<I2", data, 55), string.unpack("<I2", data, 57)
  if phoff == 0 or phentsize < 56 or phoff + phnum * phentsize > #data then return {} end
  local loads, hdr = {}, nil
  for i = 0, phnum - 1 do
    local ptype, _, off, vaddr, _, filesz = string.unpack("<I4I4I8I8I8I8", data, phoff + i * phentsize + 1)
    if ptype == PT_LOAD then loads[#loads + 1] = { off = off, vaddr = vaddr, filesz = filesz } end
    if ptype == PT_GNU_EH_FRAME then hdr = { off = off, vaddr = vaddr, filesz = filesz } end
  end
  -- version 1; the table's entries as pairs of 4-byte offsets from the
  -- header's address (DW_EH_PE_datarel | DW_EH_PE_sdata4), as the linkers write it
  if not hdr or hdr.off + 12 > #data then return {} end
  local version, _, count_enc, table_enc = string.unpack("BBBB", data, hdr.off + 1)
  if version ~= 1 or count_enc ~= 0x03 or table_enc ~= 0x3b then return {} end
  local count = string.unpack("<I4", data, hdr.off + 9)
  if count == 0 or count > (hdr.filesz - 12) // 8 then return {} end
  local found = {}
  local step = math.max(1, count // limit)
  for i = 0, count - 1, step do
    local vaddr = hdr.vaddr + string.unpack("<i4", data, hdr.off + 13 + i * 8)
    for _, l in ipairs(loads) do
      if vaddr >= l.vaddr and vaddr + 8 <= l.vaddr + l.filesz then
        local at = l.off + (vaddr - l.vaddr) + 1
        if at + 8 <= #data then found[#found + 1] = { code = data:sub(at, at + PROLOGUE_BYTES - 1) } end
        break
      end
    end
    if #found >= limit then break end
  end
  return found
end

-- Whether the functions of the file keep frame pointers: true or false, or
-- nil and why it cannot tell. The heuristic: the first 64 functions of its
-- .symtab, else of its .dynsym (a stripped library's exported functions;
-- not the C library's start-up code), else 64 of those its unwind table
-- lists (a stripped executable); frame pointers when at least half of them
-- set one up (push %rbp; mov %rsp,%rbp in their first 32 bytes; x86-64 only).
local function frame_pointers_of(data, sections)
  if string.unpack("<I2", data, 19) ~= 62 then return nil, "not x86-64 code" end
  local symtab, dynsym
  for i = 0, sections.count - 1 do
    if sections[i].type == SHT_SYMTAB then symtab = sections[i] end
    if sections[i].type == SHT_DYNSYM then dynsym = sections[i] end
  end
  local list = symtab and function_starts(data, sections, symtab, 64) or {}
  if #list == 0 and dynsym then list = function_starts(data, sections, dynsym, 64) end
  if #list == 0 then list = fde_starts(data, 64) end
  if #list == 0 then return nil, "no functions in its symbol tables or unwind table" end
  local kept = 0
  for _, fn in ipairs(list) do
    if keeps_frame_pointer(fn.code) then kept = kept + 1 end
  end
  return kept * 2 >= #list
end

-- The DT_NEEDED names, DT_RPATH and DT_RUNPATH of the file's .dynamic.
local function dynamic_of(data, sections)
  local dyn = { needed = {} }
  for i = 0, sections.count - 1 do
    local s = sections[i]
    local strtab = sections[s.link]
    if s.type == SHT_DYNAMIC and strtab and s.off + s.size <= #data then
      for o = s.off + 1, s.off + s.size - 16 + 1, 16 do
        local tag, val = string.unpack("<i8I8", data, o)
        if tag == 0 then break end
        if tag == DT_NEEDED then
          dyn.needed[#dyn.needed + 1] = cstring(data, strtab.off + val + 1)
        elseif tag == DT_RPATH then
          dyn.rpath = cstring(data, strtab.off + val + 1)
        elseif tag == DT_RUNPATH then
          dyn.runpath = cstring(data, strtab.off + val + 1)
        end
      end
    end
  end
  return dyn
end

--- What lgprof record needs of the ELF file at `path`: a table { fp =
-- true/false/nil, why = (when fp is nil), needed = {names}, rpath, runpath,
-- machine }, or nil and why the file cannot be read as ELF.
function M.inspect(path)
  local data, ferr = read_file(path)
  if not data then
    local _, err = io.open(path, "rb")
    return nil, err or ferr or "cannot be read"
  end
  local ok, info, why = pcall(function()
    local sections, serr = sections_of(data)
    if not sections then return nil, serr end
    local fp, fwhy = frame_pointers_of(data, sections)
    local dyn = dynamic_of(data, sections)
    return { fp = fp, why = fwhy, needed = dyn.needed, rpath = dyn.rpath, runpath = dyn.runpath,
             machine = string.unpack("<I2", data, 19) }
  end)
  -- a cut or corrupt file makes string.unpack raise: it cannot be read
  -- this way, and perf will say what it makes of it
  if not ok then return nil, "a cut or corrupt ELF file" end
  return info, why -- (why: when it is no ELF file)
end

--- /etc/ld.so.cache's (new format, glibc 2.32 on) libraries: a table name ->
-- list of paths in the cache's order, or an empty table.
function M.ld_cache(path)
  local data = read_file(path or "/etc/ld.so.cache") or ""
  local magic = "glibc-ld.so.cache1.1"
  local base = data:find(magic, 1, true)
  local cache = {}
  if not base then return cache end
  pcall(function()
    local n = string.unpack("<I4", data, base + #magic)
    local first = base + 48
    if n > (#data - first + 1) // 24 then return end
    for i = 0, n - 1 do
      local _, key, value = string.unpack("<i4I4I4", data, first + i * 24)
      local name, file = cstring(data, base + key), cstring(data, base + value)
      local list = cache[name]
      if not list then list = {}; cache[name] = list end
      list[#list + 1] = file
    end
  end)
  return cache
end

-- The system's folders when the cache has no answer (x86-64: Debian's
-- multiarch folders, then the classic ones).
M.SYSTEM_DIRS = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib" }

-- The folders of a DT_RPATH/DT_RUNPATH or LD_LIBRARY_PATH string, with
-- $ORIGIN (the requiring object's folder) replaced.
local function folders(list, origin)
  local out = {}
  for dir in ((list or "") .. ":"):gmatch("([^:;]*)[:;]") do
    if dir ~= "" then
      dir = dir:gsub("%$%{ORIGIN%}", origin or "."):gsub("%$ORIGIN", origin or ".")
      out[#out + 1] = dir
    end
  end
  return out
end

local function dirname(path)
  return path:match("^(.*)/[^/]*$") or "."
end

--- The binaries the program at `exe` loads: a list (the program first, then
-- its libraries breadth-first as the loader loads them) of { path, name,
-- needed_by, fp, why }; a library not found has path nil. env: {
-- LD_LIBRARY_PATH = ..., cache = name -> paths, system_dirs = {...} }.
function M.binaries(exe, env)
  env = env or {}
  local cache = env.cache or M.ld_cache()
  local system_dirs = env.system_dirs or M.SYSTEM_DIRS
  local ld_library_path = folders(env.LD_LIBRARY_PATH)
  local list, seen, infos = {}, {}, {}
  local top, why = M.inspect(exe)
  list[1] = { path = exe, name = exe, fp = top and top.fp, why = top and top.why or why }
  if not top then return list end
  infos[1] = top
  local exe_rpath = not top.runpath and folders(top.rpath, dirname(exe)) or {}
  local function usable(path, machine)
    local info = M.inspect(path)
    if info and info.machine == machine then return info end
    return nil
  end
  local function find(name, by, byinfo)
    if name:find("/", 1, true) then
      local info = usable(name, top.machine)
      return info and name, info
    end
    local dirs = {}
    if not byinfo.runpath then
      dirs = folders(byinfo.rpath, dirname(by))
      if by ~= exe then table.move(exe_rpath, 1, #exe_rpath, #dirs + 1, dirs) end
    end
    table.move(ld_library_path, 1, #ld_library_path, #dirs + 1, dirs)
    local runpath = folders(byinfo.runpath, dirname(by))
    table.move(runpath, 1, #runpath, #dirs + 1, dirs)
    local candidates = {}
    for _, d in ipairs(dirs) do candidates[#candidates + 1] = d .. "/" .. name end
    for _, p in ipairs(cache[name] or {}) do candidates[#candidates + 1] = p end
    for _, d in ipairs(system_dirs) do candidates[#candidates + 1] = d .. "/" .. name end
    for _, p in ipairs(candidates) do
      local info = usable(p, top.machine)
      if info then return p, info end
    end
    return nil
  end
  local i = 1
  while list[i] do
    local item, info = list[i], infos[i]
    for _, name in ipairs(info and info.needed or {}) do
      if not seen[name] then
        seen[name] = true
        local path, linfo = find(name, item.path, info)
        if path and seen[path] then
          -- the same file under another name: loaded once
        else
          if path then seen[path] = true end
          list[#list + 1] = { path = path, name = name, needed_by = item.path,
                              fp = linfo and linfo.fp, why = not linfo and "not found" or linfo.why }
          infos[#list] = linfo
        end
      end
    end
    i = i + 1
  end
  return list
end

return M
