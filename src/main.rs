//! The `vellum` command line: `build`, `check`, `serve`, `enrich` and `init`. Exit status 0 on
//! success, 1 on input errors (all printed, sorted by file and line), 2 on
//! usage errors.

use clap::{Args, Parser, Subcommand};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vellum::build::{build, BuildOptions, BuildReport};
use vellum::diagnostics::{counted, Severity};
use vellum::output::{DiskSink, NullSink, Sink};

/// mimalloc: the build allocates millions of small strings from two
/// threads, where it is markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (milliseconds before freed memory
/// is returned to the system; -1: never), which `libmimalloc-sys` does not
/// name: its place in `mi_option_e` (mimalloc.h, v2 and v3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Asks Linux to back this process with 4 KiB pages only; returns
/// whether it agreed (kernels since 3.15). mimalloc asks for huge pages
/// (`MADV_HUGEPAGE`), and memory it took again was faulted in as whole
/// 2 MiB pages, zeroed: CPU time spent mostly while the listings were
/// parsed (measured in 1b7254f). mimalloc's own `allow_thp = 0` does the same
/// at its start, from the environment; this also covers a system whose
/// huge pages are always on.
fn disable_transparent_huge_pages() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: sets one flag of this process; no pointers are passed.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0
    }
    #[cfg(not(target_os = "linux"))]
    false
}

