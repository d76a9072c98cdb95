-- lgprof.getopt, the command's option parser: GNU getopt_long semantics
-- derived by hand on a small option table, then compared with glibc's own
-- getopt_long (through util-linux getopt(1)) on gprof's option table.
local getopt = require "lgprof.cli.getopt"
local options = require "lgprof.cli.options"
local fx = require "helpers.fixtures"

local q = fx.shquote

describe("lgprof.cli.getopt", function()
  it("reads a getopt(3) option string", function()
    assert.same({ a = { "a", "none" }, b = { "b", "required" }, c = { "c", "optional" },
                  d = { "d", "none" } }, getopt.short("ab:c::d"))
  end)

  -- -a, -b ARG, -c[ARG]; --alpha, --beta ARG, --gamma[=ARG], --gamma-ray,
  -- --exact ARG (never abbreviated)
  local SPEC = {
    short = getopt.short("ab:c::"),
    long = { alpha = { "a", "none" }, beta = { "b", "required" }, gamma = { "c", "optional" },
             ["gamma-ray"] = { "g", "none" }, exact = { "x", "required", exact = true } },
  }
  -- argv, then the options, operands and rest, or the error message
  local CASES = {
    { { "-a" }, { { "a" } }, {}, {} },
    { { "-ab", "v" }, { { "a" }, { "b", "v" } }, {}, {} },          -- a cluster, then b's argument
    { { "-abv" }, { { "a" }, { "b", "v" } }, {}, {} },              -- glued argument
    { { "-b", "-a" }, { { "b", "-a" } }, {}, {} },                  -- the next word, whatever it is
    { { "-b", "" }, { { "b", "" } }, {}, {} },
    { { "-b", "--" }, { { "b", "--" } }, {}, {} },
    { { "-ac" }, { { "a" }, { "c" } }, {}, {} },                    -- optional: no argument
    { { "-acv" }, { { "a" }, { "c", "v" } }, {}, {} },              -- optional: glued only
    { { "-c", "v" }, { { "c" } }, { "v" }, {} },
    { { "x", "-a", "y" }, { { "a" } }, { "x", "y" }, {} },          -- permutation
    { { "-", "-a" }, { { "a" } }, { "-" }, {} },                    -- "-" is an operand
    { { "x", "--", "-a", "--" }, {}, { "x" }, { "-a", "--" } },     -- "--" ends the options
    { { "--alpha" }, { { "a" } }, {}, {} },
    { { "--al" }, { { "a" } }, {}, {} },                            -- unique prefix
    { { "--beta=v" }, { { "b", "v" } }, {}, {} },
    { { "--beta", "v" }, { { "b", "v" } }, {}, {} },
    { { "--beta=" }, { { "b", "" } }, {}, {} },
    { { "--beta=x=y" }, { { "b", "x=y" } }, {}, {} },               -- the first "=" splits
    { { "--gamma" }, { { "c" } }, {}, {} },                         -- exact, though a prefix of gamma-ray
    { { "--gamma", "v" }, { { "c" } }, { "v" }, {} },               -- optional: "=" only
    { { "--gamma=" }, { { "c", "" } }, {}, {} },
    { { "--gamma-" }, { { "g" } }, {}, {} },
    { { "--exact", "v" }, { { "x", "v" } }, {}, {} },
    { { "-q" }, "invalid option -- 'q'" },
    { { "-aq" }, "invalid option -- 'q'" },
    { { "-b" }, "option requires an argument -- 'b'" },
    { { "--beta" }, "option '--beta' requires an argument" },
    { { "--alpha=1" }, "option '--alpha' doesn't allow an argument" },
    { { "--gam" }, "option '--gam' is ambiguous" },
    { { "--exa", "v" }, "unrecognized option '--exa'" },           -- exact names have no prefixes
    { { "--nosuch=3" }, "unrecognized option '--nosuch=3'" },
    { { "-a", "-q", "--nosuch" }, "invalid option -- 'q'" },        -- the first error
  }
  for _, c in ipairs(CASES) do
    local argv = c[1]
    it(table.concat(argv, " "), function()
      local copy = table.move(argv, 1, #argv, 1, {})
      local opts, operands, rest = getopt.parse(argv, SPEC)
      assert.same(copy, argv) -- not changed
      if type(c[2]) == "string" then
        assert.is_nil(opts)
        assert.equal(c[2], operands)
      else
        assert.same({ c[2], c[3], c[4] }, { opts, operands, rest })
      end
    end)
  end

  describe("agrees with glibc's getopt_long on gprof's options", function()
    -- gprof's table as the command uses it (standalone: no lgprof options)
    local spec = options.spec("standalone")
    local short, long = {}, {}
    for c, d in pairs(spec.short) do
      short[#short + 1] = c .. ({ none = "", required = ":", optional = "::" })[d[2]]
    end
    table.sort(short)
    local names = {}
    for name, d in pairs(spec.long) do
      assert.is_nil(d.exact)
      long[#long + 1] = name .. ({ none = "", required = ":", optional = "::" })[d[2]]
      names[#names + 1] = name
    end
    table.sort(long)
    table.sort(names)

    -- getopt(1)'s output: shell words ('...' quoted, ' as '\'')
    local function words(s)
      local out = {}
      for w in s:gmatch("%S+") do
        out[#out + 1] = w:gsub("'\\''", "\1"):gsub("'", ""):gsub("\1", "'")
      end
      return out
    end

    -- glibc's parse of argv from getopt(1)'s output and exit status:
    -- { key, value } with "" for no value, then the operands (after "--");
    -- or nil and glibc's first message
    local function glibc_parse(out, status)
      if status ~= 0 then return nil, out:match("^lgprof: ([^\n]*)") end
      local w, opts, i = words(out:match("([^\n]*)\n$")), {}, 1
      while w[i] ~= "--" do
        local o = w[i]
        local d = o:sub(1, 2) == "--" and spec.long[o:sub(3)] or spec.short[o:sub(2)]
        if d[2] == "none" then
          opts[#opts + 1] = { d[1], "" }
        else
          opts[#opts + 1] = { d[1], w[i + 1] }
          i = i + 1
        end
        i = i + 1
      end
      return opts, table.move(w, i + 1, #w, 1, {})
    end

    -- getopt(1) on every case in one shell: its outputs, by case
    local function run_glibc(cases)
      local script = { "unset POSIXLY_CORRECT GETOPT_COMPATIBLE" }
      local call = ("getopt -n lgprof -o %s -l %s --"):format(q(table.concat(short)), q(table.concat(long, ",")))
      for _, argv in ipairs(cases) do
        local quoted = {}
        for i, w in ipairs(argv) do quoted[i] = q(w) end
        script[#script + 1] = call .. " " .. table.concat(quoted, " ") .. " 2>&1; echo \"\1$?\""
      end
      local path = os.tmpname()
      local f = assert(io.open(path, "w"))
      f:write(table.concat(script, "\n"), "\n")
      f:close()
      local p = io.popen("sh " .. q(path))
      local out = p:read("a")
      p:close()
      os.remove(path)
      local results = {}
      for text, status in out:gmatch("(.-)\1(%d+)\n") do
        results[#results + 1] = { text, tonumber(status) }
      end
      assert(#results == #cases, "getopt(1) did not answer every case")
      return results
    end

    local function ours(argv)
      local opts, operands, rest = getopt.parse(argv, spec)
      if not opts then return nil, operands end
      for _, o in ipairs(opts) do o[2] = o[2] or "" end
      return opts, table.move(rest, 1, #rest, #operands + 1, operands)
    end

    -- What differs between glibc's parse and ours, or nil.
    local function mismatch(argv, result)
      local gopts, gmore = glibc_parse(result[1], result[2])
      local opts, more = ours(argv)
      if not gopts then
        -- the same first error; where glibc names a long option by its
        -- full name (or lists an ambiguous one's possibilities), lgprof
        -- says the name as typed: the quoted names are not compared
        local function kind(msg) return (msg:gsub(";.*", ""):gsub("'[^']*'", "'X'")) end
        if opts or kind(gmore) ~= kind(more)
            or (not gmore:match("^option '%-%-") and gmore ~= more) then
          return "glibc: " .. gmore .. "; lgprof: " .. tostring(more)
        end
      elseif not opts then
        return "lgprof: " .. more
      else
        local ok = pcall(assert.same, { gopts, gmore }, { opts, more })
        if not ok then return "a different parse" end
      end
    end

    local long_cases, letter_cases, random_cases = {}, {}, {}
    for _, name in ipairs(names) do
      for n = 1, #name do long_cases[#long_cases + 1] = { "--" .. name:sub(1, n) } end
      long_cases[#long_cases + 1] = { "--" .. name:sub(1, 3) .. "=v", "f" }
      long_cases[#long_cases + 1] = { "--" .. name .. "=v", "f" }
      long_cases[#long_cases + 1] = { "--" .. name, "v", "f" }
      long_cases[#long_cases + 1] = { "f", "--" .. name, "--", "g" }
    end
    for c in ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0?-"):gmatch(".") do
      letter_cases[#letter_cases + 1] = { "-" .. c }
      letter_cases[#letter_cases + 1] = { "-" .. c .. "v", "f" }
      letter_cases[#letter_cases + 1] = { "-" .. c, "v", "f" }
      letter_cases[#letter_cases + 1] = { "-b" .. c .. "z", "-z" .. c }
    end
    local POOL = { "-b", "-bz", "-p", "-pmain", "-q", "-e", "-Emain", "-O", "-w", "-w9", "-k", "-z",
      "--", "-", "x", "y", "--b", "--graph", "--graph=f", "--no-g", "--no", "--fl", "--time",
      "--width", "--w=3", "--demangle=", "--de", "--d", "--nosuch", "--=x", "-?", "''", "=" }
    math.randomseed(7)
    for n = 1, 300 do
      local argv = {}
      for k = 1, math.random(1, 6) do argv[k] = POOL[math.random(#POOL)] end
      random_cases[n] = argv
    end

    local have = os.execute("command -v getopt >/dev/null 2>&1")
    for _, group in ipairs({
      { "on every long option, whole and abbreviated, with =ARG and with a next word", long_cases },
      { "on every letter, alone, glued, with a next word and in clusters", letter_cases },
      { "on 300 random mixes of options, arguments and operands", random_cases },
    }) do
      it(group[1], function()
        if not have then
          pending("getopt(1) (util-linux) not installed")
          return
        end
        local cases = group[2]
        local results, wrong = run_glibc(cases), {}
        for n, argv in ipairs(cases) do
          local why = mismatch(argv, results[n])
          if why then wrong[#wrong + 1] = table.concat(argv, " ") .. ": " .. why end
        end
        assert.same({}, wrong)
        assert.is_true(#cases >= 200)
      end)
    end
  end)
end)
