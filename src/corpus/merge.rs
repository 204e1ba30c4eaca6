//! The merge: parsed listings into one [`Corpus`], by the identity and
//! ordering rules of [`crate::corpus`], and the patch of the last merge
//! that `vellum serve` makes when a few listings changed ([`Merge`]).

use crate::corpus::bibliography::SOURCE;
use crate::corpus::categories::{Taxonomy, UNKNOWN_GROUP};
use crate::corpus::keys::{assign_keys, listed_key};
use crate::corpus::listings::ParsedListing;
use crate::corpus::{
    Author, AuthorId, Category, CategoryId, Corpus, ListingPage, NameVariant, Paper, PaperDetails,
    PaperId, Year, UNDATED,
};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::permalink::{assign_unique_slugs, slugify};
use crate::text::names::{author_sort_key, fold, NameParts};
use crate::text::{packed, Abstract, Text, TextMemo};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// first the chosen one.
struct Draft {
    identity: Arc<str>,
    records: Vec<(usize, usize)>,
}

impl Corpus {
    /// Merges listings into a corpus, listings of a name variant into
    /// their canonical author. The order of `listings` does not matter.
    /// Warnings (unknown category codes, disagreeing duplicates, missing or
    /// repeated listing pages, a name variant matching no listing) go to
    /// `diagnostics`.
    ///
    /// Memory: a listing held nowhere else (a build without `vellum
    /// serve`'s cache) loses the title, abstract and categories of every
    /// record that is not its paper's chosen one as soon as the records are
    /// compared, so the corpus's texts reuse that memory instead of adding
    /// to it (measured in 013bcdd). Each chosen record also gives up its
    /// abstract's paragraphs as the abstract is made.
    pub fn build(
        mut listings: Vec<ParsedListing>,
        taxonomy: &Taxonomy,
        variants: &[NameVariant],
        diagnostics: &Diagnostics,
    ) -> Corpus {
        sort_listings(&mut listings);
        let mode = Mode::Build {
            pack_from: PACK_FROM,
        };
        let (corpus, _) = merge(listings, taxonomy, variants, mode, diagnostics);
        // Held nowhere else: not copied.
        Arc::unwrap_or_clone(corpus)
    }
}

/// The last merge, which `vellum serve` keeps from one build to the next so
/// that an edit to a few listings patches the corpus ([`Merge::corpus`]).
#[derive(Debug, Default)]
pub struct Merge {
    last: Option<Merged>,
}

/// Sorts listings by path, every `.bib` file's after every listing file's:
/// the first record of a paper, which gives its title, year, categories
/// and abstract, is a listing's when one holds it.
fn sort_listings(listings: &mut [ParsedListing]) {
    listings.sort_by(|a, b| {
        let bib = |l: &ParsedListing| crate::input::bibtex::is_bibtex(&l.file);
        (bib(a), &a.file).cmp(&(bib(b), &b.file))
    });
}

/// [`Merged::author_of_listing`] of a listing with no author.
const NO_AUTHOR: AuthorId = AuthorId::MAX;

/// At most this many changed listings are patched into the last corpus;
/// more are merged anew.
const PATCH_LIMIT: usize = 8;

impl Merge {
    /// The corpus of `listings`, equal to the one [`Corpus::build`] makes,
    /// with the same warnings; titles and abstracts are converted through
    /// `texts`. When the listings are the same
    /// files as last time, each by the same author, the `variants` are the
    /// same and at most 8 listings changed (`PATCH_LIMIT`; a listing is
    /// unchanged when it shares its parsed content with the last one, as
    /// the rebuild cache hands it on), only the changed listings' papers are
    /// made again and patched into the last corpus; otherwise every listing
    /// is merged anew. Returns the corpus, shared with this merge (a later
    /// patch copies it only while a build still holds it), and whether it
    /// was patched. Cost of a patch: its papers' conversion, the window of
    /// ids its moved papers span, plus passes over every paper that only
    /// compare hashes or count terms, far less than a merge (measured in
    /// 0659961).
    pub fn corpus(
        &mut self,
        mut listings: Vec<ParsedListing>,
        taxonomy: &Taxonomy,
        variants: &[NameVariant],
        texts: &TextMemo,
        diagnostics: &Diagnostics,
    ) -> (Arc<Corpus>, bool) {
        if let Some(merged) = &mut self.last {
            // Listings come in the last merge's order, which is sorted; they
            // are sorted (a comparison of paths each) only when they do not.
            let mut changed = merged.changed(&listings, variants);
            if changed.is_none() {
                sort_listings(&mut listings);
                changed = merged.changed(&listings, variants);
            }
            if let Some(changed) = changed {
                for index in changed {
                    merged.patch(index, listings[index].clone(), taxonomy, texts);
                }
                merged.report(diagnostics);
                return (Arc::clone(&merged.corpus), true);
            }
        }
        self.last = None;
        sort_listings(&mut listings);
        let mode = Mode::Serve { texts };
        let (corpus, kept) = merge(listings, taxonomy, variants, mode, diagnostics);
        self.last = kept;
        (corpus, false)
    }
}

/// What a merge keeps to be patched: its inputs, how records group into
/// papers, each paper's warnings, and the corpus made.
#[derive(Debug)]
struct Merged {
    /// The listings, by path, every record whole.
    listings: Vec<ParsedListing>,
    /// The name variants merged.
    variants: Vec<NameVariant>,
    /// Listing index → its author ([`NO_AUTHOR`] for none).
    author_of_listing: Vec<AuthorId>,
    /// Author → its listing indexes, by page then path.
    author_pages: Vec<Vec<usize>>,
    /// Paper identity → its records, paper and warnings.
    papers: FxHashMap<Arc<str>, KeptPaper>,
    /// Per paper id, what orders it and what its slug and key are made of.
    bases: Vec<PaperBases>,
    /// Every category met so far; the corpus's are those in use.
    categories: CategoryTable,
    /// Per author, the warnings about its pages.
    author_warnings: Vec<Vec<Diagnostic>>,
    /// Warnings about name variants.
    variant_warnings: Vec<Diagnostic>,
    /// The corpus made, shared with the builds that use it.
    corpus: Arc<Corpus>,
}

/// What a [`Merged`] keeps of each paper besides the paper: what orders
/// it, and what its unique slug and citation key are made from.
#[derive(Debug)]
struct PaperBases {
    /// The title's sort key ([`fold`] of its plain text).
    sort_key: Arc<str>,
    /// The title's slug before uniqueness ([`slugify`]), which
    /// [`assign_unique_slugs`] groups by.
    slug: Arc<str>,
    /// The citation key before uniqueness ([`listed_key`]), which
    /// [`assign_keys`] groups by.
    key: String,
    /// XXH3-64 of the slug and of the key: a pass looking for the papers
    /// of a few slugs or keys compares these, not the strings.
    slug_hash: u64,
    key_hash: u64,
}

impl PaperBases {
    fn new(sort_key: Arc<str>, slug: Arc<str>, key: String) -> PaperBases {
        PaperBases {
            slug_hash: xxhash_rust::xxh3::xxh3_64(slug.as_bytes()),
            key_hash: xxhash_rust::xxh3::xxh3_64(key.as_bytes()),
            sort_key,
            slug,
            key,
        }
    }
}

/// One paper of a [`Merged`]: its records as (listing index, record
/// index) in order, the first chosen; its id; the warnings about it.
#[derive(Debug)]
struct KeptPaper {
    records: Vec<(usize, usize)>,
    id: PaperId,
    warnings: Vec<Diagnostic>,
}

