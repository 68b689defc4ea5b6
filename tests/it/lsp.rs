//! `oomlint server` end to end: the built binary speaks JSON-RPC with Content-Length framing over
//! its stdio; this test plays the editor (initialize, didOpen, diagnostics pushed and pulled,
//! codeAction, executeCommand with the server's workspace/applyEdit, hover, didChange,
//! shutdown/exit). Every read has a timeout, so a hung server fails the test.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::*;

const SEED: &str = "import torch


class Attention(torch.nn.Module):
    def forward(self, hidden_states, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        attn_mask = attn_mask.bool()
        return attn_mask
";

const SWAPPED: &str = "import torch


class Attention(torch.nn.Module):
    def forward(self, hidden_states, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.bool()
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        return attn_mask
";

const TIMEOUT: Duration = Duration::from_secs(60);

struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: mpsc::Receiver<Value>,
    /// Messages read while waiting for another one.
    backlog: VecDeque<Value>,
    next_id: i64,
}

impl Drop for Client {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Reads one framed message: headers up to an empty line, then Content-Length bytes.
fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Client {
    fn start(dir: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_oomlint"))
            .arg("server")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start oomlint server");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_frame(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            incoming,
            backlog: VecDeque::new(),
            next_id: 0,
        }
    }

    fn send(&mut self, message: Value) {
        let body = serde_json::to_vec(&message).unwrap();
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(&body).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    /// The next message that `wanted` accepts (earlier ones stay in the backlog).
    fn wait_for(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(i).unwrap();
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.backlog.push_back(message),
                Err(_) => panic!(
                    "no {what} from the server within {TIMEOUT:?}; read meanwhile: {:?}",
                    self.backlog
                ),
            }
        }
    }

    fn response(&mut self, id: i64) -> Value {
        let message = self.wait_for(&format!("response {id}"), |m| {
            m.get("id") == Some(&json!(id)) && m.get("method").is_none()
        });
        assert!(message.get("error").is_none(), "error response: {message}");
        message["result"].clone()
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        self.response(id)
    }

    fn notification(&mut self, method: &str) -> Value {
        let m = method.to_string();
        self.wait_for(method, move |msg| {
            msg.get("method") == Some(&json!(m)) && msg.get("id").is_none()
        })["params"]
            .clone()
    }

    fn diagnostics(&mut self) -> Vec<Value> {
        let params = self.notification("textDocument/publishDiagnostics");
        params["diagnostics"].as_array().unwrap().clone()
    }

    fn initialize(&mut self, dir: &Path, options: Value) -> Value {
        self.initialize_with(dir, options, json!({}))
    }

    fn initialize_with(&mut self, dir: &Path, options: Value, capabilities: Value) -> Value {
        let root = uri(dir);
        let result = self.call(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root,
                "workspaceFolders": [{ "uri": root, "name": "ws" }],
                "capabilities": capabilities,
                "initializationOptions": options,
            }),
        );
        self.notify("initialized", json!({}));
        result
    }

    fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": {
                "uri": uri, "languageId": "python", "version": 1, "text": text,
            }}),
        );
    }

    fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "text": text }],
            }),
        );
    }

    /// shutdown, exit, and the process's exit status (within the timeout).
    fn shutdown(mut self) -> std::process::ExitStatus {
        assert_eq!(self.call("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn uri(path: &Path) -> String {
    // Test paths are plain ASCII temp folders: no percent-encoding needed.
    format!("file://{}", path.display())
}

/// Applies LSP text edits (UTF-16 positions) to `text`, last edit first.
fn apply_edits(text: &str, edits: &[Value]) -> String {
    let offset = |pos: &Value| -> usize {
        let line = pos["line"].as_u64().unwrap() as usize;
        let character = pos["character"].as_u64().unwrap() as usize;
        let mut start = 0;
        for _ in 0..line {
            start += text[start..]
                .find('\n')
                .map_or(text.len() - start, |i| i + 1);
        }
        let line_text = text[start..].split('\n').next().unwrap();
        let mut units = 0;
        for (i, c) in line_text.char_indices() {
            if units >= character {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + line_text.len()
    };
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (start, end, new) in spans {
        out.replace_range(start..end, &new);
    }
    out
}

/// The edits for `uri` in a WorkspaceEdit (`changes` or `documentChanges`).
fn edits_of(edit: &Value, uri: &str) -> Vec<Value> {
    if let Some(list) = edit["changes"][uri].as_array() {
        return list.clone();
    }
    edit["documentChanges"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["textDocument"]["uri"] == json!(uri))
        .flat_map(|d| d["edits"].as_array().unwrap().clone())
        .collect()
}

fn cli_fix(dir: &Path, name: &str, text: &str) -> String {
    let out = run_in(
        dir,
        &["check", "--fix", "--unsafe-fixes", "--stdin-filename", name],
        Some(text),
    );
    stdout(&out)
}

#[test]
fn lsp_session_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let file = dir.join("attention.py");
    std::fs::write(&file, SEED).unwrap();
    let doc = uri(&file);

    let mut client = Client::start(&dir);
    let init = client.initialize(&dir, json!({ "unsafeFixes": true }));
    let caps = &init["capabilities"];
    assert_eq!(caps["hoverProvider"], json!(true));
    assert_eq!(caps["textDocumentSync"]["change"], json!(1));
    assert!(
        caps["codeActionProvider"]["codeActionKinds"]
            .as_array()
            .unwrap()
            .contains(&json!("source.fixAll.oomlint"))
    );
    assert_eq!(init["serverInfo"]["name"], json!("oomlint"));

    // didOpen -> one OOM101 at the `.bool()` on line 6 (0-based), character 30.
    client.open(&doc, SEED);
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let d = &diagnostics[0];
    assert_eq!(d["code"], json!("OOM101"));
    assert_eq!(d["source"], json!("oomlint"));
    assert_eq!(d["range"]["start"], json!({ "line": 6, "character": 30 }));
    assert!(
        d["codeDescription"]["href"]
            .as_str()
            .unwrap()
            .ends_with("OOM101.md")
    );
    let related = d["relatedInformation"].as_array().unwrap();
    assert!(
        related
            .iter()
            .any(|r| r["location"]["range"]["start"]["line"] == json!(5)),
        "the chain points at the expand on line 5: {related:?}"
    );
    assert_eq!(d["data"]["code"], json!("OOM101"));
    assert_eq!(d["data"]["fix"]["applicability"], json!("unsafe"));

    // Pull diagnostics give the same finding.
    let pulled = client.call(
        "textDocument/diagnostic",
        json!({ "textDocument": { "uri": doc } }),
    );
    assert_eq!(pulled["kind"], json!("full"));
    assert_eq!(pulled["items"].as_array().unwrap().len(), 1);
    assert_eq!(pulled["items"][0]["range"], d["range"]);

    // Code actions at the finding: the quick fix (unsafe: the seed returns the mask) and noqa.
    let actions = client.call(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": doc },
            "range": d["range"],
            "context": { "diagnostics": [d], "only": ["quickfix"] },
        }),
    );
    let actions = actions.as_array().unwrap();
    assert_eq!(actions.len(), 2, "{actions:?}");
    let quickfix = &actions[0];
    assert_eq!(quickfix["kind"], json!("quickfix"));
    let title = quickfix["title"].as_str().unwrap();
    assert!(title.ends_with("(unsafe)"), "{title}");
    let fixed = apply_edits(SEED, &edits_of(&quickfix["edit"], &doc));
    let expected = cli_fix(&dir, "attention.py", SEED);
    assert_ne!(fixed, SEED);
    assert_eq!(
        fixed, expected,
        "the LSP quick fix gives what `check --fix` gives"
    );
    let noqa = &actions[1];
    assert_eq!(noqa["title"], json!("Ignore OOM101 with # noqa"));
    let silenced = apply_edits(SEED, &edits_of(&noqa["edit"], &doc));
    assert!(
        silenced.contains("attn_mask = attn_mask.bool()  # noqa: OOM101\n"),
        "{silenced}"
    );

    // fixAll through the command: the server asks the client to apply the edit.
    let id = client.request(
        "workspace/executeCommand",
        json!({ "command": "oomlint.fixAll", "arguments": [{ "uri": doc }] }),
    );
    let apply = client.wait_for("workspace/applyEdit", |m| {
        m["method"] == json!("workspace/applyEdit") && m.get("id").is_some()
    });
    let whole = edits_of(&apply["params"]["edit"], &doc);
    assert_eq!(whole.len(), 1);
    assert_eq!(apply_edits(SEED, &whole), expected);
    client.send(json!({ "jsonrpc": "2.0", "id": apply["id"], "result": { "applied": true } }));
    assert_eq!(client.response(id), Value::Null);

    // source.fixAll.oomlint as a code action.
    let source_actions = client.call(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": doc },
            "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } },
            "context": { "diagnostics": [], "only": ["source.fixAll"] },
        }),
    );
    let source_actions = source_actions.as_array().unwrap();
    assert_eq!(source_actions.len(), 1, "{source_actions:?}");
    assert_eq!(source_actions[0]["kind"], json!("source.fixAll.oomlint"));
    assert_eq!(
        apply_edits(SEED, &edits_of(&source_actions[0]["edit"], &doc)),
        expected
    );

    // The noqa'd text: no finding; hover on the code shows the rule's documentation.
    client.change(&doc, 2, &silenced);
    assert_eq!(client.diagnostics(), Vec::<Value>::new());
    let line = silenced
        .lines()
        .position(|l| l.contains("# noqa: OOM101"))
        .unwrap();
    let character = silenced.lines().nth(line).unwrap().find("OOM101").unwrap() + 2;
    let hover = client.call(
        "textDocument/hover",
        json!({
            "textDocument": { "uri": doc },
            "position": { "line": line, "character": character },
        }),
    );
    assert_eq!(hover["contents"]["kind"], json!("markdown"));
    let doc_text = hover["contents"]["value"].as_str().unwrap();
    assert!(doc_text.contains("OOM101"), "{doc_text}");
    assert!(doc_text.contains("cast-after-expand"), "{doc_text}");
    assert_eq!(hover["range"]["start"]["line"], json!(line));
    // Hover elsewhere: nothing.
    let nothing = client.call(
        "textDocument/hover",
        json!({
            "textDocument": { "uri": doc },
            "position": { "line": 0, "character": 2 },
        }),
    );
    assert_eq!(nothing, Value::Null);

    // The swapped (good) version: empty diagnostics.
    client.change(&doc, 3, SWAPPED);
    assert_eq!(client.diagnostics(), Vec::<Value>::new());
    // And back to the seed: the finding returns.
    client.change(&doc, 4, SEED);
    assert_eq!(client.diagnostics().len(), 1);

    let status = client.shutdown();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn lsp_fix_all_is_safe_only_by_default_and_config_is_reread() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let file = dir.join("attention.py");
    std::fs::write(&file, SEED).unwrap();
    let doc = uri(&file);
    let mut client = Client::start(&dir);
    client.initialize(&dir, Value::Null);
    client.open(&doc, SEED);
    assert_eq!(client.diagnostics().len(), 1);
    // The seed's only fix is unsafe: no fix-all action, and fixAll sends no edit.
    let source_actions = client.call(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": doc },
            "range": { "start": { "line": 6, "character": 30 }, "end": { "line": 6, "character": 30 } },
            "context": { "diagnostics": [], "only": ["source.fixAll.oomlint"] },
        }),
    );
    assert_eq!(source_actions, json!([]));
    // The quick fix is still offered, marked unsafe and not preferred.
    let quick = client.call(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": doc },
            "range": { "start": { "line": 6, "character": 30 }, "end": { "line": 6, "character": 34 } },
            "context": { "diagnostics": [] },
        }),
    );
    let quick = quick.as_array().unwrap();
    assert!(
        quick
            .iter()
            .any(|a| a["title"].as_str().unwrap().ends_with("(unsafe)")
                && a["isPreferred"] == json!(false)),
        "{quick:?}"
    );
    // `unsafe-fixes = true` in the workspace's config, announced as a watched-file change.
    std::fs::write(dir.join("oomlint.toml"), "unsafe-fixes = true\n").unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&dir.join("oomlint.toml")), "type": 1 }] }),
    );
    assert_eq!(client.diagnostics().len(), 1);
    let source_actions = client.call(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": doc },
            "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } },
            "context": { "diagnostics": [], "only": ["source"] },
        }),
    );
    assert_eq!(source_actions.as_array().unwrap().len(), 1);
    // A config that ignores the rule, re-read on save of the config file.
    std::fs::write(dir.join("oomlint.toml"), "ignore = [\"OOM101\"]\n").unwrap();
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri(&dir.join("oomlint.toml")) } }),
    );
    assert_eq!(client.diagnostics(), Vec::<Value>::new());
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn lsp_positions_are_utf16() {
    // A non-ASCII string before the finding on the same line shifts UTF-16 columns, not bytes.
    let text = "import torch\n\n\ndef f(m, n):\n    s = 'é😀'; y = m.expand(n, 4096, 4096).bool()\n    return y, s\n";
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let file = dir.join("u.py");
    std::fs::write(&file, text).unwrap();
    let doc = uri(&file);
    let mut client = Client::start(&dir);
    client.initialize(&dir, Value::Null);
    client.open(&doc, text);
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let line = text.lines().nth(4).unwrap();
    let bool_at = line.find("bool").unwrap();
    let utf16 = line[..bool_at].encode_utf16().count();
    assert_ne!(utf16, bool_at);
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({ "line": 4, "character": utf16 })
    );
    let status = client.shutdown();
    assert!(status.success());
}

