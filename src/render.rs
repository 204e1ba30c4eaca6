//! Stage 4: plan the site as a list of [`Job`]s over the frozen corpus and
//! content, then render each job through the theme's tera templates, in
//! parallel with rayon. Hands each rendered page (output path, bytes) to a
//! [`crate::output::Sink`] as soon as it is done.
//!
//! Papers, authors, years and categories are serialised to template values
//! once ([`Views`]); a term page's context holds cheap shared clones of
//! those values, never a re-serialised copy. The context each template
//! receives is documented in `docs/templates.md`.

use crate::config::Config;
use crate::content::{shortcode_placeholder, Content, ContentPage, PaperQuery};
use crate::corpus::{AuthorId, CategoryId, Corpus, PaperId};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::exports::{Abstract, Export};
use crate::feeds::FeedKind;
use crate::memo::Memo;
use crate::output::Sink;
use crate::permalink::{Route, UrlMap};
use crate::stats;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use tera::{Context, Tera, Value};

/// Longest meta description, in characters.
const DESCRIPTION_CHARS: usize = 160;

/// One output the renderer produces. Term pages carry their 1-based pager page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// `index.html`: intro, counts, recent papers.
    Home,
    /// `/authors/`.
    AuthorIndex,
    /// One page of one author's papers.
    Author(AuthorId, usize),
    /// `/years/`.
    YearIndex,
    /// One page of one year's papers (index into [`Corpus::years`]).
    Year(usize, usize),
    /// `/categories/`.
    CategoryIndex,
    /// One page of one category's papers.
    Category(CategoryId, usize),
    /// One paper's page.
    Paper(PaperId),
    /// A content page or section (index into [`Content::pages`]).
    Content(usize),
    /// `404.html`.
    NotFound,
    /// An Atom feed.
    Feed(FeedKind),
    /// `sitemap.xml`, split into parts under an index when large.
    Sitemap,
    /// `robots.txt`.
    Robots,
    /// A redirect page at an alias path (normalised, see
    /// [`crate::permalink::normalise_alias`]) to a page.
    Alias(String, Route),
    /// One paper's citation file.
    PaperExport(PaperId, Export),
    /// One author's BibTeX file of all their papers.
    AuthorBib(AuthorId),
    /// `corpus.json`: every paper, author, year and category as data.
    CorpusJson,
    /// `/search/`: the search page (the index is built by [`crate::search`]).
    Search,
}

impl Job {
    /// Whether the job writes an HTML page that belongs in the sitemap.
    pub fn is_listed_page(&self) -> bool {
        !matches!(
            self,
            Job::NotFound
                | Job::Feed(_)
                | Job::Sitemap
                | Job::Robots
                | Job::Alias(..)
                | Job::PaperExport(..)
                | Job::AuthorBib(_)
                | Job::CorpusJson
        )
    }
}

/// What every stage of rendering reads: configuration, URL map, corpus and content.
#[derive(Clone, Copy)]
pub struct Site<'a> {
    /// The resolved configuration.
    pub config: &'a Config,
    /// The URL map for the configured base URL.
    pub urls: &'a UrlMap,
    /// The frozen corpus.
    pub corpus: &'a Corpus,
    /// The content pages and profiles.
    pub content: &'a Content,
}

impl Site<'_> {
    /// The route a job writes.
    pub fn route(&self, job: &Job) -> Route {
        match *job {
            Job::Home => Route::Home,
            Job::AuthorIndex => Route::AuthorIndex,
            Job::Author(id, page) => Route::Author {
                slug: self.corpus.authors[id].slug.clone(),
                page,
            },
            Job::YearIndex => Route::YearIndex,
            Job::Year(index, page) => Route::Year {
                year: self.corpus.years[index].year,
                page,
            },
            Job::CategoryIndex => Route::CategoryIndex,
            Job::Category(id, page) => Route::Category {
                slug: self.corpus.categories[id].slug.clone(),
                page,
            },
            Job::Paper(id) => Route::Paper {
                slug: self.corpus.papers[id].slug.clone(),
            },
            Job::Content(index) => Route::Content {
                path: self.content.pages[index].path.clone(),
            },
            Job::NotFound => Route::NotFound,
            Job::Feed(kind) => crate::feeds::feed_routes(self, kind).0,
            Job::Sitemap => Route::Sitemap,
            Job::Robots => Route::Robots,
            Job::Alias(ref path, _) => Route::Alias { path: path.clone() },
            Job::PaperExport(id, export) => Route::PaperExport {
                slug: self.corpus.papers[id].slug.clone(),
                ext: export.ext(),
            },
            Job::AuthorBib(id) => Route::AuthorBib {
                slug: self.corpus.authors[id].slug.clone(),
            },
            Job::CorpusJson => Route::CorpusJson,
            Job::Search => Route::Search,
        }
    }

    fn pages_for(&self, items: usize) -> usize {
        items.div_ceil(self.config.paginate_by).max(1)
    }
}

/// Every job of a site with the output file it writes (relative path,
/// `/`-separated: `papers/fast-graphs/index.html`), in the same order.
#[derive(Debug, Default)]
pub struct Plan {
    /// The jobs.
    pub jobs: Vec<Job>,
    /// `files[i]` is the output file of `jobs[i]`.
    pub files: Vec<String>,
}

