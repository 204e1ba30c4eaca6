//! The plan: every job of the site with the hash of the output file it
//! writes, made before anything is rendered, so that clashes between
//! generated pages, content pages and aliases are found first, and
//! incremental rebuilds can tell which jobs changed. The output files
//! themselves are not kept (478,000 at 100,000 papers): a job's is made
//! again where it is needed ([`output_file`]).

use crate::corpus::PaperId;
use crate::diagnostics::Diagnostic;
use crate::permalink::FormerSlugs;
use crate::permalink::Route;
use crate::render::jobs::{Export, FeedKind, Job};
use crate::render::site::Site;
use rayon::prelude::*;
use std::sync::Arc;

/// Every job of a site with the hash of the output file it writes, in
/// the same order.
#[derive(Debug)]
pub struct Plan {
    /// The jobs: those of the plan this one was patched from when they
    /// are the same.
    pub jobs: Arc<Vec<Job>>,
    /// `paths[i]` is the XXH3-64 hash of the output file of `jobs[i]`
    /// ([`output_file`]).
    pub paths: Vec<u64>,
    /// Path hash → the job writing that file.
    by_path: rustc_hash::FxHashMap<u64, u32>,
    /// The index of the first paper's page job, and of its first export
    /// job when papers have exports.
    papers_at: usize,
    exports_at: Option<usize>,
    /// The index of the first alias job: the aliases come last.
    aliases_at: usize,
    /// The papers' former slugs, whose aliases come after those declared.
    former: FormerSlugs,
    /// How many jobs write listed pages ([`Job::is_listed_page`]), those
    /// the sitemap lists.
    pub listed_pages: usize,
    /// A hash of the listed pages' paths in plan order: the wrapping sum
    /// of [`listed_term`] over them, so that a patched plan changes it
    /// term by term.
    pub listed_hash: u64,
}

/// What the listed page at plan index `index`, whose path hashes to
/// `path`, adds to [`Plan::listed_hash`].
fn listed_term(index: usize, path: u64) -> u64 {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&(index as u64).to_le_bytes());
    bytes[8..].copy_from_slice(&path.to_le_bytes());
    xxhash_rust::xxh3::xxh3_64(&bytes)
}

impl Plan {
    /// The job writing the output file `file` of `site`, if any: found by
    /// the hash of its path, then checked.
    pub fn job_of(&self, site: &Site, file: &str) -> Option<usize> {
        let &job = self.by_path.get(&path_hash(file))?;
        let job = job as usize;
        (output_file(site, &self.jobs[job]) == file).then_some(job)
    }

    /// Whether a job writes a file whose path hashes to `hash`.
    pub fn has_path(&self, hash: u64) -> bool {
        self.by_path.contains_key(&hash)
    }

    /// Lets go of the paths' hashes, keeping the jobs, when no file will
    /// be looked up again.
    pub fn drop_paths(&mut self) {
        self.paths = Vec::new();
        self.by_path = Default::default();
    }

    /// The index of the sitemap's job.
    pub fn sitemap_job(&self) -> usize {
        // The sitemap is planned last before the aliases.
        self.aliases_at - 1
    }

    /// Room for `more` jobs, made once.
    fn reserve(&mut self, more: usize) {
        self.paths.reserve_exact(more);
        self.by_path.reserve(more);
        Arc::make_mut(&mut self.jobs).reserve_exact(more);
    }

    /// Adds `job`, which writes `file`.
    fn push(&mut self, job: Job, file: &str) {
        let path = path_hash(file);
        if job.is_listed_page() {
            self.listed_pages += 1;
            self.listed_hash = self
                .listed_hash
                .wrapping_add(listed_term(self.jobs.len(), path));
        }
        self.by_path.insert(path, self.jobs.len() as u32);
        self.paths.push(path);
        Arc::make_mut(&mut self.jobs).push(job);
    }

