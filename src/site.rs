//! The build driver: runs the stages in order — read the inputs, parse the
//! listings ([`crate::listing`]), merge the corpus ([`crate::corpus`]),
//! load content ([`crate::content`]) and templates, plan and render
//! ([`crate::render`]), then hand the finished site to a sink
//! ([`crate::output`]) — timing each stage. Every problem is collected; the
//! sink is only called when there is no error. With a [`RebuildCache`]
//! (`vellum serve`), a rebuild reads, merges, renders and stages only what
//! changed since the last build, and its result equals a full build's.

use crate::categories::Taxonomy;
use crate::config::{normalise_base_url, Config};
use crate::content::{self, Content};
use crate::corpus::NameVariant;
use crate::corpus::{Corpus, ParsedListing};
use crate::diagnostics::{Diagnostic, Diagnostics, Severity};
use crate::fingerprint::Fingerprints;
use crate::listing;
use crate::output::{Sink, WriteStats};
use crate::overrides;
use crate::permalink::{Route, UrlMap};
use crate::render::{self, Job, Renderer, Site, Templates, Views};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// What is kept between builds (`vellum serve`): a listing whose
    /// bytes are unchanged is not parsed again, a search index whose
    /// inputs are unchanged is not built again, and a page whose
    /// fingerprint is unchanged is carried over by the sink.
    pub rebuild_cache: Option<std::sync::Arc<RebuildCache>>,
    /// Leave the search index and a changed `corpus.json` out of the
    /// build; [`BuildReport::exports`] makes them afterwards. `vellum
    /// serve` announces the reload first: a page does not wait for the
    /// site's data files, and a request for one waits until it is made.
    pub defer_exports: bool,
    /// The input paths, relative to `root`, that changed since the last
    /// build with the same [`BuildOptions::rebuild_cache`], when the caller
    /// knows every one of them (`vellum serve`'s file watcher). `seeds/` is
    /// then neither walked nor stamped again: the last build's list of
    /// listings is patched with these paths, and only these are read. A
    /// path under `seeds/` that is no listing (a directory moved in, say)
    /// makes the build walk `seeds/` again. `None`: every listing's stamp
    /// (size, modification and change times, inode) is read.
    pub changed_paths: Option<Vec<PathBuf>>,
}

/// Search index files: the hash of their inputs
/// ([`crate::search::inputs_hash`]) and `(output path, bytes)`.
type IndexFiles = (u64, Vec<(String, Vec<u8>)>);

/// The pages of the sink's last commit as the cache knows them: each
/// job's output path and fingerprint ([`Fingerprints`]), and the files
/// written beside the jobs' own paths.
#[derive(Debug, Default)]
struct CommittedPages {
    /// The sink's commit ([`Sink::last_commit`]) these describe; `None`
    /// when unknown, and then every page carried over is checked with
    /// [`Sink::keep`].
    commit: Option<u64>,
    /// XXH3-64 hash of a job's output path (the sitemap's: `sitemap.xml`)
    /// → (the job's fingerprint, the path), one entry per job of that
    /// commit. A wrong carry-over would need two paths and two
    /// fingerprints to collide.
    pages: indexmap::IndexMap<u64, (u64, Box<str>), rustc_hash::FxBuildHasher>,
    /// All the sitemap's files (its parts, then `sitemap.xml`).
    sitemap: Vec<String>,
    /// The static files' output paths.
    statics: Vec<String>,
    /// What the build in progress changes, made true by its commit.
    pending: Option<PendingPages>,
}

/// The changes a build makes to [`CommittedPages`] when it commits.
#[derive(Debug)]
struct PendingPages {
    /// Jobs whose fingerprint is new: (path hash, fingerprint, path).
    changed: Vec<(u64, u64, String)>,
    /// Path hashes of the last commit's pages that no job writes now.
    gone: Vec<u64>,
    /// The new [`CommittedPages::sitemap`] and [`CommittedPages::statics`].
    sitemap: Vec<String>,
    statics: Vec<String>,
    /// The sink commit carried over ([`Sink::carry_over`]), if it was.
    carried: Option<u64>,
}

/// What one build leaves for the next: parsed listings by path, with the
/// XXH3-64 hash of the bytes they were parsed from and the file's stamp
/// (size, times, inode; only files that parsed; a build drops the entries
/// of files that are gone), the list of listings found, the last search
/// index and its analysed documents, the last merge of the listings into a
/// corpus (patched when few listings changed), converted titles and
/// abstracts, `corpus.json`'s paper entries, and the path and fingerprint
/// of every page of the sink's last commit, so that a page whose
/// fingerprint is unchanged is carried over from the sink instead of
/// rendered.
#[derive(Debug, Default)]
pub struct RebuildCache {
    entries: Mutex<HashMap<PathBuf, CachedListing>>,
    parsed: AtomicUsize,
    index: Mutex<Option<IndexFiles>>,
    indexed: AtomicUsize,
    analyses: crate::search::AnalysisCache,
    texts: crate::text::TextMemo,
    merge: Mutex<crate::corpus::Merge>,
    patched: AtomicUsize,
    corpus_json: crate::memo::Memo<std::sync::Arc<[u8]>>,
    /// The pages of the sink's last commit, and the changes of the build
    /// in progress.
    pages: Mutex<CommittedPages>,
    /// The output files the last build rendered, sorted.
    rendered: Mutex<Vec<String>>,
    /// The listings the last build found, sorted; `None` when it stopped
    /// before looking.
    seeds: Mutex<Option<Arc<Vec<PathBuf>>>>,
}