/// Plans every page of the site. Errors: a content page or alias whose
/// output path is also another page's, naming both.
pub fn plan(site: &Site) -> Result<Plan, Vec<Diagnostic>> {
    let corpus = site.corpus;
    let mut jobs = vec![
        Job::Home,
        Job::AuthorIndex,
        Job::YearIndex,
        Job::CategoryIndex,
        Job::NotFound,
    ];
    for (id, author) in corpus.authors.iter().enumerate() {
        jobs.extend((1..=site.pages_for(author.papers.len())).map(|p| Job::Author(id, p)));
    }
    for (index, year) in corpus.years.iter().enumerate() {
        jobs.extend((1..=site.pages_for(year.papers.len())).map(|p| Job::Year(index, p)));
    }
    for (id, category) in corpus.categories.iter().enumerate() {
        jobs.extend((1..=site.pages_for(category.papers.len())).map(|p| Job::Category(id, p)));
    }
    jobs.extend((0..corpus.papers.len()).map(Job::Paper));
    if site.config.paper_exports {
        for id in 0..corpus.papers.len() {
            jobs.extend(Export::ALL.map(|export| Job::PaperExport(id, export)));
        }
    }
    if site.config.exports {
        jobs.extend((0..corpus.authors.len()).map(Job::AuthorBib));
        jobs.push(Job::CorpusJson);
    }
    if site.config.search {
        jobs.push(Job::Search);
    }

    let mut generated: Vec<String> = jobs
        .par_iter()
        .map(|job| site.urls.output_file(&site.route(job)))
        .collect();
    // Output file → index of the job writing it; described only on a
    // clash. The generated pages' paths are borrowed, and mapped only when
    // a content page or an alias is checked against them; the few files
    // added below (content pages, feeds, aliases) are owned by `added`.
    let taken: std::cell::OnceCell<rustc_hash::FxHashMap<&str, usize>> = std::cell::OnceCell::new();
    let mut added: rustc_hash::FxHashMap<String, usize> = rustc_hash::FxHashMap::default();
    let owner = |added: &rustc_hash::FxHashMap<String, usize>, file: &str| {
        let taken = taken.get_or_init(|| {
            generated
                .iter()
                .enumerate()
                .map(|(index, file)| (file.as_str(), index))
                .collect()
        });
        taken.get(file).or_else(|| added.get(file)).copied()
    };
    let mut files: Vec<String> = Vec::new();
    let mut alias_of: BTreeMap<usize, String> = BTreeMap::new();
    let mut errors = Vec::new();
    for (index, page) in site.content.pages.iter().enumerate() {
        let job = Job::Content(index);
        let file = site.urls.output_file(&site.route(&job));
        match owner(&added, &file) {
            Some(other) => errors.push(Diagnostic::error(
                &page.file,
                1,
                format!(
                    "expected a path of its own, found /{} which is also the generated {}",
                    site.urls.site_path(&site.route(&job)),
                    describe(site, &jobs[other])
                ),
            )),
            None => {
                added.insert(file.clone(), jobs.len());
                files.push(file);
                jobs.push(job);
            }
        }
    }
    if site.config.feeds {
        let feeds = std::iter::once(Job::Feed(FeedKind::Site))
            .chain((0..corpus.authors.len()).map(|id| Job::Feed(FeedKind::Author(id))))
            .chain((0..corpus.categories.len()).map(|id| Job::Feed(FeedKind::Category(id))));
        for job in feeds {
            let file = site.urls.output_file(&site.route(&job));
            added.insert(file.clone(), jobs.len());
            files.push(file);
            jobs.push(job);
        }
    }
    for alias in aliases(site) {
        let Some(path) = crate::permalink::normalise_alias(alias.path) else {
            errors.push(Diagnostic::error(
                alias.file,
                alias.line,
                format!(
                    "expected an alias to be a site path such as `people/name/`, found `{}`",
                    alias.path
                ),
            ));
            continue;
        };
        let job = Job::Alias(path, alias.target);
        let file = site.urls.output_file(&site.route(&job));
        if let Some(other) = owner(&added, &file) {
            let other = match alias_of.get(&other) {
                Some(of) => format!("alias of {of}"),
                None => describe(site, &jobs[other]),
            };
            errors.push(Diagnostic::error(
                alias.file,
                alias.line,
                format!(
                    "expected alias `{}` to be a free path, found /{file} which is the {other}",
                    alias.path
                ),
            ));
            continue;
        }
        alias_of.insert(jobs.len(), alias.of);
        added.insert(file.clone(), jobs.len());
        files.push(file);
        jobs.push(job);
    }
    for job in [Job::Robots, Job::Sitemap] {
        files.push(site.urls.output_file(&site.route(&job)));
        jobs.push(job);
    }
    generated.append(&mut files);
    let files = generated;
    if errors.is_empty() {
        Ok(Plan { jobs, files })
    } else {
        Err(errors)
    }
}

/// An old URL path of an author's or paper's page, as declared.
struct AliasDecl<'a> {
    path: &'a str,
    target: Route,
    of: String,
    file: &'a std::path::Path,
    line: usize,
}

/// Every declared alias: author profiles' (path entries), then per-paper
/// overrides'. Aliases of unknown authors and of hidden papers are skipped
/// (their files are warned about elsewhere).
fn aliases<'a>(site: &Site<'a>) -> Vec<AliasDecl<'a>> {
    let corpus = site.corpus;
    let mut found = Vec::new();
    for (slug, profile) in &site.content.profiles {
        let Some(author) = corpus.authors.iter().find(|a| &a.slug == slug) else {
            continue;
        };
        found.extend(profile.front.aliases.iter().map(|path| AliasDecl {
            path,
            target: Route::Author {
                slug: author.slug.clone(),
                page: 1,
            },
            of: format!("author {}", author.name),
            file: &profile.file,
            line: profile.aliases_line,
        }));
    }
    let with_aliases: Vec<_> = site
        .content
        .overrides
        .iter()
        .filter(|(_, o)| !o.front.aliases.is_empty())
        .collect();
    let papers_by_slug: std::collections::HashMap<&str, &crate::corpus::Paper> =
        if with_aliases.is_empty() {
            Default::default()
        } else {
            corpus.papers.iter().map(|p| (p.slug.as_str(), p)).collect()
        };
    for (slug, found_override) in with_aliases {
        let Some(paper) = papers_by_slug.get(slug.as_str()) else {
            continue;
        };
        found.extend(found_override.front.aliases.iter().map(|path| AliasDecl {
            path,
            target: Route::Paper {
                slug: paper.slug.clone(),
            },
            of: format!("paper `{}`", paper.title.plain),
            file: &found_override.file,
            line: found_override.aliases_line,
        }));
    }
    found
}

