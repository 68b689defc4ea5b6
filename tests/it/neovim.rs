//! The language server in a real editor: a headless Neovim (Debian's 0.7) loads
//! `editors/neovim/oomlint.lua`, opens the README's example and waits for the OOM101 diagnostic.
//! Ignored by default, so that `cargo test` counts it as ignored rather than passing it where
//! `nvim` is missing: run it with `cargo test -- --ignored neovim` (`.ci/run` does when `nvim` is on
//! PATH). Run that way without `nvim`, it fails.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

const SEED: &str = "import torch


class Attention(torch.nn.Module):
    def forward(self, hidden_states, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        attn_mask = attn_mask.bool()
        return attn_mask
";

const SCRIPT: &str = r#"
local out = io.open(os.getenv("OOMLINT_OUT"), "w")
local function say(line)
  out:write(line .. "\n")
  out:flush()
end
package.path = os.getenv("OOMLINT_EDITORS") .. "/neovim/?.lua;" .. package.path
local oomlint = require("oomlint")
oomlint.setup({ cmd = { os.getenv("OOMLINT_BIN"), "server" } })
vim.cmd("filetype on")
vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("OOMLINT_FILE")))
local buf = vim.api.nvim_get_current_buf()
if vim.bo[buf].filetype ~= "python" then
  vim.bo[buf].filetype = "python"
end
say("nvim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor))
local ok = vim.wait(30000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
say("arrived " .. tostring(ok))
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local code = d.code
  if code == nil and d.user_data and d.user_data.lsp then
    code = d.user_data.lsp.code
  end
  say(string.format("diagnostic %d:%d %s %s %s", d.lnum, d.col, tostring(d.source), tostring(code), d.message))
end
for _, client in ipairs(vim.lsp.get_active_clients()) do
  say("client " .. client.name)
  client.stop()
end
out:close()
vim.cmd("qa!")
"#;

#[test]
#[ignore = "needs nvim on PATH; run with `cargo test -- --ignored neovim`"]
fn neovim_headless_shows_the_oom101_diagnostic() {
    let available = Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        available,
        "`nvim` is not on PATH (apt-get install neovim to run this test)"
    );
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let file = dir.join("attention.py");
    std::fs::write(&file, SEED).unwrap();
    let script = dir.join("check.lua");
    std::fs::write(&script, SCRIPT).unwrap();
    let out = dir.join("out.txt");
    let mut child = Command::new("nvim")
        .args(["--headless", "--clean", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .current_dir(&dir)
        .env("OOMLINT_BIN", env!("CARGO_BIN_EXE_oomlint"))
        .env("OOMLINT_EDITORS", repo().join("editors"))
        .env("OOMLINT_FILE", &file)
        .env("OOMLINT_OUT", &out)
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start nvim");
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "nvim did not finish; it wrote: {}",
                std::fs::read_to_string(&out).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let printed = std::fs::read_to_string(&out).unwrap_or_default();
    println!("{printed}");
    assert!(status.success(), "nvim exited with {status}: {printed}");
    assert!(printed.contains("arrived true"), "{printed}");
    assert!(printed.contains("client oomlint"), "{printed}");
    let line = printed
        .lines()
        .find(|l| l.starts_with("diagnostic "))
        .unwrap_or_else(|| panic!("no diagnostic printed: {printed}"));
    assert!(
        line.starts_with("diagnostic 6:30 oomlint OOM101 "),
        "the OOM101 at the `.bool()`: {line}"
    );
}