impl RebuildCache {
    /// How many listings were parsed (not taken from the cache) so far.
    pub fn parsed_count(&self) -> usize {
        self.parsed.load(Ordering::Relaxed)
    }

    /// How many corpora were patched from the last one rather than merged
    /// anew ([`crate::corpus::Merge::corpus`]) so far.
    pub fn patched_count(&self) -> usize {
        self.patched.load(Ordering::Relaxed)
    }

    /// How many times the search index was built (not taken from the
    /// cache) so far.
    pub fn indexed_count(&self) -> usize {
        self.indexed.load(Ordering::Relaxed)
    }

    /// The output files that the last build rendered (the others were
    /// carried over unchanged), sorted.
    pub fn rendered_files(&self) -> Vec<String> {
        lock(&self.rendered).clone()
    }

    /// Stages the search index of `site` in `sink`: the cached one when its
    /// inputs hash as before (carried over from the sink when it can),
    /// else a new one, kept for next time. Errors: the files not staged.
    fn stage_search_index(&self, site: &Site, sink: &dyn Sink) -> Vec<(String, io::Error)> {
        let carried = lock(&self.pages).pending.as_ref().and_then(|p| p.carried);
        let last: Vec<String> = match (carried, &*lock(&self.index)) {
            (Some(_), Some((_, files))) => files.iter().map(|(f, _)| f.clone()).collect(),
            _ => Vec::new(),
        };
        self.with_search_index(site, |reused, files| {
            if let (Some(commit), false) = (carried, reused) {
                // The last index's files go; the new ones replace them.
                let last: Vec<&str> = last.iter().map(String::as_str).collect();
                sink.carry_over(commit, &last);
            }
            let kept = if reused {
                sink.keep(&files.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>())
            } else {
                vec![false; files.len()]
            };
            files
                .iter()
                .zip(kept)
                .filter(|(_, kept)| !kept)
                .filter_map(|((file, bytes), _)| {
                    Some((file.clone(), sink.put(file, bytes.clone()).err()?))
                })
                .collect()
        })
    }

    /// The files of the search index of `site`, as
    /// [`RebuildCache::stage_search_index`] finds or makes them.
    fn search_index(&self, site: &Site) -> Vec<(String, Vec<u8>)> {
        self.with_search_index(site, |_, files| files.to_vec())
    }

    /// Makes the cached search index that of `site` (kept when its inputs
    /// hash as before, else built again), then hands `take` whether it was
    /// kept and its files, under the cache's lock.
    fn with_search_index<T>(
        &self,
        site: &Site,
        take: impl FnOnce(bool, &[(String, Vec<u8>)]) -> T,
    ) -> T {
        let hash = crate::search::inputs_hash(site.corpus, site.config, site.urls);
        let mut index = lock(&self.index);
        let reused = index.as_ref().is_some_and(|(h, _)| *h == hash);
        if !reused {
            self.indexed.fetch_add(1, Ordering::Relaxed);
            let mut files = Vec::new();
            crate::search::build_index(
                site.corpus,
                site.config,
                site.urls,
                Some(&self.analyses),
                &mut |file, bytes| files.push((file, bytes)),
            );
            *index = Some((hash, files));
        }
        take(reused, index.as_ref().map_or(&[][..], |(_, files)| files))
    }

