//! The theme's tera templates, overridden file by file by the site's own,
//! with what incremental rebuilds need to know of each: a hash of its
//! text and of every template it uses, and whether it shows the corpus
//! counts. Template errors become `file:line` diagnostics.

use crate::diagnostics::Diagnostic;
use crate::input::content::ContentPage;
use std::collections::BTreeMap;
use std::path::PathBuf;
use tera::{Context, Tera};

/// Loaded templates: the theme's, overridden file by file by the site's own.
pub struct Templates {
    tera: Tera,
    /// Template name → file it came from, for messages.
    files: BTreeMap<String, PathBuf>,
    /// Template name → XXH3-64 hash of its text and the texts of every
    /// template it names, directly or through those (`extends`,
    /// `include`, `import`): it changes exactly when the template's output
    /// can change for the same context.
    hashes: BTreeMap<String, u64>,
    /// Templates that show the corpus counts of the global `site` value
    /// (`site.paper_count`, …), themselves or through templates they use.
    show_counts: std::collections::BTreeSet<String>,
    /// Templates that use `initials` (the authors index's letters),
    /// themselves or through templates they use.
    use_initials: std::collections::BTreeSet<String>,
}

impl Templates {
    /// Loads every `*.html` and `*.xml` under `theme_dir`, then those under
    /// `site_dir` (when it exists), which replace theme files of the same
    /// name. `files` are (template name, path for messages, text) triples,
    /// theme first. Errors: a [`Diagnostic`] at the template file and line.
    pub fn load(files: Vec<(String, PathBuf, String)>) -> Result<Templates, Diagnostic> {
        let mut by_name: BTreeMap<String, (PathBuf, String)> = BTreeMap::new();
        for (name, path, text) in files {
            by_name.insert(name, (path, text));
        }
        let mut tera = Tera::new();
        tera.autoescape_on(vec![".html", ".xml"]);
        let file_names: BTreeMap<String, PathBuf> = by_name
            .iter()
            .map(|(name, (path, _))| (name.clone(), path.clone()))
            .collect();
        tera.add_raw_templates(
            by_name
                .iter()
                .map(|(name, (_, text))| (name.as_str(), text.as_str())),
        )
        .map_err(|e| template_error(&e, &file_names, None))?;
        let facts = template_hashes(&by_name);
        Ok(Templates {
            tera,
            files: file_names,
            hashes: facts.hashes,
            show_counts: facts.show_counts,
            use_initials: facts.use_initials,
        })
    }

    /// Whether template `name`, or one it uses, shows the global corpus
    /// counts (`site.paper_count`, `site.author_count`, `site.year_count`,
    /// `site.category_count`).
    pub fn shows_counts(&self, name: &str) -> bool {
        self.show_counts.contains(name)
    }

    /// Whether template `name`, or one it uses, names `initials`, the
    /// authors index's letters (an older `authors.html` does not, and
    /// past [`crate::corpus::AUTHORS_ON_ONE_INDEX`] authors would list
    /// only the first letter's).
    pub fn uses_initials(&self, name: &str) -> bool {
        self.use_initials.contains(name)
    }

    /// The file template `name` came from.
    pub fn file(&self, name: &str) -> Option<&std::path::Path> {
        self.files.get(name).map(PathBuf::as_path)
    }

    /// The hash of template `name` and of every template it uses; 0 for
    /// a template that does not exist.
    pub fn hash(&self, name: &str) -> u64 {
        self.hashes.get(name).copied().unwrap_or(0)
    }

    /// Sets the global value `name` that every template sees.
    pub fn set_global(&mut self, name: &'static str, value: &impl serde::Serialize) {
        self.tera.global_context().insert(name, value);
    }

    /// Renders template `name` with `context`. Errors: a template error at
    /// the template's file and line.
    pub fn render(&self, name: &str, context: &Context) -> Result<String, Diagnostic> {
        self.tera
            .render(name, context)
            .map_err(|e| template_error(&e, &self.files, Some(name)))
    }

    /// Whether a template of that name is loaded.
    pub fn contains(&self, name: &str) -> bool {
        self.files.contains_key(name)
    }
}

