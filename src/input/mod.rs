//! Stage 1, input: reads the site's files from its root and parses the
//! ones every later stage needs whole.
//!
//! Takes the site root; hands on [`Inputs`]: the resolved `site.toml`
//! ([`config`]), the paths of the listings under `seeds/` (read in the parse stage by
//! [`crate::corpus::listings`], parsed by [`listing`], a chunk at a time,
//! so their bytes are never all in memory), the Markdown files of `content/` (parsed by [`content`]), the
//! templates and the static files. Hidden files and directories are
//! skipped; every path is sorted, so the same tree gives the same inputs.
//! BibTeX files (`seeds/**/*.bib`, [`bibtex`]) and the arXiv records
//! file ([`records`]) are parsed into values the corpus stage merges.

pub mod bibtex;
pub mod chars;
pub mod config;
pub mod content;
pub mod listing;
pub mod records;

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
    /// The files under `seeds/`; the listings are read as they are
    /// parsed ([`crate::corpus::listings`]).
    pub seeds: Arc<SeedFiles>,
    /// Whether `seeds` is the last build's list patched with the paths the
    /// caller knows changed ([`crate::build::BuildOptions::changed_paths`]),
    /// which then name every listing that may have changed; otherwise
    /// `seeds/` was walked.
    pub seeds_patched: bool,
    /// `seeds/**/*.bib`, read: BibTeX files ([`bibtex`]).
    pub bibtex: Vec<InputFile>,
    /// `content/**/*.md`.
    pub content: Vec<InputFile>,
    /// Templates as (name, path for messages, text): the theme's, then
    /// the site's own `templates/`.
    pub templates: Vec<(String, PathBuf, String)>,
    /// Static files: the theme's, replaced one by one by the site's `static/`.
    pub statics: Vec<InputFile>,
    /// `records/arxiv.toml`: the arXiv records `vellum enrich` matched.
    pub records: records::Records,
    /// Problems found while reading: an error in `site.toml` (the site is
    /// then read with the default settings, so that one run reports every
    /// problem), characters no page may hold in `site.toml`, symlinks that
    /// lead out of the site.
    pub problems: Vec<Diagnostic>,
}

/// The files under `seeds/` (hidden ones skipped), each list sorted by
/// path, and what the walk warned about (symlinks out of the site, names
/// no page can hold).
#[derive(Debug, Clone, Default)]
pub struct SeedFiles {
    /// `*.txt`: listings ([`listing`]).
    pub listings: Vec<PathBuf>,
    /// `*.bib`: BibTeX files ([`bibtex`]).
    pub bibtex: Vec<PathBuf>,
    /// The walk's warnings.
    pub warnings: Vec<Diagnostic>,
}

impl SeedFiles {
    /// Walks `seeds/` under `root` once for both kinds of file.
    pub fn find(root: &Path) -> SeedFiles {
        let walk = Walk::new(root);
        let (bibtex, listings) = walk
            .files(&root.join("seeds"), Hidden::Skip, |path| {
                listing::is_listing(path) || bibtex::is_bibtex(path)
            })
            .into_iter()
            .partition(|path| bibtex::is_bibtex(path));
        let warnings = walk
            .warnings
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        SeedFiles {
            listings,
            bibtex,
            warnings,
        }
    }
}