    /// Which jobs of `plan` (their indices) to render: those whose
    /// fingerprint changed since the last commit or that the sink cannot
    /// carry over. The others are carried over in `sink`, and so are the
    /// search index's files when `search_staged` (else they are dropped
    /// until they are made again); the `statics` (output paths) are put
    /// already. When the sink still holds the commit the cache knows, it
    /// is told only which files go ([`Sink::carry_over`]); else each file
    /// carried over is looked up ([`Sink::keep`]). The changes wait for
    /// [`RebuildCache::commit`].
    fn select(
        &self,
        site: &Site,
        templates: &Templates,
        plan: &render::Plan,
        statics: &[String],
        search_staged: bool,
        sink: &dyn Sink,
    ) -> Vec<usize> {
        let (jobs, files) = (&plan.jobs, &plan.files);
        let paths: Vec<u64> = files
            .par_iter()
            .map(|file| xxhash_rust::xxh3::xxh3_64(file.as_bytes()))
            .collect();
        let fingerprints = Fingerprints::new(*site, templates, jobs, &paths);
        let prints: Vec<u64> = jobs.par_iter().map(|job| fingerprints.of(job)).collect();
        let mut committed = lock(&self.pages);
        // Per job: its page's index among the committed ones, and whether
        // its fingerprint is unchanged.
        let last: Vec<Option<(usize, bool)>> = (0..jobs.len())
            .into_par_iter()
            .map(|i| {
                let (at, _, (print, _)) = committed.pages.get_full(&paths[i])?;
                Some((at, *print == prints[i]))
            })
            .collect();
        let unchanged: Vec<bool> = last.iter().map(|l| l.is_some_and(|(_, u)| u)).collect();
        let mut still = vec![false; committed.pages.len()];
        last.iter().flatten().for_each(|&(at, _)| still[at] = true);
        // The last commit's pages that no job writes now: (path hash, path).
        let gone: Vec<(u64, &str)> = committed
            .pages
            .iter()
            .zip(&still)
            .filter(|(_, &still)| !still)
            .map(|((&hash, (_, path)), _)| (hash, &**path))
            .collect();
        // The sitemap is the one job that may write several files.
        let listed = jobs.iter().filter(|job| job.is_listed_page()).count();
        let sitemap_files: Vec<String> = crate::feeds::sitemap_routes(site, listed)
            .iter()
            .map(|route| site.urls.output_file(route))
            .collect();
        let sitemap_kept = (0..jobs.len()).any(|i| unchanged[i] && jobs[i] == Job::Sitemap);
        let carried = committed.commit.filter(|&commit| {
            // What the last commit holds and this one does not carry over:
            // gone pages, changed pages (those rendered are put again),
            // the sitemap's old parts, the static files (all put again)
            // and the search index when it is not staged now.
            let mut dropped: Vec<&str> = gone.iter().map(|&(_, path)| path).collect();
            dropped.extend(
                (0..jobs.len())
                    .filter(|&i| !unchanged[i])
                    .map(|i| files[i].as_str()),
            );
            if !sitemap_kept {
                dropped.extend(committed.sitemap.iter().map(String::as_str));
            }
            dropped.extend(committed.statics.iter().map(String::as_str));
            let index = lock(&self.index);
            if !search_staged {
                if let Some((_, index)) = &*index {
                    dropped.extend(index.iter().map(|(file, _)| file.as_str()));
                }
            }
            sink.carry_over(commit, &dropped)
        });
        // The files of unchanged jobs, each with its job, looked up in one
        // call: all of them, or when the rest is carried over, only
        // `corpus.json`, which is made after the commit that holds it; a
        // job whose files the sink no longer holds is rendered.
        let mut wanted: Vec<&str> = Vec::new();
        let mut owners: Vec<usize> = Vec::new();
        let looked_up = |i: usize| carried.is_none() || jobs[i] == Job::CorpusJson;
        for (i, job) in jobs.iter().enumerate() {
            if !unchanged[i] || !looked_up(i) {
                continue;
            }
            let own: &[String] = match job {
                Job::Sitemap => &sitemap_files,
                _ => std::slice::from_ref(&files[i]),
            };
            wanted.extend(own.iter().map(String::as_str));
            owners.extend(std::iter::repeat_n(i, own.len()));
        }
        let mut render = unchanged.iter().map(|u| !u).collect::<Vec<bool>>();
        for (kept, owner) in sink.keep(&wanted).into_iter().zip(owners) {
            render[owner] |= !kept;
        }
        let selected: Vec<usize> = (0..jobs.len()).filter(|&i| render[i]).collect();
        committed.pending = Some(PendingPages {
            changed: (0..jobs.len())
                .filter(|&i| !unchanged[i])
                .map(|i| (paths[i], prints[i], files[i].clone()))
                .collect(),
            gone: gone.iter().map(|&(hash, _)| hash).collect(),
            sitemap: sitemap_files,
            statics: statics.to_vec(),
            carried,
        });
        let mut rendered: Vec<String> = selected.iter().map(|&i| files[i].clone()).collect();
        rendered.sort();
        *lock(&self.rendered) = rendered;
        selected
    }

    /// The listings under `root` (the last build's, with `changed`,
    /// relative paths, added or removed as they are now on disk); `None`
    /// when there was no last list or a changed path under `seeds/` is
    /// neither a listing nor hidden ([`list_files`] skips hidden paths).
    /// The list is taken from the cache and patched in place: the last
    /// build no longer holds it, so it is not copied.
    fn patched_seeds(&self, root: &Path, changed: &[PathBuf]) -> Option<Arc<Vec<PathBuf>>> {
        let mut shared = lock(&self.seeds).take()?;
        let seeds = Arc::make_mut(&mut shared);
        for relative in changed {
            let Ok(inside) = relative.strip_prefix("seeds") else {
                continue;
            };
            let hidden = inside
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
            let path = root.join(relative);
            if hidden {
                continue;
            }
            if !listing::is_listing(relative) || path.is_dir() {
                return None;
            }
            // As the walk finds files: not through a symbolic link.
            let is_file = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
            match (seeds.binary_search(&path), is_file) {
                (Ok(at), false) => {
                    seeds.remove(at);
                }
                (Err(at), true) => seeds.insert(at, path),
                // A directory named like a listing, moved out: its
                // listings, sorted right after its path, are gone.
                (Err(at), false) if seeds.get(at).is_some_and(|next| next.starts_with(&path)) => {
                    return None;
                }
                _ => {}
            }
        }
        Some(shared)
    }

