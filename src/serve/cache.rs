//! What `vellum serve` keeps from one build to the next, and the one seam
//! through which it enters the build driver: [`RebuildCache`] implements
//! [`Incremental`], which [`crate::build::build`] calls at each stage.
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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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
    entries: Mutex<HashMap<Arc<Path>, CachedListing>>,
    /// The abstracts of the cached listings by their source hash
    /// ([`crate::corpus::listings::RecordKeys::abstract_hash`]): the
    /// records of a paper listed by several of its authors share one copy,
    /// not one each (measured in 7a9876a).
    abstracts: Mutex<rustc_hash::FxHashMap<u64, Arc<[String]>>>,
    /// The abstract hashes of the listings the cache let go since the last
    /// merge, to be forgotten once no listing holds them.
    released: Mutex<Vec<u64>>,
    parsed: AtomicUsize,
    index: Mutex<Option<IndexFiles>>,
    indexed: AtomicUsize,
    analyses: crate::render::search::AnalysisCache,
    texts: crate::text::TextMemo,
    merge: Mutex<crate::corpus::merge::Merge>,
    patched: AtomicUsize,
    plans_patched: AtomicUsize,
    /// The pages of the sink's last commit, and the changes of the build
    /// in progress.
    pages: Mutex<CommittedPages>,
    /// The output files the last build rendered, sorted.
    rendered: Mutex<Vec<String>>,
    /// The listings the last parse handed on, in path order, each with
    /// the path it was read from and its file's inode: a rebuild told
    /// what changed takes the others from here in one ordered pass.
    last_parsed: Mutex<Vec<(PathBuf, ParsedListing, Option<u64>)>>,
    /// The title and first-paragraph hashes of the last parse's listings.
    titles: Mutex<TitleHashes>,
    /// The files under `seeds/` the last build found; `None` when it
    /// stopped before looking.
    seeds: Mutex<Option<Arc<SeedFiles>>>,
    /// The last committed build, when its pages are known.
    last_build: Mutex<Option<BuiltSite>>,
    /// The build in progress, from its plan on.
    building: Mutex<Option<Building>>,
}

impl RebuildCache {
    /// How many listings were parsed (not taken from the cache) so far.
    pub fn parsed_count(&self) -> usize {
        self.parsed.load(Ordering::Relaxed)
    }

    /// How many distinct abstracts the cached listings hold (each once,
    /// however many listings hold its paper).
    pub fn abstracts_held(&self) -> usize {
        lock(&self.abstracts).len()
    }

    /// How many corpora were patched from the last one rather than merged
    /// anew ([`crate::corpus::merge::Merge::corpus`]) so far.
    pub fn patched_count(&self) -> usize {
        self.patched.load(Ordering::Relaxed)
    }

