//! Stage 1, input: reads the site's files from its root and parses the
//! ones every later stage needs whole.
//!
//! Takes the site root; hands on [`Inputs`]: the resolved `site.toml`
//! ([`config`]), the paths of the listings under `seeds/` (read in the parse stage by
//! [`crate::corpus::listings`], parsed by [`listing`], a chunk at a time,
//! so their bytes are never all in memory), the Markdown files of `content/` (parsed by [`content`]), the
//! templates and the static files. Hidden files and directories are
//! skipped; every path is sorted, so the same tree gives the same inputs.
//! A new input format (BibTeX, arXiv records) is a module here that parses
//! its files into values the corpus stage merges.

pub mod config;
pub mod content;
pub mod listing;

use crate::diagnostics::Diagnostic;
use config::{normalise_base_url, Config};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An input file read from disk: (path relative to its directory, path
/// for messages, bytes).
pub type InputFile = (String, PathBuf, Vec<u8>);

/// What [`read`] hands on: the configuration, the listings' paths and
/// every other input file's bytes.
pub struct Inputs {
    /// `site.toml`, resolved, with the `--base-url` override applied.
    pub config: Config,
    /// Listing paths, sorted; they are read as they are parsed
    /// ([`crate::corpus::listings`]).
    pub seeds: Arc<Vec<PathBuf>>,
    /// Whether `seeds` is the last build's list patched with the paths the
    /// caller knows changed ([`crate::build::BuildOptions::changed_paths`]),
    /// which then name every listing that may have changed; otherwise
    /// `seeds/` was walked.
    pub seeds_patched: bool,
    /// `content/**/*.md`.
    pub content: Vec<InputFile>,
    /// Templates as (name, path for messages, text): the theme's, then
    /// the site's own `templates/`.
    pub templates: Vec<(String, PathBuf, String)>,
    /// Static files: the theme's, replaced one by one by the site's `static/`.
    pub statics: Vec<InputFile>,
}

/// Reads `site.toml` (with `base_url` replaced by `base_url_override`
/// when given), then every input file. The listings are `patched_seeds`
/// when given (the last build's list, patched), else those found under
/// `seeds/`. Errors: a config problem, a missing theme, an unreadable file.
pub fn read(
    root: &Path,
    base_url_override: Option<&str>,
    patched_seeds: Option<Arc<Vec<PathBuf>>>,
) -> Result<Inputs, Diagnostic> {
    let mut config = Config::load(&root.join("site.toml"), Path::new("site.toml"))?;
    if let Some(url) = base_url_override {
        config.base_url = normalise_base_url(url).ok_or_else(|| {
            Diagnostic::error(
                "--base-url",
                0,
                format!("expected an http:// or https:// URL, found `{url}`"),
            )
        })?;
    }
    let theme_dir = root.join("themes").join(&config.theme);
    if !theme_dir.is_dir() {
        return Err(Diagnostic::error(
            "site.toml",
            config.theme_line,
            format!(
                "expected a theme directory themes/{}/ (the `theme` setting), found none",
                config.theme
            ),
        ));
    }
    let mut templates = read_templates(&theme_dir.join("templates"), root)?;
    templates.extend(read_templates(&root.join("templates"), root)?);
    let mut statics = read_files(&theme_dir.join("static"), root, |_| true)?;
    let site_statics = read_files(&root.join("static"), root, |_| true)?;
    statics.retain(|(rel, _, _)| !site_statics.iter().any(|(r, _, _)| r == rel));
    statics.extend(site_statics);
    let seeds_patched = patched_seeds.is_some();
    let seeds = patched_seeds
        .unwrap_or_else(|| Arc::new(list_files(&root.join("seeds"), listing::is_listing)));
    Ok(Inputs {
        seeds,
        seeds_patched,
        content: read_files(&root.join("content"), root, |p| {
            p.extension().is_some_and(|e| e == "md")
        })?,
        config,
        templates,
        statics,
    })
}

/// Every file under `dir` that `keep` accepts, sorted by path; a missing
/// directory gives none. Hidden files and directories are skipped.
fn read_files(
    dir: &Path,
    root: &Path,
    keep: impl Fn(&Path) -> bool,
) -> Result<Vec<InputFile>, Diagnostic> {
    list_files(dir, keep)
        .par_iter()
        .map(|path| read_file(path, dir, root))
        .collect()
}

/// Every file under `dir` that `keep` accepts, sorted by path, skipping
/// hidden files and directories; a missing directory gives none.
pub fn list_files(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    if !dir.is_dir() {
        return Vec::new();
    }
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && keep(e.path()))
        .map(|e| e.into_path())
        .collect()
}

/// Reads one input file as (path relative to `dir`, path for messages, bytes).
pub fn read_file(path: &Path, dir: &Path, root: &Path) -> Result<InputFile, Diagnostic> {
    let shown = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    let bytes = std::fs::read(path).map_err(|e| {
        Diagnostic::error(&shown, 0, format!("expected a readable file, found {e}"))
    })?;
    Ok((slash_path(path, dir), shown, bytes))
}

/// `path` relative to `base`, with `/` separators whatever the platform.
pub fn slash_path(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Every `*.html`/`*.xml` template under `dir` as (name, path for
/// messages, text); the name is the path relative to `dir` with `/`.
/// Errors: an unreadable or non-UTF-8 template.
fn read_templates(dir: &Path, root: &Path) -> Result<Vec<(String, PathBuf, String)>, Diagnostic> {
    list_files(dir, |p| {
        p.extension().is_some_and(|e| e == "html" || e == "xml")
    })
    .iter()
    .map(|path| {
        let (name, shown, bytes) = read_file(path, dir, root)?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Diagnostic::error(&shown, 0, "expected a UTF-8 template, found invalid UTF-8")
        })?;
        Ok((name, shown, text))
    })
    .collect()
}