    /// The plan of `site`, made from this one, the plan of a site of the
    /// same shape (the same jobs but aliases: the same content,
    /// configuration and static files, a corpus with as many papers and
    /// the same terms with as many pages) whose papers but `changed` are
    /// those of `site`'s corpus at the same ids
    /// ([`crate::serve::changes`]): the changed papers' jobs get their
    /// paths again and the aliases are planned again (the former slugs
    /// worked out again only when a changed title may move them,
    /// [`FormerSlugs::patched`]); the jobs are this plan's when the
    /// aliases are the same. Returns it with the old path hashes of the
    /// jobs planned again (those still planned elsewhere included: the
    /// caller keeps those it no longer has); `None` when a changed paper's
    /// file is another job's (planned anew, the clash is reported).
    #[allow(clippy::type_complexity)]
    pub fn patched(
        &self,
        site: &Site,
        changed: &[PaperId],
        static_files: &rustc_hash::FxHashSet<String>,
    ) -> Option<(Result<Plan, Vec<Diagnostic>>, Vec<u64>)> {
        let corpus = site.corpus;
        let former = self
            .former
            .patched(changed.iter().map(|&id| (id, corpus.title_slug(id))))
            .unwrap_or_else(|| corpus.former_slugs());
        let mut plan = Plan {
            jobs: Arc::clone(&self.jobs),
            paths: self.paths.clone(),
            by_path: self.by_path.clone(),
            papers_at: self.papers_at,
            exports_at: self.exports_at,
            aliases_at: self.aliases_at,
            former,
            listed_pages: self.listed_pages,
            listed_hash: self.listed_hash,
        };
        let mut replaced: Vec<usize> = Vec::new();
        for &id in changed {
            replaced.push(self.papers_at + id);
            if let Some(at) = self.exports_at {
                replaced.extend((0..Export::ALL.len()).map(|k| at + Export::ALL.len() * id + k));
            }
        }
        // A job's old path leaves the index unless another job has it now.
        let forget = |by_path: &mut rustc_hash::FxHashMap<u64, u32>, index: usize| {
            if by_path.get(&self.paths[index]) == Some(&(index as u32)) {
                by_path.remove(&self.paths[index]);
            }
        };
        for &index in &replaced {
            forget(&mut plan.by_path, index);
        }
        for &index in &replaced {
            let path = path_hash(&output_file(site, &plan.jobs[index]));
            if plan.by_path.insert(path, index as u32).is_some() {
                return None;
            }
            if plan.jobs[index].is_listed_page() {
                plan.listed_hash = plan
                    .listed_hash
                    .wrapping_sub(listed_term(index, self.paths[index]))
                    .wrapping_add(listed_term(index, path));
            }
            plan.paths[index] = path;
        }
        let mut gone: Vec<u64> = replaced.iter().map(|&index| self.paths[index]).collect();
        let mut errors = Vec::new();
        let aliases = plan_aliases(site, static_files, &plan, &mut errors);
        if !aliases
            .iter()
            .map(|alias| &alias.job)
            .eq(&self.jobs[self.aliases_at..])
        {
            // No alias is a listed page: `listed_hash` keeps its terms.
            for index in self.aliases_at..self.jobs.len() {
                forget(&mut plan.by_path, index);
                gone.push(self.paths[index]);
            }
            Arc::make_mut(&mut plan.jobs).truncate(self.aliases_at);
            plan.paths.truncate(self.aliases_at);
            for alias in aliases {
                plan.push(alias.job, &alias.file);
            }
        }
        let made = match errors.is_empty() {
            true => Ok(plan),
            false => Err(errors),
        };
        Some((made, gone))
    }
}

/// The output file of `job` (relative path, `/`-separated:
/// `papers/fast-graphs/index.html`).
pub fn output_file(site: &Site, job: &Job) -> String {
    site.urls.output_file(&site.route(job))
}

/// The hash of an output file, as [`Plan::paths`] holds it.
pub fn path_hash(file: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(file.as_bytes())
}