fn describe(site: &Site, job: &Job) -> String {
    match *job {
        Job::Author(id, _) => format!("page of author {}", site.corpus.authors[id].name),
        Job::Paper(id) => format!("page of paper `{}`", site.corpus.papers[id].title.plain),
        Job::Category(id, _) => format!("page of category {}", site.corpus.categories[id].code),
        Job::Year(index, _) => format!("page of year {}", site.corpus.years[index].year),
        Job::Content(index) => format!("content page {}", site.content.pages[index].file.display()),
        Job::Feed(_) => "feed".to_string(),
        _ => "index page".to_string(),
    }
}

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
        let (hashes, show_counts) = template_hashes(&by_name);
        Ok(Templates {
            tera,
            files: file_names,
            hashes,
            show_counts,
        })
    }

    /// Whether template `name`, or one it uses, shows the global corpus
    /// counts (`site.paper_count`, `site.author_count`, `site.year_count`,
    /// `site.category_count`).
    pub fn shows_counts(&self, name: &str) -> bool {
        self.show_counts.contains(name)
    }

    /// The hash of template `name` and of every template it uses; 0 for
    /// a template that does not exist.
    pub fn hash(&self, name: &str) -> u64 {
        self.hashes.get(name).copied().unwrap_or(0)
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
fn template_hashes(
    by_name: &BTreeMap<String, (PathBuf, String)>,
) -> (BTreeMap<String, u64>, std::collections::BTreeSet<String>) {
    const COUNTS: [&str; 4] = [
        "site.paper_count",
        "site.author_count",
        "site.year_count",
        "site.category_count",
    ];
    let mut show_counts = std::collections::BTreeSet::new();
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
                hasher.update(used.as_bytes());
                hasher.update(&[0]);
                hasher.update(text.as_bytes());
                hasher.update(&[0]);
            }
            (name.to_string(), hasher.digest())
        })
        .collect();
    (hashes, show_counts)
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

#[derive(Serialize)]
struct PersonLink<'a> {
    name: &'a str,
    url: String,
}

#[derive(Serialize)]
struct CategoryLink<'a> {
    code: &'a str,
    name: &'a str,
    url: String,
}

#[derive(Serialize)]
struct PaperView<'a> {
    slug: &'a str,
    key: &'a str,
    selected: bool,
    venue: Option<&'a str>,
    url: String,
    title: &'a str,
    title_html: &'a str,
    year: u16,
    year_url: String,
    authors: Vec<PersonLink<'a>>,
    byline: Vec<PersonView<'a>>,
    authors_complete: bool,
    categories: Vec<CategoryLink<'a>>,
}

#[derive(Serialize)]
struct AuthorView<'a> {
    name: &'a str,
    sort_name: &'a str,
    slug: &'a str,
    url: String,
    paper_count: usize,
    claimed_total: Option<u32>,
    partial: bool,
    feed_url: Option<String>,
}

#[derive(Serialize)]
struct TermView<'a> {
    name: String,
    code: String,
    archive: &'a str,
    group: &'a str,
    url: String,
    paper_count: usize,
    feed_url: Option<String>,
}

#[derive(Serialize)]
struct SiteView<'a> {
    title: &'a str,
    description: &'a str,
    base_url: &'a str,
    base_path: &'a str,
    language: &'a str,
    paper_count: usize,
    author_count: usize,
    year_count: usize,
    category_count: usize,
    urls: SiteUrls,
    stylesheet: String,
    cite_script: String,
    search_url: Option<String>,
    search_index: String,
    search_script: String,
    feed_url: Option<String>,
}

#[derive(Serialize)]
struct SiteUrls {
    home: String,
    authors: String,
    years: String,
    categories: String,
}

#[derive(Serialize)]
struct PageMeta<'a> {
    kind: &'a str,
    title: String,
    description: String,
    url: String,
    permalink: String,
}

/// One entry of a pager's page list; `number` 0 stands for a gap (`…`).
#[derive(Serialize)]
struct PagerLink {
    number: usize,
    url: String,
}

/// Pages shown on either side of the current one in a pager.
const PAGER_WINDOW: usize = 2;

#[derive(Serialize)]
struct Paginator {
    current: usize,
    total_pages: usize,
    total_items: usize,
    first_item: usize,
    last_item: usize,
    previous: Option<String>,
    next: Option<String>,
    pages: Vec<PagerLink>,
}

/// Template values of corpus items: an author's, year's and category's
/// made once and shared by every page listing it; a paper's made each time
/// a page lists it, so a rebuild that renders a few pages serialises only
/// their papers. Papers are not kept: at 100,000 papers their values held
/// about 480 MB, and making them again costs no measurable time.
pub struct Views<'a> {
    site: Site<'a>,
    /// Each author's value, made when first used ([`Views::author`]).
    authors: Vec<std::sync::OnceLock<Value>>,
    years: Vec<Value>,
    categories: Vec<Value>,
}