impl Merged {
    /// The indexes of the listings that changed since this merge, `None`
    /// when they cannot be patched in ([`Merge::corpus`]).
    fn changed(&self, listings: &[ParsedListing], variants: &[NameVariant]) -> Option<Vec<usize>> {
        if self.variants != variants || self.listings.len() != listings.len() {
            return None;
        }
        let mut changed = Vec::new();
        for (index, (old, new)) in self.listings.iter().zip(listings).enumerate() {
            // Equal `Arc`s compare their pointers first: a listing carried
            // over shares its path, which is not read.
            if old.file != new.file {
                return None;
            }
            if !Arc::ptr_eq(&old.listing, &new.listing) {
                if old.listing.author != new.listing.author || changed.len() == PATCH_LIMIT {
                    return None;
                }
                changed.push(index);
            }
        }
        Some(changed)
    }

    /// Replaces listing `index` with `new` (the same file and author): the
    /// papers it held or holds are made again from their records: one
    /// whose place in the global order is the same keeps its id, the others
    /// are merged into the window of ids between the first paper gone or
    /// placed and the last (the ids after it shift only when the count
    /// changes; the window's authors, or every author then, renumbered),
    /// and the slugs and keys sharing a base with a moved paper, the
    /// author's pages and papers, the category and year terms are made
    /// again.
    fn patch(&mut self, index: usize, new: ParsedListing, taxonomy: &Taxonomy, texts: &TextMemo) {
        let (mut replaced, drafts) = self.regroup(index, new);
        let incoming = self.remade(&drafts, &replaced, taxonomy, texts);
        // Copied only while a build still holds the last corpus.
        let corpus = Arc::make_mut(&mut self.corpus);
        // The unchanged papers keep their order (and their corpus's
        // category ids until reordered); the incoming ones, with the
        // table's category ids, are merged in.
        let table_id: Vec<usize> = corpus
            .categories
            .iter()
            .map(|c| self.categories.by_code[&c.code])
            .collect();
        let (stayed, moving) = stay_in_place(
            &mut corpus.papers,
            &mut self.bases,
            &replaced,
            incoming.papers,
        );
        replaced.retain(|(_, id)| stayed.binary_search(id).is_err());
        let old_len = corpus.papers.len();
        let window = move_window(
            &mut corpus.papers,
            &mut self.bases,
            &replaced,
            moving,
            drafts.len(),
        );
        let mut papers = std::mem::take(&mut corpus.papers);
        let shifts = papers.len() != old_len;
        let mut moves = window.moves;
        renumber_kept(&mut self.papers, &papers, &mut moves, &replaced, shifts);
        // The papers made again, whose category ids are the table's.
        let mut made_again: Vec<PaperId> = stayed.iter().map(|&id| moves.new_id(id)).collect();
        made_again.extend(window.placed.iter().map(|&(_, id)| id));
        made_again.sort_unstable();
        let is_incoming = |id: PaperId| made_again.binary_search(&id).is_ok();
        reassign_slugs_and_keys(
            &mut papers,
            &self.bases,
            &incoming.moved_slugs,
            &incoming.moved_keys,
        );
        corpus.categories =
            self.categories
                .order(&mut papers, |paper, id| match is_incoming(paper) {
                    true => id,
                    false => table_id[id],
                });
        corpus.years = years_of(&papers);
        corpus.papers = papers;
        self.renumber_authors(index, &moves, window.renumbered, shifts);
    }

    /// Replaces listing `index` with `new` and regroups the records of the
    /// papers it held or holds. Returns those that were papers before,
    /// with their old ids, and a draft of each that still has records (one
    /// left with none is forgotten).
    fn regroup(
        &mut self,
        index: usize,
        new: ParsedListing,
    ) -> (Vec<(Arc<str>, PaperId)>, Vec<Draft>) {
        let old = std::mem::replace(&mut self.listings[index], new);
        let new_keys = Arc::clone(&self.listings[index].keys);
        // The papers whose records change, each once, with their old ids.
        let mut touched: Vec<Arc<str>> = Vec::new();
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        for keys in old.keys.iter().chain(new_keys.iter()) {
            if seen.insert(&keys.identity) {
                touched.push(Arc::clone(&keys.identity));
            }
        }
        let mut replaced: Vec<(Arc<str>, PaperId)> = Vec::new();
        for identity in &touched {
            if let Some(kept) = self.papers.get_mut(identity) {
                kept.records.retain(|&(listing, _)| listing != index);
                replaced.push((Arc::clone(identity), kept.id));
            }
        }
        for (record, keys) in new_keys.iter().enumerate() {
            let kept = self
                .papers
                .entry(Arc::clone(&keys.identity))
                .or_insert_with(|| KeptPaper {
                    records: Vec::new(),
                    id: PaperId::MAX,
                    warnings: Vec::new(),
                });
            kept.records.push((index, record));
        }
        let mut drafts: Vec<Draft> = Vec::new();
        for identity in &touched {
            let kept = self
                .papers
                .get_mut(identity)
                .expect("touched papers are kept");
            kept.records.sort_unstable();
            if kept.records.is_empty() {
                self.papers.remove(identity);
            } else {
                drafts.push(Draft {
                    identity: Arc::clone(identity),
                    records: kept.records.clone(),
                });
            }
        }
        (replaced, drafts)
    }

    /// The papers of `drafts` made again, their category codes interned
    /// in the table, their authors filled in and their warnings kept;
    /// with the base slugs and keys that may change, those of these
    /// papers and of the ones they replace (`replaced`).
    fn remade(
        &mut self,
        drafts: &[Draft],
        replaced: &[(Arc<str>, PaperId)],
        taxonomy: &Taxonomy,
        texts: &TextMemo,
    ) -> Incoming {
        let listings = &self.listings;
        let made: Vec<_> = drafts
            .par_iter()
            .map(|draft| {
                let mut warnings = check_records(draft, listings, taxonomy);
                let inputs = PaperInputs {
                    listings,
                    abstracts: &[],
                    texts: Some(texts),
                };
                let (paper, key, codes) = make_paper(draft, inputs, &mut warnings);
                (paper, key, codes, warnings)
            })
            .collect();
        let mut moved_slugs: FxHashSet<Arc<str>> = replaced
            .iter()
            .map(|&(_, id)| Arc::clone(&self.bases[id].slug))
            .collect();
        let mut moved_keys: FxHashSet<String> = replaced
            .iter()
            .map(|&(_, id)| self.bases[id].key.clone())
            .collect();
        let mut incoming: Vec<(Arc<Paper>, PaperBases)> = Vec::with_capacity(made.len());
        for ((mut paper, key, codes, warnings), draft) in made.into_iter().zip(drafts) {
            for code in codes {
                let id = self.categories.intern(taxonomy, code);
                if !paper.categories.contains(&id) {
                    paper.categories.push(id);
                }
            }
            paper.authors = draft
                .records
                .iter()
                .map(|&(listing, _)| self.author_of_listing[listing])
                .filter(|&author| author != NO_AUTHOR)
                .collect();
            paper.authors.sort_unstable();
            paper.authors.dedup();
            if let Some(kept) = self.papers.get_mut(&draft.identity) {
                kept.warnings = warnings;
            }
            let bases = PaperBases::new(
                key,
                texts.slug(paper.title.plain()),
                listed_key(&paper, &self.corpus.authors, &Default::default()),
            );
            moved_slugs.insert(Arc::clone(&bases.slug));
            moved_keys.insert(bases.key.clone());
            incoming.push((Arc::new(paper), bases));
        }
        incoming
            .sort_unstable_by(|a, b| global_order((&a.0, &a.1.sort_key), (&b.0, &b.1.sort_key)));
        Incoming {
            papers: incoming,
            moved_slugs,
            moved_keys,
        }
    }

