-- spec/helpers/elfwriter.lua
--
-- Pure Lua 5.4 writer of minimal ELF executables, for tests that need an
-- executable of a given class / byte order / machine without a cross
-- toolchain.
--
--   local ew = require "helpers.elfwriter"
--   local bytes = ew.build {
--     class = 32,                -- 32 or 64 (default 64)
--     endian = "big",            -- "little" (default) or "big"
--     machine = ew.EM_PPC,       -- e_machine (default EM_X86_64)
--     text_addr = 0x10000000,    -- address of .text (default 0x401000)
--     text_size = 0x1000,        -- size of .text, filled with zeros (default 0x1000)
--     text_data = nil,           -- optional: the .text bytes (overrides text_size)
--     phdr = true,               -- one PT_LOAD covering .text (default true)
--     symbols = {                -- in .symtab order (locals are moved first,
--       { name = "main", addr = 0x10000000, bind = "global", type = "func",
--         size = 0x100,          -- optional st_size (default 0)
--         section = "text" },    -- "text" (default) | "abs" | "undef"
--     },
--     strtab_order = nil,        -- optional: list of names giving the order of
--                                -- the strings in .strtab (default: symbol order);
--                                -- every symbol name must appear in it
--   }
--   ew.write(path, opts) -> bytes
--
-- Sections: [0] null, [1] .text (PROGBITS, AX), [2] .symtab, [3] .strtab,
-- [4] .shstrtab. ET_EXEC, EV_CURRENT, ELFOSABI_NONE, e_entry = text_addr.
-- Each symbol gets its own string in .strtab (no suffix sharing), so the
-- order of the strings is exactly the one asked for.

local util = require "helpers.util"

local M = {}

-- e_machine values, and the special section indexes
for name, value in pairs({ EM_386 = 3, EM_68K = 4, EM_MIPS = 8, EM_PPC = 20, EM_PPC64 = 21,
                           EM_S390 = 22, EM_ARM = 40, EM_SPARCV9 = 43, EM_X86_64 = 62,
                           EM_AARCH64 = 183, SHN_UNDEF = 0, SHN_ABS = 0xfff1 }) do
  M[name] = value
end

local BIND = { ["local"] = 0, global = 1, weak = 2 }
local TYPE = { notype = 0, object = 1, func = 2, section = 3, file = 4 }

local function align(n, a)
  if a <= 1 then return n end
  return (n + a - 1) // a * a
end

local function pad_to(parts, len, target)
  if target > len then
    parts[#parts + 1] = string.rep("\0", target - len)
  end
  return math.max(len, target)
end

--- Builds the ELF image; returns it as a string.
function M.build(opts)
  opts = opts or {}
  local class = opts.class or 64
  assert(class == 32 or class == 64, "elfwriter: class must be 32 or 64")
  local endian = opts.endian or "little"
  assert(endian == "little" or endian == "big", "elfwriter: endian must be little or big")
  local e = endian == "little" and "<" or ">"
  local A = class == 64 and "I8" or "I4" -- address / offset / xword
  local machine = opts.machine or M.EM_X86_64
  local text_addr = opts.text_addr or 0x401000
  local text = opts.text_data or string.rep("\0", opts.text_size or 0x1000)
  local want_phdr = opts.phdr ~= false
  local syms_in = opts.symbols or {}

  local ehsize = class == 64 and 64 or 52
  local phentsize = class == 64 and 56 or 32
  local shentsize = class == 64 and 64 or 40
  local symentsize = class == 64 and 24 or 16
  local word = class // 8

  -- .symtab order: null, locals (in the given order), then the others
  local ordered = {}
  for _, s in ipairs(syms_in) do
    assert(s.name, "elfwriter: symbol without a name")
    assert(BIND[s.bind or "global"], "elfwriter: bad bind " .. tostring(s.bind))
    assert(TYPE[s.type or "func"], "elfwriter: bad type " .. tostring(s.type))
    if (s.bind or "global") == "local" then ordered[#ordered + 1] = s end
  end
  local nlocals = #ordered
  for _, s in ipairs(syms_in) do
    if (s.bind or "global") ~= "local" then ordered[#ordered + 1] = s end
  end

  -- .strtab: "\0" then one string per symbol, in strtab_order or symbol order
  local strtab, stroff = { "\0" }, {}
  local strlen = 1
  local order = opts.strtab_order
  if order == nil then
    order = {}
    for _, s in ipairs(syms_in) do order[#order + 1] = s.name end
  end
  local placed = {}
  for _, name in ipairs(order) do
    if not placed[name] then
      placed[name] = strlen
      strtab[#strtab + 1] = name .. "\0"
      strlen = strlen + #name + 1
    end
  end
  for _, s in ipairs(ordered) do
    stroff[s] = placed[s.name]
    if not stroff[s] then
      if s.name == "" then
        stroff[s] = 0
      else
        error("elfwriter: symbol " .. s.name .. " missing from strtab_order")
      end
    end
  end
  strtab = table.concat(strtab)

  -- .symtab
  local symparts = { string.rep("\0", symentsize) }
  for _, s in ipairs(ordered) do
    local info = (BIND[s.bind or "global"] << 4) | TYPE[s.type or "func"]
    local sec = s.section or "text"
    local shndx = sec == "text" and 1 or sec == "abs" and M.SHN_ABS
      or sec == "undef" and M.SHN_UNDEF or tonumber(sec)
    assert(shndx, "elfwriter: bad section " .. tostring(sec))
    if class == 64 then
      symparts[#symparts + 1] = string.pack(e .. "I4BBI2I8I8", stroff[s], info,
        s.other or 0, shndx, s.addr or 0, s.size or 0)
    else
      symparts[#symparts + 1] = string.pack(e .. "I4I4I4BBI2", stroff[s],
        s.addr or 0, s.size or 0, info, s.other or 0, shndx)
    end
  end
  local symtab = table.concat(symparts)

  -- .shstrtab
  local shnames = { "", ".text", ".symtab", ".strtab", ".shstrtab" }
  local shstr, shoff_name = { "\0" }, { [""] = 0 }
  local shlen = 1
  for i = 2, #shnames do
    shoff_name[shnames[i]] = shlen
    shstr[#shstr + 1] = shnames[i] .. "\0"
    shlen = shlen + #shnames[i] + 1
  end
  shstr = table.concat(shstr)

  -- file layout
  local PAGE = 0x1000
  local phoff = want_phdr and ehsize or 0
  local pos = ehsize + (want_phdr and phentsize or 0)
  -- .text offset congruent to its address modulo the page size (PT_LOAD rule)
  local text_off = align(pos, PAGE) + (text_addr % PAGE)
  if text_off - PAGE >= pos and text_addr % PAGE >= pos then text_off = text_off - PAGE end
  local symtab_off = align(text_off + #text, word)
  local strtab_off = symtab_off + #symtab
  local shstrtab_off = strtab_off + #strtab
  local shoff = align(shstrtab_off + #shstr, word)

  local parts, len = {}, 0
  local ident = "\127ELF" .. string.char(class == 64 and 2 or 1, endian == "little" and 1 or 2,
    1, 0, 0) .. string.rep("\0", 7)
  parts[1] = ident .. string.pack(e .. "I2I2I4" .. A .. A .. A .. "I4I2I2I2I2I2I2",
    2 --[[ET_EXEC]], machine, 1, text_addr, phoff, shoff, opts.flags or 0,
    ehsize, want_phdr and phentsize or 0, want_phdr and 1 or 0, shentsize, 5, 4)
  len = #parts[1]
  assert(len == ehsize)
  if want_phdr then
    local ph
    if class == 64 then
      ph = string.pack(e .. "I4I4I8I8I8I8I8I8", 1 --[[PT_LOAD]], 5 --[[R+X]], text_off,
        text_addr, text_addr, #text, #text, PAGE)
    else
      ph = string.pack(e .. "I4I4I4I4I4I4I4I4", 1, text_off, text_addr, text_addr,
        #text, #text, 5, PAGE)
    end
    parts[#parts + 1] = ph
    len = len + #ph
  end
  len = pad_to(parts, len, text_off)
  parts[#parts + 1] = text; len = len + #text
  len = pad_to(parts, len, symtab_off)
  parts[#parts + 1] = symtab; len = len + #symtab
  parts[#parts + 1] = strtab; len = len + #strtab
  parts[#parts + 1] = shstr; len = len + #shstr
  len = pad_to(parts, len, shoff)

  local function shdr(name, typ, flags, addr, off, size, link, info, addralign, entsize)
    if class == 64 then
      return string.pack(e .. "I4I4I8I8I8I8I4I4I8I8", shoff_name[name], typ, flags, addr,
        off, size, link, info, addralign, entsize)
    end
    return string.pack(e .. "I4I4I4I4I4I4I4I4I4I4", shoff_name[name], typ, flags, addr,
      off, size, link, info, addralign, entsize)
  end
  parts[#parts + 1] = shdr("", 0, 0, 0, 0, 0, 0, 0, 0, 0)
  parts[#parts + 1] = shdr(".text", 1 --[[PROGBITS]], 6 --[[ALLOC|EXECINSTR]], text_addr,
    text_off, #text, 0, 0, opts.text_align or 16, 0)
  parts[#parts + 1] = shdr(".symtab", 2 --[[SYMTAB]], 0, 0, symtab_off, #symtab,
    3, nlocals + 1, word, symentsize)
  parts[#parts + 1] = shdr(".strtab", 3 --[[STRTAB]], 0, 0, strtab_off, #strtab, 0, 0, 1, 0)
  parts[#parts + 1] = shdr(".shstrtab", 3, 0, 0, shstrtab_off, #shstr, 0, 0, 1, 0)
  return table.concat(parts)
end

--- Builds the ELF image and writes it to path (mode 0755); returns the bytes.
function M.write(path, opts)
  local bytes = M.build(opts)
  util.spit(path, bytes)
  os.execute("chmod 755 " .. util.q(path))
  return bytes
end

return M
