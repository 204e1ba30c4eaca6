//! What `vellum serve` keeps from one build to the next, and the one seam
//! through which it enters the build driver: [`RebuildCache`] implements
//! [`Incremental`], which [`crate::build::build_with`] calls at each
//! stage, borrowing it mutably: builds run one at a time, so its fields
//! are plain values; a stage's parallel work reads them and its results
//! are kept afterwards, one after the other.
//!
//! A rebuild with the cache reads only the listings whose stamp changed
//! (or only those the watcher names), parses only those whose bytes
//! changed, patches the last corpus ([`crate::corpus::merge::Merge`]),
//! renders only the pages whose fingerprint changed
//! ([`crate::serve::fingerprint`]), carries every other page over from the
//! sink's last commit ([`Sink::carry_over`]) and builds the search index
//! again only when its inputs changed. The result equals a full build's,
//! byte for byte.

use crate::build::Incremental;
use crate::corpus::categories::Taxonomy;
use crate::corpus::listings::{ParsedListing, TitleHashes};
use crate::corpus::{Corpus, NameVariant};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::input::{listing, read_file, SeedFiles};
use crate::output::{Sink, StoredFile};
use crate::render::jobs::Job;
use crate::render::plan::Plan;
use crate::render::site::Site;
use crate::render::templates::Templates;
use crate::serve::changes::Changes;
use crate::serve::fingerprint::{Fingerprints, ItemHashes};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Search index files: the hash of their inputs
/// ([`crate::render::search::inputs_hash`]) and `(output path, bytes)`,
/// compressed as the site keeps them, which shares them.
type IndexFiles = (u64, Vec<(String, StoredFile)>);

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

/// A committed build as the next one compares with and patches: its
/// corpus, plan, and the hashes of its papers and authors.
#[derive(Debug)]
struct BuiltSite {
    corpus: Arc<Corpus>,
    plan: Arc<Plan>,
    items: ItemHashes,
}

/// The build in progress: its corpus and plan, how they changed since the
/// last committed build when its plan was patched, and its item hashes
/// once its pages are selected.
#[derive(Debug)]
struct Building {
    corpus: Arc<Corpus>,
    plan: Arc<Plan>,
    patch: Option<Patch>,
    items: Option<ItemHashes>,
}

/// How a patched plan differs from the last: the corpus items that
/// changed, and the last plan's path hashes at the jobs planned again.
#[derive(Debug)]
struct Patch {
    changes: Changes,
    gone: Vec<u64>,
}

/// What one build leaves for the next: parsed listings by path, with the
/// XXH3-64 hash of the bytes they were parsed from and the file's stamp
/// (size, times, inode; only files that parsed; a build drops the entries
/// of files that are gone), the files found under `seeds/`, the last search
/// index and its analysed documents, the last merge of the listings into a
/// corpus (patched when few listings changed), converted titles and
/// abstracts, `corpus.json`'s paper entries, and the path and fingerprint
/// of every page of the sink's last commit, so that a page whose
/// fingerprint is unchanged is carried over from the sink instead of
/// rendered; and the last committed build's corpus, plan and item hashes,
/// from which a build that only listings changed patches its plan.
#[derive(Debug, Default)]
pub struct RebuildCache {
    entries: HashMap<Arc<Path>, CachedListing>,
    /// The abstracts of the cached listings by their source hash
    /// ([`crate::corpus::listings::RecordKeys::abstract_hash`]): the
    /// records of a paper listed by several of its authors share one copy,
    /// not one each (measured in 7a9876a).
    abstracts: rustc_hash::FxHashMap<u64, Arc<[String]>>,
    /// The abstract hashes of the listings the cache let go since the last
    /// merge, to be forgotten once no listing holds them.
    released: Vec<u64>,
    parsed: usize,
    index: Option<IndexFiles>,
    indexed: usize,
    analyses: crate::render::search::AnalysisCache,
    texts: crate::text::TextMemo,
    merge: crate::corpus::merge::Merge,
    patched: usize,
    plans_patched: usize,
    /// The pages of the sink's last commit, and the changes of the build
    /// in progress.
    pages: CommittedPages,
    /// The output files the last build rendered, sorted.
    rendered: Vec<String>,
    /// The listings the last parse handed on, in path order, each with
    /// the path it was read from and its file's inode: a rebuild told
    /// what changed takes the others from here in one ordered pass.
    last_parsed: Vec<(PathBuf, ParsedListing, Option<u64>)>,
    /// The title and first-paragraph hashes of the last parse's listings.
    titles: TitleHashes,
    /// The files under `seeds/` the last build found; `None` when it
    /// stopped before looking.
    seeds: Option<Arc<SeedFiles>>,
    /// The last committed build, when its pages are known.
    last_build: Option<BuiltSite>,
    /// The build in progress, from its plan on.
    building: Option<Building>,
}

