//! The theme's tera templates, overridden file by file by the site's own,
//! with what incremental rebuilds need to know of each: a hash of its
//! text and of every template it uses, and whether it shows the corpus
//! counts. Template errors become `file:line` diagnostics.

use crate::diagnostics::Diagnostic;
use crate::input::content::ContentPage;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
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
    /// Templates that call `get_url`, themselves or through templates
    /// they use.
    use_get_url: std::collections::BTreeSet<String>,
    /// What `get_url` resolves, set after the plan, and its hash.
    get_url: Arc<RwLock<Option<GetUrl>>>,
    get_url_hash: u64,
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
        // Known when the templates are checked, given its values after the
        // plan ([`Templates::add_get_url`]).
        let get_url: Arc<RwLock<Option<GetUrl>>> = Arc::default();
        let resolver = Arc::clone(&get_url);
        tera.register_function(
            "get_url",
            move |kwargs: tera::Kwargs, _: &tera::State| -> tera::TeraResult<String> {
                let guard = resolver.read().unwrap_or_else(|e| e.into_inner());
                let Some(site) = guard.as_ref() else {
                    return Err(tera::Error::message(
                        "get_url: the site's URLs are not known yet",
                    ));
                };
                site.url(
                    kwargs.must_get("path")?,
                    kwargs.get("cachebust")?.unwrap_or(false),
                )
            },
        );
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
            use_get_url: facts.use_get_url,
            get_url,
            get_url_hash: 0,
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
        let hash = self.hashes.get(name).copied().unwrap_or(0);
        match self.use_get_url.contains(name) {
            // What `get_url` resolves counts too.
            true => hash ^ self.get_url_hash,
            false => hash,
        }
    }

    /// Gives Zola's `get_url(path=..., cachebust=false)` what it
    /// resolves: the absolute URL of a site path (`style.css`, `/authors/`)
    /// under `base_url`, or of a content page written `@/group/members.md`
    /// (`pages`: content file → permalink); `cachebust=true` appends `?h=`
    /// and the hash of the static file (`statics`: output file → hash), so
    /// a changed file gets a new URL. The hashes count in the templates
    /// that call it.
    pub fn add_get_url(
        &mut self,
        base_url: &str,
        pages: BTreeMap<String, String>,
        statics: BTreeMap<String, u64>,
    ) {
        self.get_url_hash = xxhash_rust::xxh3::xxh3_64(format!("{pages:?}{statics:?}").as_bytes());
        let site = GetUrl {
            base_url: base_url.to_string(),
            pages,
            statics,
        };
        *self.get_url.write().unwrap_or_else(|e| e.into_inner()) = Some(site);
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

/// What Zola's `get_url` resolves ([`Templates::add_get_url`]).
struct GetUrl {
    base_url: String,
    pages: BTreeMap<String, String>,
    statics: BTreeMap<String, u64>,
}

impl GetUrl {
    fn url(&self, path: &str, cachebust: bool) -> tera::TeraResult<String> {
        if let Some(page) = path.strip_prefix("@/") {
            return self.pages.get(page).cloned().ok_or_else(|| {
                tera::Error::message(format!(
                    "get_url: expected `{path}` to name a Markdown file under content/, found no content/{page}"
                ))
            });
        }
        let site_path = path.trim_start_matches('/');
        let mut url = format!("{}{site_path}", self.base_url);
        if cachebust {
            let Some(hash) = self.statics.get(site_path) else {
                return Err(tera::Error::message(format!(
                    "get_url: expected `{path}` with cachebust=true to be a file of static/ or the theme's, found none"
                )));
            };
            url.push_str(&format!("?h={hash:016x}"));
        }
        Ok(url)
    }
}

/// Each template's hash over its own text and the texts of the templates
/// it names, and the templates that show the global corpus counts: a
/// quoted string equal to another template's name counts as a use, which
/// covers `extends`, `include` and `import` (and errs towards more uses,
/// never fewer).
fn template_hashes(by_name: &BTreeMap<String, (PathBuf, String)>) -> Facts {
    // `config` is Zola's name for `site`.
    const COUNTS: [&str; 8] = [
        "site.paper_count",
        "site.author_count",
        "site.year_count",
        "site.category_count",
        "config.paper_count",
        "config.author_count",
        "config.year_count",
        "config.category_count",
    ];
    let mut show_counts = std::collections::BTreeSet::new();
    let mut use_initials = std::collections::BTreeSet::new();
    let mut use_get_url = std::collections::BTreeSet::new();
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
                if text.contains("get_url") {
                    use_get_url.insert(name.to_string());
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
        use_get_url,
    }
}

/// What [`template_hashes`] finds of each template.
struct Facts {
    hashes: BTreeMap<String, u64>,
    show_counts: std::collections::BTreeSet<String>,
    use_initials: std::collections::BTreeSet<String>,
    use_get_url: std::collections::BTreeSet<String>,
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
