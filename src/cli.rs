//! The command line: `oomlint check` (also plain `oomlint [PATH...]`), `oomlint rule`,
//! `oomlint profile` and `oomlint server`.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::app::{self, App, EvidenceOptions, FixTarget, Fixed};
use crate::config::{OutputFormat, Overrides, Resolver};
use crate::evidence;
use crate::report::{self, ReportOptions};
use crate::rules::{RULES, rule_by_code};

/// Exit codes (DESIGN.md section 1).
pub const EXIT_CLEAN: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

#[derive(Parser)]
#[command(
    name = "oomlint",
    version,
    about = "Finds PyTorch code that enlarges a tensor for free and then converts it, materializing a huge temporary."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lint files and folders (the default command).
    Check(CheckArgs),
    /// Print a rule's documentation.
    Rule(RuleArgs),
    /// The memory report of profiles, snapshots, Ascend folders or OOM logs.
    Profile(ProfileArgs),
    /// Run the language server over stdin/stdout (for editors).
    Server,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ProfileFormat {
    Text,
    Json,
    Html,
}

#[derive(Args)]
struct ProfileArgs {
    /// Evidence files or folders; `PATH@NAME=VALUE` labels a profile with a dimension value
    /// (`bs2.trace.json@batch_size=2`).
    #[arg(required = true, value_name = "EVIDENCE")]
    evidence: Vec<String>,
    /// The source tree: show the static findings at the hot lines.
    #[arg(long, value_name = "DIR")]
    source: Vec<PathBuf>,
    /// Number of hot allocations to show.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: ProfileFormat,
    /// Predict the peak at this dimension value from several profiles: --predict batch_size=3.
    #[arg(long, value_name = "NAME=VALUE")]
    predict: Option<String>,
    /// Device capacity for the prediction (e.g. 61GiB): names the first site exceeding it.
    #[arg(long, value_name = "SIZE")]
    capacity: Option<String>,
    /// Write the output to this file instead of stdout.
    #[arg(short = 'o', long)]
    output_file: Option<PathBuf>,
    /// Use this config file (for `path-map`).
    #[arg(long)]
    config: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Args)]
struct CheckArgs {
    /// Files or folders to lint [default: .]
    paths: Vec<PathBuf>,
    /// Rules to enable, replacing the configured set (codes or prefixes, comma separated).
    #[arg(long, value_delimiter = ',')]
    select: Option<Vec<String>>,
    /// Rules to disable.
    #[arg(long, value_delimiter = ',')]
    ignore: Vec<String>,
    /// Rules to enable on top of the configured set.
    #[arg(long, value_delimiter = ',')]
    extend_select: Vec<String>,
    /// Output format.
    #[arg(long, value_enum)]
    output_format: Option<OutputFormat>,
    /// Write the output to this file instead of stdout.
    #[arg(short = 'o', long)]
    output_file: Option<PathBuf>,
    /// Exit with 0 even when findings remain.
    #[arg(long)]
    exit_zero: bool,
    /// Print the number of findings per rule instead of the findings.
    #[arg(long)]
    statistics: bool,
    /// Use this config file for every file (ignores other config files).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Ignore all config files.
    #[arg(long)]
    isolated: bool,
    /// Apply excludes to paths given on the command line too (for pre-commit).
    #[arg(long)]
    force_exclude: bool,
    /// Read the source from stdin, linted as if it were this file.
    #[arg(long)]
    stdin_filename: Option<PathBuf>,
    /// Bind a symbolic size so messages show bytes: --dim batch_size=3 (repeatable).
    #[arg(long = "dim", value_name = "NAME=VALUE")]
    dims: Vec<String>,
    /// Number of worker threads [default: one per core].
    #[arg(long)]
    threads: Option<usize>,
    /// When to color the output.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
    /// Apply safe fixes (and unsafe ones with --unsafe-fixes), then report what remains.
    #[arg(long)]
    fix: bool,
    /// Also apply unsafe fixes (same values, but strides or device placement may change).
    #[arg(long, overrides_with = "no_unsafe_fixes")]
    unsafe_fixes: bool,
    /// Do not apply unsafe fixes even if the config enables them.
    #[arg(long, overrides_with = "unsafe_fixes")]
    no_unsafe_fixes: bool,
    /// Print the fixes as a unified diff and change nothing (exit 1 if there is a diff).
    #[arg(long, conflicts_with = "fix_only")]
    diff: bool,
    /// Apply fixes without reporting the remaining findings.
    #[arg(long)]
    fix_only: bool,
    /// With --fix / --fix-only: exit 1 when any fix was applied.
    #[arg(long)]
    exit_non_zero_on_fix: bool,
    /// Attach profile evidence: a torch.profiler trace, a CUDA memory snapshot, an Ascend
    /// profiler folder or an OOM log (repeatable; default: `profiles` in the configuration).
    #[arg(long = "profile", value_name = "FILE_OR_DIR")]
    profiles: Vec<PathBuf>,
    /// Attach an out-of-memory log (repeatable).
    #[arg(long = "oom-log", value_name = "FILE")]
    oom_logs: Vec<PathBuf>,
    /// Hide measured findings below this size (e.g. 512MiB); also the OOM202 threshold
    /// [default: `min-bytes` in the configuration, else 1GiB for OOM202 only].
    #[arg(long, value_name = "SIZE")]
    min_bytes: Option<String>,
    /// Skip source files bigger than this (e.g. 50MiB, 1KiB), with an OOM002 notice.
    #[arg(long, value_name = "SIZE", default_value = "50MiB")]
    max_file_size: String,
}