impl RebuildCache {
    /// How many listings were parsed (not taken from the cache) so far.
    pub fn parsed_count(&self) -> usize {
        self.parsed
    }

    /// How many distinct abstracts the cached listings hold (each once,
    /// however many listings hold its paper).
    pub fn abstracts_held(&self) -> usize {
        self.abstracts.len()
    }

    /// How many corpora were patched from the last one rather than merged
    /// anew ([`crate::corpus::merge::Merge::corpus`]) so far.
    pub fn patched_count(&self) -> usize {
        self.patched
    }

    /// How many plans were patched from the last one rather than made
    /// anew ([`Plan::patched`]) so far.
    pub fn patched_plans(&self) -> usize {
        self.plans_patched
    }

    /// How many times the search index was built (not taken from the
    /// cache) so far.
    pub fn indexed_count(&self) -> usize {
        self.indexed
    }

    /// The output files that the last build rendered (the others were
    /// carried over unchanged), sorted.
    pub fn rendered_files(&self) -> &[String] {
        &self.rendered
    }

    /// `parsed` with each record's abstract replaced by an equal one that
    /// a cached listing holds, if there is one.
    fn share_abstracts(&mut self, mut parsed: ParsedListing) -> ParsedListing {
        use std::collections::hash_map::Entry;
        let Some(listing) = Arc::get_mut(&mut parsed.listing) else {
            return parsed;
        };
        let shared = &mut self.abstracts;
        for (record, keys) in listing.records.iter_mut().zip(parsed.keys.iter()) {
            if record.abstract_paragraphs.is_empty() {
                continue;
            }
            match shared.entry(keys.abstract_hash) {
                Entry::Occupied(found) if **found.get() == *record.abstract_paragraphs => {
                    record.abstract_paragraphs = Arc::clone(found.get());
                }
                // Another abstract of the same hash stays apart.
                Entry::Occupied(_) => {}
                Entry::Vacant(slot) => {
                    slot.insert(Arc::clone(&record.abstract_paragraphs));
                }
            }
        }
        parsed
    }

    /// Makes the cached search index that of `site` (kept when its inputs
    /// hash as before, else built again); returns whether it was kept and
    /// its files.
    fn search_index_of(&mut self, site: &Site) -> (bool, &[(String, StoredFile)]) {
        let hash = crate::render::search::inputs_hash(site.corpus, site.config, site.urls);
        let reused = self.index.as_ref().is_some_and(|(h, _)| *h == hash);
        if !reused {
            self.indexed += 1;
            // The last index goes before the new one is made, not after.
            self.index = None;
            let mut files = Vec::new();
            crate::render::search::build_index(
                site.corpus,
                site.config,
                site.urls,
                Some(&self.analyses),
                &mut |file, bytes| files.push((file, StoredFile::new(&bytes))),
            );
            self.index = Some((hash, files));
        }
        let files = self.index.as_ref().map_or(&[][..], |(_, files)| files);
        (reused, files)
    }

    /// The listings of `paths` known unchanged when `changed` (relative
    /// paths) names every listing that may have changed: each taken from
    /// the last parse's, with its file's inode, in one pass in path order
    /// (a file removed since is skipped: at most as many as changed); the
    /// others `None`. A hard link of a changed file changed with it:
    /// listings sharing its inode are read again too.
    fn untouched(
        &self,
        paths: &[PathBuf],
        root: &Path,
        changed: &[PathBuf],
    ) -> Vec<Option<(ParsedListing, Option<u64>)>> {
        let changed_paths: Vec<PathBuf> =
            changed.iter().map(|relative| root.join(relative)).collect();
        let changed_set: rustc_hash::FxHashSet<&[u8]> =
            changed_paths.iter().map(|path| bytes(path)).collect();
        let inodes: HashSet<u64> = changed_paths
            .iter()
            .filter_map(|path| FileStamp::of(path))
            .map(|stamp| stamp.inode)
            .collect();
        let last = &self.last_parsed;
        let mut next = 0;
        paths
            .iter()
            .map(|path| {
                let full = bytes(path);
                let ahead = last.len().min(next + changed.len() + 1);
                let at = (next..ahead).find(|&at| bytes(&last[at].0) == full)?;
                next = at + 1;
                let (_, parsed, inode) = &last[at];
                let linked = inode.is_some_and(|inode| inodes.contains(&inode));
                (!changed_set.contains(full) && !linked).then(|| (parsed.clone(), *inode))
            })
            .collect()
    }