    /// The author of listing `index`: its pages and papers again; the
    /// others whose lists name a paper of the window (`renumbered`), or
    /// every other author when the ids after it `shifts`, have their
    /// papers renumbered by `moves`.
    fn renumber_authors(
        &mut self,
        index: usize,
        moves: &Moves,
        mut renumbered: Vec<AuthorId>,
        shifts: bool,
    ) {
        // Made unique by the patch: not copied again.
        let corpus = Arc::make_mut(&mut self.corpus);
        let owner = self.author_of_listing[index];
        if shifts {
            renumbered = (0..corpus.authors.len()).collect();
        } else {
            renumbered.sort_unstable();
            renumbered.dedup();
        }
        for author_id in renumbered {
            let author = &mut corpus.authors[author_id];
            // Copied (the served corpus shares it) only when an id moved.
            if author_id != owner && author.papers.iter().any(|&id| moves.new_id(id) != id) {
                let author = Arc::make_mut(author);
                author
                    .papers
                    .iter_mut()
                    .for_each(|id| *id = moves.new_id(*id));
            }
        }
        if owner != NO_AUTHOR {
            let (pages, claimed_total, warnings) =
                author_pages_of(&self.listings, &mut self.author_pages[owner]);
            let mut own: Vec<PaperId> = Vec::new();
            let mut seen: FxHashSet<PaperId> = FxHashSet::default();
            for &listing in &self.author_pages[owner] {
                for keys in self.listings[listing].keys.iter() {
                    let id = self.papers[&keys.identity].id;
                    if seen.insert(id) {
                        own.push(id);
                    }
                }
            }
            let author = Arc::make_mut(&mut corpus.authors[owner]);
            author.pages = pages;
            author.claimed_total = claimed_total;
            author.papers = own;
            self.author_warnings[owner] = warnings;
        }
    }

    /// Hands every warning of the merge to `diagnostics`.
    fn report(&self, diagnostics: &Diagnostics) {
        let papers = self.papers.values().flat_map(|kept| &kept.warnings);
        let all = self
            .variant_warnings
            .iter()
            .chain(self.author_warnings.iter().flatten())
            .chain(papers);
        for warning in all {
            diagnostics.push(warning.clone());
        }
    }
}

/// The papers a patch made again, in [`global_order`], each with what
/// orders it and what its slug and key are made of; and the base slugs
/// and keys whose papers' slugs and keys may change: theirs and those of
/// the papers they replace.
struct Incoming {
    papers: Vec<(Arc<Paper>, PaperBases)>,
    moved_slugs: FxHashSet<Arc<str>>,
    moved_keys: FxHashSet<String>,
}

/// Puts each of `incoming` (in global order) whose place in the global
/// order is its old paper's (in `replaced`; the same year, sort key and
/// title) in that place of `papers` and `bases`, with its id. Returns
/// those ids, sorted, and the other incoming papers, which move.
fn stay_in_place(
    papers: &mut [Arc<Paper>],
    bases: &mut [PaperBases],
    replaced: &[(Arc<str>, PaperId)],
    incoming: Vec<(Arc<Paper>, PaperBases)>,
) -> (Vec<PaperId>, Vec<(Arc<Paper>, PaperBases)>) {
    // A paper made again where it was in the global order (the same
    // year, sort key and title) takes its old one's place and id.
    let old_id_of: FxHashMap<&str, PaperId> = replaced
        .iter()
        .map(|(identity, id)| (&**identity, *id))
        .collect();
    let mut stayed: Vec<PaperId> = Vec::new();
    let mut moving: Vec<(Arc<Paper>, PaperBases)> = Vec::with_capacity(incoming.len());
    for (paper, paper_bases) in incoming {
        let old = old_id_of.get(&*paper.identity).copied().filter(|&id| {
            let old = (&*papers[id], &*bases[id].sort_key);
            global_order((&paper, &paper_bases.sort_key), old) == std::cmp::Ordering::Equal
        });
        match old {
            Some(id) => {
                papers[id] = paper;
                bases[id] = paper_bases;
                stayed.push(id);
            }
            None => moving.push((paper, paper_bases)),
        }
    }
    drop(old_id_of);
    stayed.sort_unstable();
    (stayed, moving)
}

/// How a patch renumbers papers: only the window of old ids from the
/// first paper gone or placed to the last one (`start..end`) moves; the
/// papers before it keep their ids, those after it shift by as many as
/// the change adds.
struct Moves {
    start: PaperId,
    end: PaperId,
    /// Papers placed in the window and papers gone from it.
    added: usize,
    removed: usize,
    /// The new id of each old paper in the window (`PaperId::MAX` for one
    /// gone until [`renumber_kept`] gives it its paper's new id).
    window_id: Vec<PaperId>,
    /// How many papers the window holds now, from `start`.
    window_len: usize,
}

impl Moves {
    /// The new id of a paper after the window.
    fn shift(&self, old_id: PaperId) -> PaperId {
        old_id + self.added - self.removed
    }

    /// The new id of the paper whose id was `old_id`.
    fn new_id(&self, old_id: PaperId) -> PaperId {
        match old_id {
            _ if old_id < self.start => old_id,
            _ if old_id >= self.end => self.shift(old_id),
            _ => self.window_id[old_id - self.start],
        }
    }
}

/// What [`move_window`] did: the ids' moves, the incoming papers as they
/// were placed (identity, new id) and the authors whose lists name a
/// paper of the window.
struct Window {
    moves: Moves,
    placed: Vec<(Arc<str>, PaperId)>,
    renumbered: Vec<AuthorId>,
}

/// Merges `incoming` (in global order) into `papers` and `bases` in place
/// of the papers `replaced`, which are gone: only the window the two span
/// is rebuilt, then spliced back. `placed` is how many papers at most are
/// placed.
fn move_window(
    papers: &mut Vec<Arc<Paper>>,
    bases: &mut Vec<PaperBases>,
    replaced: &[(Arc<str>, PaperId)],
    incoming: Vec<(Arc<Paper>, PaperBases)>,
    placed: usize,
) -> Window {
    let mut gone_ids: Vec<PaperId> = replaced.iter().map(|&(_, id)| id).collect();
    gone_ids.sort_unstable();
    let (start, end) = window_of(papers, bases, &gone_ids, &incoming);
    let (added, removed) = (incoming.len(), replaced.len());
    // The window's papers in the new order, and the new id of each
    // old one in it (`PaperId::MAX` for those gone).
    let mut window: Vec<(Arc<Paper>, PaperBases)> =
        Vec::with_capacity(end - start - replaced.len() + incoming.len());
    let mut window_id = vec![PaperId::MAX; end - start];
    // Incoming papers as they are placed: (identity, new id).
    let mut placed: Vec<(Arc<str>, PaperId)> = Vec::with_capacity(placed);
    let mut place = |next: (Arc<Paper>, PaperBases), window: &mut Vec<_>| {
        placed.push((Arc::clone(&next.0.identity), start + window.len()));
        window.push(next);
    };
    let mut incoming = incoming.into_iter().peekable();
    let old_window: Vec<(Arc<Paper>, PaperBases)> = papers
        .drain(start..end)
        .zip(bases.drain(start..end))
        .collect();
    // The authors whose lists name a paper of the window.
    let renumbered: Vec<AuthorId> = old_window
        .iter()
        .flat_map(|(paper, _)| paper.authors.iter().copied())
        .collect();
    for (at, (paper, paper_bases)) in old_window.into_iter().enumerate() {
        if gone_ids.binary_search(&(start + at)).is_ok() {
            continue;
        }
        while let Some((next, next_bases)) = incoming.peek() {
            let order = global_order(
                (next, &next_bases.sort_key),
                (&paper, &paper_bases.sort_key),
            );
            if order != std::cmp::Ordering::Less {
                break;
            }
            place(incoming.next().expect("peeked"), &mut window);
        }
        window_id[at] = start + window.len();
        window.push((paper, paper_bases));
    }
    incoming.for_each(|next| place(next, &mut window));
    let window_len = window.len();
    let (window_papers, window_bases): (Vec<Arc<Paper>>, Vec<PaperBases>) =
        window.into_iter().unzip();
    papers.splice(start..start, window_papers);
    bases.splice(start..start, window_bases);
    let moves = Moves {
        start,
        end,
        added,
        removed,
        window_id,
        window_len,
    };
    Window {
        moves,
        placed,
        renumbered,
    }
}

