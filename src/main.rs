//! The `vellum` command line: `vellum build`. Exit status 0 on success,
//! 1 on input errors (all printed, sorted by file and line), 2 on usage errors.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use vellum::diagnostics::Severity;
use vellum::output::DiskSink;
use vellum::site::{build, BuildOptions};

#[derive(Parser)]
#[command(
    name = "vellum",
    version,
    about = "A static site generator for publication listings"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the site into the output directory (default `public/`).
    Build(BuildArgs),
}

#[derive(Args)]
struct BuildArgs {
    /// The site root, holding site.toml, seeds/, content/ and themes/.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Where to write the site; relative paths are under the root.
    #[arg(long, default_value = "public")]
    output_dir: PathBuf,
    /// Replace site.toml's base_url, e.g. https://lab.github.io/papers/.
    #[arg(long)]
    base_url: Option<String>,
    /// Include content pages marked `draft = true`.
    #[arg(long)]
    drafts: bool,
    /// Print nothing but errors and warnings.
    #[arg(long, short)]
    quiet: bool,
    /// Print per-stage timings.
    #[arg(long, short)]
    verbose: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Build(args) => run_build(args),
    }
}

fn run_build(args: BuildArgs) -> ExitCode {
    let output_dir = args.root.join(&args.output_dir);
    if let Err(message) = check_output_dir(&args.root, &output_dir) {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    let options = BuildOptions {
        root: args.root,
        base_url: args.base_url,
        drafts: args.drafts,
        strict: false,
    };
    let report = build(&options, &mut DiskSink::new(&output_dir));
    for diagnostic in &report.diagnostics {
        eprintln!("{diagnostic}");
    }
    if args.verbose {
        eprint!("{}", report.timings.report());
    }
    let errors = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if report.failed() || report.written.is_none() {
        eprintln!(
            "error: build failed with {errors} error(s); {} left untouched",
            output_dir.display()
        );
        return ExitCode::from(1);
    }
    if let (Some(stats), false) = (report.written, args.quiet) {
        let [papers, authors, years, categories] = report.counts;
        println!(
            "Built {papers} papers, {authors} authors, {years} years, {categories} categories: {} files ({} written, {} removed, {} bytes) in {}",
            stats.files,
            stats.written,
            stats.removed,
            stats.bytes,
            output_dir.display()
        );
    }
    ExitCode::SUCCESS
}

/// Refuses output directories that would clean away the site's own inputs:
/// the root itself, one of its ancestors, or an input directory.
fn check_output_dir(root: &std::path::Path, output: &std::path::Path) -> Result<(), String> {
    let canonical = |p: &std::path::Path| std::fs::canonicalize(p).ok();
    let (Some(root), Some(output)) = (
        canonical(root),
        canonical(output).or_else(|| Some(output.to_path_buf())),
    ) else {
        return Err(format!("the site root {} does not exist", root.display()));
    };
    let inputs = ["seeds", "content", "themes", "templates", "static"];
    if root.starts_with(&output) || inputs.iter().any(|d| output.starts_with(root.join(d))) {
        return Err(format!(
            "--output-dir {} would overwrite the site's inputs; choose a directory of its own",
            output.display()
        ));
    }
    Ok(())
}
