//! The build driver: `vellum build`'s pipeline, one call per step, each
//! timed under the name `--verbose` prints ([`timings`]):
//!
//! - `read`: the site's files ([`crate::input::read`]);
//! - `parse`: the listings ([`crate::corpus::listings`]); `content`: the
//!   Markdown pages ([`crate::input::content`]);
//! - `corpus`: the merge into one corpus ([`crate::corpus`]) and the
//!   per-paper overrides ([`crate::corpus::overrides`]);
//! - `templates`, then `plan`: every page ([`crate::render::plan`]); the
//!   static files are staged;
//! - `select` (incremental rebuilds only): which pages to render again;
//! - `search`: the search index; then `render`: every page, in parallel,
//!   into the sink ([`crate::render`], [`crate::output`]);
//! - `write`: the sink's commit, only when there is no error.
//!
//! Every problem is collected in one [`BuildReport`]; a failed build aborts
//! the sink, so an output directory is left as it was.
//!
//! Incremental rebuilds (`vellum serve`) enter through one seam,
//! [`Incremental`]: when [`build_with`] is lent one, the driver asks it at
//! each stage for what the last build already made (the list of listings,
//! parsed listings, the merged corpus, which pages to render, the search
//! index) and tells it what this build committed. The result equals a
//! full build's.

pub mod timings;

use crate::corpus::bibliography::{self, BibPapers};
use crate::corpus::categories::Taxonomy;
use crate::corpus::listings::{self, ParsedListing};
use crate::corpus::{overrides, Corpus, NameVariant};
use crate::diagnostics::{Diagnostic, Diagnostics, Severity};
use crate::input::bibtex::BibFile;
use crate::input::chars;
use crate::input::config::Config;
use crate::input::content::{self, Content};
use crate::input::{self, InputFile, SeedFiles};
use crate::output::{Sink, StoredFile, WriteStats};
use crate::permalink::{Route, UrlMap};
use crate::render::jobs::Job;
use crate::render::plan::{self, Plan};
use crate::render::site::Site;
use crate::render::templates::Templates;
use crate::render::views::Views;
use crate::render::{search, Renderer, Snapshot};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use timings::Timings;

/// What to build and how.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// The site root: holds `site.toml`, `seeds/`, `content/`, `themes/`.
    pub root: PathBuf,
    /// Replaces `base_url` from `site.toml` (absolute http(s) URL).
    pub base_url: Option<String>,
    /// Include content pages with `draft = true`.
    pub drafts: bool,
    /// Treat warnings as errors.
    pub strict: bool,
    /// Render even when inputs have errors, so one run finds every problem
    /// (`vellum check`); the sink is still aborted.
    pub keep_going: bool,
    /// Advanced once per rendered job; hidden unless the caller shows it.
    pub progress: Option<indicatif::ProgressBar>,
    /// Leave the search index and a changed `corpus.json` out of the
    /// build; [`BuildReport::exports`] makes them afterwards. `vellum
    /// serve` announces the reload first: a page does not wait for the
    /// site's data files, and a request for one waits until it is made.
    pub defer_exports: bool,
    /// The input paths, relative to `root`, that changed since the last
    /// build with the same [`Incremental`] ([`build_with`]), when the caller
    /// knows every one of them (`vellum serve`'s file watcher). `seeds/` is
    /// then neither walked nor stamped again: the last build's list of
    /// listings is patched with these paths, and only these are read. A
    /// path under `seeds/` that is no listing (a directory moved in, say)
    /// makes the build walk `seeds/` again. `None`: every listing's stamp
    /// (size, modification and change times, inode) is read.
    pub changed_paths: Option<Vec<PathBuf>>,
    /// Keep what renders the pages again ([`BuildReport::snapshot`]), for
    /// a sink that does not keep them ([`crate::output::MemorySink::on_request`]).
    pub snapshot: bool,
}