/// Each template's hash over its own text and the texts of the templates
/// it names, and the templates that show the global corpus counts: a
/// quoted string equal to another template's name counts as a use, which
/// covers `extends`, `include` and `import` (and errs towards more uses,
/// never fewer).
fn template_hashes(by_name: &BTreeMap<String, (PathBuf, String)>) -> Facts {
    const COUNTS: [&str; 4] = [
        "site.paper_count",
        "site.author_count",
        "site.year_count",
        "site.category_count",
    ];
    let mut show_counts = std::collections::BTreeSet::new();
    let mut use_initials = std::collections::BTreeSet::new();
    let uses: BTreeMap<&str, Vec<&str>> = by_name
        .iter()
        .map(|(name, (_, text))| {
            let named = by_name
                .keys()
                .filter(|other| {
                    text.contains(&format!("\"{other}\"")) || text.contains(&format!("'{other}'"))
                })
                .map(String::as_str)
                .collect();
            (name.as_str(), named)
        })
        .collect();
    let hashes = uses
        .keys()
        .map(|&name| {
            let mut closure = std::collections::BTreeSet::from([name]);
            let mut todo = vec![name];
            while let Some(next) = todo.pop() {
                for &used in &uses[next] {
                    if closure.insert(used) {
                        todo.push(used);
                    }
                }
            }
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            for used in closure {
                let text = &by_name[used].1;
                if COUNTS.iter().any(|count| text.contains(count)) {
                    show_counts.insert(name.to_string());
                }
                if text.contains("initials") {
                    use_initials.insert(name.to_string());
                }
                hasher.update(used.as_bytes());
                hasher.update(&[0]);
                hasher.update(text.as_bytes());
                hasher.update(&[0]);
            }
            (name.to_string(), hasher.digest())
        })
        .collect();
    Facts {
        hashes,
        show_counts,
        use_initials,
    }
}

/// What [`template_hashes`] finds of each template.
struct Facts {
    hashes: BTreeMap<String, u64>,
    show_counts: std::collections::BTreeSet<String>,
    use_initials: std::collections::BTreeSet<String>,
}

/// Turns a tera error into `file:line: message`, naming the template file.
fn template_error(
    error: &tera::Error,
    files: &BTreeMap<String, PathBuf>,
    rendering: Option<&str>,
) -> Diagnostic {
    let file_of = |name: &str| {
        files
            .get(name)
            .cloned()
            .unwrap_or_else(|| PathBuf::from(name))
    };
    match error.kind() {
        tera::ErrorKind::SyntaxError(report) | tera::ErrorKind::RenderingError(report) => {
            let name = if report.filename().is_empty() {
                rendering.unwrap_or("")
            } else {
                report.filename()
            };
            Diagnostic::error(
                file_of(name),
                report.span().start_line,
                format!("expected a valid template, found {}", report.message()),
            )
        }
        other => {
            // Unknown filters, functions and tests come as a message holding
            // reports that point at ` --> name:line:column`.
            let text = other.to_string();
            let (name, line) = text
                .lines()
                .find_map(|l| l.trim_start().strip_prefix("--> "))
                .and_then(|at| {
                    let mut parts = at.rsplitn(3, ':');
                    let _column = parts.next()?;
                    let line = parts.next()?.parse().ok()?;
                    Some((parts.next()?.to_string(), line))
                })
                .unwrap_or_else(|| (rendering.unwrap_or("templates").to_string(), 0));
            let text = match other {
                tera::ErrorKind::TemplateNotFound(missing) => format!(
                    "the template `{missing}` is missing from the theme's templates/ and the site's templates/"
                ),
                _ => text,
            };
            let message = text
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ");
            Diagnostic::error(
                file_of(&name),
                line,
                format!("expected a valid template, found {message}"),
            )
        }
    }
}

/// The template a content page names in its front matter, else
/// `section.html` for a section and `page.html` for a page.
pub fn content_template_name(page: &ContentPage) -> &str {
    match &page.front.template {
        Some(name) => name.as_str(),
        None if page.is_section => "section.html",
        None => "page.html",
    }
}