#[derive(Args)]
struct RuleArgs {
    /// The rule code (OOM101) or name (cast-after-expand).
    code: Option<String>,
    /// Print every rule's documentation.
    #[arg(long, conflicts_with = "code")]
    all: bool,
    /// Print the rule table as Markdown (the README's table is this output).
    #[arg(long, conflicts_with_all = ["code", "all"])]
    markdown: bool,
}

/// Inserts `check` when no subcommand is given, so `oomlint src/` works like ruff.
fn normalize_args(mut args: Vec<OsString>) -> Vec<OsString> {
    const COMMANDS: &[&str] = &[
        "check",
        "rule",
        "profile",
        "server",
        "help",
        "-h",
        "--help",
        "-V",
        "--version",
    ];
    let needs_check = match args.get(1).and_then(|a| a.to_str()) {
        None => true,
        Some(first) => !COMMANDS.contains(&first),
    };
    if needs_check {
        args.insert(1.min(args.len()), OsString::from("check"));
    }
    args
}

/// Runs the command line and returns the exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    // A bug must not look like a crash of the user's code: one line, then the run goes on for
    // the other files (each file is linted under `catch_unwind`).
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let place = info
            .location()
            .map(|l| format!(" ({}:{})", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("oomlint: internal error{place}: {message}; please report it");
    }));
    let cli = match Cli::try_parse_from(normalize_args(args)) {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() {
                EXIT_ERROR
            } else {
                EXIT_CLEAN
            };
            let _ = err.print();
            return code;
        }
    };
    match cli.command {
        Command::Check(args) => check(args),
        Command::Rule(args) => rule(args),
        Command::Profile(args) => profile(args),
        Command::Server => crate::server::run(),
    }
}

fn fail(message: &str) -> i32 {
    eprintln!("oomlint: error: {message}");
    EXIT_ERROR
}

fn parse_dim(text: &str) -> Result<(String, i64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("--dim `{text}`: expected NAME=VALUE, e.g. --dim batch_size=3"))?;
    let value: i64 = value
        .trim()
        .replace('_', "")
        .parse()
        .map_err(|_| format!("--dim `{text}`: the value must be a whole number"))?;
    if name.trim().is_empty() || value <= 0 {
        return Err(format!(
            "--dim `{text}`: expected a name and a positive size"
        ));
    }
    Ok((name.trim().to_string(), value))
}

