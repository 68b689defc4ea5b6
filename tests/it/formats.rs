//! The CI output formats through the built binary: golden output of `json-lines`, `sarif`,
//! `github`, `gitlab` and `junit` on `testdata/examples` and `testdata/rules/dataflow`, SARIF
//! validated against the official 2.1.0 schema (vendored in `testdata/sarif/`), GitHub lines
//! parsed as workflow commands, GitLab fingerprints stable and distinct, JUnit well-formed XML.

use std::path::Path;
use std::process::Output;

use crate::common::*;
use serde_json::Value;

/// The inputs of the golden tests, relative to `testdata/` so that paths are short and stable.
const INPUTS: [&str; 2] = ["examples", "rules/dataflow"];

const FORMATS: [&str; 5] = ["json-lines", "sarif", "github", "gitlab", "junit"];

const SEED: &str = "\
import torch


class Attention(torch.nn.Module):
    def forward(self, hidden_states, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        attn_mask = attn_mask.bool()
        return attn_mask
";

fn testdata() -> std::path::PathBuf {
    repo().join("testdata")
}

/// Runs `check` in `dir` with `--output-format format`, asserting a normal exit.
fn check_in(dir: &Path, format: &str, paths: &[&str]) -> Output {
    // `--max-warnings 0`: the inputs' warnings fail the run too, as their errors do.
    let mut args = vec![
        "check",
        "--isolated",
        "--max-warnings",
        "0",
        "--output-format",
        format,
    ];
    args.extend_from_slice(paths);
    let out = run_in(dir, &args, None);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        stdout(&out),
        stderr(&out)
    );
    out
}

/// The golden run: both inputs, from `testdata/`.
fn golden(format: &str) -> String {
    let out = check_in(&testdata(), format, &INPUTS);
    assert_eq!(out.status.code(), Some(1), "the inputs have findings");
    stdout(&out)
}

fn parse_json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("invalid JSON: {e}\n{text}"))
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn rule_codes() -> Vec<String> {
    let mut codes: Vec<String> = std::fs::read_dir(repo().join("lints"))
        .expect("lints/")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".md").map(str::to_string)
        })
        .collect();
    codes.sort();
    codes
}

// ---------------------------------------------------------------- golden output

#[test]
fn json_lines_golden() {
    let text = golden("json-lines");
    insta::assert_snapshot!("json_lines", text);
}

#[test]
fn json_lines_holds_the_json_objects_one_per_line() {
    let lines = golden("json-lines");
    let json = parse_json(&golden("json"));
    let objects: Vec<Value> = lines.lines().map(parse_json).collect();
    assert!(!objects.is_empty());
    assert_eq!(Value::Array(objects), json);
}

/// The SARIF log with each rule's help text (the whole `lints/` document) checked against the
/// file and replaced by its path, and the version by a placeholder, so the snapshot changes only
/// when the format does.
fn normalized_sarif(text: &str) -> Value {
    let mut log = parse_json(text);
    let driver = &mut log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    driver["version"] = Value::from("[version]");
    driver["semanticVersion"] = Value::from("[version]");
    for rule in driver["rules"].as_array_mut().expect("rules") {
        let code = rule["id"].as_str().expect("id").to_string();
        let doc = std::fs::read_to_string(repo().join(format!("lints/{code}.md"))).expect("doc");
        assert_eq!(rule["help"]["text"], doc.as_str(), "{code}: help.text");
        assert_eq!(
            rule["help"]["markdown"],
            doc.as_str(),
            "{code}: help.markdown"
        );
        rule["help"] = serde_json::json!({ "text": format!("[lints/{code}.md]") });
    }
    log
}

#[test]
fn sarif_golden() {
    let log = normalized_sarif(&golden("sarif"));
    insta::assert_json_snapshot!("sarif", log);
}

#[test]
fn github_golden() {
    insta::assert_snapshot!("github", golden("github"));
}

#[test]
fn gitlab_golden() {
    insta::assert_snapshot!("gitlab", golden("gitlab"));
}

#[test]
fn junit_golden() {
    insta::assert_snapshot!("junit", golden("junit"));
}