/// The seam through which incremental rebuilds enter the driver: what one
/// build keeps for the next, asked for at each stage. Implemented by
/// `vellum serve`'s [`crate::serve::cache::RebuildCache`]: a listing whose
/// bytes are unchanged is not parsed again, a search index whose inputs
/// are unchanged is not built again, and a page whose fingerprint is
/// unchanged is carried over by the sink. A build without one makes
/// everything anew. Builds run one at a time, so it is borrowed
/// mutably for one build, then for its [`DeferredExports::make`].
pub trait Incremental: std::fmt::Debug {
    /// The files under `root`'s `seeds/`: the last build's with the
    /// listings of `changed` (relative paths) added or removed as they are
    /// now on disk; `None` when there are no last ones or they cannot be
    /// patched (then `seeds/` is walked).
    fn patched_listings(&mut self, root: &Path, changed: &[PathBuf]) -> Option<Arc<SeedFiles>>;

    /// The files under `seeds/` this build found (`None`: it stopped
    /// before knowing them), for the next build to patch, and whether
    /// only listings changed since the last build: when not, the last
    /// committed build's plan can no longer be patched (the build in
    /// between may have failed, so the paths it was told changed are not
    /// all that changed since that commit).
    fn found_listings(&mut self, seeds: Option<Arc<SeedFiles>>, only_listings: bool);

    /// Reads and parses the listings of `paths`, reusing those that did
    /// not change; `changed` (relative paths), when given, names every
    /// listing that may have. Errors go to `diagnostics`.
    fn parse(
        &mut self,
        paths: &[PathBuf],
        root: &Path,
        changed: Option<&[PathBuf]>,
        diagnostics: &Diagnostics,
    ) -> Vec<ParsedListing>;

    /// Whether a long title of the listings [`Incremental::parse`] last
    /// handed on may be another record's first abstract paragraph
    /// ([`listings::TitleHashes::may_clash`]): when not,
    /// [`listings::check_titles`] looks no further.
    fn titles_may_clash(&self) -> bool;

    /// The corpus of `listings`, equal to [`Corpus::build`]'s, with the
    /// same warnings, patched from the last one when few listings changed.
    fn merge(
        &mut self,
        listings: Vec<ParsedListing>,
        taxonomy: &Taxonomy,
        variants: &[NameVariant],
        diagnostics: &Diagnostics,
    ) -> Arc<Corpus>;

    /// The plan of `site`, whose corpus is `corpus`: the last committed
    /// build's, patched, when only listings changed since
    /// (`only_listings`) and the site kept its shape
    /// ([`crate::serve::changes`]); else made anew ([`plan::plan`]).
    /// Errors: as [`plan::plan`]'s.
    fn plan(
        &mut self,
        site: &Site,
        corpus: &Arc<Corpus>,
        static_files: &rustc_hash::FxHashSet<String>,
        only_listings: bool,
    ) -> Result<Arc<Plan>, Vec<Diagnostic>>;

    /// Which jobs of `plan` (their indices) to render; the others are
    /// carried over in `sink` from its last commit, and so is the search
    /// index when `search_staged`. `statics` (output paths) are staged
    /// already.
    fn select(
        &mut self,
        site: &Site,
        templates: &Templates,
        plan: &Arc<Plan>,
        statics: &[String],
        search_staged: bool,
        sink: &dyn Sink,
    ) -> Vec<usize>;

    /// Stages the search index of `site` in `sink`, the last one when its
    /// inputs did not change. Errors: the files not staged.
    fn stage_search_index(&mut self, site: &Site, sink: &dyn Sink) -> Vec<(String, io::Error)>;

    /// The files of the search index of `site`, the last one when its
    /// inputs did not change.
    fn search_index(&mut self, site: &Site) -> Vec<(String, StoredFile)>;

    /// The sink committed this build as its commit `commit`
    /// ([`Sink::last_commit`]).
    fn commit(&mut self, commit: Option<u64>);
}

/// The result of a build, successful or not.
#[derive(Debug, Default)]
pub struct BuildReport {
    /// Every warning and error, sorted by file and line.
    pub diagnostics: Vec<Diagnostic>,
    /// What the sink did; `None` when the build failed before writing.
    pub written: Option<WriteStats>,
    /// Stage timings.
    pub timings: Timings,
    /// Papers, authors, years and categories in the corpus.
    pub counts: [usize; 4],
    /// The base URL the site was rendered for; `None` if the config failed.
    pub base_url: Option<String>,
    /// For each content page: output file → (source file, its Markdown
    /// links with their lines), for reporting broken links at the source.
    pub content_links: ContentLinks,
    /// When the plan was made and the pages rendered (input errors
    /// aside): the output files of the pages that failed to render, which
    /// a link check counts as present (a broken template is no broken
    /// link). `None` when nothing was rendered.
    pub unrendered: Option<Vec<String>>,
    /// With [`BuildOptions::defer_exports`], after a successful build: what
    /// makes the files left out.
    pub exports: Option<DeferredExports>,
    /// With [`BuildOptions::snapshot`], after a successful build: what
    /// renders its pages again.
    pub snapshot: Option<crate::render::Snapshot>,
}