/// The window of old ids a patch rebuilds, `start..end`: from the first
/// of the papers gone (`gone_ids`, sorted) or of the places where
/// `incoming` go to the last; empty when there are none.
fn window_of(
    papers: &[Arc<Paper>],
    bases: &[PaperBases],
    gone_ids: &[PaperId],
    incoming: &[(Arc<Paper>, PaperBases)],
) -> (PaperId, PaperId) {
    // Where the merge places an incoming paper: after every old one
    // that does not sort after it.
    let place_of = |next: &(Arc<Paper>, PaperBases)| {
        let (mut low, mut high) = (0, papers.len());
        while low < high {
            let mid = (low + high) / 2;
            let old = (&*papers[mid], &*bases[mid].sort_key);
            match global_order((&next.0, &next.1.sort_key), old) {
                std::cmp::Ordering::Less => high = mid,
                _ => low = mid + 1,
            }
        }
        low
    };
    let places: Vec<usize> = incoming.iter().map(place_of).collect();
    let start = gone_ids.first().into_iter().chain(&places).min().copied();
    let end = gone_ids
        .last()
        .map(|&id| id + 1)
        .into_iter()
        .chain(places.iter().copied())
        .max();
    start.zip(end).unwrap_or((0, 0))
}

/// Gives each kept paper its new id after a patch: those after the
/// window shift when the count changed (`shifts`), those in it take
/// their place in `papers`; and records in `moves` the new id of each
/// paper `replaced` by one that moved, by which other authors' lists
/// still name it.
fn renumber_kept(
    kept_papers: &mut FxHashMap<Arc<str>, KeptPaper>,
    papers: &[Arc<Paper>],
    moves: &mut Moves,
    replaced: &[(Arc<str>, PaperId)],
    shifts: bool,
) {
    if shifts {
        for kept in kept_papers.values_mut() {
            if kept.id != PaperId::MAX && kept.id >= moves.end {
                kept.id = moves.shift(kept.id);
            }
        }
    }
    let window = papers.iter().enumerate().skip(moves.start);
    for (id, paper) in window.take(moves.window_len) {
        if let Some(kept) = kept_papers.get_mut(&paper.identity) {
            kept.id = id;
        }
    }
    // Other authors' lists name a changed paper by its old id.
    for (identity, old_id) in replaced {
        if let Some(kept) = kept_papers.get(identity) {
            moves.window_id[*old_id - moves.start] = kept.id;
        }
    }
}

/// Makes again the slugs and keys of `papers` that share a base with a
/// paper that moved (`moved_slugs`, `moved_keys`).
fn reassign_slugs_and_keys(
    papers: &mut [Arc<Paper>],
    bases: &[PaperBases],
    moved_slugs: &FxHashSet<Arc<str>>,
    moved_keys: &FxHashSet<String>,
) {
    // Slugs: only papers sharing a base slug with a moved one can
    // change ([`assign_unique_slugs`] looks only at colliding titles).
    let members = sharing_a_base(bases, moved_slugs.iter().map(|s| &**s), |b| {
        (&b.slug, b.slug_hash)
    });
    let items = members
        .iter()
        .map(|&id| (papers[id].title.source(), bases[id].slug.to_string()))
        .collect();
    for (&id, slug) in members.iter().zip(assign_unique_slugs(items)) {
        if papers[id].slug != slug {
            Arc::make_mut(&mut papers[id]).slug = slug;
        }
    }
    // Keys likewise: a repeated key's letters follow paper order, which
    // only a moved paper changes.
    let members = sharing_a_base(bases, moved_keys.iter().map(String::as_str), |b| {
        (&b.key, b.key_hash)
    });
    assign_keys(papers, |id| &bases[id].key, |_| false, &members);
}

/// The listed abstracts' bytes from which a build packs them
/// ([`packed`]): about 380,000 `gen-corpus` papers (849 of their
/// abstracts average 1,414 bytes). Packing pays only where
/// memory is at stake: it lowers the build's peak but costs CPU, since
/// every page that shows an abstract decompresses it, and the listing
/// pages show it; in a smaller build the memory saved is not worth that
/// (measured in 1dd5710 and 9580b01).
const PACK_FROM: usize = 512 << 20;

/// A dictionary for the chosen records' abstracts ([`packed::Dictionary`])
/// when their listed paragraphs take at least `pack_from` bytes, trained on
/// those of at most [`packed::SAMPLE`] papers evenly spaced through
/// `drafts`; else `None`. The sample's abstracts are made twice, here and
/// with the rest: a few thousandths of the work.
fn train_dictionary(
    drafts: &[Draft],
    listings: &[ParsedListing],
    pack_from: usize,
) -> Option<Arc<packed::Dictionary>> {
    let chosen = |draft: &Draft| {
        let (listing, record) = draft.records[0];
        (&listings[listing], record)
    };
    let listed: usize = drafts
        .par_iter()
        .map(|draft| {
            let (parsed, record) = chosen(draft);
            let paragraphs = &parsed.listing.records[record].abstract_paragraphs;
            paragraphs.iter().map(String::len).sum::<usize>()
        })
        .sum();
    if listed < pack_from {
        return None;
    }
    let step = drafts.len().div_ceil(packed::SAMPLE).max(1);
    let sample: Vec<String> = drafts
        .par_iter()
        .step_by(step)
        .filter_map(|draft| {
            let (parsed, record) = chosen(draft);
            let paragraphs = &parsed.listing.records[record].abstract_paragraphs;
            let hash = parsed.keys[record].abstract_hash;
            let made = Abstract::with_hash(paragraphs, hash, &mut Vec::new());
            (!made.is_empty()).then(|| made.html().into_owned())
        })
        .collect();
    packed::Dictionary::train(&sample)
}

/// How a merge is made, by the two that ask for one.
#[derive(Clone, Copy)]
enum Mode<'a> {
    /// A build's ([`Corpus::build`]): nothing is kept, the texts of the
    /// records not chosen are dropped, and the chosen records' abstracts
    /// are made ahead, packed when their listed paragraphs take at least
    /// `pack_from` bytes ([`PACK_FROM`]).
    Build { pack_from: usize },
    /// `vellum serve`'s ([`Merge::corpus`]): what a patch needs is kept,
    /// every record's texts left in place, and titles and abstracts are
    /// converted through `texts`, never packed.
    Serve { texts: &'a TextMemo },
}

impl<'a> Mode<'a> {
    /// `vellum serve`'s text memo; `None` in a build.
    fn texts(self) -> Option<&'a TextMemo> {
        match self {
            Mode::Build { .. } => None,
            Mode::Serve { texts } => Some(texts),
        }
    }
}