/// Reads `site.toml` (with `base_url` replaced by `base_url_override`
/// when given), then every input file. The files under `seeds/` are
/// `patched_seeds` when given (the last build's, patched), else those
/// found there. Errors: a missing or unreadable `site.toml`, a missing theme, an
/// unreadable file (a wrong setting is one of [`Inputs::problems`]).
pub fn read(
    root: &Path,
    base_url_override: Option<&str>,
    patched_seeds: Option<Arc<SeedFiles>>,
) -> Result<Inputs, Diagnostic> {
    let (mut config, mut problems) =
        match Config::load(&root.join("site.toml"), Path::new("site.toml")) {
            Ok(loaded) => loaded,
            // A wrong setting: the rest is read with the default settings,
            // so one run reports every problem. A missing or unreadable
            // site.toml (line 0) stops here: this may be no site at all.
            Err(errors) if errors.iter().all(|error| error.line != 0) => {
                let defaults = Config::parse("", Path::new("site.toml"))?;
                (defaults, errors)
            }
            Err(errors) => {
                let missing = Diagnostic::error("site.toml", 0, "expected readable settings");
                return Err(errors.into_iter().next().unwrap_or(missing));
            }
        };
    if let Some(url) = base_url_override {
        config.base_url =
            normalise_base_url(url).map_err(|why| Diagnostic::error("--base-url", 0, why))?;
    }
    let theme_dir = root.join("themes").join(&config.theme);
    if !theme_dir.is_dir() {
        let themes: Vec<String> = std::fs::read_dir(root.join("themes"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| entry.path().is_dir())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        return Err(Diagnostic::error(
            "site.toml",
            config.theme_line,
            format!(
                "expected a theme directory themes/{}/ (the `theme` setting), found none{}",
                config.theme,
                crate::diagnostics::did_you_mean(&config.theme, themes.iter().map(String::as_str))
            ),
        ));
    }
    let walk = Walk::new(root);
    let mut templates = read_templates(&walk, &theme_dir.join("templates"))?;
    templates.extend(read_templates(&walk, &root.join("templates"))?);
    let mut statics = read_files(&walk, &theme_dir.join("static"), Hidden::KeepButGit, |_| {
        true
    })?;
    let site_statics = read_files(&walk, &root.join("static"), Hidden::KeepButGit, |_| true)?;
    statics.retain(|(rel, _, _)| !site_statics.iter().any(|(r, _, _)| r == rel));
    statics.extend(site_statics);
    let seeds_patched = patched_seeds.is_some();
    let seeds = patched_seeds.unwrap_or_else(|| Arc::new(SeedFiles::find(root)));
    let bibtex = seeds
        .bibtex
        .par_iter()
        .map(|path| read_file(path, &root.join("seeds"), root))
        .collect::<Result<_, _>>()?;
    problems.extend(seeds.warnings.iter().cloned());
    let content = read_files(&walk, &root.join("content"), Hidden::Skip, |p| {
        p.extension().is_some_and(|e| e == "md")
    })?;
    let (records, records_warnings) = records::Records::load(root)?;
    problems.extend(records_warnings);
    problems.extend(
        walk.warnings
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
    );
    Ok(Inputs {
        records,
        seeds,
        seeds_patched,
        bibtex,
        content,
        config,
        templates,
        statics,
        problems,
    })
}

/// `bytes` as UTF-8 text (a byte-order mark dropped), or an error at the
/// line of the first byte that is not UTF-8, for the file shown as `file`.
pub fn utf8<'a>(bytes: &'a [u8], file: &Path) -> Result<&'a str, Diagnostic> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.strip_prefix('\u{feff}').unwrap_or(text)),
        Err(e) => {
            let line = chars::line_after(&bytes[..e.valid_up_to()]);
            Err(Diagnostic::error(
                file,
                line,
                format!(
                    "expected UTF-8 text, found the byte 0x{:02X}, which is not UTF-8; save the file as UTF-8",
                    bytes[e.valid_up_to()]
                ),
            ))
        }
    }
}

/// Whether a file name is an editor's temporary, swap or backup file,
/// which no build reads or publishes: vim `.x.swp`/`.x.swx`/`x~`/`4913`,
/// emacs `#x#` and `.#x`, JetBrains `x___jb_tmp___`/`x___jb_old___`,
/// helix `x.bck`, Kate `x.kate-swp`.
pub fn is_editor_file(name: &str) -> bool {
    name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
        || name.starts_with(".#")
        || name == "4913"
        || [
            ".swp",
            ".swx",
            ".swo",
            ".bck",
            ".tmp",
            ".kate-swp",
            "___jb_tmp___",
            "___jb_old___",
        ]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// Which hidden (dot-named) entries a walk keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    /// None: an editor's backup or lock file is no listing or page.
    Skip,
    /// All but `.git`: a static file such as `.nojekyll` or
    /// `.well-known/security.txt` is published as it is. An editor's
    /// file ([`is_editor_file`]) is skipped.
    KeepButGit,
}

/// Walks the site's folders: symlinks are followed when their target is
/// inside the site root, and reported (then skipped) when it is outside
/// or missing.
pub struct Walk {
    /// The root as given, which paths in messages are relative to.
    given: PathBuf,
    /// The root with symlinks resolved, which targets must be inside.
    root: Option<PathBuf>,
    warnings: std::sync::Mutex<Vec<Diagnostic>>,
}