#[test]
fn lsp_pull_diagnostics_for_clients_that_pull() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let file = dir.join("attention.py");
    std::fs::write(&file, SEED).unwrap();
    let doc = uri(&file);
    let mut client = Client::start(&dir);
    client.initialize_with(
        &dir,
        Value::Null,
        json!({ "textDocument": { "diagnostic": { "dynamicRegistration": false } } }),
    );
    client.open(&doc, SEED);
    let pull = |client: &mut Client| {
        client.call(
            "textDocument/diagnostic",
            json!({ "textDocument": { "uri": doc } }),
        )["items"]
            .as_array()
            .unwrap()
            .clone()
    };
    let items = pull(&mut client);
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["code"], json!("OOM101"));
    // A pulling client gets no pushed copy (it would show every finding twice).
    assert!(
        !client
            .backlog
            .iter()
            .any(|m| m["method"] == json!("textDocument/publishDiagnostics")),
        "{:?}",
        client.backlog
    );
    // Code actions see the current text even before the next pull.
    client.change(&doc, 2, SWAPPED);
    let actions = client.call(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": doc },
            "range": items[0]["range"],
            "context": { "diagnostics": [] },
        }),
    );
    assert_eq!(actions, json!([]));
    assert_eq!(pull(&mut client), Vec::<Value>::new());
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn lsp_profiles_in_the_config_attach_measured_bytes() {
    let samples = samples().join("torch-cpu");
    let trace = samples.join("expand_then_cast_bs2.trace.json");
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let file = dir.join("tiny_model.py");
    let text = std::fs::read_to_string(samples.join("tiny_model.py")).unwrap();
    std::fs::write(&file, &text).unwrap();
    std::fs::write(
        dir.join("oomlint.toml"),
        format!("profiles = [{:?}]\n", trace.canonicalize().unwrap()),
    )
    .unwrap();
    let doc = uri(&file);
    let mut client = Client::start(&dir);
    client.initialize(&dir, Value::Null);
    client.open(&doc, &text);
    let diagnostics = client.diagnostics();
    for d in &diagnostics {
        println!("{} {}: {}", d["code"], d["range"]["start"], d["message"]);
    }
    assert!(
        diagnostics
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("(measured: ")),
        "{diagnostics:#?}"
    );
    assert_eq!(client.shutdown().code(), Some(0));
}