    /// Makes the pending pages those of the sink's commit `commit`
    /// ([`Sink::last_commit`]); without pending pages, the commit's pages
    /// are unknown.
    fn commit(&self, commit: Option<u64>) {
        let mut committed = lock(&self.pages);
        let Some(pending) = committed.pending.take() else {
            committed.commit = None;
            return;
        };
        for hash in pending.gone {
            committed.pages.swap_remove(&hash);
        }
        for (hash, print, path) in pending.changed {
            committed.pages.insert(hash, (print, path.into()));
        }
        committed.sitemap = pending.sitemap;
        committed.statics = pending.statics;
        committed.commit = commit;
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Wall time and peak memory of each stage, in order.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    /// The stages: read (config, content, templates, static files, the
    /// list of listings), parse (reading and parsing listings), corpus,
    /// content, templates, plan, render (including staging each file in
    /// the sink), search, write (the sink's commit); `vellum serve` adds
    /// select.
    pub stages: Vec<StageTiming>,
}

/// One stage of a build, measured.
#[derive(Debug, Clone, Copy)]
pub struct StageTiming {
    /// The stage's name (`parse`).
    pub name: &'static str,
    /// Its wall time.
    pub wall: Duration,
    /// The highest resident set size of the process while it ran, in
    /// bytes, sampled every [`RSS_SAMPLE_INTERVAL`] and at its end (so a
    /// shorter spike can be missed); `None` where the platform does not
    /// report it.
    pub peak_rss: Option<u64>,
}

/// How often [`Timings`] samples the resident set size during a stage.
pub const RSS_SAMPLE_INTERVAL: Duration = Duration::from_millis(10);

/// The process's resident set size in bytes, where the platform reports it.
fn resident_set_size() -> Option<u64> {
    memory_stats::memory_stats().map(|m| m.physical_mem as u64)
}

impl Timings {
    fn time<T>(&mut self, name: &'static str, run: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let (value, peak_rss) = with_peak_rss(run);
        self.stages.push(StageTiming {
            name,
            wall: start.elapsed(),
            peak_rss,
        });
        value
    }

    /// One line per stage: `name  12.3 ms  45.6%  123 MiB peak`, then
    /// the total with the highest peak.
    pub fn report(&self) -> String {
        let total: Duration = self.stages.iter().map(|s| s.wall).sum();
        let mib = |peak: Option<u64>| {
            peak.map_or(String::new(), |bytes| {
                format!(" {:>8} MiB peak", bytes / (1 << 20))
            })
        };
        let mut out = String::new();
        for stage in &self.stages {
            let share = if total.is_zero() {
                0.0
            } else {
                100.0 * stage.wall.as_secs_f64() / total.as_secs_f64()
            };
            out.push_str(&format!(
                "{:<10} {:>10.1} ms {share:>5.1}%{}\n",
                stage.name,
                stage.wall.as_secs_f64() * 1000.0,
                mib(stage.peak_rss)
            ));
        }
        out.push_str(&format!(
            "{:<10} {:>10.1} ms       {}\n",
            "total",
            total.as_secs_f64() * 1000.0,
            mib(self.stages.iter().filter_map(|s| s.peak_rss).max())
        ));
        out
    }
}

/// Runs `run` on this thread while another samples the resident set size
/// every [`RSS_SAMPLE_INTERVAL`]; returns `run`'s value and the highest
/// sample (`None` where the platform reports none, or no thread could be
/// started).
fn with_peak_rss<T>(run: impl FnOnce() -> T) -> (T, Option<u64>) {
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let sampler = std::thread::Builder::new()
            .name("rss-sampler".into())
            .spawn_scoped(scope, || {
                let mut peak = resident_set_size();
                while !done.load(Ordering::Relaxed) {
                    std::thread::park_timeout(RSS_SAMPLE_INTERVAL);
                    peak = peak.max(resident_set_size());
                }
                peak
            });
        let value = run();
        done.store(true, Ordering::Relaxed);
        let peak = match sampler {
            Ok(sampler) => {
                sampler.thread().unpark();
                sampler.join().ok().flatten()
            }
            Err(_) => None,
        };
        (value, peak.map(|p| p.max(resident_set_size().unwrap_or(0))))
    })
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
    /// Whether the plan and every page rendered (input errors aside); when
    /// not, pages are missing and a link check would report false errors.
    pub all_pages_rendered: bool,
    /// With [`BuildOptions::defer_exports`], after a successful build: what
    /// makes the files left out.
    pub exports: Option<DeferredExports>,
}

/// The site's data files left out of a build with
/// [`BuildOptions::defer_exports`]: the search index and, when it changed,
/// `corpus.json`. Holds the build's corpus and inputs.
#[derive(Debug)]
pub struct DeferredExports {
    config: crate::config::Config,
    urls: UrlMap,
    corpus: Arc<Corpus>,
    content: Content,
    cache: Option<std::sync::Arc<RebuildCache>>,
    corpus_json: bool,
}