/// Content page output file → (its Markdown source, the links written in
/// it with their 1-based lines).
pub type ContentLinks = BTreeMap<String, (PathBuf, Vec<(String, usize)>)>;

impl BuildReport {
    /// Whether any diagnostic is an error.
    pub fn failed(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// The site's data files left out of a build with
/// [`BuildOptions::defer_exports`]: the search index and, when it changed,
/// `corpus.json`. Holds the build's corpus and inputs.
#[derive(Debug)]
pub struct DeferredExports {
    config: Config,
    urls: UrlMap,
    corpus: Arc<Corpus>,
    content: Content,
    corpus_json: bool,
}

impl DeferredExports {
    /// The files left out, `(output path, bytes)`: the search index when
    /// the site has one (the cached one when its inputs did not change)
    /// and `corpus.json` when it changed. Together with the build's files
    /// they are the full build's files, byte for byte. Kept as the memory
    /// sink keeps files ([`crate::output::MemorySink::add`]). `incremental`
    /// is the build's, which keeps the search index for the next build.
    pub fn make(&self, incremental: Option<&mut dyn Incremental>) -> Vec<(String, StoredFile)> {
        let site = Site {
            config: &self.config,
            urls: &self.urls,
            corpus: &self.corpus,
            content: &self.content,
        };
        let mut files = Vec::new();
        if self.corpus_json {
            let file = self.urls.output_file(&Route::CorpusJson);
            let write = &mut |out: &mut dyn std::io::Write| {
                crate::render::exports::write_corpus_json(&site, out)
            };
            // Writing to memory fails only on a serialiser error, which
            // its plain fields cannot raise.
            if let Ok(json) = StoredFile::written(write) {
                files.push((file, json));
            }
        }
        if self.config.search {
            match incremental {
                Some(incremental) => files.extend(incremental.search_index(&site)),
                None => search::build_index(
                    &self.corpus,
                    &self.config,
                    &self.urls,
                    None,
                    &mut |file, bytes| files.push((file, StoredFile::new(&bytes))),
                ),
            }
        }
        files
    }
}

/// Builds the site at `options.root` into `sink`, committing only when
/// there is no error. Every problem is in the report; on failure the sink
/// is aborted, so an output directory is left as it was.
pub fn build(options: &BuildOptions, sink: &mut dyn Sink) -> BuildReport {
    build_with(options, sink, None)
}

/// [`build`], taking from `incremental` what the last build with it made
/// and leaving in it what this one made.
pub fn build_with(
    options: &BuildOptions,
    sink: &mut dyn Sink,
    mut incremental: Option<&mut dyn Incremental>,
) -> BuildReport {
    let mut timings = Timings::default();
    let diagnostics = Diagnostics::new();
    let mut report = BuildReport::default();
    // Read: site.toml, the list of listings, content, templates, statics.
    let read = read_inputs(options, reborrow(&mut incremental), &mut timings);
    let (mut inputs, only_listings) = match read {
        Ok(read) => read,
        Err(d) => {
            report.diagnostics = vec![d];
            report.timings = timings;
            return report;
        }
    };
    for problem in &inputs.problems {
        diagnostics.push(problem.clone());
    }
    if inputs.seeds.listings.is_empty() && inputs.bibtex.is_empty() {
        diagnostics.push(Diagnostic::warning(
            "seeds",
            0,
            "expected listing files (*.txt) or BibTeX files (*.bib) under seeds/, found none; the site has no papers",
        ));
    }
    // Parse and merge: one corpus, with the per-paper overrides applied.
    let (corpus, content) = corpus_of(
        &mut inputs,
        options,
        reborrow(&mut incremental),
        &mut timings,
        &diagnostics,
    );
    report.counts = [
        corpus.papers.len(),
        corpus.authors.len(),
        corpus.years.len(),
        corpus.categories.len(),
    ];
    check_profiles(&content, &corpus, &diagnostics);
    crate::corpus::query::check(&content, &corpus, &diagnostics);

    // Templates, then the URL map every page is rendered for.
    let (templates, template_errors) =
        timings.time("templates", || Templates::load(inputs.templates));
    for error in template_errors {
        diagnostics.push(error);
    }
    let urls = UrlMap::new(&inputs.config.base_url);
    report.base_url = Some(inputs.config.base_url.clone());
    let site = Site {
        config: &inputs.config,
        urls: &urls,
        corpus: &corpus,
        content: &content,
    };
    report.content_links = content_links(&site);
    if let Some(templates) = &templates {
        check_authors_template(templates, &corpus, &diagnostics);
        check_unread_templates(templates, &diagnostics);
    }

    // Plan, render and stage; then write (commit) or abort.
    let render = options.keep_going || !diagnostics.has_errors(options.strict);
    let mut corpus_json_left = false;
    let mut committed = false;
    if let (Some(templates), true) = (templates, render) {
        let files = SiteFiles {
            templates,
            statics: inputs.statics,
            only_listings,
        };
        let stages = Stages {
            options,
            incremental: reborrow(&mut incremental),
            sink,
            timings: &mut timings,
            diagnostics: &diagnostics,
        };
        let rendered = publish(&site, &corpus, files, stages, &mut report);
        corpus_json_left = rendered.corpus_json_left;
        committed = rendered.committed;
    }
    if options.defer_exports && committed {
        report.exports = Some(DeferredExports {
            config: inputs.config,
            urls,
            corpus,
            content,
            corpus_json: corpus_json_left,
        });
    }
    report.diagnostics = diagnostics.into_sorted(options.strict);
    report.timings = timings;
    report
}

/// Reads the site at `options.root` (timed as `read`), with the list of
/// listings patched by `incremental` when the caller knows what changed; and whether only listings changed since the last
/// build, so that its plan can be patched. Errors: a site that cannot be
/// read at all.
fn read_inputs(
    options: &BuildOptions,
    mut incremental: Option<&mut dyn Incremental>,
    timings: &mut Timings,
) -> Result<(input::Inputs, bool), Diagnostic> {
    let root = &options.root;
    let read = timings.time("read", || {
        let patched = incremental
            .as_deref_mut()
            .zip(options.changed_paths.as_deref())
            .and_then(|(incremental, changed)| incremental.patched_listings(root, changed));
        input::read(root, options.base_url.as_deref(), patched)
    });
    let only_listings = read.as_ref().is_ok_and(|inputs| inputs.seeds_patched)
        && options.changed_paths.as_deref().is_some_and(|changed| {
            changed
                .iter()
                .all(|path| path.starts_with("seeds") && crate::input::listing::is_listing(path))
        });
    if let Some(incremental) = incremental {
        let seeds = read.as_ref().ok().map(|i| Arc::clone(&i.seeds));
        incremental.found_listings(seeds, only_listings);
    }
    read.map(|inputs| (inputs, only_listings))
}

/// The listings and BibTeX files parsed (timed as `parse`), the Markdown
/// content loaded (`content`), and the corpus merged with the per-paper
/// overrides applied (`corpus`), through `incremental` when there is
/// one. Problems go to `diagnostics`.
fn corpus_of(
    inputs: &mut input::Inputs,
    options: &BuildOptions,
    mut incremental: Option<&mut dyn Incremental>,
    timings: &mut Timings,
    diagnostics: &Diagnostics,
) -> (Arc<Corpus>, Content) {
    let (mut listings, bib_files) = timings.time("parse", || {
        let listings = match reborrow(&mut incremental) {
            Some(incremental) => {
                let changed = options.changed_paths.as_deref();
                let changed = changed.filter(|_| inputs.seeds_patched);
                incremental.parse(&inputs.seeds.listings, &options.root, changed, diagnostics)
            }
            None => listings::read_all(&inputs.seeds.listings, &options.root, diagnostics),
        };
        let bib_files = std::mem::take(&mut inputs.bibtex);
        (listings, bibliography::read_all(bib_files, diagnostics))
    });
    for parsed in &listings {
        for warning in chars::warnings(&parsed.file, &parsed.listing.forbidden) {
            diagnostics.push(warning);
        }
    }
    let may_clash = incremental
        .as_deref()
        .is_none_or(|incremental| incremental.titles_may_clash());
    listings::check_titles(&listings, may_clash, diagnostics);
    let content = timings.time("content", || {
        content::load(&inputs.content, options.drafts, diagnostics)
    });
    let variants = name_variants(&inputs.config, &content);
    let bib_papers = add_bibliographies(
        bib_files,
        &mut listings,
        &variants,
        &inputs.config,
        &content,
        diagnostics,
    );
    let corpus = timings.time("corpus", || {
        let taxonomy = Taxonomy::arxiv();
        let corpus = match incremental {
            Some(incremental) => incremental.merge(listings, taxonomy, &variants, diagnostics),
            None => Arc::new(Corpus::build(listings, taxonomy, &variants, diagnostics)),
        };
        overrides::apply(
            corpus,
            &content.overrides,
            &content.profiles,
            &inputs.records,
            &bib_papers,
            diagnostics,
        )
    });
    (corpus, content)
}

/// `incremental` borrowed again, for less long than it is borrowed (a
/// `&mut dyn` in an `Option` is not shortened by itself: its object's
/// lifetime is invariant).
fn reborrow<'s>(
    incremental: &'s mut Option<&mut dyn Incremental>,
) -> Option<&'s mut dyn Incremental> {
    match incremental {
        Some(incremental) => Some(&mut **incremental),
        None => None,
    }
}

