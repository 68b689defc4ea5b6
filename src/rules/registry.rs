//! What the registry knows of a rule: its identity, its kind, whether the default selection
//! holds it, how it is checked and how it is fixed. `RULES` (in `rules/mod.rs`) is the one list;
//! configuration, the CLI, the emitters, the server and the tests all read it.

use crate::analysis::Site;
use crate::diagnostic::{Fix, Measured};

use super::{Finding, ProfileFinding, RuleContext};

/// Where a rule's findings come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// About a file as a whole (it does not parse, it cannot be read); the driver reports it.
    File,
    /// From the static analysis of the source.
    Static,
    /// From profiler evidence (`--profile`, `--oom-log`) at a line with no static finding.
    Profile,
}

/// How a rule finds its findings.
#[derive(Clone, Copy)]
pub enum Check {
    /// The driver reports it (`RuleKind::File`).
    Driver,
    /// Looks at one analysis site.
    Site(fn(&Site, &RuleContext) -> Option<Finding>),
    /// Looks at the evidence measured at one line.
    Evidence(fn(&Measured, &EvidenceContext) -> Option<ProfileFinding>),
}

/// What evidence rules may consult besides the measurement.
pub struct EvidenceContext {
    /// `min-bytes`: the smallest allocation worth a finding of its own.
    pub min_bytes: u64,
}

/// Builds a rule's fix for a site from the source text, with its applicability.
pub type FixBuilder = fn(&Site, &str) -> Option<Fix>;

/// A rule's identity, documentation and behaviour.
pub struct RuleInfo {
    pub code: &'static str,
    pub name: &'static str,
    pub kind: RuleKind,
    /// In the selection when `select` is not configured (`ALL` adds the others).
    pub default: bool,
    /// The rule's document in `lints/`.
    pub doc: &'static str,
    pub check: Check,
    pub fix: Option<FixBuilder>,
}

impl std::fmt::Debug for RuleInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleInfo")
            .field("code", &self.code)
            .field("name", &self.name)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl PartialEq for RuleInfo {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
    }
}

impl Eq for RuleInfo {}

/// Where the project lives (`repository` in Cargo.toml, the one place it is written); docs links
/// in JSON, SARIF and the editor start here, and a test checks the docs name the same address.
pub const PROJECT_URL: &str = env!("CARGO_PKG_REPOSITORY");

impl RuleInfo {
    /// The address of the rule's document.
    pub fn url(&self) -> String {
        format!("{PROJECT_URL}/blob/main/lints/{}.md", self.code)
    }

    /// The one-sentence summary: the first paragraph after the title.
    pub fn summary(&self) -> String {
        self.doc
            .lines()
            .skip_while(|l| l.starts_with('#') || l.trim().is_empty())
            .take_while(|l| !l.trim().is_empty())
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The text of the section `## {title}` of the doc, its paragraphs joined into single lines
    /// (code blocks and list items keep their lines).
    pub fn section(&self, title: &str) -> Option<String> {
        let heading = format!("## {title}");
        let mut lines = self.doc.lines().skip_while(|l| l.trim_end() != heading);
        lines.next()?;
        let mut out = String::new();
        let mut in_code = false;
        let mut prev_blank = true;
        for line in lines.take_while(|l| !l.starts_with("## ")) {
            let trimmed = line.trim_end();
            if trimmed.starts_with("```") {
                in_code = !in_code;
            }
            if trimmed.is_empty() && !in_code {
                if !prev_blank {
                    out.push_str("\n\n");
                }
                prev_blank = true;
                continue;
            }
            let joins = !prev_blank
                && !in_code
                && !trimmed.starts_with("```")
                && !trimmed.trim_start().starts_with("- ")
                && !out.ends_with("```");
            if joins {
                out.push(' ');
                out.push_str(trimmed.trim_start());
            } else {
                if !prev_blank {
                    out.push('\n');
                }
                out.push_str(trimmed);
            }
            prev_blank = false;
        }
        let text = out.trim().to_string();
        (!text.is_empty()).then_some(text)
    }
}
