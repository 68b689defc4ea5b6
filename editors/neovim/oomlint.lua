-- oomlint language server for Neovim 0.7 and later, without plugins.
--
--   package.path = "/path/to/oomlint/editors/neovim/?.lua;" .. package.path
--   require("oomlint").setup({ cmd = { "oomlint", "server" } })
--
-- Uses vim.lsp.start_client + vim.lsp.buf_attach_client (vim.lsp.start only arrived in 0.8):
-- one client per project root, attached to every Python buffer under it.

local M = {}

M.config = {
  cmd = { "oomlint", "server" },
  filetypes = { "python" },
  -- The closest folder holding one of these is the root (else the file's folder).
  root_markers = { "pyproject.toml", "oomlint.toml", ".oomlint.toml", ".git" },
  -- Sent as initializationOptions, e.g. { unsafeFixes = true }.
  init_options = {},
  on_attach = nil,
}

-- Client ids by root folder.
local clients = {}

local function exists(path)
  return vim.loop.fs_stat(path) ~= nil
end

function M.find_root(fname)
  local dir = vim.fn.fnamemodify(fname, ":p:h")
  local current = dir
  while current and current ~= "" do
    for _, marker in ipairs(M.config.root_markers) do
      if exists(current .. "/" .. marker) then
        return current
      end
    end
    local parent = vim.fn.fnamemodify(current, ":h")
    if parent == current then
      break
    end
    current = parent
  end
  return dir
end

-- Starts (or reuses) the client for the buffer's root and attaches the buffer; returns the id.
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local fname = vim.api.nvim_buf_get_name(bufnr)
  local root = M.find_root(fname ~= "" and fname or vim.fn.getcwd() .. "/untitled.py")
  local id = clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client({
      name = "oomlint",
      cmd = M.config.cmd,
      root_dir = root,
      init_options = M.config.init_options,
      on_attach = M.config.on_attach,
    })
    clients[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", M.config, opts or {})
  local group = vim.api.nvim_create_augroup("oomlint_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.start(args.buf)
    end,
  })
end

return M