impl<'a> Views<'a> {
    /// Serialises every year and category; authors and papers wait until
    /// used (a rebuild renders a few pages: at 100,000 papers, serialising
    /// 20,000 authors took tens of milliseconds).
    pub fn new(site: &Site<'a>) -> Views<'a> {
        let corpus = site.corpus;
        let urls = site.urls;
        let authors = corpus
            .authors
            .iter()
            .map(|_| std::sync::OnceLock::new())
            .collect();
        let years = corpus
            .years
            .iter()
            .map(|year| {
                Value::from_serializable(&TermView {
                    name: year.year.to_string(),
                    code: year.year.to_string(),
                    archive: "",
                    group: "",
                    url: urls.url(&Route::Year {
                        year: year.year,
                        page: 1,
                    }),
                    paper_count: year.papers.len(),
                    feed_url: None,
                })
            })
            .collect();
        let categories = corpus
            .categories
            .iter()
            .map(|category| {
                Value::from_serializable(&TermView {
                    name: category.name.clone(),
                    code: category.code.clone(),
                    archive: &category.archive,
                    group: &category.group,
                    url: urls.url(&Route::Category {
                        slug: category.slug.clone(),
                        page: 1,
                    }),
                    paper_count: category.papers.len(),
                    feed_url: site.config.feeds.then(|| {
                        urls.url(&Route::CategoryFeed {
                            slug: category.slug.clone(),
                        })
                    }),
                })
            })
            .collect();
        Views {
            site: *site,
            authors,
            years,
            categories,
        }
    }

    /// The template value of author `id`.
    fn author(&self, id: AuthorId) -> Value {
        let site = &self.site;
        let urls = site.urls;
        let author = &site.corpus.authors[id];
        let made = || {
            Value::from_serializable(&AuthorView {
                name: &author.name,
                sort_name: &author.sort_name,
                slug: &author.slug,
                url: urls.url(&Route::Author {
                    slug: author.slug.clone(),
                    page: 1,
                }),
                paper_count: author.papers.len(),
                claimed_total: author.claimed_total,
                partial: author.is_partial(),
                feed_url: site.config.feeds.then(|| {
                    urls.url(&Route::AuthorFeed {
                        slug: author.slug.clone(),
                    })
                }),
            })
        };
        self.authors[id].get_or_init(made).clone()
    }

    /// The template values of every author, in author order, made in parallel.
    fn all_authors(&self) -> Vec<Value> {
        (0..self.authors.len())
            .into_par_iter()
            .map(|id| self.author(id))
            .collect()
    }

    /// The template value of paper `id`.
    fn paper(&self, id: PaperId) -> Value {
        let site = &self.site;
        let urls = site.urls;
        let paper = &site.corpus.papers[id];
        Value::from_serializable(&PaperView {
            slug: &paper.slug,
            key: &paper.key,
            selected: paper.details.selected,
            venue: paper.details.venue.as_deref(),
            url: urls.url(&Route::Paper {
                slug: paper.slug.clone(),
            }),
            title: &paper.title.plain,
            title_html: &paper.title.html,
            year: paper.year,
            year_url: urls.url(&Route::Year {
                year: paper.year,
                page: 1,
            }),
            authors: paper
                .authors
                .iter()
                .map(|&a| person_link(site, a))
                .collect(),
            byline: byline(site, paper),
            authors_complete: paper.details.complete_authors.is_some(),
            categories: paper
                .categories
                .iter()
                .map(|&c| category_link(site, c))
                .collect(),
        })
    }

    fn papers(&self, ids: &[PaperId]) -> Value {
        Value::from(ids.iter().map(|&id| self.paper(id)).collect::<Vec<_>>())
    }
}

/// The names to show for a paper: the complete author list when an
/// override gives one (linked where the person has a listing), else the
/// listed authors, linked.
fn byline<'a>(site: &Site<'a>, paper: &'a crate::corpus::Paper) -> Vec<PersonView<'a>> {
    let corpus = site.corpus;
    match &paper.details.complete_authors {
        Some(names) => names
            .iter()
            .map(|name| PersonView {
                name,
                url: paper
                    .authors
                    .iter()
                    .find(|&&a| corpus.authors[a].name == *name)
                    .map(|&a| person_link(site, a).url),
            })
            .collect(),
        None => paper
            .authors
            .iter()
            .map(|&a| {
                let link = person_link(site, a);
                PersonView {
                    name: link.name,
                    url: Some(link.url),
                }
            })
            .collect(),
    }
}

fn person_link<'a>(site: &Site<'a>, id: AuthorId) -> PersonLink<'a> {
    let author = &site.corpus.authors[id];
    PersonLink {
        name: &author.name,
        url: site.urls.url(&Route::Author {
            slug: author.slug.clone(),
            page: 1,
        }),
    }
}

fn category_link<'a>(site: &Site<'a>, id: CategoryId) -> CategoryLink<'a> {
    let category = &site.corpus.categories[id];
    CategoryLink {
        code: &category.code,
        name: &category.name,
        url: site.urls.url(&Route::Category {
            slug: category.slug.clone(),
            page: 1,
        }),
    }
}

/// Renders jobs with loaded templates and prepared views.
pub struct Renderer<'a> {
    site: Site<'a>,
    templates: Templates,
    views: Views<'a>,
    /// `corpus.json`'s paper entries kept between builds (`vellum serve`).
    corpus_json_memo: Option<&'a Memo<std::sync::Arc<[u8]>>>,
}