fn check(args: CheckArgs) -> i32 {
    match crate::config::parse_byte_size(&args.max_file_size) {
        Ok(n) => crate::source::set_max_file_size(n),
        Err(e) => return fail(&format!("--max-file-size: {e}")),
    }
    let mut dims = Vec::new();
    for d in &args.dims {
        match parse_dim(d) {
            Ok(pair) => dims.push(pair),
            Err(e) => return fail(&e),
        }
    }
    for selector in args
        .select
        .iter()
        .flatten()
        .chain(&args.ignore)
        .chain(&args.extend_select)
    {
        if let Err(e) = crate::config::check_selector(selector) {
            return fail(&e);
        }
    }
    let overrides = Overrides {
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        extend_select: args.extend_select.clone(),
        dims,
        output_format: args.output_format,
    };
    let resolver = match Resolver::new(args.config.as_deref(), args.isolated, overrides) {
        Ok(r) => Arc::new(r),
        Err(e) => return fail(&e.to_string()),
    };
    let app = App::new(resolver, args.threads);

    let (mut linted, stdin_text) = match &args.stdin_filename {
        Some(name) => {
            let mut bytes = Vec::new();
            if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
                return fail(&format!("cannot read stdin: {e}"));
            }
            app.lint_bytes(bytes, name)
        }
        None => {
            let paths = if args.paths.is_empty() {
                vec![PathBuf::from(".")]
            } else {
                args.paths.clone()
            };
            match app.lint_paths(&paths, args.force_exclude) {
                Ok(linted) => (linted, None),
                Err(e) => return fail(&e.to_string()),
            }
        }
    };
    let mut fixed = 0usize;
    if args.fix || args.fix_only || args.diff {
        let unsafe_fixes = if args.unsafe_fixes {
            Some(true)
        } else if args.no_unsafe_fixes {
            Some(false)
        } else {
            None
        };
        // stdin: the fixed text (or its diff) goes to stdout, whatever was fixed.
        let stdin = args.stdin_filename.as_ref().zip(stdin_text);
        let targets = match stdin {
            Some((name, text)) => vec![(
                None,
                FixTarget {
                    path: name.clone(),
                    display: Arc::from(name.to_string_lossy().as_ref()),
                    settings: app.settings_for(name),
                    original: text.clone().into_bytes(),
                    text,
                    write: false,
                },
            )],
            None if args.stdin_filename.is_some() => Vec::new(),
            None => app
                .fix_targets(&linted, !args.diff)
                .into_iter()
                .map(|(i, t)| (Some(i), t))
                .collect(),
        };
        let summaries = linted.result.summaries.clone();
        let mut out = std::io::stdout().lock();
        let mut diff_count = 0usize;
        for (index, target) in targets {
            let Fixed { outcome, written } = app.fix(&target, &summaries, unsafe_fixes);
            for note in &outcome.notes {
                eprintln!("oomlint: {}: {note}", target.display);
            }
            let Some(index) = index else {
                let printed = if args.diff {
                    unified_diff(&target.display, &target.text, &outcome.text)
                } else {
                    outcome.text.clone()
                };
                let _ = out.write_all(printed.as_bytes());
                return if args.diff {
                    if outcome.applied > 0 {
                        EXIT_FINDINGS
                    } else {
                        EXIT_CLEAN
                    }
                } else if (args.exit_non_zero_on_fix && outcome.applied > 0)
                    || (!outcome.report.diagnostics.is_empty() && !args.exit_zero && !args.fix_only)
                {
                    EXIT_FINDINGS
                } else {
                    EXIT_CLEAN
                };
            };
            if outcome.applied == 0 {
                continue;
            }
            if args.diff {
                diff_count += outcome.applied;
                let diff = unified_diff(&target.display, &target.text, &outcome.text);
                let _ = out.write_all(diff.as_bytes());
                continue;
            }
            match written {
                Some(Ok(())) => {
                    fixed += outcome.applied;
                    App::replace_report(&mut linted, index, outcome.report);
                }
                Some(Err(e)) => eprintln!("oomlint: error: {}: {e}", target.display),
                None => {}
            }
        }
        if args.diff {
            let _ = out.flush();
            eprintln!(
                "{}",
                match diff_count {
                    0 => "No fixes available.".to_string(),
                    1 => "Would fix 1 error.".to_string(),
                    n => format!("Would fix {n} errors."),
                }
            );
            return if diff_count > 0 {
                EXIT_FINDINGS
            } else {
                EXIT_CLEAN
            };
        }
        if args.fix_only {
            let _ = out.flush();
            eprintln!("Fixed {fixed} error{}.", if fixed == 1 { "" } else { "s" });
            return if args.exit_non_zero_on_fix && fixed > 0 {
                EXIT_FINDINGS
            } else {
                EXIT_CLEAN
            };
        }
    }
    if let Some(e) = app.resolver().take_errors().first() {
        return fail(&e.to_string());
    }
    App::resolve_labels(&mut linted);

    // Evidence: bad files are reported and skipped; none readable at all is an error (exit 2).
    let here = app.settings_for(Path::new("."));
    let min_bytes = match &args.min_bytes {
        Some(text) => match crate::config::parse_byte_size(text) {
            Ok(n) => Some(n),
            Err(e) => return fail(&format!("--min-bytes: {e}")),
        },
        None => here.min_bytes,
    };
    let profiles = if args.profiles.is_empty() && args.oom_logs.is_empty() {
        here.profiles.clone()
    } else {
        args.profiles.clone()
    };
    let mut evidence_failed = false;
    if !profiles.is_empty() || !args.oom_logs.is_empty() {
        let mut loaded = Vec::new();
        let attempts = profiles.len() + args.oom_logs.len();
        for outcome in app::load_evidence(&profiles, &args.oom_logs) {
            match outcome {
                Ok(ev) => {
                    print_evidence_notes(&ev);
                    loaded.push(ev);
                }
                Err(e) => {
                    eprintln!("oomlint: error: {e}");
                    evidence_failed = true;
                }
            }
        }
        if loaded.is_empty() && attempts > 0 {
            return fail(&format!(
                "no evidence could be read ({attempts} given; see above)"
            ));
        }
        let options = EvidenceOptions {
            min_bytes,
            here: &here,
            outside: true,
        };
        app.attach_evidence(&mut linted, &loaded, &options);
    }
    let result = linted.result;

    let format = args
        .output_format
        .or(here.output_format)
        .unwrap_or(OutputFormat::Full);
    let to_terminal = args.output_file.is_none() && std::io::stdout().is_terminal();
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => to_terminal && std::env::var_os("NO_COLOR").is_none(),
    };
    let options = ReportOptions {
        format,
        color,
        statistics: args.statistics,
    };
    let mut rendered = Vec::new();
    if let Err(e) = report::write_report(&mut rendered, &result, &options) {
        return fail(&format!("cannot render the report: {e}"));
    }
    let written = match &args.output_file {
        Some(path) => std::fs::write(path, &rendered)
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(&rendered).and_then(|_| stdout.flush()) {
                Ok(()) => Ok(()),
                // A closed pipe (`oomlint | head`) is not an error worth reporting.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(format!("cannot write output: {e}")),
            }
        }
    };
    if let Err(e) = written {
        return fail(&e);
    }
    if fixed > 0 {
        eprintln!("Fixed {fixed} error{}.", if fixed == 1 { "" } else { "s" });
    }
    if ((report::count(&result) > 0 || evidence_failed) && !args.exit_zero)
        || (args.exit_non_zero_on_fix && fixed > 0)
    {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}