/// What [`publish`] did besides filling in the report.
struct Published {
    /// Whether `corpus.json` was left out ([`BuildOptions::defer_exports`]).
    corpus_json_left: bool,
    /// Whether the sink committed the site.
    committed: bool,
}

/// Renders the site into the sink ([`render_site`]) and commits it, or
/// aborts it when there is an error; fills in `report`'s unrendered
/// pages, what was written and the snapshot.
fn publish(
    site: &Site,
    corpus: &Arc<Corpus>,
    files: SiteFiles,
    stages: Stages,
    report: &mut BuildReport,
) -> Published {
    let Stages {
        options,
        mut incremental,
        sink,
        timings,
        diagnostics,
    } = stages;
    let mut rendered = Rendered::default();
    match sink.begin() {
        Ok(()) => {
            let stages = Stages {
                options,
                incremental: reborrow(&mut incremental),
                sink,
                timings: &mut *timings,
                diagnostics,
            };
            rendered = render_site(site, corpus, files, stages);
            report.unrendered = rendered.unrendered.take();
        }
        Err(e) => diagnostics.push(Diagnostic::error(
            "output",
            0,
            format!("expected to prepare the output, found {e}"),
        )),
    }
    let mut committed = false;
    if diagnostics.has_errors(options.strict) {
        sink.abort();
    } else {
        match timings.time("write", || sink.commit()) {
            Ok(stats) => {
                if let Some(incremental) = incremental {
                    incremental.commit(sink.last_commit());
                }
                committed = true;
                report.written = Some(stats);
                report.snapshot = rendered.snapshot.take();
            }
            Err(e) => diagnostics.push(Diagnostic::error(
                "output",
                0,
                format!("expected to write the site, found {e}"),
            )),
        }
    }
    Published {
        corpus_json_left: rendered.corpus_json_left,
        committed,
    }
}