impl<'a> Renderer<'a> {
    /// Prepares a renderer: sets the global `site` value of every template.
    /// `corpus_json_memo` keeps `corpus.json`'s paper entries between
    /// builds (`vellum serve`; `None` for a one-off build).
    pub fn new(
        site: Site<'a>,
        mut templates: Templates,
        views: Views<'a>,
        corpus_json_memo: Option<&'a Memo<std::sync::Arc<[u8]>>>,
    ) -> Renderer<'a> {
        let config = site.config;
        let urls = site.urls;
        let corpus = site.corpus;
        templates.tera.global_context().insert(
            "site",
            &SiteView {
                title: &config.title,
                description: &config.description,
                base_url: urls.base_url(),
                base_path: urls.base_path(),
                language: &config.language,
                paper_count: corpus.papers.len(),
                author_count: corpus.authors.len(),
                year_count: corpus.years.len(),
                category_count: corpus.categories.len(),
                urls: SiteUrls {
                    home: urls.url(&Route::Home),
                    authors: urls.url(&Route::AuthorIndex),
                    years: urls.url(&Route::YearIndex),
                    categories: urls.url(&Route::CategoryIndex),
                },
                stylesheet: urls.url(&Route::Static {
                    path: "style.css".into(),
                }),
                cite_script: urls.url(&Route::Static {
                    path: "cite.js".into(),
                }),
                search_url: config.search.then(|| urls.url(&Route::Search)),
                search_index: urls.url(&Route::Static {
                    path: "search/index.json".into(),
                }),
                search_script: urls.url(&Route::Static {
                    path: "search-ui.js".into(),
                }),
                feed_url: config.feeds.then(|| urls.url(&Route::SiteFeed)),
            },
        );
        Renderer {
            site,
            templates,
            views,
            corpus_json_memo,
        }
    }

    /// Renders `jobs` (of the whole `plan`) in parallel, handing each page
    /// to `sink` as soon as it is rendered and advancing `progress` per
    /// job. Errors: every template or output error, sorted.
    pub fn render_all(
        &self,
        jobs: &[&Job],
        plan: &[Job],
        sink: &dyn Sink,
        progress: Option<&indicatif::ProgressBar>,
    ) -> Result<(), Vec<Diagnostic>> {
        let errors = Diagnostics::new();
        jobs.par_iter().for_each(|job| {
            // `corpus.json` goes to the sink as it is made; every other
            // job's files are made whole, then put.
            let staged = match job {
                Job::CorpusJson => {
                    let path = self.site.urls.output_file(&Route::CorpusJson);
                    let result = sink.put_streamed(&path, &mut |out| {
                        crate::exports::write_corpus_json(&self.site, self.corpus_json_memo, out)
                    });
                    Ok(vec![(path, result)])
                }
                _ => self.render(job, plan).map(|files| {
                    files
                        .into_iter()
                        .map(|(path, bytes)| {
                            let result = sink.put(&path, bytes);
                            (path, result)
                        })
                        .collect()
                }),
            };
            match staged {
                Ok(results) => {
                    if let Some(bar) = progress {
                        bar.inc(1);
                    }
                    for (path, result) in results {
                        if let Err(e) = result {
                            errors.push(Diagnostic::error(
                                "output",
                                0,
                                format!("expected to stage {path}, found {e}"),
                            ));
                        }
                    }
                }
                Err(e) => errors.push(e),
            }
        });
        let errors = errors.into_sorted(false);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Renders one job to its output files and bytes (one file, or the
    /// parts of a split sitemap); `plan` is the whole plan, which the
    /// sitemap lists. Errors: a template error at the template's file and
    /// line, or a content page naming a template that does not exist.
    pub fn render(&self, job: &Job, plan: &[Job]) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
        let site = &self.site;
        let route = site.route(job);
        let file = |route: &Route, bytes| (site.urls.output_file(route), bytes);
        match job {
            Job::Feed(kind) => return Ok(vec![file(&route, crate::feeds::atom(site, *kind))]),
            Job::Robots => return Ok(vec![file(&route, crate::feeds::robots(site))]),
            Job::PaperExport(id, export) => {
                return Ok(vec![file(
                    &route,
                    crate::exports::paper_export(site, *id, *export, Abstract::Included)
                        .into_bytes(),
                )])
            }
            Job::AuthorBib(id) => {
                let bib: Vec<String> = site.corpus.authors[*id]
                    .papers
                    .iter()
                    .map(|&p| {
                        crate::exports::paper_export(site, p, Export::Bibtex, Abstract::Included)
                    })
                    .collect();
                return Ok(vec![file(&route, bib.join("\n").into_bytes())]);
            }
            Job::CorpusJson => {
                let json = crate::exports::corpus_json(site, self.corpus_json_memo);
                return Ok(vec![file(&route, json)]);
            }
            Job::Sitemap => {
                let permalinks: Vec<String> = plan
                    .par_iter()
                    .filter(|job| job.is_listed_page())
                    .map(|job| site.urls.permalink(&site.route(job)))
                    .collect();
                let files = crate::feeds::sitemaps(site, &permalinks);
                return Ok(files.into_iter().map(|(r, b)| file(&r, b)).collect());
            }
            _ => {}
        }
        let mut context = Context::new();
        let (template, title, description) = self.fill(job, &mut context)?;
        let kind = template.trim_end_matches(".html");
        context.insert(
            "page",
            &PageMeta {
                kind,
                title,
                description: description.unwrap_or_else(|| site.config.description.clone()),
                url: site.urls.url(&route),
                permalink: site.urls.permalink(&route),
            },
        );
        let html = self
            .templates
            .tera
            .render(template, &context)
            .map_err(|e| template_error(&e, &self.templates.files, Some(template)))?;
        Ok(vec![file(&route, html.into_bytes())])
    }

    /// Inserts the job's own values; returns the template, the page title
    /// and its description when it has its own.
    fn fill<'j>(
        &'j self,
        job: &Job,
        context: &mut Context,
    ) -> Result<(&'j str, String, Option<String>), Diagnostic> {
        let site = &self.site;
        let corpus = site.corpus;
        let views = &self.views;
        Ok(match *job {
            Job::Home => {
                let recent: Vec<PaperId> =
                    (0..corpus.papers.len().min(site.config.home_recent)).collect();
                context.insert_value("recent", views.papers(&recent));
                let intro = site.content.home.as_ref();
                let intro_html = intro.map(|p| self.expand_shortcodes(p)).transpose()?;
                context.insert("intro", &intro_html);
                let title = intro
                    .and_then(|p| p.front.title.clone())
                    .unwrap_or_else(|| site.config.title.clone());
                let description = intro.and_then(|p| p.front.description.clone());
                ("index.html", title, description)
            }
            Job::AuthorIndex => {
                context.insert_value("authors", Value::from(views.all_authors()));
                (
                    "authors.html",
                    "Authors".to_string(),
                    Some(format!(
                        "{} and their publications.",
                        count(corpus.authors.len(), "author")
                    )),
                )
            }
            Job::Author(id, page) => {
                let author = &corpus.authors[id];
                let range = self.page_range(author.papers.len(), page);
                context.insert_value("author", views.author(id));
                let mut groups: Vec<Value> = Vec::new();
                let slice = &author.papers[range.clone()];
                let mut start = 0;
                while start < slice.len() {
                    let year = corpus.papers[slice[start]].year;
                    let end = start
                        + slice[start..]
                            .iter()
                            .take_while(|&&p| corpus.papers[p].year == year)
                            .count();
                    let mut group = tera::Map::new();
                    group.insert("year".into(), Value::from(year));
                    group.insert("papers".into(), views.papers(&slice[start..end]));
                    groups.push(Value::from(group));
                    start = end;
                }
                context.insert_value("groups", Value::from(groups));
                let profile = site.content.profiles.get(&author.slug);
                context.insert("profile_html", &profile.map(|p| p.html.as_str()));
                context.insert(
                    "homepage",
                    &profile.and_then(|p| p.front.homepage.as_deref()),
                );
                context.insert("orcid", &profile.and_then(|p| p.front.orcid.as_deref()));
                context.insert(
                    "bib_url",
                    &site.config.exports.then(|| {
                        site.urls.url(&Route::AuthorBib {
                            slug: author.slug.clone(),
                        })
                    }),
                );
                let first_page = page == 1;
                let coauthors: Vec<CountedLink> = if first_page {
                    stats::coauthors(corpus, id)
                        .into_iter()
                        .map(|(a, count)| CountedLink::author(site, a, count))
                        .collect()
                } else {
                    Vec::new()
                };
                context.insert("coauthors", &coauthors);
                let years = if first_page {
                    stats::per_year(corpus, &author.papers)
                } else {
                    Vec::new()
                };
                context.insert(
                    "year_chart",
                    &stats::year_chart(&format!("Papers of {} per year", author.name), &years),
                );
                let year_counts: Vec<CountedLink> = years
                    .iter()
                    .map(|&(year, count)| CountedLink {
                        name: year.to_string(),
                        code: String::new(),
                        url: site.urls.url(&Route::Year { year, page: 1 }),
                        count,
                    })
                    .collect();
                context.insert("year_counts", &year_counts);
                self.insert_category_counts(context, first_page, &author.papers);
                self.insert_paginator(context, job, author.papers.len(), page);
                (
                    "author.html",
                    paged_title(&author.name, page),
                    Some(format!(
                        "Publications of {}: {}.",
                        author.name,
                        count(author.papers.len(), "paper")
                    )),
                )
            }
            Job::YearIndex => {
                context.insert_value("years", Value::from(views.years.clone()));
                (
                    "years.html",
                    "Years".to_string(),
                    Some("Publications by year.".to_string()),
                )
            }
            Job::Year(index, page) => {
                let year = &corpus.years[index];
                let range = self.page_range(year.papers.len(), page);
                context.insert_value("year", views.years[index].clone());
                context.insert_value("papers", views.papers(&year.papers[range]));
                self.insert_category_counts(context, page == 1, &year.papers);
                self.insert_paginator(context, job, year.papers.len(), page);
                (
                    "year.html",
                    paged_title(&year.year.to_string(), page),
                    Some(format!(
                        "{} from {}.",
                        count(year.papers.len(), "publication"),
                        year.year
                    )),
                )
            }
            Job::CategoryIndex => {
                let mut groups: Vec<Value> = Vec::new();
                let mut start = 0;
                while start < corpus.categories.len() {
                    let group = &corpus.categories[start].group;
                    let end = start
                        + corpus.categories[start..]
                            .iter()
                            .take_while(|c| &c.group == group)
                            .count();
                    let mut map = tera::Map::new();
                    map.insert("name".into(), Value::from(group.as_str()));
                    map.insert(
                        "categories".into(),
                        Value::from(views.categories[start..end].to_vec()),
                    );
                    groups.push(Value::from(map));
                    start = end;
                }
                context.insert_value("groups", Value::from(groups));
                (
                    "categories.html",
                    "Categories".to_string(),
                    Some("Publications by arXiv category.".to_string()),
                )
            }
            Job::Category(id, page) => {
                let category = &corpus.categories[id];
                let range = self.page_range(category.papers.len(), page);
                context.insert_value("category", views.categories[id].clone());
                context.insert_value("papers", views.papers(&category.papers[range]));
                let top: Vec<CountedLink> = if page == 1 {
                    stats::top_authors(corpus, &category.papers)
                        .into_iter()
                        .map(|(a, count)| CountedLink::author(site, a, count))
                        .collect()
                } else {
                    Vec::new()
                };
                context.insert("top_authors", &top);
                self.insert_paginator(context, job, category.papers.len(), page);
                (
                    "category.html",
                    paged_title(&format!("{} ({})", category.name, category.code), page),
                    Some(format!(
                        "{} in {}.",
                        count(category.papers.len(), "publication"),
                        category.name
                    )),
                )
            }
            Job::Paper(id) => {
                let paper = &corpus.papers[id];
                context.insert_value("paper", views.paper(id));
                context.insert("abstract_html", &paper.abstract_text.html);
                let abstract_plain = paper.abstract_text.plain();
                let description = if paper.abstract_text.is_empty() {
                    paper.title.plain.clone()
                } else {
                    crate::text::summarise(&abstract_plain, DESCRIPTION_CHARS)
                };
                self.insert_scholarly(context, id, &description, &abstract_plain);
                ("paper.html", paper.title.plain.clone(), Some(description))
            }
            Job::Content(index) => {
                let page = &site.content.pages[index];
                let template = self.content_template(page)?;
                let html = self.expand_shortcodes(page)?;
                context.insert("content", &ContentView::new(site, page, &html));
                (template, page.title.clone(), page.front.description.clone())
            }
            Job::NotFound => ("404.html", "Page not found".to_string(), None),
            Job::Search => (
                "search.html",
                "Search".to_string(),
                Some(format!("Search {}.", count(corpus.papers.len(), "paper"))),
            ),
            Job::Alias(_, ref target) => {
                let permalink = site.urls.permalink(target);
                context.insert("target", &permalink);
                ("redirect.html", format!("Moved to {permalink}"), None)
            }
            Job::Feed(_)
            | Job::Sitemap
            | Job::Robots
            | Job::PaperExport(..)
            | Job::AuthorBib(_)
            | Job::CorpusJson => {
                unreachable!("rendered without a template")
            }
        })
    }

    /// A content page's HTML with each `{{ papers(...) }}` shortcode
    /// replaced by its list, rendered with `partials/paper_list.html`.
    /// Errors: an unknown author slug or category code, at the shortcode's line.
    fn expand_shortcodes(&self, page: &ContentPage) -> Result<String, Diagnostic> {
        let mut html = page.html.clone();
        for (n, query) in page.shortcodes.iter().enumerate() {
            let ids = self
                .query_papers(query)
                .map_err(|message| Diagnostic::error(&page.file, query.line, message))?;
            let mut context = Context::new();
            context.insert_value("papers", self.views.papers(&ids));
            let list = self
                .templates
                .tera
                .render("partials/paper_list.html", &context)
                .map_err(|e| {
                    template_error(&e, &self.templates.files, Some("partials/paper_list.html"))
                })?;
            html = html.replacen(&shortcode_placeholder(n), &list, 1);
        }
        Ok(html)
    }

    /// The papers a shortcode lists, in paper order.
    fn query_papers(&self, query: &PaperQuery) -> Result<Vec<PaperId>, String> {
        let corpus = self.site.corpus;
        let mut ids: Vec<PaperId> = match &query.author {
            Some(slug) => {
                let author = corpus
                    .authors
                    .iter()
                    .find(|a| &a.slug == slug)
                    .ok_or_else(|| {
                        format!("expected an author slug in papers(author=...), found `{slug}`")
                    })?;
                let mut ids = author.papers.clone();
                ids.sort_unstable();
                ids
            }
            None => (0..corpus.papers.len()).collect(),
        };
        if let Some(code) = &query.category {
            let category = corpus
                .categories
                .iter()
                .position(|c| &c.code == code)
                .ok_or_else(|| format!("expected a category code of the site in papers(category=...), found `{code}`"))?;
            ids.retain(|&p| corpus.papers[p].categories.contains(&category));
        }
        if let Some(year) = query.year {
            ids.retain(|&p| corpus.papers[p].year == year);
        }
        if query.selected {
            ids.retain(|&p| corpus.papers[p].details.selected);
        }
        if let Some(limit) = query.limit {
            ids.truncate(limit);
        }
        Ok(ids)
    }

    /// Categories of `papers` with counts, as `category_counts` (empty
    /// unless on a term's first page).
    fn insert_category_counts(&self, context: &mut Context, first_page: bool, papers: &[PaperId]) {
        let site = &self.site;
        let counts: Vec<CountedLink> = if first_page {
            stats::per_category(site.corpus, papers)
                .into_iter()
                .map(|(c, count)| {
                    let category = &site.corpus.categories[c];
                    CountedLink {
                        name: category.name.clone(),
                        code: category.code.clone(),
                        url: site.urls.url(&Route::Category {
                            slug: category.slug.clone(),
                            page: 1,
                        }),
                        count,
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        context.insert("category_counts", &counts);
    }

    /// A paper page's identifiers and links, complete author list, Cite
    /// block, and citation, OpenGraph and JSON-LD metadata.
    fn insert_scholarly(
        &self,
        context: &mut Context,
        id: PaperId,
        description: &str,
        abstract_plain: &str,
    ) {
        let site = &self.site;
        let corpus = site.corpus;
        let paper = &corpus.papers[id];
        let details = &paper.details;
        context.insert(
            "details",
            &DetailsView {
                arxiv_id: details.arxiv_id.as_deref(),
                arxiv_url: details
                    .arxiv_id
                    .as_ref()
                    .map(|id| format!("https://arxiv.org/abs/{id}")),
                doi: details.doi.as_deref(),
                doi_url: details.doi.as_ref().map(|d| format!("https://doi.org/{d}")),
                url: details.url.as_deref(),
                pdf: crate::scholar::pdf_url(paper),
                code: details.code.as_deref(),
                venue: details.venue.as_deref(),
                note_html: &details.note_html,
                selected: details.selected,
            },
        );
        let complete = details
            .complete_authors
            .as_ref()
            .map(|_| byline(site, paper));
        context.insert("complete_authors", &complete);
        let files = site.config.paper_exports.then(|| {
            Export::ALL.map(|export| site.urls.url(&site.route(&Job::PaperExport(id, export))))
        });
        context.insert(
            "cite",
            &CiteView {
                key: &paper.key,
                bibtex: crate::exports::paper_export(site, id, Export::Bibtex, Abstract::Left),
                ris: crate::exports::paper_export(site, id, Export::Ris, Abstract::Left),
                csl: crate::exports::paper_export(site, id, Export::Csl, Abstract::Left),
                bib_url: files.as_ref().map(|f| f[0].clone()),
                ris_url: files.as_ref().map(|f| f[1].clone()),
                csl_url: files.as_ref().map(|f| f[2].clone()),
            },
        );
        context.insert(
            "citation_tags",
            &crate::scholar::citation_tags(site, paper, abstract_plain),
        );
        context.insert(
            "og_tags",
            &crate::scholar::open_graph(site, paper, description),
        );
        context.insert(
            "json_ld",
            &crate::scholar::json_ld(site, paper, abstract_plain),
        );
    }

    fn content_template<'j>(&'j self, page: &'j ContentPage) -> Result<&'j str, Diagnostic> {
        let name = content_template_name(page);
        if self.templates.contains(name) {
            Ok(name)
        } else {
            Err(Diagnostic::error(
                &page.file,
                page.template_line,
                format!("expected an existing template, found `{name}` (not in the theme or templates/)"),
            ))
        }
    }

    fn page_range(&self, items: usize, page: usize) -> std::ops::Range<usize> {
        let per = self.site.config.paginate_by;
        let start = (page - 1) * per;
        start.min(items)..(start + per).min(items)
    }

    fn insert_paginator(&self, context: &mut Context, job: &Job, items: usize, page: usize) {
        let site = &self.site;
        let total_pages = site.pages_for(items);
        let url_of = |n: usize| {
            let at = match *job {
                Job::Author(id, _) => Job::Author(id, n),
                Job::Year(i, _) => Job::Year(i, n),
                Job::Category(id, _) => Job::Category(id, n),
                ref other => other.clone(),
            };
            site.urls.url(&site.route(&at))
        };
        let range = self.page_range(items, page);
        context.insert(
            "paginator",
            &Paginator {
                current: page,
                total_pages,
                total_items: items,
                first_item: range.start + 1,
                last_item: range.end,
                previous: (page > 1).then(|| url_of(page - 1)),
                next: (page < total_pages).then(|| url_of(page + 1)),
                pages: pager_numbers(page, total_pages)
                    .into_iter()
                    .map(|n| PagerLink {
                        number: n,
                        url: if n == 0 { String::new() } else { url_of(n) },
                    })
                    .collect(),
            },
        );
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

/// The page numbers a pager shows: the first, the last, and those within
/// [`PAGER_WINDOW`] of `current`, with 0 marking each gap. Constant size,
/// so a term with thousands of pages costs no more per page than one with three.
fn pager_numbers(current: usize, total: usize) -> Vec<usize> {
    let low = current.saturating_sub(PAGER_WINDOW).max(1);
    let high = (current + PAGER_WINDOW).min(total);
    let mut candidates: Vec<usize> = std::iter::once(1)
        .chain(low..=high)
        .chain(std::iter::once(total))
        .collect();
    candidates.dedup();
    let mut numbers = Vec::with_capacity(candidates.len() + 2);
    for n in candidates {
        if numbers.last().is_some_and(|&last: &usize| last + 1 != n) {
            numbers.push(0);
        }
        numbers.push(n);
    }
    numbers
}

/// `1 paper`, `2 papers`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn paged_title(title: &str, page: usize) -> String {
    if page > 1 {
        format!("{title} (page {page})")
    } else {
        title.to_string()
    }
}

/// A term with a count: a co-author, a year, a category, a top author.
#[derive(Serialize)]
struct CountedLink {
    name: String,
    code: String,
    url: String,
    count: usize,
}

impl CountedLink {
    fn author(site: &Site, id: AuthorId, count: usize) -> CountedLink {
        let link = person_link(site, id);
        CountedLink {
            name: link.name.to_string(),
            code: String::new(),
            url: link.url,
            count,
        }
    }
}

#[derive(Serialize)]
struct DetailsView<'a> {
    arxiv_id: Option<&'a str>,
    arxiv_url: Option<String>,
    doi: Option<&'a str>,
    doi_url: Option<String>,
    url: Option<&'a str>,
    pdf: Option<String>,
    code: Option<&'a str>,
    venue: Option<&'a str>,
    note_html: &'a str,
    selected: bool,
}

#[derive(Serialize)]
struct PersonView<'a> {
    name: &'a str,
    url: Option<String>,
}

#[derive(Serialize)]
struct CiteView<'a> {
    key: &'a str,
    bibtex: String,
    ris: String,
    csl: String,
    bib_url: Option<String>,
    ris_url: Option<String>,
    csl_url: Option<String>,
}

#[derive(Serialize)]
struct ContentView<'a> {
    title: &'a str,
    html: &'a str,
    date: Option<String>,
    is_section: bool,
    children: Vec<ChildView<'a>>,
}