/// Plans every page of the site. Errors: a content page or alias whose
/// output path is also another page's, naming both; an alias whose path,
/// or a folder on its way, is a generated file or one of the
/// `static_files` (output paths).
pub fn plan(
    site: &Site,
    static_files: &rustc_hash::FxHashSet<String>,
) -> Result<Plan, Vec<Diagnostic>> {
    let count = planned_count(site);
    let generated = generated_jobs(site, count);
    let mut plan = Plan::of_generated(site, generated, count);
    let mut errors = Vec::new();
    for (index, page) in site.content.pages.iter().enumerate() {
        let job = Job::Content(index);
        let file = output_file(site, &job);
        match plan.job_of(site, &file) {
            Some(other) => errors.push(Diagnostic::error(
                &page.file,
                1,
                format!(
                    "expected a path of its own, found /{} which is also the generated {}",
                    site.urls.site_path(&site.route(&job)),
                    describe(site, &plan.jobs[other])
                ),
            )),
            None => plan.push(job, &file),
        }
    }
    let corpus = site.corpus;
    if site.config.feeds {
        let feeds = std::iter::once(Job::Feed(FeedKind::Site))
            .chain((0..corpus.authors.len()).map(|id| Job::Feed(FeedKind::Author(id))))
            .chain((0..corpus.categories.len()).map(|id| Job::Feed(FeedKind::Category(id))));
        for job in feeds {
            let file = output_file(site, &job);
            plan.push(job, &file);
        }
    }
    for job in [Job::Robots, Job::Sitemap] {
        let file = output_file(site, &job);
        // A `robots.txt` of the site's `static/` (or the theme's) is the
        // site's own: it replaces the generated one.
        if job == Job::Robots && static_files.contains(&file) {
            continue;
        }
        plan.push(job, &file);
    }
    plan.aliases_at = plan.jobs.len();
    let aliases = plan_aliases(site, static_files, &plan, &mut errors);
    plan.reserve(aliases.len());
    for alias in aliases {
        plan.push(alias.job, &alias.file);
    }
    if errors.is_empty() {
        Ok(plan)
    } else {
        Err(errors)
    }
}

/// How many jobs the plan of `site` holds but its aliases, which are
/// reserved once known: the generated jobs, the content pages and the
/// feeds.
fn planned_count(site: &Site) -> usize {
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
    // Five index pages, at most 26 letter pages, `corpus.json`, search,
    // `robots.txt` and the sitemap; the aliases are reserved once known.
    // Sized so, the vectors and the map are never grown by doubling,
    // which leaves up to half a vector unused (measured in 7ed13a0).
    let feeds = if site.config.feeds {
        1 + corpus.authors.len() + corpus.categories.len()
    } else {
        0
    };
    35 + term_pages(&mut corpus.authors.iter().map(|a| a.papers.len()))
        + term_pages(&mut corpus.years.iter().map(|y| y.papers.len()))
        + term_pages(&mut corpus.categories.iter().map(|c| c.papers.len()))
        + per_paper * corpus.papers.len()
        + corpus.authors.len()
        + site.content.pages.len()
        + feeds
}

/// The generated jobs of a site, in plan order, in a vector with room for
/// `count` jobs; with the index of the first paper's page job, and of its
/// first export job when papers have exports.
struct Generated {
    jobs: Vec<Job>,
    papers_at: usize,
    exports_at: Option<usize>,
}

/// The generated jobs of `site` ([`Generated`]): the index pages, the
/// term pages, the papers' pages and exports, the exports and search.
fn generated_jobs(site: &Site, count: usize) -> Generated {
    let corpus = site.corpus;
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
    let papers_at = jobs.len();
    jobs.extend((0..corpus.papers.len()).map(Job::Paper));
    let exports_at = site.config.paper_exports.then_some(jobs.len());
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
    Generated {
        jobs,
        papers_at,
        exports_at,
    }
}