/// What [`render_site`] renders besides the site: its templates and static
/// files, and whether only listings changed since the last build with
/// the same [`Incremental`] (its plan may then be patched).
struct SiteFiles {
    templates: Templates,
    statics: Vec<InputFile>,
    only_listings: bool,
}

/// What the stages after the merge share: the build's options, what the
/// last build left ([`build_with`]), its sink, its stage timings and its
/// problems.
struct Stages<'b> {
    options: &'b BuildOptions,
    incremental: Option<&'b mut dyn Incremental>,
    sink: &'b mut dyn Sink,
    timings: &'b mut Timings,
    diagnostics: &'b Diagnostics,
}

/// What [`render_site`] hands back.
#[derive(Default)]
struct Rendered {
    /// The output files of the pages that failed to render; `None` when
    /// the plan failed and nothing was rendered.
    unrendered: Option<Vec<String>>,
    /// Whether `corpus.json` was left out ([`BuildOptions::defer_exports`]).
    corpus_json_left: bool,
    /// With [`BuildOptions::snapshot`], what renders the pages again.
    snapshot: Option<Snapshot>,
}

/// Plans and renders every page and hands it, with the static files and
/// the search index, to the sink, advancing the progress bar and asking
/// the stages' [`Incremental`] which pages to render. `corpus` is the
/// site's. Errors go to the diagnostics.
fn render_site(site: &Site, corpus: &Arc<Corpus>, files: SiteFiles, stages: Stages) -> Rendered {
    let SiteFiles {
        mut templates,
        statics,
        only_listings,
    } = files;
    let (options, diagnostics) = (stages.options, stages.diagnostics);
    let sink: &dyn Sink = stages.sink;
    let mut incremental = stages.incremental;
    let static_files: rustc_hash::FxHashSet<String> = statics
        .iter()
        .map(|(relative, _, _)| static_file(site, relative))
        .collect();
    let plan = stages
        .timings
        .time("plan", || match reborrow(&mut incremental) {
            Some(incremental) => incremental.plan(site, corpus, &static_files, only_listings),
            None => plan::plan(site, &static_files).map(Arc::new),
        });
    let mut plan = match plan {
        Ok(plan) => plan,
        Err(errors) => {
            errors.into_iter().for_each(|d| diagnostics.push(d));
            return Rendered::default();
        }
    };
    // Markdown links resolved against the site's files, now known.
    let links = crate::render::links::Links::new(*site, &plan, &static_files);
    let rewritten = crate::render::links::rewrite_content(site.content, &links, diagnostics);
    drop(links);
    let site = &match &rewritten {
        Some(content) => Site { content, ..*site },
        None => Site { ..*site },
    };
    let static_hashes = statics.iter().map(|(relative, _, bytes)| {
        (
            static_file(site, relative),
            xxhash_rust::xxh3::xxh3_64(bytes),
        )
    });
    templates.add_get_url(
        site.urls.base_url(),
        crate::render::links::page_permalinks(site.content, site.urls),
        static_hashes.collect(),
    );
    let static_paths = stage_statics(site, &plan, statics, sink, diagnostics);
    let search_staged = site.config.search && !options.defer_exports;
    let selected: Vec<usize> = match reborrow(&mut incremental) {
        Some(incremental) => stages.timings.time("select", || {
            incremental.select(site, &templates, &plan, &static_paths, search_staged, sink)
        }),
        None => (0..plan.jobs.len()).collect(),
    };
    let snapshot_of = options.snapshot.then(|| Arc::clone(corpus));
    if let (None, Some(plan)) = (&snapshot_of, Arc::get_mut(&mut plan)) {
        plan.drop_paths();
    }
    let jobs = &plan.jobs;
    let (selected, corpus_json_left) = jobs_to_render(site, jobs, selected, options, sink);
    let snapshot_templates = snapshot_of.as_ref().map(|_| templates.clone());
    // The search index before the pages: its term map, the search
    // stage's peak, is gone before the render, and before `vellum
    // check`'s link index grows with every page (measured in 3c14a84).
    if search_staged {
        stage_search_index(site, sink, incremental, stages.timings, diagnostics);
    }
    let rendered = stages.timings.time("render", || {
        let views = Views::new(site);
        let progress = options.progress.as_ref();
        if let Some(bar) = progress {
            bar.set_length(selected.len() as u64);
        }
        Renderer::new(*site, templates, views).render_all(&selected, jobs, sink, progress)
    });
    match rendered {
        Ok(()) => {
            let snapshot = snapshot_of.zip(snapshot_templates);
            let snapshot =
                snapshot.map(|(corpus, templates)| Snapshot::new(site, corpus, templates, plan));
            Rendered {
                unrendered: Some(Vec::new()),
                corpus_json_left,
                snapshot,
            }
        }
        Err(failure) => {
            failure.errors.into_iter().for_each(|d| diagnostics.push(d));
            Rendered {
                unrendered: Some(failure.files),
                corpus_json_left,
                snapshot: None,
            }
        }
    }
}