#[derive(Serialize)]
struct ChildView<'a> {
    title: &'a str,
    url: String,
    description: Option<&'a str>,
    date: Option<String>,
}

impl<'a> ContentView<'a> {
    fn new(site: &Site<'a>, page: &'a ContentPage, html: &'a str) -> ContentView<'a> {
        let children = if page.is_section {
            site.content
                .section_children(&page.path)
                .into_iter()
                .map(|child| ChildView {
                    title: &child.title,
                    url: site.urls.url(&Route::Content {
                        path: child.path.clone(),
                    }),
                    description: child.front.description.as_deref(),
                    date: child.front.date.map(|d| d.to_string()),
                })
                .collect()
        } else {
            Vec::new()
        };
        ContentView {
            title: &page.title,
            html,
            date: page.front.date.map(|d| d.to_string()),
            is_section: page.is_section,
            children,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pager_numbers_are_windowed() {
        assert_eq!(pager_numbers(1, 1), [1]);
        assert_eq!(pager_numbers(2, 3), [1, 2, 3]);
        assert_eq!(pager_numbers(1, 9), [1, 2, 3, 0, 9]);
        assert_eq!(pager_numbers(5, 9), [1, 0, 3, 4, 5, 6, 7, 0, 9]);
        assert_eq!(pager_numbers(9, 9), [1, 0, 7, 8, 9]);
        assert_eq!(pager_numbers(4, 9), [1, 2, 3, 4, 5, 6, 0, 9]);
        assert_eq!(pager_numbers(5000, 5000).len(), 5);
    }
}