impl Walk {
    /// A walk of the site at `root`.
    pub fn new(root: &Path) -> Walk {
        Walk {
            given: root.to_path_buf(),
            root: std::fs::canonicalize(root).ok(),
            warnings: std::sync::Mutex::default(),
        }
    }

    /// Every file under `dir` that `keep` accepts, sorted by path; a
    /// missing directory gives none.
    pub fn files(&self, dir: &Path, hidden: Hidden, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
        if !dir.is_dir() {
            return Vec::new();
        }
        let shown = |path: &Path| path.strip_prefix(&self.given).unwrap_or(path).to_path_buf();
        // A name that is not UTF-8, or holds a control character (a line
        // break would split the output's manifest), is no page's.
        let named_well = |entry: &walkdir::DirEntry| {
            let name = entry.file_name().to_str();
            if name.is_some_and(|n| !n.chars().any(char::is_control)) {
                return true;
            }
            self.warnings.lock().unwrap_or_else(|e| e.into_inner()).push(Diagnostic::warning(
                shown(entry.path()),
                0,
                "expected a file name of UTF-8 text without control characters, found another; it is skipped: rename it",
            ));
            false
        };
        let inside = |entry: &walkdir::DirEntry| {
            if !entry.path_is_symlink() {
                return true;
            }
            let target = std::fs::canonicalize(entry.path());
            let why = match (&target, &self.root) {
                (Ok(target), Some(root)) if target.starts_with(root) => return true,
                (Ok(target), _) => format!(
                    "expected a symlink to a file inside the site, found one to {}; it is skipped: copy the file into the site",
                    target.display()
                ),
                (Err(_), _) => "expected a symlink to an existing file, found a broken one; it is skipped".to_string(),
            };
            self.warnings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(Diagnostic::warning(shown(entry.path()), 0, why));
            false
        };
        walkdir::WalkDir::new(dir)
            .follow_links(true)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                let name = e.file_name().to_string_lossy();
                let shown_hidden = match hidden {
                    Hidden::Skip => !name.starts_with('.'),
                    Hidden::KeepButGit => {
                        name != ".git" && (e.file_type().is_dir() || !is_editor_file(&name))
                    }
                };
                e.depth() == 0 || (shown_hidden && named_well(e) && inside(e))
            })
            .filter_map(|entry| match entry {
                Ok(entry) => Some(entry),
                Err(e) => {
                    let why = if e.loop_ancestor().is_some() {
                        "expected a symlink to a file, found one that loops back to a folder holding it; it is skipped"
                    } else {
                        "expected a readable file or a symlink to an existing file, found neither; it is skipped"
                    };
                    if let Some(path) = e.path() {
                        self.warnings.lock().unwrap_or_else(|e| e.into_inner()).push(Diagnostic::warning(shown(path), 0, why));
                    }
                    None
                }
            })
            .filter(|e| e.file_type().is_file() && keep(e.path()))
            .map(|e| e.into_path())
            .collect()
    }
}

/// Every file under `dir` that `keep` accepts, read, sorted by path.
fn read_files(
    walk: &Walk,
    dir: &Path,
    hidden: Hidden,
    keep: impl Fn(&Path) -> bool,
) -> Result<Vec<InputFile>, Diagnostic> {
    walk.files(dir, hidden, keep)
        .par_iter()
        .map(|path| read_file(path, dir, &walk.given))
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

/// Every `*.html`/`*.xml` template under `dir`, and a `robots.txt`
/// template (as in Zola), as (name, path for messages, text); the name is
/// the path relative to `dir` with `/`.
/// Errors: an unreadable template, or one that is not UTF-8 (at the line
/// of the first bad byte).
pub(crate) fn read_templates(
    walk: &Walk,
    dir: &Path,
) -> Result<Vec<(String, PathBuf, String)>, Diagnostic> {
    walk.files(dir, Hidden::Skip, |p| {
        p.extension().is_some_and(|e| e == "html" || e == "xml")
            || p.strip_prefix(dir)
                .is_ok_and(|p| p == Path::new("robots.txt"))
    })
    .iter()
    .map(|path| {
        let (name, shown, bytes) = read_file(path, dir, &walk.given)?;
        let text = utf8(&bytes, &shown)?.to_string();
        Ok((name, shown, text))
    })
    .collect()
}
