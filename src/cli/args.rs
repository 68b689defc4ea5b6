//! The command line's arguments: the clap structs, and the value parsers that turn `--dim`,
//! `--predict`, sizes and `PATH@NAME=VALUE` into values (their errors keep the wording the
//! commands used to print; `cli::run` prints an [`ArgError`] as one line).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::{OutputFormat, parse_byte_size};

#[derive(Parser)]
#[command(
    name = "oomlint",
    version,
    about = "Finds PyTorch code that enlarges a tensor for free and then converts it, materializing a huge temporary."
)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Command,
}

#[derive(Subcommand)]
pub(super) enum Command {
    /// Lint files and folders (the default command).
    Check(CheckArgs),
    /// Print a rule's documentation.
    Rule(RuleArgs),
    /// The memory report of profiles, snapshots, Ascend folders or OOM logs.
    Profile(ProfileArgs),
    /// Print the sizes profiles measured at the static findings as a `[tool.oomlint.dims]` block.
    Dims(DimsArgs),
    /// Run the language server over stdin/stdout (for editors).
    Server,
    /// List every enlargement with its fate: the finding it became, or why none was reported.
    Sites(SitesArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum SitesFormat {
    Text,
    Tsv,
    Json,
}

#[derive(Args)]
pub(super) struct SitesArgs {
    /// Files or folders to list [default: .]
    pub(super) paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub(super) format: SitesFormat,
    /// Write the output to this file instead of stdout.
    #[arg(short = 'o', long)]
    pub(super) output_file: Option<PathBuf>,
    /// Use this config file for every file (ignores other config files).
    #[arg(long)]
    pub(super) config: Option<PathBuf>,
    /// Ignore all config files.
    #[arg(long)]
    pub(super) isolated: bool,
    /// Apply excludes to paths given on the command line too.
    #[arg(long)]
    pub(super) force_exclude: bool,
    /// Bind a symbolic size, as for `check`: --dim batch_size=3 (repeatable).
    #[arg(long = "dim", value_name = "NAME=VALUE", value_parser = dim)]
    pub(super) dims: Vec<(String, i64)>,
    /// The size below which a site counts as tiny, as for `check` [default: 16MiB].
    #[arg(long, value_name = "SIZE", value_parser = min_static_bytes)]
    pub(super) min_static_bytes: Option<u64>,
    /// Rules to enable, replacing the configured set (as for `check`).
    #[arg(long, value_delimiter = ',')]
    pub(super) select: Option<Vec<String>>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum ProfileFormat {
    Text,
    Json,
    Html,
}

#[derive(Args)]
pub(super) struct ProfileArgs {
    /// Evidence files or folders; `PATH@NAME=VALUE` labels a profile with a dimension value
    /// (`bs2.trace.json@batch_size=2`).
    #[arg(required = true, value_name = "EVIDENCE", value_parser = labelled_path)]
    pub(super) evidence: Vec<LabelledPath>,
    /// The source tree: show the static findings at the hot lines.
    #[arg(long, value_name = "DIR")]
    pub(super) source: Vec<PathBuf>,
    /// Number of hot allocations to show.
    #[arg(long, default_value_t = 10)]
    pub(super) top: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub(super) format: ProfileFormat,
    /// Predict the peak at this dimension value from several profiles: --predict batch_size=3.
    #[arg(long, value_name = "NAME=VALUE", value_parser = predict)]
    pub(super) predict: Option<(String, f64)>,
    /// Device capacity (e.g. 61GiB): names the first site exceeding it in a prediction, and the
    /// exit code is 1 when a measured or predicted peak exceeds it.
    #[arg(long, value_name = "SIZE", value_parser = capacity)]
    pub(super) capacity: Option<u64>,
    /// Write the output to this file instead of stdout.
    #[arg(short = 'o', long)]
    pub(super) output_file: Option<PathBuf>,
    /// Use this config file (for `path-map`).
    #[arg(long)]
    pub(super) config: Option<PathBuf>,
}

#[derive(Args)]
pub(super) struct DimsArgs {
    /// Profiles (traces, CUDA snapshots, Ascend folders) to learn the sizes from.
    #[arg(long, required = true, num_args = 1.., value_name = "PROFILE")]
    pub(super) from: Vec<PathBuf>,
    /// The source the profiles ran [default: .]
    #[arg(long, value_name = "DIR")]
    pub(super) source: Vec<PathBuf>,
    /// Write the block to this file instead of stdout.
    #[arg(short = 'o', long)]
    pub(super) output_file: Option<PathBuf>,
    /// Use this config file for every file (ignores other config files).
    #[arg(long)]
    pub(super) config: Option<PathBuf>,
    /// Ignore all config files.
    #[arg(long)]
    pub(super) isolated: bool,
    /// Neither read nor write the summary cache (`.oomlint_cache/`).
    #[arg(long, env = "OOMLINT_NO_CACHE", value_parser = clap::builder::FalseyValueParser::new())]
    pub(super) no_cache: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Args)]
pub(super) struct CheckArgs {
    /// Files or folders to lint [default: .]
    pub(super) paths: Vec<PathBuf>,
    /// Rules to enable, replacing the configured set (codes or prefixes, comma separated).
    #[arg(long, value_delimiter = ',')]
    pub(super) select: Option<Vec<String>>,
    /// Rules to disable.
    #[arg(long, value_delimiter = ',')]
    pub(super) ignore: Vec<String>,
    /// Rules to enable on top of the configured set.
    #[arg(long, value_delimiter = ',')]
    pub(super) extend_select: Vec<String>,
    /// Output format.
    #[arg(long, value_enum)]
    pub(super) output_format: Option<OutputFormat>,
    /// Write the output to this file instead of stdout.
    #[arg(short = 'o', long)]
    pub(super) output_file: Option<PathBuf>,
    /// Exit with 0 even when errors remain.
    #[arg(long)]
    pub(super) exit_zero: bool,
    /// Fail (exit 1) when more than N warnings remain, as ESLint's --max-warnings; errors
    /// always fail.
    #[arg(long, value_name = "N")]
    pub(super) max_warnings: Option<usize>,
    /// Print the number of findings per rule and level instead of the findings.
    #[arg(long)]
    pub(super) statistics: bool,
    /// Use this config file for every file (ignores other config files).
    #[arg(long)]
    pub(super) config: Option<PathBuf>,
    /// Ignore all config files.
    #[arg(long)]
    pub(super) isolated: bool,
    /// Apply excludes to paths given on the command line too (for pre-commit).
    #[arg(long)]
    pub(super) force_exclude: bool,
    /// Neither read nor write the summary cache (`.oomlint_cache/`).
    #[arg(long, env = "OOMLINT_NO_CACHE", value_parser = clap::builder::FalseyValueParser::new())]
    pub(super) no_cache: bool,
    /// Read the source from stdin, linted as if it were this file.
    #[arg(long)]
    pub(super) stdin_filename: Option<PathBuf>,
    /// Bind a symbolic size so messages show bytes: --dim batch_size=3 (repeatable).
    #[arg(long = "dim", value_name = "NAME=VALUE", value_parser = dim)]
    pub(super) dims: Vec<(String, i64)>,
    /// Number of worker threads [default: one per core].
    #[arg(long)]
    pub(super) threads: Option<usize>,
    /// When to color the output.
    #[arg(long, value_enum, default_value = "auto")]
    pub(super) color: ColorChoice,
    /// Apply safe fixes (and unsafe ones with --unsafe-fixes), then report what remains.
    #[arg(long)]
    pub(super) fix: bool,
    /// Also apply unsafe fixes (same values, but strides or device placement may change).
    #[arg(long, overrides_with = "no_unsafe_fixes")]
    pub(super) unsafe_fixes: bool,
    /// Do not apply unsafe fixes even if the config enables them.
    #[arg(long, overrides_with = "unsafe_fixes")]
    pub(super) no_unsafe_fixes: bool,
    /// Print the fixes as a unified diff and change nothing (exit 1 if there is a diff).
    #[arg(long, conflicts_with = "fix_only")]
    pub(super) diff: bool,
    /// Apply fixes without reporting the remaining findings.
    #[arg(long)]
    pub(super) fix_only: bool,
    /// With --fix / --fix-only: exit 1 when any fix was applied.
    #[arg(long)]
    pub(super) exit_non_zero_on_fix: bool,
    /// Attach profile evidence: a torch.profiler trace, a CUDA memory snapshot, an Ascend
    /// profiler folder or an OOM log (repeatable; default: `profiles` in the configuration).
    #[arg(long = "profile", value_name = "FILE_OR_DIR")]
    pub(super) profiles: Vec<PathBuf>,
    /// Attach an out-of-memory log (repeatable).
    #[arg(long = "oom-log", value_name = "FILE")]
    pub(super) oom_logs: Vec<PathBuf>,
    /// Hide measured findings below this size (e.g. 512MiB); also the OOM202 threshold
    /// [default: `min-bytes` in the configuration, else 1GiB for OOM202 only].
    #[arg(long, value_name = "SIZE", value_parser = min_bytes)]
    pub(super) min_bytes: Option<u64>,
    /// Leave out static findings whose estimated size is below this (0 shows every finding)
    /// [default: `min-static-bytes` in the configuration, else 16MiB].
    #[arg(long, value_name = "SIZE", value_parser = min_static_bytes)]
    pub(super) min_static_bytes: Option<u64>,
    /// The device's memory (e.g. 80GiB, "1.5 GB", bytes): a finding whose allocation at the bound
    /// sizes is more (less the static memory a profile measured) says so and is an error
    /// [default: `capacity` in the configuration].
    #[arg(long, value_name = "SIZE", value_parser = capacity)]
    pub(super) capacity: Option<u64>,
    /// Skip source files bigger than this (e.g. 50MiB, 1KiB), with an OOM002 notice.
    #[arg(long, value_name = "SIZE", default_value = "50MiB", value_parser = max_file_size)]
    pub(super) max_file_size: u64,
}

#[derive(Args)]
pub(super) struct RuleArgs {
    /// The rule code (OOM101) or name (cast-after-expand).
    pub(super) code: Option<String>,
    /// Print every rule's documentation.
    #[arg(long, conflicts_with = "code")]
    pub(super) all: bool,
    /// Print the rule table as Markdown (the README's table is this output).
    #[arg(long, conflicts_with_all = ["code", "all"])]
    pub(super) markdown: bool,
}

/// A bad argument value, already worded in full (`--dim `x`: ...`).
#[derive(Debug)]
pub(super) struct ArgError(pub(super) String);

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

/// `--dim NAME=VALUE`: a positive whole number (`_` separators allowed).
fn dim(text: &str) -> Result<(String, i64), ArgError> {
    let (name, value) = text.split_once('=').ok_or_else(|| {
        ArgError(format!(
            "--dim `{text}`: expected NAME=VALUE, e.g. --dim batch_size=3"
        ))
    })?;
    let value: i64 = value
        .trim()
        .replace('_', "")
        .parse()
        .map_err(|_| ArgError(format!("--dim `{text}`: the value must be a whole number")))?;
    if name.trim().is_empty() || value <= 0 {
        return Err(ArgError(format!(
            "--dim `{text}`: expected a name and a positive size"
        )));
    }
    Ok((name.trim().to_string(), value))
}

/// `--predict NAME=VALUE`: a finite number.
fn predict(text: &str) -> Result<(String, f64), ArgError> {
    let (name, value) = text.split_once('=').ok_or_else(|| {
        ArgError(format!(
            "--predict `{text}`: expected NAME=VALUE, e.g. --predict batch_size=3"
        ))
    })?;
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && !name.trim().is_empty() => Ok((name.trim().to_string(), v)),
        _ => Err(ArgError(format!(
            "--predict `{text}`: expected a name and a number"
        ))),
    }
}

fn size(flag: &str, text: &str) -> Result<u64, ArgError> {
    parse_byte_size(text).map_err(|e| ArgError(format!("{flag}: {e}")))
}

fn capacity(text: &str) -> Result<u64, ArgError> {
    size("--capacity", text)
}

fn min_bytes(text: &str) -> Result<u64, ArgError> {
    size("--min-bytes", text)
}

fn min_static_bytes(text: &str) -> Result<u64, ArgError> {
    size("--min-static-bytes", text)
}

fn max_file_size(text: &str) -> Result<u64, ArgError> {
    size("--max-file-size", text)
}

/// An evidence path, labelled with a dimension value by `PATH@NAME=VALUE`.
pub(super) type LabelledPath = (PathBuf, Option<(String, f64)>);

/// `PATH@NAME=VALUE` -> the path and its label; anything else is a plain path.
fn labelled_path(arg: &str) -> Result<LabelledPath, ArgError> {
    if let Some((path, label)) = arg.rsplit_once('@')
        && let Some((name, value)) = label.split_once('=')
        && let Ok(v) = value.trim().parse::<f64>()
        && !name.trim().is_empty()
    {
        return Ok((PathBuf::from(path), Some((name.trim().to_string(), v))));
    }
    Ok((PathBuf::from(arg), None))
}