/// A unified diff of one file, `--- a/PATH` / `+++ b/PATH`.
fn unified_diff(display: &str, old: &str, new: &str) -> String {
    // Patience anchors on unique lines (defs, classes), so a file with tens of thousands of fixes
    // diffs in well under a second, where plain Myers is O(lines x changes); the output is
    // deterministic either way (no timeout).
    similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .diff_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{display}"), &format!("b/{display}"))
        .to_string()
}

fn rule(args: RuleArgs) -> i32 {
    let mut out = std::io::stdout().lock();
    if args.markdown {
        let _ = write!(out, "{}", crate::rules::markdown_table());
        return EXIT_CLEAN;
    }
    if args.all {
        for (i, rule) in RULES.iter().enumerate() {
            if i > 0 {
                let _ = writeln!(out, "\n---\n");
            }
            let _ = write!(out, "{}", rule.doc);
        }
        return EXIT_CLEAN;
    }
    let Some(code) = args.code else {
        for rule in RULES {
            let _ = writeln!(out, "{}\t{}\t{}", rule.code, rule.name, rule.summary());
        }
        return EXIT_CLEAN;
    };
    match rule_by_code(&code) {
        Some(rule) => {
            let _ = write!(out, "{}", rule.doc);
            EXIT_CLEAN
        }
        None => fail(&format!("unknown rule `{code}`; `oomlint rule` lists them")),
    }
}