/// [`Corpus::build`] of `listings`, sorted by path, made as `mode` says;
/// in [`Mode::Serve`], also what [`Merge::corpus`] needs to patch the
/// result later.
fn merge(
    mut listings: Vec<ParsedListing>,
    taxonomy: &Taxonomy,
    variants: &[NameVariant],
    mode: Mode,
    diagnostics: &Diagnostics,
) -> (Arc<Corpus>, Option<Merged>) {
    let (author_pages, variant_warnings) = group_authors(&listings, variants);
    let (drafts, draft_of_record) = group_records(&listings);
    let mut warnings: Vec<Vec<Diagnostic>> = drafts
        .par_iter()
        .map(|draft| check_records(draft, &listings, taxonomy))
        .collect();
    let abstracts = match mode {
        Mode::Build { pack_from } => {
            let (drafts, of_record) = (&drafts, &draft_of_record);
            made_ahead(&mut listings, drafts, of_record, pack_from, diagnostics)
        }
        // A patch reads every record's texts again.
        Mode::Serve { .. } => Vec::new(),
    };
    let inputs = PaperInputs {
        listings: &listings,
        abstracts: &abstracts,
        texts: mode.texts(),
    };
    let (made, categories) = make_papers(&drafts, inputs, taxonomy, &mut warnings);
    drop(abstracts);
    let keep = matches!(mode, Mode::Serve { .. });
    let (mut papers, sort_keys, paper_of_draft) = in_global_order(made, keep);
    assign_slugs(&mut papers, mode.texts());

    let paper_of_record: Vec<Vec<PaperId>> = draft_of_record
        .into_iter()
        .map(|drafts| drafts.into_iter().map(|d| paper_of_draft[d]).collect())
        .collect();
    let (authors, author_pages, author_warnings) =
        build_authors(&listings, author_pages, &paper_of_record, &mut papers);
    drop(paper_of_record);
    // Only a kept merge reads the listings and drafts again: without
    // `keep` they are freed here, before the papers move into their Arcs,
    // where the stage's memory peaked while the listings were still held
    // (measured in 2af6c2e).
    let kept_inputs = keep.then_some((listings, drafts, paper_of_draft));
    // Collected into new vectors: `into_iter().map(Arc::new).collect()`
    // would reuse the papers' allocation in place, holding 200 bytes a
    // paper for its 8-byte pointer (measured in 7b66138).
    let authors: Vec<Arc<Author>> = in_arcs(authors);
    let mut papers: Vec<Arc<Paper>> = in_arcs(papers);
    let listed_keys: Vec<String> = papers
        .par_iter()
        .map(|paper| listed_key(paper, &authors, &Default::default()))
        .collect();
    let all: Vec<PaperId> = (0..papers.len()).collect();
    assign_keys(&mut papers, |id| &listed_keys[id], |_| false, &all);
    drop(all);
    let ordered_categories = categories.order(&mut papers, |_, id| id);
    let years = years_of(&papers);
    let corpus = Arc::new(Corpus {
        papers,
        authors,
        categories: ordered_categories,
        years,
        family_names: Default::default(),
    });
    let all_warnings = variant_warnings
        .iter()
        .chain(author_warnings.iter().flatten())
        .chain(warnings.iter().flatten());
    for warning in all_warnings {
        diagnostics.push(warning.clone());
    }
    let kept = kept_inputs.map(|(listings, drafts, paper_of_draft)| Merged {
        author_of_listing: author_of_listing(&author_pages, listings.len()),
        papers: kept_papers(drafts, warnings, &paper_of_draft),
        bases: bases_of(&corpus.papers, sort_keys, listed_keys, mode.texts()),
        listings,
        variants: variants.to_vec(),
        author_pages,
        categories,
        author_warnings,
        variant_warnings,
        corpus: Arc::clone(&corpus),
    });
    (corpus, kept)
}

/// Groups the listings by author, in author order, listings of a name
/// variant with their canonical author's ([`merge_variants`]); returns
/// each group's listing indexes and the warnings about name variants. A
/// listing with no author is in no group.
fn group_authors(
    listings: &[ParsedListing],
    variants: &[NameVariant],
) -> (Vec<Vec<usize>>, Vec<Diagnostic>) {
    let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    // A listing with no author holds BibTeX entries none of whose authors
    // has a page ([`crate::corpus::bibliography`]).
    for (index, parsed) in listings.iter().enumerate() {
        if parsed.listing.author.is_empty() {
            continue;
        }
        by_name
            .entry(author_sort_key(&parsed.listing.author))
            .or_default()
            .push(index);
    }
    let variant_warnings = merge_variants(&mut by_name, listings, variants);
    (by_name.into_values().collect(), variant_warnings)
}

/// Groups the records by paper identity: returns a draft of each paper,
/// its records in (file, position) order, and per listing, per record,
/// the index of its paper's draft.
fn group_records(listings: &[ParsedListing]) -> (Vec<Draft>, Vec<Vec<usize>>) {
    let records: usize = listings.iter().map(|parsed| parsed.keys.len()).sum();
    let mut drafts: Vec<Draft> = Vec::with_capacity(records);
    let mut by_identity: FxHashMap<&str, usize> =
        FxHashMap::with_capacity_and_hasher(records, Default::default());
    let mut draft_of_record: Vec<Vec<usize>> = Vec::with_capacity(listings.len());
    for (listing, parsed) in listings.iter().enumerate() {
        let mut drafts_here = Vec::with_capacity(parsed.keys.len());
        for (record, keys) in parsed.keys.iter().enumerate() {
            let index = *by_identity.entry(&keys.identity).or_insert_with(|| {
                drafts.push(Draft {
                    identity: Arc::clone(&keys.identity),
                    records: Vec::new(),
                });
                drafts.len() - 1
            });
            drafts[index].records.push((listing, record));
            drafts_here.push(index);
        }
        draft_of_record.push(drafts_here);
    }
    drop(by_identity);
    (drafts, draft_of_record)
}

/// A build's abstracts, made ahead: per listing, per record, the chosen
/// records' abstracts, packed with a dictionary ([`train_dictionary`])
/// when their listed paragraphs take at least `pack_from` bytes; the
/// warnings about them go to `diagnostics`. A listing nothing else holds
/// gives up the texts of its records not chosen, and each chosen one its
/// listed paragraphs as its abstract is made (see Memory in
/// [`Corpus::build`]); a listing held elsewhere has none made ahead.
fn made_ahead(
    listings: &mut [ParsedListing],
    drafts: &[Draft],
    draft_of_record: &[Vec<usize>],
    pack_from: usize,
    diagnostics: &Diagnostics,
) -> Vec<Vec<Option<Arc<Abstract>>>> {
    let chosen = |listing: usize, record: usize| {
        drafts[draft_of_record[listing][record]].records[0] == (listing, record)
    };
    // Only the chosen records' texts are read from here on, and in a
    // large build their abstracts are packed with a dictionary trained
    // on a sample of them.
    let dictionary = train_dictionary(drafts, listings, pack_from);
    listings
        .par_iter_mut()
        .enumerate()
        .map(|(index, parsed)| {
            let Some(listing) = Arc::get_mut(&mut parsed.listing) else {
                return Vec::new();
            };
            let (file, keys) = (&parsed.file, &parsed.keys);
            let records = listing.records.iter_mut().enumerate();
            records
                .map(|(position, record)| {
                    if !chosen(index, position) {
                        record.title = String::new();
                        record.abstract_paragraphs = Vec::new().into();
                        record.categories = Vec::new();
                        return None;
                    }
                    let paragraphs =
                        std::mem::replace(&mut record.abstract_paragraphs, Vec::new().into());
                    let hash = keys[position].abstract_hash;
                    let mut problems = Vec::new();
                    let mut made = Abstract::with_hash(&paragraphs, hash, &mut problems);
                    if let Some(dictionary) = &dictionary {
                        made = made.packed(dictionary);
                    }
                    for warning in text_warnings(problems, file, record.abstract_line) {
                        diagnostics.push(warning);
                    }
                    Some(Arc::new(made))
                })
                .collect()
        })
        .collect()
}

/// Makes the paper of each of `drafts` ([`make_paper`]), adding the
/// warnings about its texts to its `warnings`, and interns the chosen
/// records' category codes in a new table. Returns each paper with its
/// title sort key and its draft's index, and the table.
fn make_papers(
    drafts: &[Draft],
    inputs: PaperInputs,
    taxonomy: &Taxonomy,
    warnings: &mut [Vec<Diagnostic>],
) -> (Vec<(Paper, Arc<str>, usize)>, CategoryTable) {
    let made: Vec<(Paper, Arc<str>, &[String])> = drafts
        .par_iter()
        .zip(warnings.par_iter_mut())
        .map(|(draft, warnings)| make_paper(draft, inputs, warnings))
        .collect();
    let mut categories = CategoryTable::default();
    let made: Vec<(Paper, Arc<str>, usize)> = made
        .into_iter()
        .enumerate()
        .map(|(draft, (mut paper, key, codes))| {
            for code in codes {
                let id = categories.intern(taxonomy, code);
                if !paper.categories.contains(&id) {
                    paper.categories.push(id);
                }
            }
            (paper, key, draft)
        })
        .collect();
    (made, categories)
}