    /// Keeps what the parse `read`, in path order: counts the listings
    /// parsed anew and shares their abstracts, updates their cache entries
    /// (the abstracts of an entry replaced are released) and adds those
    /// that parsed to `kept` with their paths and inodes.
    fn keep_read(
        &mut self,
        read: Vec<(&PathBuf, ReadListing)>,
        kept: &mut Vec<(PathBuf, ParsedListing, Option<u64>)>,
    ) {
        for (path, listing) in read {
            let file = match listing {
                ReadListing::Cached(file) => file,
                ReadListing::Parsed(file) => {
                    self.parsed += 1;
                    ParsedFile {
                        parsed: self.share_abstracts(file.parsed),
                        ..file
                    }
                }
                ReadListing::Failed => {
                    self.parsed += 1;
                    continue;
                }
                ReadListing::Unread => continue,
            };
            if let Some(read) = file.read {
                let parsed = file.parsed.clone();
                let cached = CachedListing { read, parsed };
                if let Some(old) = self.entries.insert(Arc::clone(&file.parsed.file), cached) {
                    self.released
                        .extend(old.parsed.keys.iter().map(|k| k.abstract_hash));
                }
            }
            kept.push((PathBuf::clone(path), file.parsed, file.inode));
        }
    }

    /// Ends a parse whose listings that parsed are `kept`: drops the cache
    /// entries of files gone or no longer parsing (releasing their
    /// abstracts), updates the title hashes and keeps the listings as the
    /// last parse's. Returns the listings.
    fn finish_parse(
        &mut self,
        kept: Vec<(PathBuf, ParsedListing, Option<u64>)>,
    ) -> Vec<ParsedListing> {
        // Every listing that parsed has its entry; more entries are files
        // gone or no longer parsing.
        if self.entries.len() > kept.len() {
            let present: HashSet<&Path> = kept.iter().map(|(_, p, _)| &*p.file).collect();
            let released = &mut self.released;
            self.entries.retain(|file, old| {
                let stays = present.contains(&**file);
                if !stays {
                    released.extend(old.parsed.keys.iter().map(|k| k.abstract_hash));
                }
                stays
            });
        }
        self.titles.update(
            self.last_parsed.iter().map(|(_, p, _)| p),
            kept.iter().map(|(_, p, _)| p),
        );
        let listings = kept.iter().map(|(_, p, _)| p.clone()).collect();
        self.last_parsed = kept;
        listings
    }

    /// The jobs of `plan` compared with the last commit's pages by their
    /// fingerprints ([`Fingerprints`]), and the item hashes they were made
    /// with. With a patched plan, only the jobs that show what changed
    /// are fingerprinted; the others are as the last commit has them.
    fn compare(
        &self,
        site: &Site,
        templates: &Templates,
        plan: &Arc<Plan>,
    ) -> (Compared<'_>, ItemHashes) {
        let (jobs, paths) = (&plan.jobs, &plan.paths);
        let patch = self.building.as_ref().and_then(|b| b.patch.as_ref());
        let patch = patch.zip(self.last_build.as_ref());
        let touched: Vec<usize> = match patch {
            Some((patch, _)) => (0..jobs.len())
                .into_par_iter()
                .filter(|&i| patch.changes.touches(&jobs[i]))
                .collect(),
            None => (0..jobs.len()).collect(),
        };
        let reused = patch.map(|(patch, last)| (&last.items, &patch.changes));
        let fingerprints = Fingerprints::new(*site, templates, plan, reused);
        let prints: Vec<u64> = touched
            .par_iter()
            .map(|&i| fingerprints.of(&jobs[i]))
            .collect();
        let items = fingerprints.into_items();
        let committed = &self.pages.pages;
        // Per touched job: its page's index among the committed ones, and
        // whether its fingerprint is unchanged.
        let last: Vec<Option<(usize, bool)>> = touched
            .par_iter()
            .zip(&prints)
            .map(|(&i, &print)| {
                let (at, _, (old, _)) = committed.get_full(&paths[i])?;
                Some((at, *old == print))
            })
            .collect();
        let changed: Vec<(usize, u64, String)> = touched
            .par_iter()
            .zip(&prints)
            .zip(&last)
            .filter(|(_, last)| !last.is_some_and(|(_, unchanged)| unchanged))
            .map(|((&i, &print), _)| (i, print, crate::render::plan::output_file(site, &jobs[i])))
            .collect();
        let gone: Vec<(u64, &str)> = match patch {
            Some((patch, _)) => patch
                .gone
                .iter()
                .filter(|&&hash| !plan.has_path(hash))
                .filter_map(|hash| committed.get(hash).map(|(_, path)| (*hash, &**path)))
                .collect(),
            None => {
                let mut still = vec![false; committed.len()];
                last.iter().flatten().for_each(|&(at, _)| still[at] = true);
                committed
                    .iter()
                    .zip(&still)
                    .filter(|(_, &still)| !still)
                    .map(|((&hash, (_, path)), _)| (hash, &**path))
                    .collect()
            }
        };
        (Compared { changed, gone }, items)
    }