fn profile(args: ProfileArgs) -> i32 {
    let predict = match &args.predict {
        Some(text) => {
            let Some((name, value)) = text.split_once('=') else {
                return fail(&format!(
                    "--predict `{text}`: expected NAME=VALUE, e.g. --predict batch_size=3"
                ));
            };
            match value.trim().parse::<f64>() {
                Ok(v) if v.is_finite() && !name.trim().is_empty() => {
                    Some((name.trim().to_string(), v))
                }
                _ => {
                    return fail(&format!("--predict `{text}`: expected a name and a number"));
                }
            }
        }
        None => None,
    };
    let capacity = match &args.capacity {
        Some(text) => match crate::config::parse_byte_size(text) {
            Ok(n) => Some(n),
            Err(e) => return fail(&format!("--capacity: {e}")),
        },
        None => None,
    };
    let mut loaded = Vec::new();
    let mut failed = false;
    for arg in &args.evidence {
        let (path, label) = evidence::report::parse_labelled_path(arg);
        match evidence::load(&path) {
            Ok(ev) => {
                print_evidence_notes(&ev);
                loaded.push((ev, label));
            }
            Err(e) => {
                eprintln!("oomlint: error: {e}");
                failed = true;
            }
        }
    }
    if loaded.is_empty() {
        return fail("no evidence could be read (see above)");
    }
    let resolver = match Resolver::new(args.config.as_deref(), false, Overrides::default()) {
        Ok(r) => Arc::new(r),
        Err(e) => return fail(&e.to_string()),
    };
    let app = App::new(resolver, None);
    let here = app.settings_for(Path::new("."));
    let mut linted = None;
    if !args.source.is_empty() {
        match app.lint_paths(&args.source, false) {
            Ok(mut l) => {
                App::resolve_labels(&mut l);
                linted = Some(l);
            }
            Err(e) => return fail(&e.to_string()),
        }
    }
    let tree = linted.as_ref().map(|l| crate::profile::SourceTree {
        result: &l.result,
        files: &l.files,
        path_map: &here.path_map,
    });
    let request = crate::profile::ProfileRequest {
        top: args.top,
        predict,
        capacity,
    };
    let output = crate::profile::build(&loaded, &request, tree.as_ref());
    let mut rendered = Vec::new();
    let written = match args.format {
        ProfileFormat::Text => report::profile::write_text(&mut rendered, &output),
        ProfileFormat::Json => report::profile::write_json(&mut rendered, &output),
        ProfileFormat::Html => report::profile::write_html(&mut rendered, &output),
    };
    if let Err(e) = written {
        return fail(&format!("cannot render the report: {e}"));
    }
    let sent = match &args.output_file {
        Some(path) => std::fs::write(path, &rendered)
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(&rendered).and_then(|_| stdout.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(format!("cannot write output: {e}")),
            }
        }
    };
    if let Err(e) = sent {
        return fail(&e);
    }
    if failed { EXIT_FINDINGS } else { EXIT_CLEAN }
}

/// What a reader left out or merged (caps on huge or hostile input), one line each on stderr.
fn print_evidence_notes(ev: &evidence::Evidence) {
    for note in &ev.notes {
        eprintln!("oomlint: note: {}: {note}", ev.path.display());
    }
}