/// The papers `made` (each with its title sort key and draft index) in
/// the global order; with their sort keys in that order when a patch
/// will need them (`keep`), else none; and the paper id of each draft.
fn in_global_order(
    mut made: Vec<(Paper, Arc<str>, usize)>,
    keep: bool,
) -> (Vec<Paper>, Vec<Arc<str>>, Vec<PaperId>) {
    // Global order: year descending, folded title, exact title. No two
    // papers have the same title, so the order is total; the papers
    // are sorted where they are, never copied.
    made.par_sort_unstable_by(|(pa, ka, _), (pb, kb, _)| global_order((pa, ka), (pb, kb)));
    let mut paper_of_draft = vec![0; made.len()];
    for (id, (_, _, draft)) in made.iter().enumerate() {
        paper_of_draft[*draft] = id;
    }
    let mut sort_keys: Vec<Arc<str>> = Vec::new();
    let papers: Vec<Paper> = made
        .into_iter()
        .map(|(paper, key, _)| {
            if keep {
                sort_keys.push(key);
            }
            paper
        })
        .collect();
    (papers, sort_keys, paper_of_draft)
}

/// Gives each of `papers` (in global order) its unique slug, through
/// `vellum serve`'s text memo when there is one.
fn assign_slugs(papers: &mut [Paper], texts: Option<&TextMemo>) {
    let titles: Vec<(&str, String)> = papers
        .par_iter()
        .map(|p| {
            let slug = match texts {
                Some(memo) => memo.slug(p.title.plain()).to_string(),
                None => slugify(p.title.plain()),
            };
            (p.title.source(), slug)
        })
        .collect();
    let slugs = assign_unique_slugs(titles);
    for (paper, slug) in papers.iter_mut().zip(slugs) {
        paper.slug = slug;
    }
}

/// Listing index → its author ([`NO_AUTHOR`] for none), from each
/// author's listing indexes.
fn author_of_listing(author_pages: &[Vec<usize>], listings: usize) -> Vec<AuthorId> {
    let mut author_of_listing = vec![NO_AUTHOR; listings];
    for (author, indexes) in author_pages.iter().enumerate() {
        for &index in indexes {
            author_of_listing[index] = author;
        }
    }
    author_of_listing
}

/// What a [`Merged`] keeps of each paper, by identity: its draft's
/// records, its id (`paper_of_draft`) and its warnings.
fn kept_papers(
    drafts: Vec<Draft>,
    warnings: Vec<Vec<Diagnostic>>,
    paper_of_draft: &[PaperId],
) -> FxHashMap<Arc<str>, KeptPaper> {
    drafts
        .into_iter()
        .zip(warnings)
        .enumerate()
        .map(|(index, (draft, warnings))| {
            let kept = KeptPaper {
                records: draft.records,
                id: paper_of_draft[index],
                warnings,
            };
            (draft.identity, kept)
        })
        .collect()
}

/// The [`PaperBases`] of `papers`, from their sort keys and listed keys
/// (each in paper order) and their titles' slugs.
fn bases_of(
    papers: &[Arc<Paper>],
    sort_keys: Vec<Arc<str>>,
    listed_keys: Vec<String>,
    texts: Option<&TextMemo>,
) -> Vec<PaperBases> {
    papers
        .iter()
        .zip(sort_keys)
        .zip(listed_keys)
        .map(|((paper, sort_key), key)| {
            let slug = match texts {
                Some(memo) => memo.slug(paper.title.plain()),
                None => slugify(paper.title.plain()).into(),
            };
            PaperBases::new(sort_key, slug, key)
        })
        .collect()
}

/// The ids of the papers whose base (`base`: the text and its hash,
/// slug or key) is one of `moved`, in id order: a pass over `bases`
/// comparing hashes, the text only where one matches.
fn sharing_a_base<'m>(
    bases: &[PaperBases],
    moved: impl IntoIterator<Item = &'m str>,
    base: impl Fn(&PaperBases) -> (&str, u64),
) -> Vec<PaperId> {
    let moved: FxHashSet<&str> = moved.into_iter().collect();
    let hashes: FxHashSet<u64> = moved
        .iter()
        .map(|text| xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
        .collect();
    (0..bases.len())
        .filter(|&id| {
            let (text, hash) = base(&bases[id]);
            hashes.contains(&hash) && moved.contains(text)
        })
        .collect()
}

/// The global order of papers: year descending, then the folded title
/// (`key`), then the exact title. No two papers have the same title, so
/// the order is total.
fn global_order((a, key_a): (&Paper, &str), (b, key_b): (&Paper, &str)) -> std::cmp::Ordering {
    b.year
        .cmp(&a.year)
        .then_with(|| key_a.cmp(key_b))
        .then_with(|| a.title.source().cmp(b.title.source()))
}

/// Each of `items` in an `Arc`, in a vector of their number: not
/// collected in place, which would keep `items`' allocation.
fn in_arcs<T>(items: Vec<T>) -> Vec<Arc<T>> {
    let mut arcs = Vec::with_capacity(items.len());
    arcs.extend(items.into_iter().map(Arc::new));
    arcs
}

/// Year terms of `papers` (in global order), newest first.
fn years_of(papers: &[Arc<Paper>]) -> Vec<Year> {
    let mut years: BTreeMap<u16, Vec<PaperId>> = BTreeMap::new();
    for (id, paper) in papers.iter().enumerate() {
        if let Some(year) = paper.known_year() {
            years.entry(year).or_default().push(id);
        }
    }
    years
        .into_iter()
        .rev()
        .map(|(year, papers)| Year { year, papers })
        .collect()
}

/// Moves the listings of each name variant into its canonical author's
/// group (`by_name`: author sort key → listing indexes, canonical listings
/// first). Names compare folded ([`fold`]); the canonical may be a slug.
/// Returns a warning for each variant or canonical name that names no
/// listed author.
fn merge_variants(
    by_name: &mut BTreeMap<String, Vec<usize>>,
    listings: &[ParsedListing],
    variants: &[NameVariant],
) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    let name_of = |indexes: &Vec<usize>| &listings[indexes[0]].listing.author;
    // The closest listed name, for the first few names that match none.
    let closest = |wanted: &str, by_name: &BTreeMap<String, Vec<usize>>, made: usize| match made
        < crate::diagnostics::SUGGESTIONS
    {
        true => crate::diagnostics::did_you_mean(
            wanted,
            by_name.values().map(|indexes| name_of(indexes).as_str()),
        ),
        false => String::new(),
    };
    for v in variants {
        let find = |wanted: &str, by_slug: bool| {
            by_name
                .iter()
                .find(|(_, indexes)| {
                    let name = name_of(indexes);
                    fold(name) == fold(wanted) || (by_slug && slugify(name) == wanted)
                })
                .map(|(key, _)| key.clone())
        };
        let Some(variant_key) = find(&v.variant, false) else {
            warnings.push(Diagnostic::warning(
                &v.file,
                v.line,
                format!(
                    "expected name variant `{}` of {} to match a listing's author, found none{}",
                    v.variant,
                    v.canonical,
                    closest(&v.variant, by_name, warnings.len())
                ),
            ));
            continue;
        };
        let Some(canonical_key) = find(&v.canonical, true) else {
            warnings.push(Diagnostic::warning(
                &v.file,
                v.line,
                format!(
                    "expected `{}` to name a listed author, found none; variant `{}` is not merged{}",
                    v.canonical,
                    v.variant,
                    closest(&v.canonical, by_name, warnings.len())
                ),
            ));
            continue;
        };
        if variant_key != canonical_key {
            let moved = by_name.remove(&variant_key).unwrap_or_default();
            if let Some(group) = by_name.get_mut(&canonical_key) {
                group.extend(moved);
            }
        }
    }
    warnings
}

