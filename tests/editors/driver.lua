-- Drives a headless Neovim whose init.lua is the guide's Neovim setup, verbatim
-- (docs/src/editors.md; tests/it/editors.rs): waits for the diagnostics of the doc it was opened on,
-- applies the one quick fix the server offers, writes the doc, and reports as JSON to the file
-- named by CITEGATE_EDITOR_OUT.
local out = assert(os.getenv("CITEGATE_EDITOR_OUT"), "CITEGATE_EDITOR_OUT is not set")

local function finish(result)
  local f = assert(io.open(out, "w"))
  f:write(vim.json.encode(result))
  f:close()
  vim.cmd("qall!")
end

local buf = vim.api.nvim_get_current_buf()
if not vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
  local names = {}
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = buf })) do table.insert(names, c.name) end
  return finish({ error = "no diagnostics within 30 s (filetype " .. vim.bo[buf].filetype
    .. ", clients: " .. table.concat(names, ", ") .. ")" })
end

local diagnostics, raw = {}, {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(diagnostics, { line = d.lnum + 1, column = d.col + 1, code = d.code,
    severity = d.severity, message = d.message })
  table.insert(raw, d.user_data and d.user_data.lsp or nil)
end

local client = vim.lsp.get_clients({ bufnr = buf, name = "citegate" })[1]
local params = {
  textDocument = vim.lsp.util.make_text_document_params(buf),
  range = { start = { line = 0, character = 0 },
            ["end"] = { line = vim.api.nvim_buf_line_count(buf), character = 0 } },
  context = { diagnostics = raw, only = { "quickfix" } },
}
local response, err = client:request_sync("textDocument/codeAction", params, 20000, buf)
if not response or response.err then
  return finish({ diagnostics = diagnostics, error = "codeAction failed: " .. vim.inspect(err or response) })
end
local actions = {}
for _, a in ipairs(response.result or {}) do
  if a.kind == "quickfix" then table.insert(actions, a) end
end
if #actions ~= 1 then
  return finish({ diagnostics = diagnostics, error = #actions .. " quick fixes, expected 1" })
end
local action = actions[1]
if not action.edit then
  local resolved = client:request_sync("codeAction/resolve", action, 20000, buf)
  action = resolved and resolved.result or action
end
vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
vim.cmd("silent write")
finish({ diagnostics = diagnostics, applied = action.title })