impl Plan {
    /// The plan of `site`'s generated jobs, with room for `count` jobs
    /// (the aliases are reserved once known).
    fn of_generated(site: &Site, generated: Generated, count: usize) -> Plan {
        let Generated {
            jobs,
            papers_at,
            exports_at,
        } = generated;
        // Each generated file's hash, made in a buffer each thread reuses.
        let mut paths: Vec<u64> = Vec::with_capacity(count);
        jobs.par_iter()
            .map_init(String::new, |file, job| {
                file.clear();
                site.urls.push_output_file(&site.route(job), file);
                path_hash(file)
            })
            .collect_into_vec(&mut paths);
        let mut by_path: rustc_hash::FxHashMap<u64, u32> =
            rustc_hash::FxHashMap::with_capacity_and_hasher(count + 64, Default::default());
        by_path.extend(
            paths
                .iter()
                .enumerate()
                .map(|(index, &path)| (path, index as u32)),
        );
        let mut plan = Plan {
            jobs: Arc::new(jobs),
            paths,
            by_path,
            papers_at,
            exports_at,
            aliases_at: 0,
            former: site.corpus.former_slugs(),
            listed_pages: 0,
            listed_hash: 0,
        };
        let listed: Vec<u64> = plan
            .jobs
            .par_iter()
            .zip(&plan.paths)
            .enumerate()
            .filter(|(_, (job, _))| job.is_listed_page())
            .map(|(index, (_, &path))| listed_term(index, path))
            .collect();
        plan.listed_pages = listed.len();
        plan.listed_hash = listed.iter().fold(0, |sum, &term| sum.wrapping_add(term));
        plan
    }
}

/// An alias planned: its job, output file, and what it is the alias of.
struct PlannedAlias {
    job: Job,
    file: String,
    of: String,
}

/// The aliases planned so far, with an index of their files' hashes.
#[derive(Default)]
struct PlannedAliases {
    aliases: Vec<PlannedAlias>,
    by_path: rustc_hash::FxHashMap<u64, usize>,
}

impl PlannedAliases {
    fn add(&mut self, alias: PlannedAlias) {
        self.by_path
            .insert(path_hash(&alias.file), self.aliases.len());
        self.aliases.push(alias);
    }

    /// The alias planned at the output file `path`, if any.
    fn at(&self, path: &str) -> Option<&PlannedAlias> {
        let &at = self.by_path.get(&path_hash(path))?;
        Some(&self.aliases[at]).filter(|alias| alias.file == path)
    }
}

/// The aliases of `site`, to come last in `plan`, whose jobs before
/// [`Plan::aliases_at`] are planned: those declared, then those at the
/// former slugs of papers ([`Plan::former`]). Errors: an alias that is no
/// site path, or whose path, or a folder on its way, is a file of the
/// site.
fn plan_aliases(
    site: &Site,
    static_files: &rustc_hash::FxHashSet<String>,
    plan: &Plan,
    errors: &mut Vec<Diagnostic>,
) -> Vec<PlannedAlias> {
    let corpus = site.corpus;
    let mut planned = PlannedAliases::default();
    // What has the output file `path` already, if anything.
    let taken = |path: &str, planned: &PlannedAliases| {
        if let Some(alias) = planned.at(path) {
            return Some(format!("alias of {}", alias.of));
        }
        let job = plan
            .job_of(site, path)
            .filter(|&job| job < plan.aliases_at)?;
        Some(describe(site, &plan.jobs[job]))
    };
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
        let file = output_file(site, &job);
        // The file itself, or a folder on its way that is a file of the
        // site (`corpus.json/` needs `corpus.json` to be a folder).
        let ancestors = file.match_indices('/').map(|(at, _)| &file[..at]);
        let clash = std::iter::once(file.as_str())
            .chain(ancestors)
            .find_map(|path| {
                let other = match taken(path, &planned) {
                    Some(other) => other,
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
        planned.add(PlannedAlias {
            job,
            file,
            of: alias.of,
        });
    }
    // A paper whose slug changed when slugs began to name the letters of
    // math keeps its former URL as a redirect, unless something else of
    // the site (a declared alias, another page) is there.
    for (id, former) in &plan.former.found {
        let paper = &corpus.papers[*id];
        let job = Job::Alias(
            format!("papers/{former}/"),
            Route::Paper {
                slug: paper.slug.clone(),
            },
        );
        let file = output_file(site, &job);
        if taken(&file, &planned).is_some() {
            continue;
        }
        planned.add(PlannedAlias {
            job,
            file,
            of: format!("paper `{}`", paper.title.plain()),
        });
    }
    planned.aliases
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
            of: format!("paper `{}`", paper.title.plain()),
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
    let paper = |id: PaperId| site.corpus.papers[id].title.plain();
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