/// The warnings about the records of one paper: unknown category codes,
/// and records that disagree with the chosen one (year, categories,
/// abstract).
fn check_records(
    draft: &Draft,
    listings: &[ParsedListing],
    taxonomy: &Taxonomy,
) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    let record_of = |&(listing, record): &(usize, usize)| {
        let parsed = &listings[listing];
        (parsed, &parsed.listing.records[record])
    };
    let (first_listing, chosen) = record_of(&draft.records[0]);
    for (listing, record) in draft.records.iter().map(record_of) {
        for code in &record.categories {
            if !taxonomy.is_category(code) {
                warnings.push(Diagnostic::warning(
                    &listing.file,
                    record.line,
                    format!("expected an arXiv category code, found unknown `{code}`; it is named by its code"),
                ));
            }
        }
    }
    let abstract_hash =
        |&(listing, record): &(usize, usize)| listings[listing].keys[record].abstract_hash;
    for pair in &draft.records[1..] {
        let (listing, record) = record_of(pair);
        // A BibTeX entry without a year, categories or an abstract does
        // not disagree in them: it gives none.
        let entry = record.source == SOURCE;
        let has_abstract = |&(l, r): &(usize, usize)| listings[l].keys[r].lead_hash.is_some();
        let mut differences = Vec::new();
        if record.year != chosen.year
            && !(entry && (record.year == UNDATED || chosen.year == UNDATED))
        {
            differences.push(format!("year {} vs {}", record.year, chosen.year));
        }
        // An entry's one category (its `primaryClass`) is compared with the
        // chosen record's primary.
        let categories_differ = match entry {
            true => record
                .categories
                .first()
                .is_some_and(|c| chosen.categories.first() != Some(c)),
            false => record.categories != chosen.categories,
        };
        if categories_differ {
            differences.push(format!(
                "categories `{}` vs `{}`",
                record.categories.join(" "),
                chosen.categories.join(" ")
            ));
        }
        if abstract_hash(pair) != abstract_hash(&draft.records[0]) && (!entry || has_abstract(pair))
        {
            differences.push("abstract".to_string());
        }
        if !differences.is_empty() {
            warnings.push(Diagnostic::warning(
                &listing.file,
                record.line,
                format!(
                    "expected this record of `{}` to agree with {}:{}, found differences in {}; keeping {}:{}",
                    record.title,
                    first_listing.file.display(),
                    chosen.line,
                    differences.join(", "),
                    first_listing.file.display(),
                    chosen.line
                ),
            ));
        }
    }
    warnings
}

/// Builds one paper from its records; returns it with its title sort key
/// and the chosen record's category codes (interned by the caller), and
/// adds the warnings about its title and abstract to `warnings`. The
/// paper's `authors`, `categories` and `slug` are filled in later.
fn make_paper<'a>(
    draft: &Draft,
    inputs: PaperInputs<'a, '_>,
    warnings: &mut Vec<Diagnostic>,
) -> (Paper, Arc<str>, &'a [String]) {
    let PaperInputs {
        listings,
        abstracts,
        texts,
    } = inputs;
    let (listing_index, record_index) = draft.records[0];
    let first_listing = &listings[listing_index];
    let chosen = &first_listing.listing.records[record_index];
    let chosen_keys = &first_listing.keys[record_index];
    let made = abstracts
        .get(listing_index)
        .and_then(|made| made.get(record_index))
        .cloned()
        .flatten();
    let mut problems = Vec::new();
    let title = match texts {
        Some(memo) => memo.inline(&chosen.title, &mut problems),
        None => Arc::new(Text::inline(&chosen.title, &mut problems)),
    };
    // The title's problems at its line, the abstract's at its first
    // paragraph's (naming any later paragraph).
    warnings.extend(text_warnings(
        std::mem::take(&mut problems),
        &first_listing.file,
        chosen.title_line,
    ));
    let abstract_text = match (made, texts) {
        (Some(made), _) => made,
        (None, Some(memo)) => memo.abstract_text(
            &chosen.abstract_paragraphs,
            chosen_keys.abstract_hash,
            &mut problems,
        ),
        (None, None) => Arc::new(Abstract::with_hash(
            &chosen.abstract_paragraphs,
            chosen_keys.abstract_hash,
            &mut problems,
        )),
    };
    warnings.extend(text_warnings(
        problems,
        &first_listing.file,
        chosen.abstract_line,
    ));
    let key: Arc<str> = match texts {
        Some(memo) => memo.sort_key(title.plain()),
        None => fold(title.plain()).into(),
    };
    let paper = Paper {
        slug: String::new(),
        identity: Arc::clone(&draft.identity),
        title,
        abstract_text,
        // An undated BibTeX entry takes the year of a record that has one.
        year: draft
            .records
            .iter()
            .map(|&(l, r)| listings[l].listing.records[r].year)
            .find(|&year| year != UNDATED)
            .unwrap_or(UNDATED),
        categories: Vec::new(),
        authors: Vec::new(),
        key: String::new(),
        details: PaperDetails::none(),
        complete_owners: Vec::new(),
    };
    (paper, key, &chosen.categories)
}

/// What [`make_paper`] reads besides the paper's draft: the listings, the
/// abstracts already made from them (per listing, per record; empty for a
/// listing whose abstracts were not made ahead) and `vellum serve`'s text
/// memo.
#[derive(Clone, Copy)]
struct PaperInputs<'a, 'b> {
    listings: &'a [ParsedListing],
    abstracts: &'b [Vec<Option<Arc<Abstract>>>],
    texts: Option<&'b TextMemo>,
}

/// A warning at `file:line` for each problem converting a record's title
/// or abstract (a malformed formula, shown as its source).
fn text_warnings<'a>(
    problems: Vec<String>,
    file: &'a std::path::Path,
    line: usize,
) -> impl Iterator<Item = Diagnostic> + 'a {
    problems.into_iter().map(move |problem| {
        Diagnostic::warning(file, line, format!("{problem}; it is shown as written"))
    })
}

/// Makes one author per group of listings (`author_pages`, listing indexes
/// in author order), fills each author's papers in listing order and each
/// paper's authors. Returns the authors, each one's listing indexes in
/// page order (`author_pages_of`) and the warnings about each one's pages.
fn build_authors(
    listings: &[ParsedListing],
    mut author_pages: Vec<Vec<usize>>,
    paper_of_record: &[Vec<PaperId>],
    papers: &mut [Paper],
) -> (Vec<Author>, Vec<Vec<usize>>, Vec<Vec<Diagnostic>>) {
    let mut authors: Vec<Author> = Vec::with_capacity(author_pages.len());
    let mut warnings = Vec::with_capacity(author_pages.len());
    let mut papers_authors: Vec<Vec<AuthorId>> = vec![Vec::new(); papers.len()];
    for (author_id, indexes) in author_pages.iter_mut().enumerate() {
        // The canonical name comes first in a group with name variants.
        let name = listings[indexes[0]].listing.author.clone();
        let (pages, claimed_total, found) = author_pages_of(listings, indexes);
        warnings.push(found);
        let mut author = Author {
            sort_name: NameParts::split(&name).sort_name(),
            slug: slugify(&name),
            name,
            papers: Vec::new(),
            claimed_total,
            pages,
        };
        let mut seen: FxHashSet<PaperId> = FxHashSet::default();
        for &listing in indexes.iter() {
            for &id in &paper_of_record[listing] {
                if papers_authors[id].last() != Some(&author_id) {
                    papers_authors[id].push(author_id);
                }
                if seen.insert(id) {
                    author.papers.push(id);
                }
            }
        }
        authors.push(author);
    }
    let names: Vec<(&str, String)> = authors
        .iter()
        .map(|a| (a.name.as_str(), a.slug.clone()))
        .collect();
    let slugs = assign_unique_slugs(names);
    for (author, slug) in authors.iter_mut().zip(slugs) {
        author.slug = slug;
    }
    for (paper, ids) in papers.iter_mut().zip(papers_authors) {
        paper.authors = ids;
    }
    (authors, author_pages, warnings)
}