/// The diagnostics next pushed for `cell`.
fn cell_diagnostics(client: &mut Client, cell: &str) -> Vec<Value> {
    let cell = cell.to_string();
    client.wait_for("diagnostics of a cell", move |m| {
        m["method"] == json!("textDocument/publishDiagnostics") && m["params"]["uri"] == json!(cell)
    })["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn lsp_notebook_documents_get_diagnostics_and_fixes_per_cell() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let notebook = uri(&dir.join("masks.ipynb"));
    let cell = |id: &str| {
        format!(
            "vscode-notebook-cell:{}#{id}",
            dir.join("masks.ipynb").display()
        )
    };
    let (c1, c2, c3) = (cell("W0"), cell("W1"), cell("W2"));
    let first = "%matplotlib inline\nimport torch\nbatch = torch.load(\"b.pt\")\n\
                 mask = batch[\"m\"][:, None, None, :].expand(8, 32, 4096, 4096)\n";
    let third = "!pip install einops\nscores = mask.float()\n\
                 bias = batch[\"m\"][:, None, None, :].expand(8, 32, 4096, 4096).float()\n";
    let mut client = Client::start(&dir);
    let init = client.initialize(&dir, Value::Null);
    assert_eq!(
        init["capabilities"]["notebookDocumentSync"]["notebookSelector"][0],
        json!({ "notebook": "jupyter-notebook", "cells": [{ "language": "python" }] })
    );
    client.notify(
        "notebookDocument/didOpen",
        json!({
            "notebookDocument": {
                "uri": notebook, "notebookType": "jupyter-notebook", "version": 1,
                "cells": [
                    { "kind": 2, "document": c1 },
                    { "kind": 1, "document": c2 },
                    { "kind": 2, "document": c3 },
                ],
            },
            "cellTextDocuments": [
                { "uri": c1, "languageId": "python", "version": 1, "text": first },
                { "uri": c3, "languageId": "python", "version": 1, "text": third },
            ],
        }),
    );
    assert_eq!(cell_diagnostics(&mut client, &c1), Vec::<Value>::new());
    let found = cell_diagnostics(&mut client, &c3);
    assert_eq!(found.len(), 2, "{found:?}");
    // Positions are in the cell's own text (the cast of a mask expanded in the first cell).
    assert_eq!(
        found[0]["range"]["start"],
        json!({ "line": 1, "character": 14 })
    );
    assert_eq!(found[1]["range"]["start"]["line"], 2);
    // The chain step in the other cell is not a location in this one.
    let related = found[0]["relatedInformation"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        related.iter().all(|r| r["location"]["uri"] != json!(c3)),
        "{related:?}"
    );

    // A quick fix edits the cell; the cast whose expand is in another cell has none.
    let actions = |client: &mut Client, range: &Value, only: Value| {
        client.call(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": c3 },
                "range": range,
                "context": { "diagnostics": [], "only": only },
            }),
        )
    };
    // The cast whose expand is in another cell has no fix, only the `# noqa` quick fix, which
    // edits this cell's line.
    let quick = actions(&mut client, &found[0]["range"], json!(["quickfix"]));
    assert_eq!(quick.as_array().map(Vec::len), Some(1), "{quick}");
    assert_eq!(quick[0]["title"], json!("Ignore OOM101 with # noqa"));
    assert_eq!(
        apply_edits(third, &edits_of(&quick[0]["edit"], &c3)),
        "!pip install einops\nscores = mask.float()  # noqa: OOM101\n\
         bias = batch[\"m\"][:, None, None, :].expand(8, 32, 4096, 4096).float()\n"
    );
    let quick = actions(&mut client, &found[1]["range"], json!(["quickfix"]));
    let edits = edits_of(&quick[0]["edit"], &c3);
    let fixed = "!pip install einops\nscores = mask.float()\n\
                 bias = batch[\"m\"][:, None, None, :].float().expand(8, 32, 4096, 4096)\n";
    assert_eq!(apply_edits(third, &edits), fixed);
    // Fix-all of the cell applies safe fixes only: `bias` is a module global that later cells
    // may write in place, so its reorder is unsafe and the cell (magic line included) is kept.
    let all = actions(
        &mut client,
        &found[1]["range"],
        json!(["source.fixAll.oomlint"]),
    );
    let after = match all.as_array().and_then(|a| a.first()) {
        Some(action) => apply_edits(third, &edits_of(&action["edit"], &c3)),
        None => third.to_string(),
    };
    assert_eq!(after, third);

    // An edit of the cell's text is linted with the other cells.
    client.notify(
        "notebookDocument/didChange",
        json!({
            "notebookDocument": { "uri": notebook, "version": 2 },
            "change": { "cells": { "textContent": [{
                "document": { "uri": c3, "version": 2 },
                "changes": [{ "text": fixed }],
            }]}},
        }),
    );
    assert_eq!(cell_diagnostics(&mut client, &c3).len(), 1);
    // A new cell at the top: the cells are renumbered, nothing is lost.
    let c0 = cell("W9");
    client.notify(
        "notebookDocument/didChange",
        json!({
            "notebookDocument": { "uri": notebook, "version": 3 },
            "change": { "cells": { "structure": {
                "array": { "start": 0, "deleteCount": 0, "cells": [{ "kind": 2, "document": c0 }] },
                "didOpen": [{ "uri": c0, "languageId": "python", "version": 1, "text": "def f(:\n" }],
            }}},
        }),
    );
    let broken = cell_diagnostics(&mut client, &c0);
    assert_eq!(broken.len(), 1);
    assert_eq!(broken[0]["code"], json!("OOM001"));
    assert_eq!(cell_diagnostics(&mut client, &c3).len(), 1);

    client.notify(
        "notebookDocument/didClose",
        json!({
            "notebookDocument": { "uri": notebook },
            "cellTextDocuments": [{ "uri": c0 }, { "uri": c1 }, { "uri": c3 }],
        }),
    );
    assert_eq!(cell_diagnostics(&mut client, &c3), Vec::<Value>::new());
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn lsp_notebook_cells_answer_pulls() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let notebook = uri(&dir.join("pull.ipynb"));
    let c1 = format!(
        "vscode-notebook-cell:{}#a",
        dir.join("pull.ipynb").display()
    );
    let c2 = format!(
        "vscode-notebook-cell:{}#b",
        dir.join("pull.ipynb").display()
    );
    let mut client = Client::start(&dir);
    client.initialize_with(
        &dir,
        Value::Null,
        json!({ "textDocument": { "diagnostic": { "dynamicRegistration": false } } }),
    );
    client.notify(
        "notebookDocument/didOpen",
        json!({
            "notebookDocument": {
                "uri": notebook, "notebookType": "jupyter-notebook", "version": 1,
                "cells": [{ "kind": 2, "document": c1 }, { "kind": 2, "document": c2 }],
            },
            "cellTextDocuments": [
                { "uri": c1, "languageId": "python", "version": 1,
                  "text": "import torch\nm = torch.rand(8, 1, 4096).expand(8, 4096, 4096)\n" },
                { "uri": c2, "languageId": "python", "version": 1, "text": "h = m.half()\n" },
            ],
        }),
    );
    let pull = |client: &mut Client, cell: &str| {
        client.call(
            "textDocument/diagnostic",
            json!({ "textDocument": { "uri": cell } }),
        )["items"]
            .as_array()
            .unwrap()
            .clone()
    };
    assert_eq!(pull(&mut client, &c1), Vec::<Value>::new());
    let items = pull(&mut client, &c2);
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["code"], json!("OOM101"));
    assert_eq!(
        items[0]["range"]["start"],
        json!({ "line": 0, "character": 6 })
    );
    assert!(
        !client
            .backlog
            .iter()
            .any(|m| m["method"] == json!("textDocument/publishDiagnostics")),
        "a pulling client gets no pushed copy"
    );
    assert_eq!(client.shutdown().code(), Some(0));
}