/// The output file of static file `relative` (its path under `static/`).
fn static_file(site: &Site, relative: &str) -> String {
    site.urls.output_file(&Route::Static {
        path: relative.to_string(),
    })
}

/// The jobs of `selected` (indices into `jobs`) to render, and whether
/// `corpus.json` was among those left out: with
/// [`BuildOptions::defer_exports`] it is made after the build; a sink that
/// names the corpus's data files ([`Sink::names_data_files`], `vellum
/// check`'s, which scans pages and needs only their names; they cannot
/// fail) is given their names instead.
fn jobs_to_render<'j>(
    site: &Site,
    jobs: &'j [Job],
    selected: Vec<usize>,
    options: &BuildOptions,
    sink: &dyn Sink,
) -> (Vec<&'j Job>, bool) {
    let mut selected: Vec<&Job> = selected.into_iter().map(|i| &jobs[i]).collect();
    let corpus_json_left =
        options.defer_exports && selected.iter().any(|job| matches!(job, Job::CorpusJson));
    if options.defer_exports {
        selected.retain(|job| !matches!(job, Job::CorpusJson));
    }
    if sink.names_data_files() {
        selected.retain(|job| {
            let data = job.is_corpus_data();
            if data {
                sink.name(&site.urls.output_file(&site.route(job)));
            }
            !data
        });
    }
    (selected, corpus_json_left)
}