/// Orders one author's listings (`indexes`) by page, then path; returns
/// their pages, the largest claimed total and the warnings about page gaps
/// and repeats.
fn author_pages_of(
    listings: &[ParsedListing],
    indexes: &mut [usize],
) -> (Vec<ListingPage>, Option<u32>, Vec<Diagnostic>) {
    indexes.sort_by_key(|&i| {
        (
            listings[i].listing.count.map_or(u32::MAX, |c| c.page),
            &listings[i].file,
        )
    });
    let pages: Vec<&ParsedListing> = indexes.iter().map(|&i| &listings[i]).collect();
    // Each name variant numbers its pages on its own.
    let mut by_variant: BTreeMap<&str, Vec<&ParsedListing>> = BTreeMap::new();
    for page in &pages {
        by_variant
            .entry(&page.listing.author)
            .or_default()
            .push(page);
    }
    let warnings = by_variant
        .into_iter()
        .flat_map(|(variant, pages)| check_pages(variant, &pages))
        .collect();
    let claimed_total = pages
        .iter()
        .filter_map(|p| p.listing.count.map(|c| c.total))
        .max();
    let pages = pages
        .iter()
        .map(|p| ListingPage {
            file: Arc::clone(&p.file),
            page: p.listing.count.map(|c| c.page),
        })
        .collect();
    (pages, claimed_total, warnings)
}

/// Warnings about repeated page numbers and pages missing below the highest.
fn check_pages(name: &str, pages: &[&ParsedListing]) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    let mut seen: BTreeMap<u32, &Path> = BTreeMap::new();
    for page in pages {
        let Some(count) = page.listing.count else {
            continue;
        };
        if let Some(first) = seen.get(&count.page) {
            warnings.push(Diagnostic::warning(
                &page.file,
                count.line,
                format!(
                    "expected one listing page {} for {name}, found it again (also {})",
                    count.page,
                    first.display()
                ),
            ));
        } else {
            seen.insert(count.page, &page.file);
        }
    }
    let Some((&highest, &file)) = seen.last_key_value() else {
        return warnings;
    };
    // Walk the gaps between present pages: never 1..highest, which a
    // count line such as `Page 4000000000` would make enormous.
    let mut missing: Vec<String> = Vec::new();
    let mut missing_count: u64 = 0;
    let mut next = 1u32;
    for &present in seen.keys() {
        if present > next {
            missing_count += u64::from(present - next);
            missing.extend(
                (next..present)
                    .take(10 - missing.len().min(10))
                    .map(|p| p.to_string()),
            );
        }
        next = present.saturating_add(1);
    }
    if missing_count > 0 {
        let line = pages
            .iter()
            .find(|p| *p.file == *file)
            .and_then(|p| p.listing.count.map(|c| c.line))
            .unwrap_or(0);
        let more = if missing_count > missing.len() as u64 {
            format!(" and {} more", missing_count - missing.len() as u64)
        } else {
            String::new()
        };
        warnings.push(Diagnostic::warning(
            file,
            line,
            format!(
                "expected listing pages 1 to {highest} for {name}, found no page {}{more}",
                missing.join(", ")
            ),
        ));
    }
    warnings
}

/// Categories as they are met, numbered in that order;
/// [`CategoryTable::order`] orders those papers use and renumbers the
/// papers' category ids.
#[derive(Debug, Default)]
struct CategoryTable {
    /// Canonical code → entry.
    by_code: FxHashMap<String, usize>,
    /// Code as written (an alias, say) → entry, so each is resolved once.
    by_written: FxHashMap<String, usize>,
    entries: Vec<Category>,
}

impl CategoryTable {
    fn intern(&mut self, taxonomy: &Taxonomy, code: &str) -> usize {
        if let Some(&id) = self.by_written.get(code) {
            return id;
        }
        let info = taxonomy.resolve(code);
        if let Some(&id) = self.by_code.get(&info.code) {
            self.by_written.insert(code.to_string(), id);
            return id;
        }
        self.by_written.insert(code.to_string(), self.entries.len());
        self.entries.push(Category {
            slug: slugify(&info.code),
            code: info.code.clone(),
            name: info.name,
            archive: info.archive,
            group: info.group,
            known: info.known,
            papers: Vec::new(),
        });
        self.by_code.insert(info.code, self.entries.len() - 1);
        self.entries.len() - 1
    }

    /// The category terms of `papers`, whose category `id` is this
    /// table's `in_table(paper id, id)`: those used, by group then code,
    /// each listing its papers; the papers' ids become indexes into the
    /// result (a paper whose ids stay is not copied).
    fn order(
        &self,
        papers: &mut [Arc<Paper>],
        in_table: impl Fn(PaperId, CategoryId) -> usize,
    ) -> Vec<Category> {
        let mut entries: Vec<Category> = self.entries.clone();
        for (paper_id, paper) in papers.iter().enumerate() {
            for &id in &paper.categories {
                entries[in_table(paper_id, id)].papers.push(paper_id);
            }
        }
        let mut order: Vec<usize> = (0..entries.len())
            .filter(|&i| !entries[i].papers.is_empty())
            .collect();
        order.sort_by_key(|&i| {
            let c = &entries[i];
            (c.group == UNKNOWN_GROUP, c.group.clone(), c.code.clone())
        });
        let mut new_id = vec![0; entries.len()];
        for (new, &old) in order.iter().enumerate() {
            new_id[old] = new;
        }
        for (paper_id, paper) in papers.iter_mut().enumerate() {
            let renumbered = |id: &CategoryId| new_id[in_table(paper_id, *id)];
            if paper.categories.iter().any(|id| renumbered(id) != *id) {
                let paper = Arc::make_mut(paper);
                let categories = paper.categories.iter().map(renumbered).collect();
                paper.categories = categories;
            }
        }
        let mut slots: Vec<Option<Category>> = entries.into_iter().map(Some).collect();
        let mut ordered: Vec<Category> =
            order.iter().filter_map(|&old| slots[old].take()).collect();
        let codes: Vec<(&str, String)> = ordered
            .iter()
            .map(|c| (c.code.as_str(), c.slug.clone()))
            .collect();
        let slugs = assign_unique_slugs(codes);
        for (entry, slug) in ordered.iter_mut().zip(slugs) {
            entry.slug = slug;
        }
        ordered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The merge of the bundled site's two real listings, made as `mode`
    /// says.
    fn seeds_merged(mode: Mode) -> Arc<Corpus> {
        let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds");
        let mut listings = Vec::new();
        for name in ["000_a6125076a0f68246.txt", "002_6e23376fd8dff3a4.txt"] {
            let listing = crate::input::listing::parse(&std::fs::read(seeds.join(name)).unwrap());
            listings.push(ParsedListing::new(name.into(), listing.unwrap().into()));
        }
        let diagnostics = Diagnostics::new();
        let taxonomy = Taxonomy::arxiv();
        let (corpus, _) = merge(listings, taxonomy, &[], mode, &diagnostics);
        corpus
    }

    #[test]
    fn packed_abstracts_read_as_the_abstracts_made() {
        let build = |pack_from| seeds_merged(Mode::Build { pack_from });
        let (packed, unpacked) = (build(0), build(PACK_FROM));
        let texts = TextMemo::default();
        let served = seeds_merged(Mode::Serve { texts: &texts });
        assert_eq!(packed.papers.len(), 36);
        let count = |corpus: &Corpus| {
            let abstracts = corpus.papers.iter().map(|paper| &paper.abstract_text);
            abstracts.filter(|made| made.is_packed()).count()
        };
        // `vellum serve` never packs: its reloads read the abstracts.
        assert_eq!(
            (count(&packed), count(&unpacked), count(&served)),
            (36, 0, 0)
        );
        for (a, b) in packed.papers.iter().zip(&unpacked.papers) {
            let (a, b) = (&a.abstract_text, &b.abstract_text);
            assert_eq!((a.html(), a.plain()), (b.html(), b.plain()));
            assert_eq!(a.html_and_summary(160), (b.html(), b.summary(160)));
            assert_eq!((a.is_empty(), a), (false, b));
        }
    }
}