// ---------------------------------------------------------------- SARIF

/// The one `pattern` of the official schema that is not a valid regex (a stray `]`; it constrains
/// `language`, which oomlint never writes). Every strict validator trips on it, so it is dropped
/// from the in-memory copy; the vendored file stays byte-identical to the published one.
const BROKEN_LANGUAGE_PATTERN: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";

fn drop_broken_patterns(value: &mut Value) -> usize {
    match value {
        Value::Object(map) => {
            let mut dropped = 0;
            if map.get("pattern").and_then(Value::as_str) == Some(BROKEN_LANGUAGE_PATTERN) {
                map.remove("pattern");
                dropped += 1;
            }
            dropped + map.values_mut().map(drop_broken_patterns).sum::<usize>()
        }
        Value::Array(items) => items.iter_mut().map(drop_broken_patterns).sum(),
        _ => 0,
    }
}

pub(crate) fn sarif_validator() -> jsonschema::Validator {
    let mut schema = parse_json(
        &std::fs::read_to_string(testdata().join("sarif/sarif-schema-2.1.0.json"))
            .expect("vendored schema"),
    );
    assert_eq!(
        schema["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0-rtm.5 JSON Schema"
    );
    assert_eq!(
        drop_broken_patterns(&mut schema),
        2,
        "the known bad patterns"
    );
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

pub(crate) fn assert_valid_sarif(validator: &jsonschema::Validator, text: &str) {
    let log = parse_json(text);
    assert!(
        !text.contains("\"language\""),
        "the field whose schema pattern is dropped"
    );
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF schema violations:\n{}",
        errors.join("\n")
    );
    // `uri-reference` is not a draft-04 format, so the validator does not check it: do it here
    // (RFC 3986 characters, well-formed percent escapes, no scheme-like first segment).
    let reference = regex::Regex::new(
        r"^(file:///([A-Za-z]:)?)?([A-Za-z0-9\-._~/!$&'()*+,;=@]|%[0-9A-F]{2})+$",
    )
    .expect("regex");
    let mut uris = Vec::new();
    collect_uris(&log, &mut uris);
    for uri in uris {
        assert!(reference.is_match(&uri), "not a URI reference: {uri:?}");
    }
}

fn collect_uris(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(uri)) = map.get("artifactLocation").map(|l| &l["uri"]) {
                out.push(uri.clone());
            }
            map.values().for_each(|v| collect_uris(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_uris(v, out)),
        _ => {}
    }
}

#[test]
fn sarif_validates_against_the_2_1_0_schema() {
    let validator = sarif_validator();
    // The golden run has chains across files, fixes of both safeties and findings without a fix.
    let text = golden("sarif");
    let log = parse_json(&text);
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert!(results.iter().any(|r| r.get("fixes").is_some()));
    assert!(results.iter().any(|r| r.get("relatedLocations").is_some()));
    assert_valid_sarif(&validator, &text);

    // The validator does reject what the schema forbids.
    let mut bad = log.clone();
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        Value::from(0);
    assert!(!validator.is_valid(&bad), "startLine 0");
    let mut bad = log.clone();
    bad["runs"][0]["columnKind"] = Value::from("characters");
    assert!(!validator.is_valid(&bad), "an unknown columnKind");

    // A clean tree: no results, still a valid log.
    let clean = tempdir();
    std::fs::write(clean.path().join("ok.py"), "import torch\n").expect("write");
    let out = check_in(clean.path(), "sarif", &["."]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert_eq!(
        parse_json(&text)["runs"][0]["results"],
        serde_json::json!([])
    );
    assert_valid_sarif(&validator, &text);
}

#[test]
fn sarif_validates_with_unusual_paths_and_a_syntax_error() {
    let validator = sarif_validator();
    let dir = tempdir();
    std::fs::create_dir_all(dir.path().join("my dir")).expect("mkdir");
    std::fs::write(dir.path().join("my dir/a,b&c%.py"), SEED).expect("write");
    std::fs::write(dir.path().join("broken.py"), "def f(:\n").expect("write");
    let out = check_in(dir.path(), "sarif", &["."]);
    let text = stdout(&out);
    assert_valid_sarif(&validator, &text);
    let log = parse_json(&text);
    let uris: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .expect("uri")
        })
        .collect();
    assert!(uris.contains(&"my%20dir/a,b&c%25.py"), "{uris:?}");
    assert!(uris.contains(&"broken.py"), "{uris:?}");
}