const MASK_HELPER: &str = "import torch


def make_padding_mask(attention_mask, tgt_len):
    bsz, src_len = attention_mask.shape
    return attention_mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len)
";

const MASK_CALLER: &str = "import torch
from pkg.masks import make_padding_mask


def forward(hidden_states, attention_mask, seq_len):
    mask = make_padding_mask(attention_mask, seq_len).to(hidden_states.dtype)
    return hidden_states * mask
";

#[test]
fn lsp_buffers_see_workspace_helpers_and_saves_update_them() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    std::fs::write(dir.join("oomlint.toml"), "").unwrap();
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    // A namespace package: no `__init__.py`.
    std::fs::write(dir.join("pkg/masks.py"), MASK_HELPER).unwrap();
    let caller = dir.join("pkg/model.py");
    std::fs::write(&caller, MASK_CALLER).unwrap();
    let doc = uri(&caller);

    let mut client = Client::start(&dir);
    client.initialize(&dir, json!({}));
    // Only the caller is open: the helper's summary comes from the workspace.
    client.open(&doc, MASK_CALLER);
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], json!("OOM101"));
    assert_eq!(diagnostics[0]["range"]["start"]["line"], json!(5));

    // The helper stops enlarging and is saved: the open caller is linted again without it.
    let helper = dir.join("pkg/masks.py");
    std::fs::write(
        &helper,
        MASK_HELPER.replace(".expand(bsz, 1, tgt_len, src_len)", ""),
    )
    .unwrap();
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri(&helper) } }),
    );
    let diagnostics = client.diagnostics();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");

    // And back: saved with the enlargement, the finding returns.
    std::fs::write(&helper, MASK_HELPER).unwrap();
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri(&helper) } }),
    );
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    // The workspace summaries were cached beside the config.
    assert!(dir.join(".oomlint_cache/.gitignore").is_file());
}