    /// How many plans were patched from the last one rather than made
    /// anew ([`Plan::patched`]) so far.
    pub fn patched_plans(&self) -> usize {
        self.plans_patched.load(Ordering::Relaxed)
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

    /// `parsed` with each record's abstract replaced by an equal one that
    /// a cached listing holds, if there is one.
    fn share_abstracts(&self, mut parsed: ParsedListing) -> ParsedListing {
        use std::collections::hash_map::Entry;
        let Some(listing) = Arc::get_mut(&mut parsed.listing) else {
            return parsed;
        };
        let mut shared = lock(&self.abstracts);
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
        drop(shared);
        parsed
    }

    /// Makes the cached search index that of `site` (kept when its inputs
    /// hash as before, else built again), then hands `take` whether it was
    /// kept and its files, under the cache's lock.
    fn with_search_index<T>(
        &self,
        site: &Site,
        take: impl FnOnce(bool, &[(String, StoredFile)]) -> T,
    ) -> T {
        let hash = crate::render::search::inputs_hash(site.corpus, site.config, site.urls);
        let mut index = lock(&self.index);
        let reused = index.as_ref().is_some_and(|(h, _)| *h == hash);
        if !reused {
            self.indexed.fetch_add(1, Ordering::Relaxed);
            // The last index goes before the new one is made, not after.
            *index = None;
            let mut files = Vec::new();
            crate::render::search::build_index(
                site.corpus,
                site.config,
                site.urls,
                Some(&self.analyses),
                &mut |file, bytes| files.push((file, StoredFile::new(&bytes))),
            );
            *index = Some((hash, files));
        }
        take(reused, index.as_ref().map_or(&[][..], |(_, files)| files))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
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
    fn patched_listings(&self, root: &Path, changed: &[PathBuf]) -> Option<Arc<SeedFiles>> {
        let mut shared = lock(&self.seeds).take()?;
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

    fn found_listings(&self, seeds: Option<Arc<SeedFiles>>, only_listings: bool) {
        *lock(&self.seeds) = seeds;
        if !only_listings {
            *lock(&self.last_build) = None;
        }
    }

    /// Reads and parses the listings of `paths` in parallel, one file's
    /// bytes at a time per thread; errors go to `diagnostics`. A file is
    /// taken from the cache instead of being parsed when its stamp (size, times, inode)
    /// is the one it had when it was last read (and it was not changed
    /// after that reading began, which a coarse clock could hide), or else
    /// when its bytes hash as before; a file not among `changed` (relative
    /// paths; [`crate::build::BuildOptions::changed_paths`]) is taken from
    /// the cache without reading its stamp.
    fn parse(
        &self,
        paths: &[PathBuf],
        root: &Path,
        changed: Option<&[PathBuf]>,
        diagnostics: &Diagnostics,
    ) -> Vec<ParsedListing> {
        let dir = root.join("seeds");
        let parse_one = |path: &PathBuf| {
            let shown = path.strip_prefix(root).unwrap_or(path).to_path_buf();
            let stamp = FileStamp::of(path);
            let unchanged = lock(&self.entries)
                .get(shown.as_path())
                .filter(|cached| stamp.is_some_and(|s| cached.unchanged_at(&s)))
                .map(|cached| cached.parsed.clone());
            let inode = stamp.map(|stamp| stamp.inode);
            if let Some(parsed) = unchanged {
                return Some((parsed, None, inode));
            }
            let read_at = std::time::SystemTime::now();
            let (_, shown, bytes) = match read_file(path, &dir, root) {
                Ok(file) => file,
                Err(d) => {
                    diagnostics.push(d);
                    return None;
                }
            };
            let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
            let same_bytes = lock(&self.entries)
                .get(shown.as_path())
                .filter(|cached| cached.hash == hash)
                .map(|cached| cached.parsed.clone());
            let parsed = match same_bytes {
                Some(parsed) => parsed,
                None => {
                    self.parsed.fetch_add(1, Ordering::Relaxed);
                    match ParsedListing::parse(shown, &bytes) {
                        Ok(parsed) => self.share_abstracts(parsed),
                        Err(problems) => {
                            problems.into_iter().for_each(|d| diagnostics.push(d));
                            return None;
                        }
                    }
                }
            };
            let cached = CachedListing {
                hash,
                stamp,
                read_at,
                parsed: parsed.clone(),
            };
            Some((parsed, Some(cached), inode))
        };
        // The listings known unchanged, taken from the last parse's in
        // one pass in path order (a file removed since is skipped: at most
        // as many as changed). A hard link of a changed file changed with
        // it: listings sharing its inode are read again too.
        let untouched: Vec<Option<(ParsedListing, Option<u64>)>> = match changed {
            Some(changed) => {
                let changed_paths: Vec<PathBuf> =
                    changed.iter().map(|relative| root.join(relative)).collect();
                let changed_set: rustc_hash::FxHashSet<&[u8]> =
                    changed_paths.iter().map(|path| bytes(path)).collect();
                let inodes: HashSet<u64> = changed_paths
                    .iter()
                    .filter_map(|path| FileStamp::of(path))
                    .map(|stamp| stamp.inode)
                    .collect();
                let last = lock(&self.last_parsed);
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
            None => vec![None; paths.len()],
        };
        let parsed: Vec<(&PathBuf, ParsedFile)> = paths
            .par_iter()
            .zip(untouched)
            .filter_map(|(path, untouched)| match untouched {
                Some((parsed, inode)) => Some((path, (parsed, None, inode))),
                None => Some((path, parse_one(path)?)),
            })
            .collect();
        let mut entries = lock(&self.entries);
        let mut released = Vec::new();
        let mut release = |old: &CachedListing| {
            released.extend(old.parsed.keys.iter().map(|k| k.abstract_hash));
        };
        for (_, (p, cached, _)) in &parsed {
            if let Some(cached) = cached {
                if let Some(old) = entries.insert(Arc::clone(&p.file), cached.clone()) {
                    release(&old);
                }
            }
        }
        // Every listing that parsed has its entry; more entries are files
        // gone or no longer parsing.
        if entries.len() > parsed.len() {
            let present: HashSet<&Path> = parsed.iter().map(|(_, (p, _, _))| &*p.file).collect();
            entries.retain(|file, old| {
                let stays = present.contains(&**file);
                if !stays {
                    release(old);
                }
                stays
            });
        }
        drop(entries);
        lock(&self.released).extend(released);
        let mut last = lock(&self.last_parsed);
        lock(&self.titles).update(
            last.iter().map(|(_, p, _)| p),
            parsed.iter().map(|(_, (p, _, _))| p),
        );
        *last = parsed
            .iter()
            .map(|(path, (p, _, inode))| (PathBuf::clone(path), p.clone(), *inode))
            .collect();
        drop(last);
        parsed.into_iter().map(|(_, (p, _, _))| p).collect()
    }

    fn titles_may_clash(&self) -> bool {
        lock(&self.titles).may_clash()
    }

    fn merge(
        &self,
        listings: Vec<ParsedListing>,
        taxonomy: &Taxonomy,
        variants: &[NameVariant],
        diagnostics: &Diagnostics,
    ) -> Arc<Corpus> {
        let mut merge = lock(&self.merge);
        let texts = &self.texts;
        let (corpus, patched) = merge.corpus(listings, taxonomy, variants, texts, diagnostics);
        // The abstracts of the listings let go (by the cache and by the
        // merge) that no listing holds any more are forgotten: a look-up
        // for each, not a pass over them all.
        let released = std::mem::take(&mut *lock(&self.released));
        let mut abstracts = lock(&self.abstracts);
        for hash in released {
            if abstracts
                .get(&hash)
                .is_some_and(|a| Arc::strong_count(a) == 1)
            {
                abstracts.remove(&hash);
            }
        }
        drop(abstracts);
        if patched {
            // The unchanged papers' texts were not looked up, but
            // are still in use.
            self.patched.fetch_add(1, Ordering::Relaxed);
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
        &self,
        site: &Site,
        corpus: &Arc<Corpus>,
        static_files: &rustc_hash::FxHashSet<String>,
        only_listings: bool,
    ) -> Result<Arc<Plan>, Vec<Diagnostic>> {
        *lock(&self.building) = None;
        let last = lock(&self.last_build);
        let patched = last.as_ref().filter(|_| only_listings).and_then(|last| {
            let mut changes = Changes::between(&last.corpus, corpus, |n| site.pages_for(n))?;
            changes.mark_linking(corpus, site.content);
            let (made, gone) = last
                .plan
                .patched(site, &changes.changed_papers(), static_files)?;
            Some((made, Patch { changes, gone }))
        });
        drop(last);
        let (made, patch) = match patched {
            Some((made, patch)) => {
                if made.is_ok() {
                    self.plans_patched.fetch_add(1, Ordering::Relaxed);
                }
                (made, Some(patch))
            }
            None => (crate::render::plan::plan(site, static_files), None),
        };
        let plan = Arc::new(made?);
        *lock(&self.building) = Some(Building {
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
        &self,
        site: &Site,
        templates: &Templates,
        plan: &Arc<Plan>,
        statics: &[String],
        search_staged: bool,
        sink: &dyn Sink,
    ) -> Vec<usize> {
        let (jobs, paths) = (&plan.jobs, &plan.paths);
        let file = |i: usize| crate::render::plan::output_file(site, &jobs[i]);
        let mut building = lock(&self.building);
        let last_build = lock(&self.last_build);
        // With a patched plan, only the jobs that show what changed are
        // fingerprinted; the others are as the last commit has them.
        let patch = building.as_ref().and_then(|b| b.patch.as_ref());
        let patch = patch.zip(last_build.as_ref());
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
        let mut committed = lock(&self.pages);
        // Per touched job: its page's index among the committed ones, and
        // whether its fingerprint is unchanged.
        let last: Vec<Option<(usize, bool)>> = touched
            .par_iter()
            .zip(&prints)
            .map(|(&i, &print)| {
                let (at, _, (old, _)) = committed.pages.get_full(&paths[i])?;
                Some((at, *old == print))
            })
            .collect();
        // The jobs whose fingerprint changed: (index, fingerprint, file).
        let changed: Vec<(usize, u64, String)> = touched
            .par_iter()
            .zip(&prints)
            .zip(&last)
            .filter(|(_, last)| !last.is_some_and(|(_, unchanged)| unchanged))
            .map(|((&i, &print), _)| (i, print, file(i)))
            .collect();
        let unchanged = |i: usize| changed.binary_search_by_key(&i, |c| c.0).is_err();
        // The last commit's pages that no job writes now: (path hash, path).
        let gone: Vec<(u64, &str)> = match patch {
            Some((patch, _)) => patch
                .gone
                .iter()
                .filter(|&&hash| !plan.has_path(hash))
                .filter_map(|hash| committed.pages.get(hash).map(|(_, path)| (*hash, &**path)))
                .collect(),
            None => {
                let mut still = vec![false; committed.pages.len()];
                last.iter().flatten().for_each(|&(at, _)| still[at] = true);
                committed
                    .pages
                    .iter()
                    .zip(&still)
                    .filter(|(_, &still)| !still)
                    .map(|((&hash, (_, path)), _)| (hash, &**path))
                    .collect()
            }
        };
        // The sitemap is the one job that may write several files.
        let sitemap_files: Vec<String> =
            crate::render::feeds::sitemap_routes(site, plan.listed_pages)
                .iter()
                .map(|route| site.urls.output_file(route))
                .collect();
        let sitemap_kept = unchanged(plan.sitemap_job());
        let carried = committed.commit.filter(|&commit| {
            // What the last commit holds and this one does not carry over:
            // gone pages, changed pages (those rendered are put again),
            // the sitemap's old parts, the static files (all put again)
            // and the search index when it is not staged now.
            let mut dropped: Vec<&str> = gone.iter().map(|&(_, path)| path).collect();
            dropped.extend(changed.iter().map(|(_, _, file)| file.as_str()));
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
        let looked_up: Vec<usize> = match carried {
            None => (0..jobs.len()).filter(|&i| unchanged(i)).collect(),
            Some(_) => plan
                .job_of(
                    site,
                    &crate::render::plan::output_file(site, &Job::CorpusJson),
                )
                .filter(|&i| unchanged(i))
                .into_iter()
                .collect(),
        };
        let mut wanted: Vec<String> = Vec::new();
        let mut owners: Vec<usize> = Vec::new();
        for i in looked_up {
            let own = match jobs[i] {
                Job::Sitemap => sitemap_files.clone(),
                _ => vec![file(i)],
            };
            owners.extend(std::iter::repeat_n(i, own.len()));
            wanted.extend(own);
        }
        let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
        let mut selected: Vec<usize> = changed.iter().map(|c| c.0).collect();
        for (kept, owner) in sink.keep(&wanted).into_iter().zip(owners) {
            if !kept {
                selected.push(owner);
            }
        }
        selected.sort_unstable();
        selected.dedup();
        committed.pending = Some(PendingPages {
            changed: changed
                .into_iter()
                .map(|(i, print, file)| (paths[i], print, file))
                .collect(),
            gone: gone.iter().map(|&(hash, _)| hash).collect(),
            sitemap: sitemap_files,
            statics: statics.to_vec(),
            carried,
        });
        let mut rendered: Vec<String> = selected.iter().map(|&i| file(i)).collect();
        rendered.sort();
        *lock(&self.rendered) = rendered;
        if let Some(building) = building.as_mut() {
            building.items = Some(items);
        }
        selected
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
                .filter_map(|((file, stored), _)| {
                    let bytes = stored.bytes().ok_or_else(|| io::Error::other("not kept"));
                    Some((file.clone(), bytes.and_then(|b| sink.put(file, b)).err()?))
                })
                .collect()
        })
    }

    fn search_index(&self, site: &Site) -> Vec<(String, StoredFile)> {
        self.with_search_index(site, |_, files| files.to_vec())
    }

    /// Makes the pending pages those of the sink's commit `commit`
    /// ([`Sink::last_commit`]); without pending pages, the commit's pages
    /// are unknown.
    fn commit(&self, commit: Option<u64>) {
        // Locked in the order `select` locks them.
        let building = lock(&self.building).take();
        let mut last_build = lock(&self.last_build);
        let mut committed = lock(&self.pages);
        let Some(pending) = committed.pending.take() else {
            committed.commit = None;
            *last_build = None;
            return;
        };
        *last_build = building.and_then(|building| {
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

/// A listing as the parse hands it on: parsed, its new cache entry when
/// it was read, and its file's inode.
type ParsedFile = (ParsedListing, Option<CachedListing>, Option<u64>);

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