#[test]
fn sarif_describes_every_rule_from_its_doc() {
    let log = parse_json(&golden("sarif"));
    let run = &log["runs"][0];
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "oomlint");
    let rules = driver["rules"].as_array().expect("rules");
    let ids: Vec<String> = rules
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_string())
        .collect();
    assert_eq!(ids, rule_codes(), "one rule per lints/*.md, in code order");
    for rule in rules {
        let id = rule["id"].as_str().expect("id");
        for key in ["name", "shortDescription", "fullDescription", "helpUri"] {
            assert!(rule.get(key).is_some(), "{id}: {key}");
        }
        assert!(
            !rule["shortDescription"]["text"]
                .as_str()
                .unwrap()
                .is_empty()
        );
        let full = rule["fullDescription"]["text"].as_str().expect("full");
        assert!(!full.is_empty() && !full.contains("## "), "{id}: {full}");
        assert!(
            rule["helpUri"]
                .as_str()
                .unwrap()
                .ends_with(&format!("{id}.md"))
        );
        let want = match id {
            "OOM001" | "OOM002" | "OOM201" | "OOM203" => "error",
            _ => "warning",
        };
        assert_eq!(rule["defaultConfiguration"]["level"], want, "{id}");
    }
    for result in run["results"].as_array().expect("results") {
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert!(matches!(
            result["level"].as_str(),
            Some("error" | "warning")
        ));
    }
}

// ---------------------------------------------------------------- GitHub

#[test]
fn github_lines_are_workflow_commands() {
    let command = regex::Regex::new(
        r"^::(?:error|warning) file=([^,:\r\n]+),line=(\d+),col=(\d+),endLine=(\d+),endColumn=(\d+),title=([^,:\r\n]+)::([^\r\n]+)$",
    )
    .expect("regex");
    let text = golden("github");
    let json = parse_json(&golden("json"));
    let items = json.as_array().expect("array");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), items.len(), "one command per diagnostic");
    for (line, item) in lines.iter().zip(items) {
        let caps = command
            .captures(line)
            .unwrap_or_else(|| panic!("not a workflow command: {line}"));
        let unescape = |s: &str| {
            s.replace("%0D", "\r")
                .replace("%0A", "\n")
                .replace("%3A", ":")
                .replace("%2C", ",")
                .replace("%25", "%")
        };
        assert_eq!(unescape(&caps[1]), item["filename"].as_str().unwrap());
        assert_eq!(
            caps[2].parse::<u64>().ok(),
            item["location"]["row"].as_u64()
        );
        assert_eq!(
            caps[3].parse::<u64>().ok(),
            item["location"]["column"].as_u64()
        );
        assert_eq!(
            caps[4].parse::<u64>().ok(),
            item["end_location"]["row"].as_u64()
        );
        assert_eq!(
            caps[5].parse::<u64>().ok(),
            item["end_location"]["column"].as_u64()
        );
        assert_eq!(
            unescape(&caps[6]),
            format!(
                "{} ({})",
                item["code"].as_str().unwrap(),
                item["name"].as_str().unwrap()
            )
        );
        assert_eq!(unescape(&caps[7]), item["message"].as_str().unwrap());
    }
}

#[cfg(unix)]
#[test]
fn github_escapes_properties() {
    let dir = tempdir();
    std::fs::write(dir.path().join("a,b:c%.py"), SEED).expect("write");
    let out = check_in(dir.path(), "github", &["."]);
    let text = stdout(&out);
    assert!(
        text.starts_with("::warning file=a%2Cb%3Ac%25.py,line=7,col="),
        "{text}"
    );
}

// ---------------------------------------------------------------- GitLab

