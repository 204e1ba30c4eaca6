//! The plan: every job of the site with the output file it writes, made
//! before anything is rendered, so that clashes between generated pages,
//! content pages and aliases are found first, and incremental rebuilds
//! can tell which jobs changed.

use crate::corpus::PaperId;
use crate::diagnostics::Diagnostic;
use crate::permalink::Route;
use crate::render::jobs::{Export, FeedKind, Job};
use crate::render::site::Site;
use rayon::prelude::*;
use std::collections::BTreeMap;

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
/// output path is also another page's, naming both; an alias whose path,
/// or a folder on its way, is a generated file or one of the
/// `static_files` (output paths).
pub fn plan(
    site: &Site,
    static_files: &rustc_hash::FxHashSet<String>,
) -> Result<Plan, Vec<Diagnostic>> {
    let corpus = site.corpus;
    // Sized first: the generated jobs are most of a large site's.
    let term_pages = |lens: &mut dyn Iterator<Item = usize>| -> usize {
        lens.map(|len| site.pages_for(len)).sum()
    };
    let per_paper = 1 + if site.config.paper_exports {
        Export::ALL.len()
    } else {
        0
    };
    // Five index pages, at most 27 letter pages, the site's feed.
    let count = 33
        + term_pages(&mut corpus.authors.iter().map(|a| a.papers.len()))
        + term_pages(&mut corpus.years.iter().map(|y| y.papers.len()))
        + term_pages(&mut corpus.categories.iter().map(|c| c.papers.len()))
        + per_paper * corpus.papers.len()
        + corpus.authors.len();
    let mut jobs = Vec::with_capacity(count);
    jobs.extend([
        Job::Home,
        Job::AuthorIndex,
        Job::YearIndex,
        Job::CategoryIndex,
        Job::NotFound,
    ]);
    if corpus.authors_by_letter() {
        let initials = corpus.initials();
        jobs.extend(initials[1..].iter().map(|i| Job::AuthorLetter(i.letter)));
    }
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
    for job in [Job::Robots, Job::Sitemap] {
        let file = site.urls.output_file(&site.route(&job));
        // A `robots.txt` of the site's `static/` (or the theme's) is the
        // site's own: it replaces the generated one.
        if job == Job::Robots && static_files.contains(&file) {
            continue;
        }
        added.insert(file.clone(), jobs.len());
        files.push(file);
        jobs.push(job);
    }
    for alias in aliases(site) {
        let path = match crate::permalink::normalise_alias(alias.path) {
            Ok(path) => path,
            Err(why) => {
                errors.push(Diagnostic::error(
                    alias.file,
                    alias.line,
                    format!(
                        "expected an alias to be a site path such as `people/name/`, found `{}`, which has {why}",
                        shown(alias.path)
                    ),
                ));
                continue;
            }
        };
        let job = Job::Alias(path, alias.target);
        let file = site.urls.output_file(&site.route(&job));
        // The file itself, or a folder on its way that is a file of the
        // site (`corpus.json/` needs `corpus.json` to be a folder).
        let ancestors = file.match_indices('/').map(|(at, _)| &file[..at]);
        let clash = std::iter::once(file.as_str())
            .chain(ancestors)
            .find_map(|path| {
                let other = match owner(&added, path) {
                    Some(other) => match alias_of.get(&other) {
                        Some(of) => format!("alias of {of}"),
                        None => describe(site, &jobs[other]),
                    },
                    None if site.config.search
                        && path == "search"
                        && file != "search/index.html" =>
                    {
                        "folder of the search index".to_string()
                    }
                    None if static_files.contains(path) => {
                        "static file copied from the theme or static/".to_string()
                    }
                    None => return None,
                };
                Some((path, other))
            });
        if let Some((path, other)) = clash {
            errors.push(Diagnostic::error(
                alias.file,
                alias.line,
                format!(
                    "expected alias `{}` to be a free path, found /{path} which is the {other}; \
                     choose another old path or remove the alias",
                    shown(alias.path)
                ),
            ));
            continue;
        }
        alias_of.insert(jobs.len(), alias.of);
        added.insert(file.clone(), jobs.len());
        files.push(file);
        jobs.push(job);
    }
    // A paper whose slug changed when slugs began to name the letters of
    // math keeps its former URL as a redirect, unless something else of
    // the site (a declared alias, another page) is there.
    for (id, former) in corpus.former_slugs() {
        let paper = &corpus.papers[id];
        let job = Job::Alias(
            format!("papers/{former}/"),
            Route::Paper {
                slug: paper.slug.clone(),
            },
        );
        let file = site.urls.output_file(&site.route(&job));
        if owner(&added, &file).is_some() {
            continue;
        }
        alias_of.insert(jobs.len(), format!("paper `{}`", paper.title.plain));
        added.insert(file.clone(), jobs.len());
        files.push(file);
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
            corpus
                .papers
                .iter()
                .map(|p| (p.slug.as_str(), &**p))
                .collect()
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

/// An alias as written, for a message: control characters escaped, cut
/// after 120 characters.
fn shown(alias: &str) -> String {
    let escaped = alias.escape_debug().to_string();
    match escaped.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &escaped[..at]),
        None => escaped,
    }
}

fn describe(site: &Site, job: &Job) -> String {
    let paper = |id: PaperId| &site.corpus.papers[id].title.plain;
    match *job {
        Job::Author(id, _) => format!("page of author {}", site.corpus.authors[id].name),
        Job::Paper(id) => format!("page of paper `{}`", paper(id)),
        Job::Category(id, _) => format!("page of category {}", site.corpus.categories[id].code),
        Job::Year(index, _) => format!("page of year {}", site.corpus.years[index].year),
        Job::Content(index) => format!("content page {}", site.content.pages[index].file.display()),
        Job::Feed(FeedKind::Site) => "site's feed".to_string(),
        Job::Feed(FeedKind::Author(id)) => {
            format!("feed of author {}", site.corpus.authors[id].name)
        }
        Job::Feed(FeedKind::Category(id)) => {
            format!("feed of category {}", site.corpus.categories[id].code)
        }
        Job::PaperExport(id, export) => {
            format!("{} export of paper `{}`", export.ext(), paper(id))
        }
        Job::AuthorBib(id) => format!("BibTeX file of author {}", site.corpus.authors[id].name),
        Job::CorpusJson => "corpus export".to_string(),
        Job::Search => "search page".to_string(),
        Job::NotFound => "page shown for a missing page (404)".to_string(),
        Job::Sitemap => "sitemap".to_string(),
        Job::Robots => "file telling crawlers what to index".to_string(),
        Job::Alias(..) => "alias".to_string(),
        Job::AuthorLetter(letter) => format!("authors index of letter {letter}"),
        Job::Home | Job::AuthorIndex | Job::YearIndex | Job::CategoryIndex => {
            "index page".to_string()
        }
    }
}