impl DeferredExports {
    /// The files left out, `(output path, bytes)`: the search index when
    /// the site has one (the cached one when its inputs did not change)
    /// and `corpus.json` when it changed. Together with the build's files
    /// they are the full build's files, byte for byte.
    pub fn make(&self) -> Vec<(String, Vec<u8>)> {
        let site = Site {
            config: &self.config,
            urls: &self.urls,
            corpus: &self.corpus,
            content: &self.content,
        };
        let mut files = Vec::new();
        if self.corpus_json {
            let memo = self.cache.as_deref().map(|c| &c.corpus_json);
            let file = self.urls.output_file(&Route::CorpusJson);
            files.push((file, crate::exports::corpus_json(&site, memo)));
        }
        if self.config.search {
            match self.cache.as_deref() {
                Some(cache) => files.extend(cache.search_index(&site)),
                None => crate::search::build_index(
                    &self.corpus,
                    &self.config,
                    &self.urls,
                    None,
                    &mut |file, bytes| files.push((file, bytes)),
                ),
            }
        }
        files
    }
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

/// Inputs read from disk: (path relative to its directory, path for
/// messages, bytes).
type InputFile = (String, PathBuf, Vec<u8>);

/// Builds the site at `options.root` into `sink`, committing only when
/// there is no error. Every problem is in the report; on failure the sink
/// is aborted, so an output directory is left as it was.
pub fn build(options: &BuildOptions, sink: &mut dyn Sink) -> BuildReport {
    let mut timings = Timings::default();
    let diagnostics = Diagnostics::new();
    let mut report = BuildReport::default();
    let root = &options.root;

    let loaded = timings.time("read", || read_inputs(root, options));
    let inputs = match loaded {
        Ok(inputs) => inputs,
        Err(d) => {
            if let Some(cache) = &options.rebuild_cache {
                // The changes this build was told of are not in any list.
                *lock(&cache.seeds) = None;
            }
            report.diagnostics = vec![d];
            report.timings = timings;
            return report;
        }
    };
    if inputs.seeds.is_empty() {
        diagnostics.push(Diagnostic::warning(
            "seeds",
            0,
            "expected listing files (*.txt) under seeds/, found none; the site has no papers",
        ));
    }
    let listings = timings.time("parse", || {
        parse_listings(
            &inputs.seeds,
            root,
            options.rebuild_cache.as_deref(),
            options
                .changed_paths
                .as_deref()
                .filter(|_| inputs.seeds_patched),
            &diagnostics,
        )
    });
    let content = timings.time("content", || {
        content::load(&inputs.content, options.drafts, &diagnostics)
    });
    let variants = name_variants(&inputs.config, &content);
    let taxonomy = Taxonomy::arxiv();
    let corpus = timings.time("corpus", || {
        let corpus = match options.rebuild_cache.as_deref() {
            Some(cache) => {
                let mut merge = lock(&cache.merge);
                let texts = &cache.texts;
                let (corpus, patched) =
                    merge.corpus(listings, taxonomy, &variants, texts, &diagnostics);
                if patched {
                    // The unchanged papers' texts were not looked up, but
                    // are still in use.
                    cache.patched.fetch_add(1, Ordering::Relaxed);
                } else {
                    texts.finish_build();
                }
                corpus
            }
            None => Arc::new(Corpus::build(listings, taxonomy, &variants, &diagnostics)),
        };
        overrides::apply(corpus, &content.overrides, &diagnostics)
    });
    report.counts = [
        corpus.papers.len(),
        corpus.authors.len(),
        corpus.years.len(),
        corpus.categories.len(),
    ];
    check_profiles(&content, &corpus, &diagnostics);
    let templates = timings.time("templates", || Templates::load(inputs.templates));
    let templates = match templates {
        Ok(t) => Some(t),
        Err(d) => {
            diagnostics.push(d);
            None
        }
    };
    let urls = UrlMap::new(&inputs.config.base_url);
    report.base_url = Some(inputs.config.base_url.clone());
    report.content_links = content
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
        report.content_links.insert(
            urls.output_file(&Route::Home),
            (home.file.clone(), home.links.clone()),
        );
    }
    let site = Site {
        config: &inputs.config,
        urls: &urls,
        corpus: &corpus,
        content: &content,
    };
    let render = options.keep_going || !diagnostics.has_errors(options.strict);
    let mut corpus_json_left = false;
    let mut committed = false;
    if let (Some(templates), true) = (templates, render) {
        match sink.begin() {
            Ok(()) => {
                (report.all_pages_rendered, corpus_json_left) = render_site(
                    &site,
                    templates,
                    inputs.statics,
                    options,
                    sink,
                    &mut timings,
                    &diagnostics,
                )
            }
            Err(e) => diagnostics.push(Diagnostic::error(
                "output",
                0,
                format!("expected to prepare the output, found {e}"),
            )),
        }
        if diagnostics.has_errors(options.strict) {
            sink.abort();
        } else {
            match timings.time("write", || sink.commit()) {
                Ok(stats) => {
                    if let Some(cache) = &options.rebuild_cache {
                        cache.commit(sink.last_commit());
                    }
                    committed = true;
                    report.written = Some(stats)
                }
                Err(e) => diagnostics.push(Diagnostic::error(
                    "output",
                    0,
                    format!("expected to write the site, found {e}"),
                )),
            }
        }
    }
    if options.defer_exports && committed {
        report.exports = Some(DeferredExports {
            config: inputs.config,
            urls,
            corpus,
            content,
            cache: options.rebuild_cache.clone(),
            corpus_json: corpus_json_left,
        });
    }
    report.diagnostics = diagnostics.into_sorted(options.strict);
    report.timings = timings;
    report
}