/// Stages the search index of `site` in `sink` (the last one from
/// `incremental` when its inputs did not change), timed as `search`; a
/// file not staged is an error.
fn stage_search_index(
    site: &Site,
    sink: &dyn Sink,
    incremental: Option<&mut dyn Incremental>,
    timings: &mut Timings,
    diagnostics: &Diagnostics,
) {
    let failed = timings.time("search", || match incremental {
        Some(incremental) => incremental.stage_search_index(site, sink),
        None => {
            let mut failed = Vec::new();
            search::build_index(
                site.corpus,
                site.config,
                site.urls,
                None,
                &mut |file, bytes| {
                    if let Err(e) = sink.put(&file, bytes) {
                        failed.push((file, e));
                    }
                },
            );
            failed
        }
    });
    for (file, e) in failed {
        diagnostics.push(Diagnostic::error(
            "output",
            0,
            format!("expected to stage {file}, found {e}"),
        ));
    }
}

/// Stages the static files in `sink`, each at its path under the base
/// URL; one whose path is also a planned page's is an error. Returns
/// their output paths.
fn stage_statics(
    site: &Site,
    plan: &Plan,
    statics: Vec<InputFile>,
    sink: &dyn Sink,
    diagnostics: &Diagnostics,
) -> Vec<String> {
    let statics: Vec<(String, PathBuf, Vec<u8>)> = statics
        .into_iter()
        .map(|(relative, shown, bytes)| {
            let file = site.urls.output_file(&Route::Static { path: relative });
            (file, shown, bytes)
        })
        .collect();
    let static_paths: Vec<String> = statics.iter().map(|(file, _, _)| file.clone()).collect();
    for (file, shown, bytes) in statics {
        if plan.job_of(site, &file).is_some() {
            diagnostics.push(Diagnostic::error(
                &shown,
                0,
                format!("expected a path of its own, found /{file} which is also a generated page"),
            ));
        } else if file == crate::output::disk::MANIFEST {
            diagnostics.push(Diagnostic::error(
                &shown,
                0,
                format!("expected a path of its own, found /{file}, the list of the files Vellum wrote; rename it"),
            ));
        } else if site.config.search && file.starts_with("search/") {
            diagnostics.push(Diagnostic::error(
                &shown,
                0,
                format!("expected a path of its own, found /{file} in the folder of the search index; move it out of search/"),
            ));
        } else if let Err(e) = sink.put(&file, bytes) {
            diagnostics.push(Diagnostic::error(
                &shown,
                0,
                format!("expected to stage {file}, found {e}"),
            ));
        }
    }
    static_paths
}

/// Each content page's (and the home page intro's) output file, with its
/// Markdown source and the links written in it; the same for the pages
/// that show a profile's body (every page of the author's) or a per-paper
/// override's note (the paper's page).
fn content_links(site: &Site) -> ContentLinks {
    let (content, urls) = (site.content, site.urls);
    let mut links: ContentLinks = content
        .pages
        .iter()
        .map(|page| {
            let route = Route::Content {
                path: page.path.clone(),
            };
            (
                urls.output_file(&route),
                (page.file.clone(), page.links.clone()),
            )
        })
        .collect();
    if let Some(home) = &content.home {
        links.insert(
            urls.output_file(&Route::Home),
            (home.file.clone(), home.links.clone()),
        );
    }
    for author in &site.corpus.authors {
        let Some(profile) = content.profiles.get(&author.slug) else {
            continue;
        };
        for page in 1..=site.pages_for(author.papers.len()) {
            let route = Route::Author {
                slug: author.slug.clone(),
                page,
            };
            links.insert(
                urls.output_file(&route),
                (profile.file.clone(), profile.links.clone()),
            );
        }
    }
    for (slug, found) in &content.overrides {
        let route = Route::Paper { slug: slug.clone() };
        links.insert(
            urls.output_file(&route),
            (found.file.clone(), found.note_links.clone()),
        );
    }
    links
}