/// The server's severity is the finding's level: the seed at guessed sizes is a warning, with its
/// sizes stated in `[tool.oomlint.dims]` an error.
#[test]
fn lsp_severity_follows_the_level() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let text = SEED.replace("total_seq_len, -1)", "total_seq_len, total_seq_len)");
    let file = dir.join("attention.py");
    std::fs::write(&file, &text).unwrap();
    let doc = uri(&file);
    let mut client = Client::start(&dir);
    client.initialize(&dir, Value::Null);
    client.open(&doc, &text);
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    // DiagnosticSeverity: 1 = Error, 2 = Warning.
    assert_eq!(diagnostics[0]["severity"], json!(2), "{diagnostics:?}");
    client.shutdown();

    std::fs::write(
        dir.join("oomlint.toml"),
        "[dims]\nbatch_size = 2\nnum_attention_heads = 24\ntotal_seq_len = 9536\n",
    )
    .unwrap();
    let mut client = Client::start(&dir);
    client.initialize(&dir, Value::Null);
    client.open(&doc, &text);
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["severity"], json!(1), "{diagnostics:?}");
    client.shutdown();
}

#[test]
fn lsp_reads_dims_and_capacity_from_the_config_and_hovers_each_dims_basis() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let file = dir.join("attention.py");
    std::fs::write(&file, SEED).unwrap();
    std::fs::write(
        dir.join("pyproject.toml"),
        "[tool.oomlint]\ncapacity = \"256MiB\"\n\n[tool.oomlint.dims]\nbatch_size = 3\nnum_attention_heads = 24\ntotal_seq_len = 2048\n\"attn_mask.shape[-1]\" = 2048\n",
    )
    .unwrap();
    let doc = uri(&file);
    let mut client = Client::start(&dir);
    client.initialize(&dir, Value::Null);
    client.open(&doc, SEED);
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let message = diagnostics[0]["message"].as_str().unwrap();
    assert!(
        message.contains("it would allocate 288 MiB at batch_size=3, num_attention_heads=24, total_seq_len=2048, attn_mask.shape[-1]=2048, more than the 256 MiB capacity"),
        "{message}"
    );
    // More than the device holds: an error (DiagnosticSeverity 1).
    assert_eq!(diagnostics[0]["severity"], json!(1), "{diagnostics:?}");
    // Hover over the finding: the size, each dim with its value and basis, the verdict.
    let hover = client.call(
        "textDocument/hover",
        json!({
            "textDocument": { "uri": doc },
            "position": { "line": 6, "character": 32 },
        }),
    );
    assert_eq!(hover["contents"]["kind"], json!("markdown"));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("301,989,888 B (288.00 MiB)"), "{text}");
    assert!(
        text.contains("| `batch_size` | 3 | config pyproject.toml |"),
        "{text}"
    );
    assert!(
        text.contains("| `attn_mask.shape[-1]` | 2048 | config pyproject.toml |"),
        "{text}"
    );
    assert!(text.contains("the allocation exceeds"), "{text}");
    assert_eq!(hover["range"]["start"]["line"], json!(6));
    assert_eq!(client.shutdown().code(), Some(0));
}