/// Plans and renders every page and hands it, with the static files, to
/// `sink`, advancing `options.progress` and using `options.rebuild_cache`.
/// Errors go to `diagnostics`. Returns whether every planned page was
/// rendered, and whether `corpus.json` was left out
/// ([`BuildOptions::defer_exports`]).
fn render_site(
    site: &Site,
    templates: Templates,
    statics: Vec<InputFile>,
    options: &BuildOptions,
    sink: &dyn Sink,
    timings: &mut Timings,
    diagnostics: &Diagnostics,
) -> (bool, bool) {
    let plan = match timings.time("plan", || render::plan(site)) {
        Ok(plan) => plan,
        Err(errors) => {
            errors.into_iter().for_each(|d| diagnostics.push(d));
            return (false, false);
        }
    };
    // A few static files against every page: the pages are looked up in
    // a set of the static files, not the other way round.
    let statics: Vec<(String, PathBuf, Vec<u8>)> = statics
        .into_iter()
        .map(|(relative, shown, bytes)| {
            let file = site.urls.output_file(&Route::Static { path: relative });
            (file, shown, bytes)
        })
        .collect();
    let static_files: rustc_hash::FxHashSet<&str> =
        statics.iter().map(|(file, _, _)| file.as_str()).collect();
    let taken: rustc_hash::FxHashSet<&str> = plan
        .files
        .iter()
        .filter(|file| static_files.contains(file.as_str()))
        .map(String::as_str)
        .collect();
    let static_paths: Vec<String> = statics.iter().map(|(file, _, _)| file.clone()).collect();
    for (file, shown, bytes) in statics {
        if taken.contains(file.as_str()) {
            diagnostics.push(Diagnostic::error(
                &shown,
                0,
                format!("expected a path of its own, found /{file} which is also a generated page"),
            ));
        } else if let Err(e) = sink.put(&file, bytes) {
            diagnostics.push(Diagnostic::error(
                &shown,
                0,
                format!("expected to stage {file}, found {e}"),
            ));
        }
    }
    let search_staged = site.config.search && !options.defer_exports;
    let selected: Vec<usize> = match options.rebuild_cache.as_deref() {
        Some(cache) => timings.time("select", || {
            cache.select(site, &templates, &plan, &static_paths, search_staged, sink)
        }),
        None => (0..plan.jobs.len()).collect(),
    };
    drop(taken);
    let render::Plan { jobs, files } = plan;
    let mut selected: Vec<&Job> = selected.into_iter().map(|i| &jobs[i]).collect();
    // The output paths are not needed again (1.8 million at 1,000,000
    // papers): freed beside the render, not before it.
    rayon::spawn(move || drop(files));
    let corpus_json_left =
        options.defer_exports && selected.iter().any(|job| matches!(job, Job::CorpusJson));
    if options.defer_exports {
        selected.retain(|job| !matches!(job, Job::CorpusJson));
    }
    let rendered = timings.time("render", || {
        let views = Views::new(site);
        let progress = options.progress.as_ref();
        if let Some(bar) = progress {
            bar.set_length(selected.len() as u64);
        }
        let memo = options.rebuild_cache.as_deref().map(|c| &c.corpus_json);
        Renderer::new(*site, templates, views, memo).render_all(&selected, &jobs, sink, progress)
    });
    if search_staged {
        let failed = timings.time("search", || match options.rebuild_cache.as_deref() {
            Some(cache) => cache.stage_search_index(site, sink),
            None => {
                let mut failed = Vec::new();
                crate::search::build_index(
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
    match rendered {
        Ok(()) => (true, corpus_json_left),
        Err(errors) => {
            errors.into_iter().for_each(|d| diagnostics.push(d));
            (false, corpus_json_left)
        }
    }
}

/// Name variants from `[author_aliases]` in `site.toml` and from author
/// profiles' `aliases` that are not paths.
fn name_variants(config: &crate::config::Config, content: &Content) -> Vec<NameVariant> {
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

/// A profile whose file stem is no author's slug is a warning.
fn check_profiles(content: &Content, corpus: &Corpus, diagnostics: &Diagnostics) {
    for (slug, profile) in &content.profiles {
        if !corpus.authors.iter().any(|a| &a.slug == slug) {
            diagnostics.push(Diagnostic::warning(
                &profile.file,
                1,
                format!("expected the file name to be an author's slug, found `{slug}`, which no listing has"),
            ));
        }
    }
}

struct Inputs {
    config: Config,
    /// Listing paths; they are read as they are parsed.
    seeds: Arc<Vec<PathBuf>>,
    /// Whether `seeds` is the last build's list patched with
    /// [`BuildOptions::changed_paths`], which then name every listing that
    /// may have changed; otherwise `seeds/` was walked.
    seeds_patched: bool,
    content: Vec<InputFile>,
    templates: Vec<(String, PathBuf, String)>,
    statics: Vec<InputFile>,
}

/// Reads `site.toml`, then every input file. Errors: a config problem,
/// a missing theme, an unreadable file.
fn read_inputs(root: &Path, options: &BuildOptions) -> Result<Inputs, Diagnostic> {
    let mut config = Config::load(&root.join("site.toml"), Path::new("site.toml"))?;
    if let Some(url) = &options.base_url {
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
    let cache = options.rebuild_cache.as_deref();
    let patched = cache
        .zip(options.changed_paths.as_deref())
        .and_then(|(cache, changed)| cache.patched_seeds(root, changed));
    let seeds_patched = patched.is_some();
    let seeds =
        patched.unwrap_or_else(|| Arc::new(list_files(&root.join("seeds"), listing::is_listing)));
    if let Some(cache) = cache {
        *lock(&cache.seeds) = Some(Arc::clone(&seeds));
    }
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
fn list_files(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
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
fn read_file(path: &Path, dir: &Path, root: &Path) -> Result<InputFile, Diagnostic> {
    let shown = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    let bytes = std::fs::read(path).map_err(|e| {
        Diagnostic::error(&shown, 0, format!("expected a readable file, found {e}"))
    })?;
    Ok((slash_path(path, dir), shown, bytes))
}

/// `path` relative to `base`, with `/` separators whatever the platform.
pub(crate) fn slash_path(path: &Path, base: &Path) -> String {
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

/// Listing files parsed at once (in parallel) between two passes that
/// strip repeated records ([`ParsedListing::forget_repeated_abstracts`]).
const PARSE_CHUNK: usize = 512;

/// Reads and parses every listing in parallel, one file's bytes at a time
/// per thread, so the raw listings are never all in memory; errors go to
/// `diagnostics`. With a `cache`, a file is taken from it instead of being
/// parsed when its [`FileStamp`] is the one it had when it was last read
/// (and it was not changed after that reading began, which a coarse clock
/// could hide), or else when its bytes hash as before; a file not among
/// `changed` (relative paths; [`BuildOptions::changed_paths`]) is taken
/// from the cache without reading its stamp. Without a cache,
/// files are parsed in path order, [`PARSE_CHUNK`] at a time, and each
/// record repeating an earlier record's paper loses its abstract
/// ([`ParsedListing::forget_repeated_abstracts`]).
fn parse_listings(
    paths: &[PathBuf],
    root: &Path,
    cache: Option<&RebuildCache>,
    changed: Option<&[PathBuf]>,
    diagnostics: &Diagnostics,
) -> Vec<ParsedListing> {
    let dir = root.join("seeds");
    let parse_one = |path: &PathBuf| {
        let shown = path.strip_prefix(root).unwrap_or(path).to_path_buf();
        let stamp = cache.and_then(|_| FileStamp::of(path));
        let unchanged = cache.and_then(|c| {
            lock(&c.entries)
                .get(&shown)
                .filter(|cached| stamp.is_some_and(|s| cached.unchanged_at(&s)))
                .map(|cached| cached.parsed.clone())
        });
        if let Some(parsed) = unchanged {
            return Some((parsed, None));
        }
        let read_at = std::time::SystemTime::now();
        let (_, shown, bytes) = match read_file(path, &dir, root) {
            Ok(file) => file,
            Err(d) => {
                diagnostics.push(d);
                return None;
            }
        };
        let hash = cache.map_or(0, |_| xxhash_rust::xxh3::xxh3_64(&bytes));
        let same_bytes = cache.and_then(|c| {
            lock(&c.entries)
                .get(&shown)
                .filter(|cached| cached.hash == hash)
                .map(|cached| cached.parsed.clone())
        });
        let parsed = match same_bytes {
            Some(parsed) => parsed,
            None => {
                if let Some(c) = cache {
                    c.parsed.fetch_add(1, Ordering::Relaxed);
                }
                match listing::parse(&bytes) {
                    Ok(listing) => ParsedListing::new(shown, std::sync::Arc::new(listing)),
                    Err(e) => {
                        diagnostics.push(Diagnostic::error(&shown, e.line(), e.to_string()));
                        return None;
                    }
                }
            }
        };
        let cached = cache.map(|_| CachedListing {
            hash,
            stamp,
            read_at,
            parsed: parsed.clone(),
        });
        Some((parsed, cached))
    };
    let parsed: Vec<(ParsedListing, Option<CachedListing>)> = match cache {
        Some(cache) => {
            // The listings known unchanged, from the cache under one lock.
            // A hard link of a changed file changed with it: listings
            // sharing its inode are read again too.
            let untouched: Vec<Option<ParsedListing>> = match changed {
                Some(changed) => {
                    let changed: HashSet<&Path> = changed.iter().map(PathBuf::as_path).collect();
                    let inodes: HashSet<u64> = changed
                        .iter()
                        .filter_map(|relative| FileStamp::of(&root.join(relative)))
                        .map(|stamp| stamp.inode)
                        .collect();
                    let entries = lock(&cache.entries);
                    paths
                        .iter()
                        .map(|path| {
                            let shown = path.strip_prefix(root).unwrap_or(path);
                            let cached = entries.get(shown).filter(|cached| {
                                let linked =
                                    cached.stamp.is_some_and(|s| inodes.contains(&s.inode));
                                !changed.contains(shown) && !linked
                            });
                            cached.map(|cached| cached.parsed.clone())
                        })
                        .collect()
                }
                None => vec![None; paths.len()],
            };
            paths
                .par_iter()
                .zip(untouched)
                .filter_map(|(path, untouched)| match untouched {
                    Some(parsed) => Some((parsed, None)),
                    None => parse_one(path),
                })
                .collect()
        }
        None => {
            // In path order, a chunk at a time: a record repeating an
            // earlier one's paper gives up its abstract once its chunk is
            // parsed, so the repeats' abstracts (about two thirds of all)
            // never accumulate (at 100,000 papers, the parse stage's peak
            // RSS fell from 680 to 370 MB).
            let mut sorted: Vec<&PathBuf> = paths.iter().collect();
            sorted.sort();
            let mut seen = rustc_hash::FxHashSet::default();
            let mut parsed = Vec::with_capacity(paths.len());
            for chunk in sorted.chunks(PARSE_CHUNK) {
                let start = parsed.len();
                parsed.par_extend(chunk.par_iter().filter_map(|path| parse_one(path)));
                for (listing, _) in &mut parsed[start..] {
                    listing.forget_repeated_abstracts(&mut seen);
                }
            }
            parsed
        }
    };
    if let Some(mut entries) = cache.map(|c| lock(&c.entries)) {
        for (p, cached) in &parsed {
            if let Some(cached) = cached {
                entries.insert(p.file.clone(), cached.clone());
            }
        }
        // Every listing that parsed has its entry; more entries are files
        // gone or no longer parsing.
        if entries.len() > parsed.len() {
            let present: HashSet<&PathBuf> = parsed.iter().map(|(p, _)| &p.file).collect();
            entries.retain(|file, _| present.contains(file));
        }
    }
    parsed.into_iter().map(|(p, _)| p).collect()
}

/// What `stat` says of a file: size in bytes, modification time, and on
/// Unix the inode number and the status-change time (ctime), which every
/// write and rename sets and no program can set back, so a file restored
/// with its old size and modification time (`cp -p`, `touch -r`, `tar x`)
/// still differs. Elsewhere `changed` is the modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: std::time::SystemTime,
    changed: std::time::SystemTime,
    inode: u64,
}

impl FileStamp {
    /// The stamp of the file at `path`; `None` when it cannot be read or
    /// the platform gives no modification time.
    fn of(path: &Path) -> Option<FileStamp> {
        let metadata = std::fs::metadata(path).ok()?;
        let modified = metadata.modified().ok()?;
        #[cfg(unix)]
        let (changed, inode) = {
            use std::os::unix::fs::MetadataExt;
            let since_epoch = std::time::Duration::new(
                u64::try_from(metadata.ctime()).ok()?,
                u32::try_from(metadata.ctime_nsec()).ok()?,
            );
            (std::time::UNIX_EPOCH + since_epoch, metadata.ino())
        };
        #[cfg(not(unix))]
        let (changed, inode) = (modified, 0);
        Some(FileStamp {
            len: metadata.len(),
            modified,
            changed,
            inode,
        })
    }
}

/// A parsed listing in [`RebuildCache`]: the XXH3-64 hash of its bytes,
/// its stamp before they were read and when the reading began.
#[derive(Debug, Clone)]
struct CachedListing {
    hash: u64,
    stamp: Option<FileStamp>,
    read_at: std::time::SystemTime,
    parsed: ParsedListing,
}

impl CachedListing {
    /// Whether a file stamped `now` still holds the bytes read: the same
    /// stamp, last changed before the reading began, so a write in the same
    /// clock tick as the reading is not missed.
    fn unchanged_at(&self, now: &FileStamp) -> bool {
        self.stamp == Some(*now) && now.modified < self.read_at && now.changed < self.read_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_peak_includes_what_the_stage_allocated() {
        let before = resident_set_size().expect("Linux reports the resident set size");
        // Returned, so still held at the last sample; every page is written.
        let (held, peak) = with_peak_rss(|| vec![1u8; 64 << 20]);
        assert_eq!(held.len(), 64 << 20);
        let peak = peak.expect("a peak was sampled");
        assert!(peak >= before + (60 << 20), "{before} then {peak}");
    }

    #[test]
    fn the_report_gives_each_stage_its_share_and_peak() {
        let stage = |name, ms, mib: Option<u64>| StageTiming {
            name,
            wall: Duration::from_millis(ms),
            peak_rss: mib.map(|m| m << 20),
        };
        let timings = Timings {
            stages: vec![
                stage("parse", 250, Some(354)),
                stage("render", 750, Some(1_200)),
            ],
        };
        assert_eq!(
            timings.report(),
            "parse           250.0 ms  25.0%      354 MiB peak\n\
             render          750.0 ms  75.0%     1200 MiB peak\n\
             total          1000.0 ms            1200 MiB peak\n"
        );
        let unknown = Timings {
            stages: vec![stage("parse", 1, None)],
        };
        assert_eq!(
            unknown.report(),
            "parse             1.0 ms 100.0%\ntotal             1.0 ms       \n"
        );
    }
}