fn fingerprints(text: &str) -> Vec<String> {
    parse_json(text)
        .as_array()
        .expect("array")
        .iter()
        .map(|i| i["fingerprint"].as_str().expect("fingerprint").to_string())
        .collect()
}

#[test]
fn gitlab_fingerprints_are_stable_and_distinct() {
    let first = fingerprints(&golden("gitlab"));
    let second = fingerprints(&golden("gitlab"));
    assert_eq!(first, second, "stable across runs");
    let mut unique = first.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), first.len(), "pairwise distinct: {first:?}");
    for issue in parse_json(&golden("gitlab")).as_array().expect("array") {
        assert!(matches!(
            issue["severity"].as_str(),
            Some("major" | "minor")
        ));
        assert!(issue["check_name"].as_str().unwrap().starts_with("OOM"));
        assert!(issue["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn gitlab_fingerprints_survive_unrelated_edits() {
    let dir = tempdir();
    // The same finding twice in one file: same code, path and line text, told apart by index.
    let twice = format!(
        "{SEED}\n\n{}",
        SEED.replace("class Attention", "class Attention2")
    );
    std::fs::write(dir.path().join("model.py"), &twice).expect("write");
    let before = stdout(&check_in(dir.path(), "gitlab", &["model.py"]));
    std::fs::write(
        dir.path().join("model.py"),
        format!("# a comment\n# another\n{twice}"),
    )
    .expect("write");
    let after = stdout(&check_in(dir.path(), "gitlab", &["model.py"]));
    let (b, a) = (fingerprints(&before), fingerprints(&after));
    assert_eq!(b.len(), 2);
    assert_ne!(b[0], b[1]);
    assert_eq!(b, a, "lines moved, fingerprints kept");
    let begin = |t: &str| parse_json(t)[0]["location"]["lines"]["begin"].as_u64();
    assert_eq!(begin(&before).map(|l| l + 2), begin(&after));
}

// ---------------------------------------------------------------- JUnit

/// Parses `text` with quick-xml (well-formedness: one root, matched tags, attributes that
/// normalize, only predefined entities and valid character references) and returns the number of
/// `testcase` and `failure` elements.
fn parse_junit(text: &str) -> (usize, usize) {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let (mut cases, mut failures, mut depth, mut roots) = (0, 0, 0usize, 0);
    loop {
        let event = reader
            .read_event()
            .unwrap_or_else(|e| panic!("invalid XML at {}: {e}\n{text}", reader.buffer_position()));
        match event {
            Event::Eof => break,
            Event::Start(ref e) | Event::Empty(ref e) => {
                if depth == 0 {
                    roots += 1;
                }
                for attr in e.attributes() {
                    let attr = attr.expect("attribute");
                    attr.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                        .expect("attribute value");
                }
                match e.name().as_ref() {
                    "testcase" => cases += 1,
                    // An error is a failure, a warning a skipped case: both are a diagnostic.
                    "failure" | "skipped" => failures += 1,
                    _ => {}
                }
                if matches!(event, Event::Start(_)) {
                    depth += 1;
                }
            }
            Event::End(_) => depth -= 1,
            Event::GeneralRef(r) => {
                let predefined =
                    ["amp", "lt", "gt", "quot", "apos"].contains(&r.xml10_content().as_ref());
                let char_ref = r.is_char_ref() && matches!(r.resolve_char_ref(), Ok(Some(_)));
                assert!(
                    predefined || char_ref,
                    "unknown entity &{};",
                    r.xml10_content()
                );
            }
            Event::Text(t) if depth == 0 => {
                assert!(t.xml10_content().trim().is_empty(), "text outside the root");
            }
            _ => {}
        }
    }
    assert_eq!((depth, roots), (0, 1), "one root element, all tags closed");
    (cases, failures)
}

#[test]
fn junit_is_well_formed_xml() {
    let text = golden("junit");
    assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
    let diagnostics = parse_json(&golden("json")).as_array().unwrap().len();
    let (cases, failures) = parse_junit(&text);
    assert_eq!(failures, diagnostics);
    assert!(cases > failures, "clean files get a passing test case");
}

#[cfg(unix)]
#[test]
fn junit_escapes_markup_in_paths() {
    let dir = tempdir();
    std::fs::write(dir.path().join("a&b<c>'\".py"), SEED).expect("write");
    std::fs::write(dir.path().join("clean.py"), "x = 1\n").expect("write");
    let text = stdout(&check_in(dir.path(), "junit", &["."]));
    assert_eq!(parse_junit(&text), (2, 1));
    assert!(text.contains("a&amp;b&lt;c&gt;&apos;&quot;.py"), "{text}");
}

// ---------------------------------------------------------------- all formats

#[test]
fn formats_print_no_summary_and_honour_output_file() {
    let dir = tempdir();
    std::fs::write(dir.path().join("model.py"), SEED).expect("write");
    for format in FORMATS {
        let printed = stdout(&check_in(dir.path(), format, &["model.py"]));
        assert!(!printed.contains("Found 1 error"), "{format}: {printed}");
        assert!(!printed.contains("fixable with"), "{format}: {printed}");
        assert!(printed.ends_with('\n'), "{format}: {printed}");
        let file = dir.path().join(format!("report.{format}"));
        let file_arg = file.to_string_lossy().into_owned();
        let out = run_in(
            dir.path(),
            &[
                "check",
                "--isolated",
                "--output-format",
                format,
                "-o",
                &file_arg,
                "model.py",
            ],
            None,
        );
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{format}");
        assert_eq!(std::fs::read_to_string(&file).expect("report"), printed);
    }
}

#[test]
fn formats_on_a_clean_tree() {
    let dir = tempdir();
    std::fs::write(dir.path().join("ok.py"), "import torch\n").expect("write");
    let run = |format: &str| {
        let out = check_in(dir.path(), format, &["ok.py"]);
        assert_eq!(out.status.code(), Some(0), "{format}");
        stdout(&out)
    };
    assert_eq!(run("json-lines"), "");
    assert_eq!(run("github"), "");
    assert_eq!(parse_json(&run("gitlab")), serde_json::json!([]));
    assert_eq!(parse_junit(&run("junit")), (1, 0));
}

#[test]
fn output_format_is_accepted_in_the_config_file() {
    let dir = tempdir();
    std::fs::write(dir.path().join("model.py"), SEED).expect("write");
    std::fs::write(
        dir.path().join("oomlint.toml"),
        "output-format = \"github\"\n",
    )
    .expect("write");
    let out = run_in(dir.path(), &["check", "model.py"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("::warning file=model.py,"),
        "{}",
        stdout(&out)
    );
}

/// Findings with measured evidence (`--profile`, `--oom-log` on the samples in
/// `testdata/samples/`) and an absolute path (a `file://` URI) still give a valid SARIF log.
#[test]
fn sarif_with_evidence_validates() {
    let trace = samples().join("torch-cpu/expand_then_cast_bs2.trace.json");
    let oom_log = samples().join("torch-cpu/oom_cpu.log");
    let model = samples().join("torch-cpu/tiny_model.py");
    let dir = tempdir();
    std::fs::copy(&model, dir.path().join("tiny_model.py")).expect("copy");
    let validator = sarif_validator();
    for (flag, evidence) in [("--profile", &trace), ("--oom-log", &oom_log)] {
        let evidence = evidence.to_string_lossy().into_owned();
        let text = stdout(&check_in(
            dir.path(),
            "sarif",
            &[flag, &evidence, "tiny_model.py"],
        ));
        assert_valid_sarif(&validator, &text);
        let log = parse_json(&text);
        let results = log["runs"][0]["results"].as_array().expect("results");
        assert!(
            results
                .iter()
                .any(|r| r["properties"]["evidence"]["bytes"].as_u64().is_some()),
            "{flag}: a result carries its measured bytes"
        );
    }
    let absolute = dir
        .path()
        .join("tiny_model.py")
        .to_string_lossy()
        .into_owned();
    let text = stdout(&check_in(dir.path(), "sarif", &[&absolute]));
    assert_valid_sarif(&validator, &text);
    assert!(text.contains("\"uri\": \"file:///"), "{text}");
}