#[derive(Parser)]
#[command(
    name = "vellum",
    version,
    about = "A static site generator for publication listings"
)]
struct Cli {
    /// The site root, holding site.toml, seeds/, content/ and themes/
    /// (before or after the subcommand, as in Zola).
    #[arg(short, long, global = true, default_value = ".", value_parser = existing_dir)]
    root: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the site into the output directory (default `public/`).
    Build(BuildArgs),
    /// Parse and render everything without writing, check every internal
    /// link and anchor, and report every problem (the CI step).
    Check(CheckArgs),
    /// Build into memory and serve on loopback, rebuilding on change with live reload.
    Serve(ServeArgs),
    /// Match every paper to its arXiv record and keep what was found in
    /// records/arxiv.toml, which builds read.
    Enrich(EnrichArgs),
    /// Create a new site in DIR: site.toml, content, an example listing and the default theme.
    Init {
        /// The new site's directory (default: the current one); it must
        /// not exist or be empty, unless --force.
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Write into a directory that is not empty; a file already there
        /// is never overwritten.
        #[arg(short, long)]
        force: bool,
    },
    /// Print a completion script for SHELL (bash, zsh, fish, elvish,
    /// powershell): `vellum completion bash > /etc/bash_completion.d/vellum`.
    Completion {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
}

/// Options shared by `build` and `check`.
#[derive(Args)]
struct SiteArgs {
    /// Filled from the global `--root`.
    #[arg(skip)]
    root: PathBuf,
    /// Replace site.toml's base_url, e.g. https://lab.github.io/papers/.
    #[arg(short = 'u', long, value_parser = base_url)]
    base_url: Option<String>,
    /// Include content pages marked `draft = true`.
    #[arg(long)]
    drafts: bool,
    /// Print nothing but errors and warnings.
    #[arg(long, short, conflicts_with = "verbose")]
    quiet: bool,
    /// Also print per-stage timings.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Args)]
struct EnrichArgs {
    /// Filled from the global `--root`.
    #[arg(skip)]
    root: PathBuf,
    /// Read arXiv's metadata snapshot (the JSON-lines file of its OAI
    /// dump) in one streaming pass, instead of asking the arXiv API.
    #[arg(long, value_name = "FILE", conflicts_with = "arxiv_api")]
    arxiv_snapshot: Option<PathBuf>,
    /// The arXiv API's query URL (a mirror, or a test server).
    #[arg(long, value_name = "URL", default_value = vellum::enrich::arxiv_api::ENDPOINT)]
    arxiv_api: String,
    /// Seconds between two requests to the API; arXiv's terms ask for 3,
    /// the least accepted for arxiv.org.
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    request_interval: f64,
    /// Look up every paper, also those records/arxiv.toml already holds
    /// (by default only the others, so a rerun is cheap).
    #[arg(long)]
    all: bool,
}

#[derive(Args)]
struct BuildArgs {
    #[command(flatten)]
    site: SiteArgs,
    /// Where to write the site; relative paths are under the root.
    #[arg(short, long, default_value = "public")]
    output_dir: PathBuf,
    /// Render every page and count the files and bytes, but write nothing
    /// (as Hugo's `--renderToMemory`): times the work apart from the disk.
    /// The output directory is neither checked nor touched (`vellum check`
    /// also checks links).
    #[arg(long)]
    dry_run: bool,
}

#[derive(Args)]
struct ServeArgs {
    /// Filled from the global `--root`.
    #[arg(skip)]
    root: PathBuf,
    /// Address to listen on; one beyond loopback (0.0.0.0) makes the
    /// preview reachable from the network, with a warning.
    #[arg(short, long, default_value = "127.0.0.1")]
    interface: std::net::IpAddr,
    /// A host name the preview answers to besides localhost and IP
    /// addresses (a LAN name such as `laptop.local`); repeatable. Requests
    /// naming any other host are refused, so a web page cannot read the
    /// preview through DNS rebinding.
    #[arg(long = "allowed-host", value_name = "NAME", value_parser = host_name)]
    allowed_hosts: Vec<String>,
    /// Port to listen on; 0 picks a free one.
    #[arg(short, long, default_value_t = 1111)]
    port: u16,
    /// Serve under this base URL's path (e.g. https://lab.github.io/papers/ is served at /papers/).
    #[arg(short = 'u', long, value_parser = base_url)]
    base_url: Option<String>,
    /// Include content pages marked `draft = true`.
    #[arg(long)]
    drafts: bool,
    /// Open the site in the default browser.
    #[arg(short = 'O', long)]
    open: bool,
    /// Also write the site, as served, to this directory after each good
    /// build (relative paths are under the root), under the same rules as
    /// `build`: only files Vellum wrote there are replaced or removed.
    #[arg(short, long)]
    output_dir: Option<PathBuf>,
    /// Milliseconds of quiet after the last file change before rebuilding.
    #[arg(long, default_value_t = 100)]
    debounce_ms: u64,
    /// Also print per-stage timings after each build.
    #[arg(short, long)]
    verbose: bool,
}

#[derive(Args)]
struct CheckArgs {
    #[command(flatten)]
    site: SiteArgs,
    /// Treat warnings (unknown categories, disagreeing duplicates, missing
    /// listing pages, unknown profile names) as errors.
    #[arg(long)]
    strict: bool,
}

fn main() -> ExitCode {
    disable_transparent_huge_pages();
    let cli = Cli::parse();
    let root = cli.root;
    match cli.command {
        Command::Build(mut args) => {
            args.site.root = root;
            run_build(args)
        }
        Command::Check(mut args) => {
            args.site.root = root;
            run_check(args)
        }
        Command::Enrich(mut args) => {
            args.root = root;
            run_enrich(args)
        }
        Command::Completion { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "vellum", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
        Command::Serve(mut args) => {
            args.root = root;
            // Each rebuild frees and allocates again most of its memory.
            // Returned to the system after mimalloc's default second, it
            // was faulted in again by the next rebuild (measured in
            // c3990d9); kept, it is reused.
            // SAFETY: sets one documented option; no other thread exists yet.
            unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
            let output_dir = args.output_dir.map(|dir| args.root.join(dir));
            if let Some(dir) = &output_dir {
                if let Err(message) = check_output_dir(&args.root, dir) {
                    eprintln!("error: {message}");
                    return ExitCode::from(2);
                }
            }
            let options = vellum::serve::ServeOptions {
                output_dir,
                root: args.root,
                interface: args.interface,
                allowed_hosts: args.allowed_hosts,
                port: args.port,
                base_url: args.base_url,
                drafts: args.drafts,
                open: args.open,
                debounce: std::time::Duration::from_millis(args.debounce_ms),
                verbose: args.verbose,
            };
            match vellum::serve::serve(options) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Command::Init { dir, force } => match vellum::init::init(&dir, force) {
            Ok(kept) => {
                for file in &kept {
                    eprintln!("warning: {} exists; it is kept as it is", file.display());
                }
                println!(
                    "Created a new site in {0}. Build it with: vellum build --root {0}",
                    dir.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        },
    }
}

fn options(args: &SiteArgs, strict: bool) -> BuildOptions {
    let progress = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} pages {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    BuildOptions {
        root: args.root.clone(),
        base_url: args.base_url.clone(),
        drafts: args.drafts,
        strict,
        keep_going: false,
        progress,
        defer_exports: false,
        changed_paths: None,
        snapshot: false,
    }
}

/// Prints diagnostics (and timings with `--verbose`); returns the error count.
fn report_problems(report: &BuildReport, args: &SiteArgs, options: &BuildOptions) -> usize {
    if let Some(bar) = &options.progress {
        bar.finish_and_clear();
    }
    for diagnostic in &report.diagnostics {
        eprintln!("{diagnostic}");
    }
    if args.verbose {
        eprint!("{}", report.timings.report());
    }
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
}

fn run_build(args: BuildArgs) -> ExitCode {
    let output_dir = args.site.root.join(&args.output_dir);
    // A dry run neither checks nor touches the output directory.
    let checked = match args.dry_run {
        true => Ok(()),
        false => check_output_dir(&args.site.root, &output_dir),
    };
    if let Err(message) = checked {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    let options = options(&args.site, false);
    let mut null = NullSink::default();
    let mut disk;
    let sink: &mut dyn Sink = if args.dry_run {
        &mut null
    } else {
        disk = DiskSink::new(&output_dir);
        &mut disk
    };
    let report = build(&options, sink);
    let errors = report_problems(&report, &args.site, &options);
    let Some(stats) = report.written.filter(|_| errors == 0) else {
        let untouched = match args.dry_run {
            true => "nothing written (--dry-run)".to_string(),
            false => format!("{} left untouched", output_dir.display()),
        };
        eprintln!(
            "error: build failed with {}; {untouched}",
            counted(errors, "error", "errors"),
        );
        return ExitCode::from(1);
    };
    // Warnings only: the build published its site.
    for warning in &stats.kept {
        eprintln!("{warning}");
    }
    if !args.site.quiet {
        let [p, a, y, c] = report.counts;
        let site = format!(
            "{}, {}, {}, {}",
            counted(p, "paper", "papers"),
            counted(a, "author", "authors"),
            counted(y, "year", "years"),
            counted(c, "category", "categories"),
        );
        if args.dry_run {
            println!(
                "Rendered {site}: {} ({} bytes); nothing written (--dry-run)",
                counted(stats.files, "file", "files"),
                stats.bytes,
            );
        } else {
            println!(
                "Built {site}: {} ({} written, {} removed, {} bytes) in {}",
                counted(stats.files, "file", "files"),
                stats.written,
                stats.removed,
                stats.bytes,
                output_dir.display()
            );
        }
    }
    ExitCode::SUCCESS
}

fn run_check(args: CheckArgs) -> ExitCode {
    let options = options(&args.site, args.strict);
    let report = vellum::check::check(&options);
    let errors = report_problems(&report, &args.site, &options);
    if errors > 0 {
        eprintln!("error: check found {}", counted(errors, "error", "errors"));
        return ExitCode::from(1);
    }
    if !args.site.quiet {
        let warnings = report.diagnostics.len();
        let [papers, authors, _, _] = report.counts;
        println!(
            "Checked {} and {}: no errors, {}",
            counted(papers, "paper", "papers"),
            counted(authors, "author", "authors"),
            counted(warnings, "warning", "warnings")
        );
    }
    ExitCode::SUCCESS
}

fn run_enrich(args: EnrichArgs) -> ExitCode {
    use vellum::enrich::{arxiv_api, Source};
    let source = match args.arxiv_snapshot {
        Some(path) => Source::Snapshot(path),
        None => {
            let interval = args.request_interval;
            let host = args
                .arxiv_api
                .split("://")
                .nth(1)
                .and_then(|rest| rest.split(['/', ':', '?']).next())
                .unwrap_or_default();
            let arxiv = host == "arxiv.org" || host.ends_with(".arxiv.org");
            let least = arxiv_api::ARXIV_INTERVAL.as_secs_f64();
            if !interval.is_finite() || interval < 0.0 || (arxiv && interval < least) {
                eprintln!(
                    "error: --request-interval: expected at least {least} s for arXiv (its terms ask for one request every 3 s), found {interval}"
                );
                return ExitCode::from(2);
            }
            Source::Api {
                endpoint: args.arxiv_api,
                interval: std::time::Duration::from_secs_f64(interval),
            }
        }
    };
    let from_api = matches!(source, Source::Api { .. });
    let options = vellum::enrich::EnrichOptions {
        root: args.root,
        source,
        all: args.all,
    };
    let report = vellum::enrich::enrich(&options);
    for diagnostic in &report.diagnostics {
        eprintln!("{diagnostic}");
    }
    for change in &report.changes {
        println!("{change}");
    }
    let records = vellum::input::records::RECORDS_FILE;
    let errors = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if errors > 0 && !report.wrote {
        eprintln!(
            "error: enrich found {}; {records} left as it was",
            counted(errors, "error", "errors")
        );
        return ExitCode::from(1);
    }
    let read = match from_api {
        true => format!("Sent {}", counted(report.requests, "request", "requests")),
        false => format!(
            "Read {}",
            counted(report.lines, "snapshot line", "snapshot lines")
        ),
    };
    let skipped = match report.skipped {
        0 => String::new(),
        n => format!(", {n} already matched (not asked again without --all)"),
    };
    println!(
        "{read}; matched {} of {} ({} new, {} changed), {} ambiguous, {} unmatched{skipped}; wrote {records}",
        report.matched,
        counted(report.looked_up, "paper", "papers"),
        report.new,
        report.changed,
        report.ambiguous,
        report.looked_up - report.matched - report.ambiguous,
    );
    if errors > 0 {
        eprintln!(
            "error: enrich found {}; {records} keeps what was found",
            counted(errors, "error", "errors")
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

fn existing_dir(value: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(value);
    if path.is_dir() {
        Ok(path)
    } else {
        Err(format!("expected an existing directory, found `{value}`"))
    }
}

fn host_name(value: &str) -> Result<String, String> {
    let labels_ok = value
        .split('.')
        .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    if labels_ok {
        Ok(value.to_ascii_lowercase())
    } else {
        Err(format!(
            "expected a host name such as `laptop.local` (letters, digits, `-`, dots between), found `{value}`"
        ))
    }
}

fn base_url(value: &str) -> Result<String, String> {
    vellum::input::config::normalise_base_url(value)
}

/// Refuses output directories that would clean away the site's own inputs:
/// the root itself, one of its ancestors, or an input directory.
fn check_output_dir(root: &Path, output: &Path) -> Result<(), String> {
    let Ok(root) = std::fs::canonicalize(root) else {
        return Err(format!("the site root {} does not exist", root.display()));
    };
    // Resolve the nearest existing ancestor, so `seeds/new/x` is seen as
    // inside `seeds/` even before it exists.
    let mut existing = output.to_path_buf();
    let mut rest = Vec::new();
    let output = loop {
        if let Ok(canonical) = std::fs::canonicalize(&existing) {
            break rest
                .iter()
                .rev()
                .fold(canonical, |path, part| path.join(part));
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = if parent.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    parent.to_path_buf()
                };
            }
            // `nx/..` with `nx` missing: the system would make `nx` and
            // step back out of it, which no check above can follow.
            _ if existing.ends_with("..") => {
                return Err(format!(
                    "expected --output-dir without `..` after a folder that does not exist, found {}; \
                     write the path without it",
                    output.display()
                ));
            }
            _ => break output.to_path_buf(),
        }
    };
    let inputs = [
        "seeds",
        "content",
        "themes",
        "templates",
        "static",
        "site.toml",
        "records",
    ];
    if root.starts_with(&output) || inputs.iter().any(|d| output.starts_with(root.join(d))) {
        return Err(format!(
            "--output-dir {} would overwrite the site's inputs; choose a directory of its own",
            output.display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::MI_OPTION_PURGE_DELAY;

    #[cfg(target_os = "linux")]
    #[test]
    fn transparent_huge_pages_are_turned_off() {
        let refused = std::io::Error::last_os_error;
        assert!(
            super::disable_transparent_huge_pages(),
            "PR_SET_THP_DISABLE: {}",
            refused()
        );
        // SAFETY: reads one flag of this process.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1, "PR_GET_THP_DISABLE");
    }

    #[test]
    fn the_purge_delay_option_is_mimallocs() {
        // SAFETY: reads one option.
        let (delay, verbose) = unsafe {
            (
                libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY),
                libmimalloc_sys::mi_option_get(libmimalloc_sys::mi_option_verbose),
            )
        };
        assert_eq!(
            (delay, verbose),
            (1000, 0),
            "mimalloc's defaults (v3): a 1,000 ms purge delay, not verbose"
        );
    }
}
