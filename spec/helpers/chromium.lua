-- Headless Chromium driven through its DevTools protocol, for the specs that
-- check pages in a real browser (Debian's /usr/bin/chromium).
--
--   local chromium = require "helpers.chromium"
--   local browser = assert(chromium.start(tmpdir))
--   local page = browser:open("file:///.../report.html")
--   page:eval("document.title")            --> the value (JSON-able), or an error
--   page:screenshot("build/screenshots/x.png")
--   page.errors                            --> console errors and exceptions
--   page:close(); browser:close()
--
-- `chromium --remote-debugging-pipe` reads protocol messages (JSON, each
-- ended by a NUL byte) on its fd 3 and writes its own on fd 4. Two named
-- pipes in a private folder connect them to this process; the browser runs
-- under `timeout`, so a hung browser ends and its pipe gives EOF (an error
-- here) instead of hanging the spec. One browser serves many pages: each
-- page is a target attached in "flat" mode (messages carry its sessionId).
local cjson = require "cjson"
local util = require "helpers.util"

local M = {}

M.BINARY = "/usr/bin/chromium"

local Browser, Page = {}, {}
Browser.__index, Page.__index = Browser, Page

function M.available()
  return util.exec_ok("test -x " .. util.q(M.BINARY))
end

--- Starts a browser whose profile and pipes live in dir (a temporary folder
-- the caller removes). opts.timeout: seconds before the browser is killed
-- (default 600). Returns a Browser or nil, message.
function M.start(dir, opts)
  opts = opts or {}
  local fin, fout = dir .. "/devtools.in", dir .. "/devtools.out"
  if not util.exec_ok("mkfifo " .. util.q(fin) .. " " .. util.q(fout)) then
    return nil, "mkfifo failed in " .. dir
  end
  util.mkdir(dir .. "/profile")
  local line = ("timeout %d %s --headless --no-sandbox --disable-gpu --no-first-run " ..
    "--no-default-browser-check --disable-extensions --disable-background-networking " ..
    "--disable-component-update --disable-sync --mute-audio --hide-scrollbars " ..
    "--remote-debugging-pipe --user-data-dir=%s about:blank 3<%s 4>%s >%s 2>&1 &")
    :format(opts.timeout or 600, util.q(M.BINARY), util.q(dir .. "/profile"), util.q(fin),
      util.q(fout), util.q(dir .. "/chromium.log"))
  if not os.execute(line) then return nil, "cannot start " .. M.BINARY end
  -- (each open blocks until the browser's end of the pipe is open)
  local w = io.open(fin, "w")
  local r = w and io.open(fout, "r")
  if not r then return nil, "cannot open the DevTools pipes in " .. dir end
  w:setvbuf("full", 1 << 16)
  local b = setmetatable({ w = w, r = r, dir = dir, next_id = 0, replies = {}, events = {},
    sessions = {}, idle = {} }, Browser)
  return b
end

-- One message from the browser (a table), or an error at EOF.
function Browser:read()
  -- (Lua cannot read up to a NUL: byte by byte from the stdio buffer,
  -- gathered 4 KB at a time so that a screenshot's megabytes stay linear)
  local chunks, chars, r = {}, {}, self.r
  while true do
    local c = r:read(1)
    if c == nil then
      error("chromium closed its DevTools pipe (see " .. self.dir .. "/chromium.log)", 2)
    end
    if c == "\0" then break end
    chars[#chars + 1] = c
    if #chars == 4096 then
      chunks[#chunks + 1] = table.concat(chars)
      chars = {}
    end
  end
  chunks[#chunks + 1] = table.concat(chars)
  return cjson.decode(table.concat(chunks))
end

-- Dispatches one message: a reply goes to its id, an event to its session.
function Browser:pump()
  local m = self:read()
  if m.id then
    self.replies[m.id] = m
  elseif m.method then
    local page = self.sessions[m.sessionId or ""]
    if page then page:event(m) end
  end
end

--- Sends a command (to a page's session when session is given) and waits
-- for its reply; returns its result, or raises the protocol's error.
function Browser:call(method, params, session)
  self.next_id = self.next_id + 1
  local id = self.next_id
  local msg = { id = id, method = method, params = params or {}, sessionId = session }
  local text = cjson.encode(msg) -- (cjson writes an empty table as {})
  assert(self.w:write(text, "\0"))
  assert(self.w:flush())
  while not self.replies[id] do self:pump() end
  local reply = self.replies[id]
  self.replies[id] = nil
  if reply.error then
    error(("%s: %s"):format(method, cjson.encode(reply.error)), 2)
  end
  return reply.result
end

--- A tab showing url, once its load event fired: a tab a closed page left
-- (Page:close) if there is one, else a new one. opts.width/height: the
-- viewport (default 1280 x 900). Returns a Page.
function Browser:open(url, opts)
  opts = opts or {}
  local tab = table.remove(self.idle)
  if tab then
    -- the closed page's document ends (its timers, its listeners); what it
    -- reported until then, which the protocol delivers in order before
    -- about:blank's load, goes to the closed page
    tab.closed_page.closed = false
    tab.closed_page:navigate("about:blank")
    tab.closed_page.closed = true
  else
    local t = self:call("Target.createTarget", { url = "about:blank" })
    local s = self:call("Target.attachToTarget", { targetId = t.targetId, flatten = true })
    tab = { target = t.targetId, session = s.sessionId, fresh = true }
  end
  local page = setmetatable({ browser = self, target = tab.target, session = tab.session,
    errors = {}, loaded = false }, Page)
  self.sessions[tab.session] = page
  if tab.fresh then
    page:call("Runtime.enable")
    page:call("Page.enable")
    page:call("Log.enable")
  end
  page:call("Emulation.setDeviceMetricsOverride", { width = opts.width or 1280,
    height = opts.height or 900, deviceScaleFactor = 1, mobile = false })
  page:navigate(url)
  return page
end

function Page:call(method, params)
  assert(not self.closed, "a closed page is used")
  return self.browser:call(method, params or {}, self.session)
end

-- Records what a page reports: its load, console errors, uncaught exceptions.
function Page:event(m)
  local p = m.params or {}
  if m.method == "Page.loadEventFired" then
    self.loaded = true
  elseif m.method == "Runtime.consoleAPICalled" and (p.type == "error" or p.type == "assert") then
    local words = {}
    for _, a in ipairs(p.args or {}) do words[#words + 1] = tostring(a.value or a.description) end
    self.errors[#self.errors + 1] = "console." .. p.type .. ": " .. table.concat(words, " ")
  elseif m.method == "Runtime.exceptionThrown" then
    local d = p.exceptionDetails or {}
    self.errors[#self.errors + 1] = "exception: " .. tostring(d.exception and d.exception.description
      or d.text) .. " at line " .. tostring(d.lineNumber)
  elseif m.method == "Log.entryAdded" and p.entry and p.entry.level == "error" then
    self.errors[#self.errors + 1] = "log: " .. tostring(p.entry.text) .. " " .. tostring(p.entry.url or "")
  end
end

--- Loads url and waits for its load event.
function Page:navigate(url)
  self.loaded = false
  local r = self:call("Page.navigate", { url = url })
  if r.errorText then error("Page.navigate " .. url .. ": " .. r.errorText, 2) end
  while not self.loaded do self.browser:pump() end
end

--- The value of a JavaScript expression (a promise is awaited), as JSON
-- gives it back (a string, number, boolean, table; nil for null or
-- undefined). An exception in the page raises an error here.
function Page:eval(expression)
  local r = self:call("Runtime.evaluate", { expression = expression, returnByValue = true,
    awaitPromise = true })
  if r.exceptionDetails then
    local d = r.exceptionDetails
    error("page: " .. tostring(d.exception and d.exception.description or d.text), 2)
  end
  local v = r.result and r.result.value
  if v == cjson.null then v = nil end
  return v
end

--- Runs the statement js in the page, then waits ms milliseconds (50 unless
--- given) of the page's own timers: what js queued (a hashchange event's
--- listeners, a timer of less than ms) has run by then, however loaded the
--- machine, since the page's tasks run in order.
function Page:settle(js, ms)
  return self:eval("new Promise(function (r) { " .. js .. "; setTimeout(r, " .. (ms or 50) .. "); })")
end

--- Runs the statement js, which changes the URL's fragment, and waits until
--- the page's hashchange listeners have run (at most 5 s, for a js that
--- leaves the fragment as it was).
function Page:after_hashchange(js)
  return self:eval("new Promise(function (r) { var done = false; function end() { if (!done) { done = true;"
    .. " setTimeout(r, 0); } } window.addEventListener('hashchange', end, { once: true });"
    .. " setTimeout(end, 5000); " .. js .. "; })")
end

--- Writes a PNG of the viewport to path.
function Page:screenshot(path)
  local r = self:call("Page.captureScreenshot", { format = "png" })
  local b64 = path .. ".b64"
  util.spit(b64, r.data)
  local ok = util.exec_ok("base64 -d < " .. util.q(b64) .. " > " .. util.q(path))
  os.remove(b64)
  assert(ok, "cannot decode the screenshot into " .. path)
end

--- Ends the page. Its tab stays open for the browser's next page (a new
-- tab cost the browser a renderer process, about 0.4 s of CPU), which
-- first shows about:blank there: the next page starts with no errors, sets
-- its viewport and loads from about:blank as a new tab's does (so
-- history.back() on its first entry goes back to about:blank there too).
-- (Not at once: the last page's about:blank, just before the browser
-- closes, cost a quarter of a second.) This Page can no longer be used.
function Page:close()
  assert(not self.closed, "page closed twice")
  self.closed = true
  local idle = self.browser.idle
  idle[#idle + 1] = { target = self.target, session = self.session, closed_page = self }
end

--- Ends the browser (and waits until its pipe closes).
function Browser:close()
  pcall(self.call, self, "Browser.close", {})
  -- drain until EOF: the browser has exited once its end of the pipe closes
  while self.r:read(4096) do end
  self.r:close()
  self.w:close()
end

return M