    /// Carries the last commit over in `sink` ([`Sink::carry_over`]) when
    /// the sink still holds the commit the cache knows, less what this
    /// build does not carry over: gone pages, changed pages (those
    /// rendered are put again), the sitemap's old parts when it changed,
    /// the static files (all put again) and the search index when it is
    /// not `search_staged` now. Returns the commit carried over, if it was.
    fn carry_over(
        &self,
        compared: &Compared,
        plan: &Plan,
        search_staged: bool,
        sink: &dyn Sink,
    ) -> Option<u64> {
        let committed = &self.pages;
        committed.commit.filter(|&commit| {
            let mut dropped: Vec<&str> = compared.gone.iter().map(|&(_, path)| path).collect();
            dropped.extend(compared.changed.iter().map(|(_, _, file)| file.as_str()));
            if !compared.unchanged(plan.sitemap_job()) {
                dropped.extend(committed.sitemap.iter().map(String::as_str));
            }
            dropped.extend(committed.statics.iter().map(String::as_str));
            if let (false, Some((_, index))) = (search_staged, &self.index) {
                dropped.extend(index.iter().map(|(file, _)| file.as_str()));
            }
            sink.carry_over(commit, &dropped)
        })
    }
}

impl Incremental for RebuildCache {
    /// The files under `seeds/` (the last build's, with the listings of
    /// `changed`, relative paths, added or removed as they are now on
    /// disk); `None` when there was no last list or a changed path under
    /// `seeds/` is neither a listing nor hidden ([`crate::input::Walk`]
    /// skips hidden paths there), is a symbolic link, has a name the walk
    /// warns about, or was warned about.
    /// The list is taken from the cache and patched in place: the last
    /// build no longer holds it, so it is not copied.
    fn patched_listings(&mut self, root: &Path, changed: &[PathBuf]) -> Option<Arc<SeedFiles>> {
        let mut shared = self.seeds.take()?;
        let found = Arc::make_mut(&mut shared);
        let seeds = &mut found.listings;
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
            // A path the walk warned about, or would (a name no page can
            // hold): the walk tells again.
            let named_well = relative
                .to_str()
                .is_some_and(|name| !name.chars().any(char::is_control));
            let warned = found.warnings.iter().any(|w| w.file == *relative);
            // A symbolic link: the walk follows it or warns.
            let linked = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
            if !listing::is_listing(relative) || path.is_dir() || !named_well || warned || linked {
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

    fn found_listings(&mut self, seeds: Option<Arc<SeedFiles>>, only_listings: bool) {
        self.seeds = seeds;
        if !only_listings {
            self.last_build = None;
        }
    }

    /// Reads and parses the listings of `paths` in parallel, one file's
    /// bytes at a time per thread; errors go to `diagnostics`. A file is
    /// taken from the cache instead of being parsed when its stamp (size, times, inode)
    /// is the one it had when it was last read (and it was not changed
    /// after that reading began, which a coarse clock could hide), or else
    /// when its bytes hash as before; a file not among `changed` (relative
    /// paths; [`crate::build::BuildOptions::changed_paths`]) is taken from
    /// the cache without reading its stamp. What was read is kept
    /// afterwards, one listing after the other.
    fn parse(
        &mut self,
        paths: &[PathBuf],
        root: &Path,
        changed: Option<&[PathBuf]>,
        diagnostics: &Diagnostics,
    ) -> Vec<ParsedListing> {
        let mut untouched = match changed {
            Some(changed) => self.untouched(paths, root, changed),
            None => vec![None; paths.len()],
        };
        let mut kept = Vec::with_capacity(paths.len());
        // A listing parsed anew holds its own copy of each abstract until
        // it is kept: read in chunks, at most one chunk's copies are held
        // at once, not every listing's.
        let chunks = paths.chunks(PARSE_CHUNK);
        for (paths, untouched) in chunks.zip(untouched.chunks_mut(PARSE_CHUNK)) {
            let entries = &self.entries;
            let read: Vec<(&PathBuf, ReadListing)> = paths
                .par_iter()
                .zip(untouched)
                .map(|(path, untouched)| match untouched.take() {
                    Some((parsed, inode)) => {
                        let file = ParsedFile {
                            parsed,
                            read: None,
                            inode,
                        };
                        (path, ReadListing::Cached(file))
                    }
                    None => (path, read_listing(entries, path, root, diagnostics)),
                })
                .collect();
            self.keep_read(read, &mut kept);
        }
        self.finish_parse(kept)
    }

    fn titles_may_clash(&self) -> bool {
        self.titles.may_clash()
    }

    fn merge(
        &mut self,
        listings: Vec<ParsedListing>,
        taxonomy: &Taxonomy,
        variants: &[NameVariant],
        diagnostics: &Diagnostics,
    ) -> Arc<Corpus> {
        let texts = &self.texts;
        let (corpus, patched) = self
            .merge
            .corpus(listings, taxonomy, variants, texts, diagnostics);
        // The abstracts of the listings let go (by the cache and by the
        // merge) that no listing holds any more are forgotten: a look-up
        // for each, not a pass over them all.
        for hash in std::mem::take(&mut self.released) {
            if self
                .abstracts
                .get(&hash)
                .is_some_and(|a| Arc::strong_count(a) == 1)
            {
                self.abstracts.remove(&hash);
            }
        }
        if patched {
            // The unchanged papers' texts were not looked up, but
            // are still in use.
            self.patched += 1;
        } else {
            texts.finish_build();
        }
        corpus
    }

    /// The plan of `site`: the last committed build's patched
    /// ([`Plan::patched`]) when only listings changed since and the site
    /// kept its shape ([`Changes::between`]), else made anew. Kept, with
    /// what changed, for [`RebuildCache::select`] and the next build.
    fn plan(
        &mut self,
        site: &Site,
        corpus: &Arc<Corpus>,
        static_files: &rustc_hash::FxHashSet<String>,
        only_listings: bool,
    ) -> Result<Arc<Plan>, Vec<Diagnostic>> {
        self.building = None;
        let last = self.last_build.as_ref();
        let patched = last.filter(|_| only_listings).and_then(|last| {
            let mut changes = Changes::between(&last.corpus, corpus, |n| site.pages_for(n))?;
            changes.mark_linking(corpus, site.content);
            let (made, gone) = last
                .plan
                .patched(site, &changes.changed_papers(), static_files)?;
            Some((made, Patch { changes, gone }))
        });
        let (made, patch) = match patched {
            Some((made, patch)) => {
                if made.is_ok() {
                    self.plans_patched += 1;
                }
                (made, Some(patch))
            }
            None => (crate::render::plan::plan(site, static_files), None),
        };
        let plan = Arc::new(made?);
        self.building = Some(Building {
            corpus: Arc::clone(corpus),
            plan: Arc::clone(&plan),
            patch,
            items: None,
        });
        Ok(plan)
    }

    /// Which jobs of `plan` (their indices) to render: those whose
    /// fingerprint changed since the last commit (with a patched plan,
    /// only the jobs that show what changed are fingerprinted, the others
    /// are as the last commit has them) or that the sink cannot
    /// carry over. The others are carried over in `sink`, and so are the
    /// search index's files when `search_staged` (else they are dropped
    /// until they are made again); the `statics` (output paths) are put
    /// already. When the sink still holds the commit the cache knows, it
    /// is told only which files go ([`Sink::carry_over`]); else each file
    /// carried over is looked up ([`Sink::keep`]). The changes wait for
    /// [`RebuildCache::commit`].
    fn select(
        &mut self,
        site: &Site,
        templates: &Templates,
        plan: &Arc<Plan>,
        statics: &[String],
        search_staged: bool,
        sink: &dyn Sink,
    ) -> Vec<usize> {
        let (compared, items) = self.compare(site, templates, plan);
        // The sitemap is the one job that may write several files.
        let sitemap: Vec<String> = crate::render::feeds::sitemap_routes(site, plan.listed_pages)
            .iter()
            .map(|route| site.urls.output_file(route))
            .collect();
        let carried = self.carry_over(&compared, plan, search_staged, sink);
        let mut selected = not_kept(site, plan, &compared, carried, &sitemap, sink);
        selected.extend(compared.changed.iter().map(|c| c.0));
        selected.sort_unstable();
        selected.dedup();
        let paths = &plan.paths;
        let pending = PendingPages {
            gone: compared.gone.iter().map(|&(hash, _)| hash).collect(),
            changed: compared
                .changed
                .into_iter()
                .map(|(i, print, file)| (paths[i], print, file))
                .collect(),
            sitemap,
            statics: statics.to_vec(),
            carried,
        };
        self.pages.pending = Some(pending);
        let file = |i: usize| crate::render::plan::output_file(site, &plan.jobs[i]);
        self.rendered = selected.iter().map(|&i| file(i)).collect();
        self.rendered.sort();
        if let Some(building) = self.building.as_mut() {
            building.items = Some(items);
        }
        selected
    }

    /// Stages the search index of `site` in `sink`: the cached one when its
    /// inputs hash as before (carried over from the sink when it can),
    /// else a new one, kept for next time. Errors: the files not staged.
    fn stage_search_index(&mut self, site: &Site, sink: &dyn Sink) -> Vec<(String, io::Error)> {
        let carried = self.pages.pending.as_ref().and_then(|p| p.carried);
        let last: Vec<String> = match (carried, &self.index) {
            (Some(_), Some((_, files))) => files.iter().map(|(f, _)| f.clone()).collect(),
            _ => Vec::new(),
        };
        let (reused, files) = self.search_index_of(site);
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
            .filter_map(|((file, stored), _)| {
                let bytes = stored.bytes().ok_or_else(|| io::Error::other("not kept"));
                Some((file.clone(), bytes.and_then(|b| sink.put(file, b)).err()?))
            })
            .collect()
    }

    fn search_index(&mut self, site: &Site) -> Vec<(String, StoredFile)> {
        self.search_index_of(site).1.to_vec()
    }

    /// Makes the pending pages those of the sink's commit `commit`
    /// ([`Sink::last_commit`]); without pending pages, the commit's pages
    /// are unknown.
    fn commit(&mut self, commit: Option<u64>) {
        let building = self.building.take();
        let committed = &mut self.pages;
        let Some(pending) = committed.pending.take() else {
            committed.commit = None;
            self.last_build = None;
            return;
        };
        self.last_build = building.and_then(|building| {
            Some(BuiltSite {
                corpus: building.corpus,
                plan: building.plan,
                items: building.items?,
            })
        });
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

/// The jobs of a plan compared with the last commit's pages.
struct Compared<'c> {
    /// The jobs whose fingerprint changed, or that are new: (index,
    /// fingerprint, output file), by index.
    changed: Vec<(usize, u64, String)>,
    /// The last commit's pages that no job writes now: (path hash, path).
    gone: Vec<(u64, &'c str)>,
}

impl Compared<'_> {
    /// Whether job `i`'s fingerprint is the last commit's.
    fn unchanged(&self, i: usize) -> bool {
        self.changed.binary_search_by_key(&i, |c| c.0).is_err()
    }
}

/// The unchanged jobs of `plan` whose files `sink` no longer holds, which
/// are rendered again. The files of unchanged jobs, each with its job, are
/// looked up in one call ([`Sink::keep`]): all of them, or when the rest is
/// `carried` over, only `corpus.json`, which is made after the commit that
/// holds it. `sitemap` is the sitemap job's files.
fn not_kept(
    site: &Site,
    plan: &Plan,
    compared: &Compared,
    carried: Option<u64>,
    sitemap: &[String],
    sink: &dyn Sink,
) -> Vec<usize> {
    let jobs = &plan.jobs;
    let file = |i: usize| crate::render::plan::output_file(site, &jobs[i]);
    let looked_up: Vec<usize> = match carried {
        None => (0..jobs.len()).filter(|&i| compared.unchanged(i)).collect(),
        Some(_) => plan
            .job_of(
                site,
                &crate::render::plan::output_file(site, &Job::CorpusJson),
            )
            .filter(|&i| compared.unchanged(i))
            .into_iter()
            .collect(),
    };
    let mut wanted: Vec<String> = Vec::new();
    let mut owners: Vec<usize> = Vec::new();
    for i in looked_up {
        let own = match jobs[i] {
            Job::Sitemap => sitemap.to_vec(),
            _ => vec![file(i)],
        };
        owners.extend(std::iter::repeat_n(i, own.len()));
        wanted.extend(own);
    }
    let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
    sink.keep(&wanted)
        .into_iter()
        .zip(owners)
        .filter(|(kept, _)| !kept)
        .map(|(_, owner)| owner)
        .collect()
}

/// How many listings the parse reads in parallel before it keeps them
/// ([`RebuildCache::keep_read`]).
const PARSE_CHUNK: usize = 1024;

/// A listing file as one thread of the parse hands it on.
enum ReadListing {
    /// Taken from the cache (its stamp or its bytes as before) or from the
    /// last parse.
    Cached(ParsedFile),
    /// Parsed anew.
    Parsed(ParsedFile),
    /// Parsed anew, with errors (in the diagnostics).
    Failed,
    /// Not read (the error is in the diagnostics).
    Unread,
}

/// A listing the parse hands on: parsed, how its file was read when it
/// was (its new cache entry's [`FileRead`]), and its file's inode.
struct ParsedFile {
    parsed: ParsedListing,
    read: Option<FileRead>,
    inode: Option<u64>,
}

/// Reads the listing at `path` (under `root`'s `seeds/`) unless `entries`
/// knows it unchanged by its stamp, and parses its bytes unless they hash
/// as `entries` has them; errors go to `diagnostics`.
fn read_listing(
    entries: &HashMap<Arc<Path>, CachedListing>,
    path: &Path,
    root: &Path,
    diagnostics: &Diagnostics,
) -> ReadListing {
    let shown = path.strip_prefix(root).unwrap_or(path);
    let stamp = FileStamp::of(path);
    let inode = stamp.map(|stamp| stamp.inode);
    let cached = entries.get(shown);
    if let Some(cached) = cached.filter(|cached| stamp.is_some_and(|s| cached.unchanged_at(&s))) {
        let parsed = cached.parsed.clone();
        return ReadListing::Cached(ParsedFile {
            parsed,
            read: None,
            inode,
        });
    }
    let read_at = std::time::SystemTime::now();
    let (_, shown, bytes) = match read_file(path, &root.join("seeds"), root) {
        Ok(file) => file,
        Err(d) => {
            diagnostics.push(d);
            return ReadListing::Unread;
        }
    };
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    let read = Some(FileRead {
        hash,
        stamp,
        read_at,
    });
    if let Some(cached) = cached.filter(|cached| cached.read.hash == hash) {
        let parsed = cached.parsed.clone();
        return ReadListing::Cached(ParsedFile {
            parsed,
            read,
            inode,
        });
    }
    match ParsedListing::parse(shown, &bytes) {
        Ok(parsed) => ReadListing::Parsed(ParsedFile {
            parsed,
            read,
            inode,
        }),
        Err(problems) => {
            problems.into_iter().for_each(|d| diagnostics.push(d));
            ReadListing::Failed
        }
    }
}

/// A path's bytes, as the platform encodes them.
fn bytes(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
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

/// How a listing file was read: the XXH3-64 hash of its bytes, its stamp
/// before they were read and when the reading began.
#[derive(Debug, Clone, Copy)]
struct FileRead {
    hash: u64,
    stamp: Option<FileStamp>,
    read_at: std::time::SystemTime,
}

/// A parsed listing in [`RebuildCache`], with how its file was read.
#[derive(Debug, Clone)]
struct CachedListing {
    read: FileRead,
    parsed: ParsedListing,
}

impl CachedListing {
    /// Whether a file stamped `now` still holds the bytes read: the same
    /// stamp, last changed before the reading began, so a write in the same
    /// clock tick as the reading is not missed.
    fn unchanged_at(&self, now: &FileStamp) -> bool {
        let FileRead { stamp, read_at, .. } = self.read;
        stamp == Some(*now) && now.modified < read_at && now.changed < read_at
    }
}