/// Name variants from `[author_aliases]` in `site.toml` and from author
/// profiles' `aliases` that are not paths.
pub fn name_variants(config: &Config, content: &Content) -> Vec<NameVariant> {
    let from_config = config
        .author_aliases
        .iter()
        .map(|(canonical, variant, line)| NameVariant {
            canonical: canonical.clone(),
            variant: variant.clone(),
            file: PathBuf::from("site.toml"),
            line: *line,
        });
    let from_profiles = content.profiles.iter().flat_map(|(slug, profile)| {
        profile.name_variants.iter().map(|variant| NameVariant {
            canonical: slug.clone(),
            variant: variant.clone(),
            file: profile.file.clone(),
            line: profile.aliases_line,
        })
    });
    from_config.chain(from_profiles).collect()
}

/// Adds the entries of `bib_files` to `listings` as records
/// ([`bibliography::listings`]), with the authors given pages by the
/// `author_pages` setting; hands back what each paper's entry gives it.
pub fn add_bibliographies(
    bib_files: Vec<BibFile>,
    listings: &mut Vec<ParsedListing>,
    variants: &[NameVariant],
    config: &Config,
    content: &Content,
    diagnostics: &Diagnostics,
) -> BibPapers {
    let profiles = content.profiles.keys().cloned();
    let pages = config.author_pages;
    let (made, papers) =
        bibliography::listings(bib_files, listings, variants, profiles, pages, diagnostics);
    listings.extend(made);
    papers
}

/// A profile whose file stem is no author's slug is a warning.
fn check_profiles(content: &Content, corpus: &Corpus, diagnostics: &Diagnostics) {
    let mut suggested = 0;
    for (slug, profile) in &content.profiles {
        if !corpus.authors.iter().any(|a| &a.slug == slug) {
            let hint = match suggested < crate::diagnostics::SUGGESTIONS {
                true => crate::diagnostics::did_you_mean(
                    slug,
                    corpus.authors.iter().map(|a| a.slug.as_str()),
                ),
                false => String::new(),
            };
            suggested += 1;
            diagnostics.push(Diagnostic::warning(
                &profile.file,
                1,
                format!("expected the file name to be an author's slug, found `{slug}`, which no listing has{hint}"),
            ));
        }
    }
}

/// A warning for each template Zola reads and Vellum does not (it writes
/// the sitemap and feeds itself), so that its edits are not lost unseen.
fn check_unread_templates(templates: &Templates, diagnostics: &Diagnostics) {
    for (name, what) in [
        ("sitemap.xml", "the sitemap"),
        ("atom.xml", "the Atom feeds"),
        ("rss.xml", "the feeds (Atom)"),
    ] {
        if let Some(file) = templates.file(name) {
            diagnostics.push(Diagnostic::warning(
                file,
                0,
                format!(
                    "expected no `{name}` template, found one: Vellum writes {what} itself and does not read it; remove it"
                ),
            ));
        }
    }
}

/// A warning when the authors index is one page per letter and
/// `authors.html` (a site's own, from an older theme) does not link the
/// letter pages: `/authors/` would list only the first letter's authors.
fn check_authors_template(templates: &Templates, corpus: &Corpus, diagnostics: &Diagnostics) {
    if !corpus.authors_by_letter() || templates.reads("authors.html", "initials") {
        return;
    }
    if let Some(file) = templates.file("authors.html") {
        diagnostics.push(Diagnostic::warning(
            file,
            1,
            format!(
                "expected the authors index to link its letter pages (the `initials` variable, see \
                 docs/templates.md), found a template that does not; with {} authors (over {}) \
                 `/authors/` lists only those of the first letter",
                corpus.authors.len(),
                crate::corpus::AUTHORS_ON_ONE_INDEX
            ),
        ));
    }
}
