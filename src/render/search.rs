//! The search index stage: tokenises every visible paper (title, authors,
//! categories, plain abstract), computes each document's BM25F impact per
//! term, and writes a sharded static index under `search/`: a small entry
//! file, term-range shards (the dictionary), postings packs (each frequent
//! term's postings a zlib stream, read by an HTTP range request), phrase
//! buckets of title bigrams, one file of category runs, author shards by
//! document range and author lists by author (for the author facet of
//! many results), metadata packs by document range (a pack is read record
//! by record with range requests), and author-name shards, all
//! content-hashed. The format is specified in `docs/search-index.md`;
//! `themes/default/static/search-engine.js` reads it. Hands the files,
//! `(output path, bytes)`, to the build driver.

use crate::corpus::{Corpus, Paper};
use crate::input::config::{Config, SearchSettings};
use crate::permalink::{Route, UrlMap};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::{Arc, Mutex};
use unicode_normalization::char::is_combining_mark;
use xxhash_rust::xxh3::xxh3_64;

/// Words never indexed or searched for.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is",
    "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "which", "with",
];

/// Field weights: title, authors, categories, abstract.
const WEIGHTS: [f64; 4] = [3.0, 2.5, 1.5, 1.0];
const TITLE: usize = 0;
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Weight of a prefix match relative to an exact one (read by the engine).
const PREFIX_WEIGHT: f64 = 0.7;

/// Letters that do not decompose under NFKD, folded to ASCII.
fn fold_letter(c: char, out: &mut String) {
    match c {
        'ø' => out.push('o'),
        'đ' | 'ð' => out.push('d'),
        'ł' => out.push('l'),
        'ı' => out.push('i'),
        'ħ' => out.push('h'),
        'ŧ' => out.push('t'),
        'ß' => out.push_str("ss"),
        'æ' => out.push_str("ae"),
        'œ' => out.push_str("oe"),
        'þ' => out.push_str("th"),
        _ => out.push(c),
    }
}

fn is_hyphen(c: char) -> bool {
    matches!(c, '-' | '\u{2010}' | '\u{2011}')
}

/// Tokenises index or query text by the rules of `docs/search-index.md`:
/// NFKD without combining marks, lowercase, letter folding, alphanumeric
/// words, hyphenated compounds (parts and their concatenation), stop words
/// dropped, Harman's S-stemmer. `zoë` → `zoe`, `fine-grained` → `fine`,
/// `grained`, `finegrained`; `networks` → `network`.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for_each_token(text, |t| tokens.push(t.to_string()));
    tokens
}

/// `text` in NFKD without combining marks, each character decomposed on
/// its own: NFKD's canonical reordering moves only characters of a
/// nonzero combining class, which are all marks and dropped, so this is
/// `text.nfkd()` without them, and ASCII (most of any text) is copied
/// instead of going through the normaliser's buffer (measured in
/// c75377c).
fn strip_marks(text: &str) -> String {
    let mut stripped = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            stripped.push(c);
        } else {
            unicode_normalization::char::decompose_compatible(c, |d| {
                if !is_combining_mark(d) {
                    stripped.push(d);
                }
            });
        }
    }
    stripped
}

/// Calls `emit` with each token of `text`, in order (see [`tokenize`]).
fn for_each_token(text: &str, mut emit: impl FnMut(&str)) {
    let normal: String = if text.is_ascii() {
        text.to_ascii_lowercase()
    } else {
        let stripped = strip_marks(text);
        let mut folded = String::with_capacity(stripped.len());
        for c in stripped.to_lowercase().chars() {
            fold_letter(c, &mut folded);
        }
        folded
    };
    let mut words: Vec<&str> = Vec::new();
    let mut rest = normal.as_str();
    while let Some(start) = rest.find(char::is_alphanumeric) {
        rest = &rest[start..];
        let end = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        words.push(&rest[..end]);
        rest = &rest[end..];
        // A single hyphen between two words continues a compound.
        let mut chars = rest.chars();
        let joined =
            chars.next().is_some_and(is_hyphen) && chars.next().is_some_and(char::is_alphanumeric);
        if !joined {
            emit_words(&words, &mut emit);
            words.clear();
        } else {
            rest = &rest[rest.chars().next().map_or(0, char::len_utf8)..];
        }
    }
    emit_words(&words, &mut emit);
}

/// Emits a compound's parts, then (for two or more parts) their concatenation.
fn emit_words(words: &[&str], emit: &mut impl FnMut(&str)) {
    for word in words {
        emit_word(word, emit);
    }
    if words.len() > 1 {
        emit_word(&words.concat(), emit);
    }
}

fn emit_word(word: &str, emit: &mut impl FnMut(&str)) {
    if word.is_empty() || STOP_WORDS.contains(&word) {
        return;
    }
    emit(&stem(word));
}

/// Harman's S-stemmer, for words of more than 3 characters without digits.
fn stem(word: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    if word.chars().count() <= 3 || word.chars().any(|c| c.is_numeric()) {
        return Cow::Borrowed(word);
    }
    if let Some(base) = word.strip_suffix("ies") {
        if !word.ends_with("eies") && !word.ends_with("aies") {
            return Cow::Owned(format!("{base}y"));
        }
    }
    if let Some(base) = word.strip_suffix("es") {
        if !word.ends_with("aes") && !word.ends_with("ees") && !word.ends_with("oes") {
            return Cow::Owned(format!("{base}e"));
        }
    }
    if let Some(base) = word.strip_suffix('s') {
        if !word.ends_with("us") && !word.ends_with("ss") {
            return Cow::Borrowed(base);
        }
    }
    Cow::Borrowed(word)
}

/// Appends `n` in the index's base-32 string encoding (least significant
/// digit first; the last digit from the `A…f` alphabet, others from `g…_`).
pub fn encode_number(mut n: u64, out: &mut String) {
    const LAST: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef";
    const MORE: &[u8; 32] = b"ghijklmnopqrstuvwxyz0123456789-_";
    while n >= 32 {
        out.push(MORE[(n % 32) as usize] as char);
        n /= 32;
    }
    out.push(LAST[n as usize] as char);
}

/// The texts of a document's four fields.
fn fields(corpus: &Corpus, paper: &Paper) -> [String; 4] {
    let [title, authors, categories] = short_fields(corpus, paper);
    [
        title,
        authors,
        categories,
        paper.abstract_text.plain().into_owned(),
    ]
}

/// The texts of a document's title, authors and categories fields.
fn short_fields(corpus: &Corpus, paper: &Paper) -> [String; 3] {
    let authors = corpus.author_names(paper).join(" ");
    let categories = paper
        .categories
        .iter()
        .map(|&c| {
            let category = &corpus.categories[c];
            format!("{} {}", category.code, category.name)
        })
        .collect::<Vec<_>>()
        .join(" ");
    [paper.title.plain().to_string(), authors, categories]
}

/// One document's tokens before weighting: each term's count in each
/// field, each field's length in tokens, and the title's bigram counts.
#[derive(Debug)]
pub struct Analysis {
    terms: Vec<(String, [u32; 4])>,
    lengths: [usize; 4],
    bigrams: Vec<(String, u32)>,
}

/// Tokenises a document's four fields.
fn analyse(fields: &[String; 4]) -> Analysis {
    let mut tf: FxHashMap<String, [u32; 4]> = FxHashMap::default();
    let mut lengths = [0usize; 4];
    let mut bigrams: FxHashMap<String, u32> = FxHashMap::default();
    for (f, text) in fields.iter().enumerate() {
        let mut previous: Option<String> = None;
        for_each_token(text, |token| {
            lengths[f] += 1;
            match tf.get_mut(token) {
                Some(counts) => counts[f] += 1,
                None => {
                    let mut counts = [0; 4];
                    counts[f] = 1;
                    tf.insert(token.to_string(), counts);
                }
            }
            if f == TITLE {
                if let Some(before) = previous.replace(token.to_string()) {
                    *bigrams.entry(format!("{before} {token}")).or_default() += 1;
                }
            }
        });
    }
    Analysis {
        terms: tf.into_iter().collect(),
        lengths,
        bigrams: bigrams.into_iter().collect(),
    }
}

/// A term's impact in a document, the BM25F term-frequency part, as its
/// [`level`], from its count in each field, the document's field lengths
/// in tokens and their averages over all documents.
fn impact(counts: &[u32; 4], lengths: &[usize; 4], average: &[f64; 4]) -> u8 {
    let part = |f: usize| {
        let count = f64::from(counts[f]);
        let norm = 1.0 - B + B * lengths[f] as f64 / average[f].max(1e-9);
        WEIGHTS[f] * count * (K1 + 1.0) / (count + K1 * norm)
    };
    level((0..4).filter(|&f| counts[f] > 0).map(part).sum())
}

/// Ratio between an impact level and the next: levels keep an impact
/// within 2.5% (a byte, which compresses to about 5 bits, instead of the
/// hundredths in 10 bits that made up most of a frequent term's postings).
const IMPACT_STEP: f64 = 1.05;

/// An impact's level: `round(log_1.05(100 × impact))`, at least 0. The
/// largest impact, every field's weight times `k1 + 1`, is level 153.
fn level(impact: f64) -> u8 {
    ((impact * 100.0).max(1.0).ln() / IMPACT_STEP.ln())
        .round()
        .min(255.0) as u8
}

/// A document's terms with their counts per field, then its title bigrams
/// (counted in the title only).
fn counted_terms(analysis: &Analysis) -> impl Iterator<Item = (&str, [u32; 4])> {
    let bigrams = analysis.bigrams.iter().map(|(term, count)| {
        let mut counts = [0; 4];
        counts[TITLE] = *count;
        (term.as_str(), counts)
    });
    let terms = analysis
        .terms
        .iter()
        .map(|(term, counts)| (term.as_str(), *counts));
    terms.chain(bigrams)
}

/// Each field's average length over documents with `lengths`.
fn average_lengths<'a>(lengths: impl Iterator<Item = &'a [usize; 4]>) -> [f64; 4] {
    let mut totals = [0usize; 4];
    let mut n = 0usize;
    for document in lengths {
        n += 1;
        for f in 0..4 {
            totals[f] += document[f];
        }
    }
    totals.map(|t| t as f64 / n.max(1) as f64)
}

/// Analysed documents that `vellum serve` keeps between builds, by the
/// XXH3-64 hash of their title, authors and categories fields and their
/// abstract's source hash, and a dictionary numbering every term
/// they use: a rebuild tokenises only documents whose title, authors,
/// categories or abstract changed, and gathers postings by term number
/// instead of hashing each term again.
#[derive(Debug, Default)]
pub struct AnalysisCache {
    documents: Mutex<HashMap<u64, Arc<Numbered>>>,
    dictionary: Mutex<Dictionary>,
}

/// What the index needs of an analysis, its terms numbered: each term's
/// dictionary number with its counts per field (title bigrams counted in
/// the title), by number, written as [`CountedPostings`] writes a term's
/// documents (LEB128), and the field lengths. No term is kept as text:
/// a document's terms are one allocation of numbers and counts, not a
/// string a term (measured in 6d9daff).
#[derive(Debug)]
struct Numbered {
    terms: Box<[u8]>,
    lengths: [usize; 4],
}

/// Term → number, and the terms by number. It only grows; terms no
/// document uses any more get no postings and are not written.
#[derive(Debug, Default)]
struct Dictionary {
    numbers: FxHashMap<String, u32>,
    terms: Vec<String>,
}

impl Dictionary {
    fn number(&mut self, term: &str) -> u32 {
        if let Some(&n) = self.numbers.get(term) {
            return n;
        }
        let n = self.terms.len() as u32;
        self.terms.push(term.to_string());
        self.numbers.insert(term.to_string(), n);
        n
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl AnalysisCache {
    /// Every term of `documents` (in document order) with its postings:
    /// cached analyses reused, others made (in parallel) and kept; entries
    /// of documents no longer in the corpus are dropped.
    fn postings(&self, corpus: &Corpus, documents: &[&Paper]) -> Vec<(String, Vec<(u32, u8)>)> {
        // A document is known by its short fields and its abstract's
        // source hash, which decides the abstract's plain text: only the
        // documents analysed again read that text back.
        let keyed: Vec<u64> = documents
            .par_iter()
            .map(|paper| {
                let mut hasher = xxhash_rust::xxh3::Xxh3::new();
                for field in &short_fields(corpus, paper) {
                    hasher.update(field.as_bytes());
                    hasher.update(&[0]);
                }
                hasher.update(&paper.abstract_text.source_hash.to_le_bytes());
                hasher.digest()
            })
            .collect();
        let mut cached = lock(&self.documents);
        let found: Vec<Option<Arc<Numbered>>> =
            keyed.iter().map(|key| cached.get(key).cloned()).collect();
        // Each analysis is numbered as soon as it is made, so only the
        // numbered ones are held together, never every document's terms as
        // text (measured in 6d9daff).
        // Terms are numbered in whatever
        // order the threads meet them: the index sorts them by text.
        let numbered: Vec<Arc<Numbered>> = documents
            .par_iter()
            .zip(found)
            .map(|(paper, found)| {
                found.unwrap_or_else(|| {
                    let analysis = analyse(&fields(corpus, paper));
                    let mut terms: Vec<(u32, [u32; 4])> = {
                        let mut dictionary = lock(&self.dictionary);
                        counted_terms(&analysis)
                            .map(|(term, counts)| (dictionary.number(term), counts))
                            .collect()
                    };
                    terms.sort_unstable_by_key(|&(number, _)| number);
                    let mut written = CountedPostings::default();
                    for (number, counts) in terms {
                        written.push(number, counts);
                    }
                    Arc::new(Numbered {
                        terms: written.bytes.into_boxed_slice(),
                        lengths: analysis.lengths,
                    })
                })
            })
            .collect();
        let dictionary = lock(&self.dictionary);
        *cached = keyed.into_iter().zip(numbered.iter().cloned()).collect();
        let average = average_lengths(numbered.iter().map(|d| &d.lengths));
        let mut lists: Vec<Vec<(u32, u8)>> = vec![Vec::new(); dictionary.terms.len()];
        for (doc, document) in numbered.iter().enumerate() {
            for (number, counts) in counted(&document.terms) {
                let impact = impact(&counts, &document.lengths, &average);
                lists[number as usize].push((doc as u32, impact));
            }
        }
        lists
            .into_iter()
            .zip(&dictionary.terms)
            .filter(|(list, _)| !list.is_empty())
            .map(|(list, term)| (term.clone(), list))
            .collect()
    }
}

/// One term's postings as they are made: for each (document, impact
/// level) in document order, the document's distance from the previous one
/// (from 0 for the first) as LEB128, and the level.
#[derive(Debug, Default)]
struct PostingsWriter {
    previous: u32,
    df: u32,
    distances: Vec<u8>,
    levels: Vec<u8>,
}

impl PostingsWriter {
    /// Appends a posting; `doc` is not below the last one pushed.
    fn push(&mut self, doc: u32, level: u8) {
        leb128(doc - self.previous, &mut self.distances);
        self.levels.push(level);
        self.previous = doc;
        self.df += 1;
    }

    /// The postings as the index writes them: a term with at most
    /// [`INLINE_POSTINGS`] documents, and every title bigram, as numbers in
    /// its term shard or phrase bucket; others as a zlib stream of the
    /// distances, then the levels, for a postings pack.
    fn finish(self, bigram: bool) -> Written {
        if bigram || self.df as usize <= INLINE_POSTINGS {
            let mut text = String::new();
            let mut distances = self.distances.iter().copied();
            for &level in &self.levels {
                encode_number(
                    u64::from(read_leb128(&mut distances).unwrap_or(0)),
                    &mut text,
                );
                encode_number(u64::from(level), &mut text);
            }
            return Written::Inline(self.df, text);
        }
        let mut bytes = self.distances;
        bytes.extend_from_slice(&self.levels);
        Written::Packed(self.df, zlib(&bytes))
    }
}

/// Terms in at most this many documents keep their postings in their term
/// shard: a range request would cost more in headers than they weigh.
const INLINE_POSTINGS: usize = 8;

/// One term's postings, finished: its document frequency and either the
/// numbers of its inline postings or its zlib stream.
#[derive(Debug)]
enum Written {
    Inline(u32, String),
    Packed(u32, Vec<u8>),
}

/// One term's postings before the average field lengths are known: for
/// each (document, count per field) in document order, the document's
/// distance from the previous one, a byte with a bit for each field the
/// term occurs in, and those fields' counts, as LEB128 numbers (about as
/// compact as [`PostingsWriter`]).
#[derive(Debug, Default)]
struct CountedPostings {
    previous: u32,
    bytes: Vec<u8>,
}

impl CountedPostings {
    /// Appends a posting; `doc` is not below the last one pushed.
    fn push(&mut self, doc: u32, counts: [u32; 4]) {
        leb128(doc - self.previous, &mut self.bytes);
        self.previous = doc;
        let fields = (0..4).filter(|&f| counts[f] > 0);
        self.bytes
            .push(fields.clone().fold(0, |mask, f| mask | 1 << f));
        fields.for_each(|f| leb128(counts[f], &mut self.bytes));
    }

    /// The postings with their [`impact`]s, given each document's field
    /// lengths (by document number) and their averages.
    fn weigh(&self, lengths: &[[usize; 4]], average: &[f64; 4]) -> PostingsWriter {
        let mut weighed = PostingsWriter::default();
        for (doc, counts) in counted(&self.bytes) {
            weighed.push(doc, impact(&counts, &lengths[doc as usize], average));
        }
        weighed
    }
}

/// The (number, counts per field) pairs of bytes a [`CountedPostings`]
/// wrote, in order.
fn counted(bytes: &[u8]) -> impl Iterator<Item = (u32, [u32; 4])> + '_ {
    let mut bytes = bytes.iter().copied();
    let mut number = 0u32;
    std::iter::from_fn(move || {
        number += read_leb128(&mut bytes)?;
        let fields = bytes.next().unwrap_or(0);
        let mut counts = [0; 4];
        for (f, count) in counts.iter_mut().enumerate() {
            if fields & 1 << f != 0 {
                *count = read_leb128(&mut bytes).unwrap_or(0);
            }
        }
        Some((number, counts))
    })
}

/// Reads one [`leb128`] number; `None` at the end of `bytes`.
fn read_leb128(bytes: &mut impl Iterator<Item = u8>) -> Option<u32> {
    let mut n = 0u32;
    for shift in (0..32).step_by(7) {
        let byte = bytes.next()?;
        n |= u32::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            break;
        }
    }
    Some(n)
}

/// Appends `n` as LEB128: seven bits a byte, low first, the high bit set on
/// all bytes but the last.
fn leb128(mut n: u32, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n & 0x7f) as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Each term's postings, in the order terms were first seen.
type Postings<P> = indexmap::IndexMap<String, P, rustc_hash::FxBuildHasher>;

/// Appends the postings of `analyses` (documents `first`, `first + 1`, …)
/// to `postings`, with their counts per field.
fn add_postings<'a>(
    postings: &mut Postings<CountedPostings>,
    first: usize,
    analyses: impl Iterator<Item = &'a Analysis>,
) {
    for (offset, analysis) in analyses.enumerate() {
        let doc = (first + offset) as u32;
        for (term, counts) in counted_terms(analysis) {
            match postings.get_mut(term) {
                Some(list) => list.push(doc, counts),
                None => {
                    let mut list = CountedPostings::default();
                    list.push(doc, counts);
                    postings.insert(term.to_string(), list);
                }
            }
        }
    }
}

/// Documents whose token lists are made at once.
const BATCH: usize = 2048;

/// The index format's version, in the entry file.
const VERSION: u32 = 3;

#[derive(Serialize)]
struct Entry<'a> {
    version: u32,
    documents: usize,
    prefix_weight: f64,
    impact_step: f64,
    terms: Vec<(String, String)>,
    postings: Vec<String>,
    phrases: Phrases,
    categories_of: String,
    authors_of: AuthorShards,
    author_lists: AuthorLists,
    metadata: Packs,
    authors: AuthorFiles,
    /// Each year with its first document; the undated papers (last) as
    /// `null`.
    years: Vec<(Option<u16>, usize)>,
    categories: Vec<(&'a str, &'a str)>,
    urls: Urls,
}

#[derive(Serialize)]
struct Phrases {
    buckets: usize,
    per_file: usize,
    files: Vec<String>,
}

#[derive(Serialize)]
struct AuthorLists {
    blocks: usize,
    per_file: usize,
    files: Vec<String>,
}

#[derive(Serialize)]
struct AuthorShards {
    documents: usize,
    bytes: usize,
    files: Vec<String>,
}

#[derive(Serialize)]
struct Packs {
    documents: usize,
    files: Vec<String>,
}

#[derive(Serialize)]
struct AuthorFiles {
    count: usize,
    per_file: usize,
    files: Vec<String>,
}

#[derive(Serialize)]
struct Urls {
    papers: String,
}

/// Authors per author-name file.
const AUTHORS_PER_FILE: usize = 4096;

/// The default term shard budget: about 350 terms with the places of
/// their postings, 2 to 3 KB gzipped.
const TERM_SHARD_BYTES: usize = 8 * 1024;

/// A postings pack is closed once it holds this many bytes.
const POSTINGS_PACK_BYTES: usize = 8 << 20;

/// An author-list block is closed once it holds this many bytes (before
/// compression).
const AUTHOR_BLOCK_BYTES: usize = 16 * 1024;
/// Author-list blocks per file.
const AUTHOR_BLOCKS_PER_FILE: usize = 256;

/// Title bigrams per phrase bucket, on average, and buckets per file.
const PHRASES_PER_BUCKET: usize = 32;
const BUCKETS_PER_FILE: usize = 4096;

/// The author lists' blocks, before compression: the authors with
/// documents, most documents first (ties by id), each as LEB128 numbers
/// (its id, its count of documents, the documents as differences); a
/// block is closed after the author that brings it to `block_bytes`, so an
/// author's list is never split.
fn author_blocks(lists: &[Vec<u32>], block_bytes: usize) -> Vec<Vec<u8>> {
    let mut ranked: Vec<usize> = (0..lists.len()).filter(|&a| !lists[a].is_empty()).collect();
    ranked.sort_by_key(|&a| (std::cmp::Reverse(lists[a].len()), a));
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    let mut block = Vec::new();
    for a in ranked {
        leb128(a as u32, &mut block);
        leb128(lists[a].len() as u32, &mut block);
        let mut previous = 0;
        for &doc in &lists[a] {
            leb128(doc - previous, &mut block);
            previous = doc;
        }
        if block.len() >= block_bytes {
            blocks.push(std::mem::take(&mut block));
        }
    }
    if !block.is_empty() {
        blocks.push(block);
    }
    blocks
}

/// Whether an index term is a title bigram (two words; a word has no
/// space).
fn is_bigram(term: &str) -> bool {
    term.contains(' ')
}

/// zlib's level for the index's streams: the index is barely larger
/// than at the default level 6 (the best compresses these streams no
/// smaller), and weighing and compressing the postings take much less
/// time (measured in c75377c).
const ZLIB_LEVEL: u32 = 2;

/// `bytes` as a zlib stream at [`ZLIB_LEVEL`].
fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut zlib = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(bytes.len() / 2),
        flate2::Compression::new(ZLIB_LEVEL),
    );
    // Writing to a vector cannot fail.
    let _ = zlib.write_all(bytes);
    zlib.finish().unwrap_or_default()
}

/// 32-bit FNV-1a of a term's UTF-8 bytes: its phrase bucket, the same in
/// `search-engine.js`.
fn fnv1a(term: &str) -> u32 {
    term.bytes().fold(0x811c_9dc5, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// Width of one offset in a metadata pack's header: 8 hex digits.
const OFFSET_DIGITS: usize = 8;

/// The documents in index order: the site's papers grouped by year (newest
/// first), then by category list, else in site order. Documents of one
/// year, and of one year and category list, are contiguous ranges, which
/// keeps the category file to a few runs.
fn document_order(corpus: &Corpus) -> Vec<&Paper> {
    let mut order: Vec<&Paper> = corpus.papers.iter().map(|p| &**p).collect();
    order.sort_by(|a, b| {
        b.year
            .cmp(&a.year)
            .then_with(|| a.categories.cmp(&b.categories))
    });
    order
}

/// A pack (metadata, phrase buckets or author lists): a header of `records + 1` byte
/// offsets (8 lowercase hex digits each, from the start of the file) and a
/// newline, then the records. Record `k` is the bytes from offset `k` to
/// offset `k + 1`.
fn records_pack(records: &[Vec<u8>]) -> Vec<u8> {
    let header = (records.len() + 1) * OFFSET_DIGITS + 1;
    let body: usize = records.iter().map(Vec::len).sum();
    let mut pack = Vec::with_capacity(header + body);
    let mut offset = header;
    for record in records {
        pack.extend_from_slice(format!("{offset:08x}").as_bytes());
        offset += record.len();
    }
    pack.extend_from_slice(format!("{offset:08x}\n").as_bytes());
    for record in records {
        pack.extend_from_slice(record);
    }
    pack
}

/// XXH3-64 of everything [`build_index`] reads: the settings, the papers'
/// URL, every paper's slug, title, abstract, year, categories and authors
/// (ids and the names shown), and the author and category tables. Equal
/// hashes mean equal index files (`vellum serve` reuses them).
pub fn inputs_hash(corpus: &Corpus, config: &Config, urls: &UrlMap) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut put = |text: &str| {
        hasher.update(&text.len().to_le_bytes());
        hasher.update(text.as_bytes());
    };
    put(&format!("{:?}", config.search_settings));
    put(&urls.url(&Route::Paper {
        slug: String::new(),
    }));
    for paper in &corpus.papers {
        put(&paper.slug);
        put(paper.title.plain());
        // The abstract's source decides its plain text.
        put(&format!(
            "{} {:?} {:?} {:x}",
            paper.year, paper.categories, paper.authors, paper.abstract_text.source_hash
        ));
        put(&corpus.author_names(paper).join("\n"));
    }
    for author in &corpus.authors {
        put(&author.name);
    }
    for category in &corpus.categories {
        put(&category.code);
        put(&category.name);
    }
    hasher.digest()
}

/// Builds the whole index and hands each file to `emit` as `(output path,
/// bytes)` as soon as it is made: every shard, then the entry file, in a
/// fixed order. Deterministic: the same corpus and settings give the same
/// bytes. Memory: no finished file is kept but the phrase buckets' JSON
/// (about 27 bytes a title bigram) until every term is written, and each
/// term's postings are dropped once its shard and pack are emitted; the
/// author lists (4 bytes an authorship) are held while their blocks are
/// made.
pub fn build_index(
    corpus: &Corpus,
    config: &Config,
    urls: &UrlMap,
    cache: Option<&AnalysisCache>,
    emit: &mut dyn FnMut(String, Vec<u8>),
) {
    let settings = config.search_settings;
    let documents = document_order(corpus);
    let (bigrams, written) = match cache {
        Some(cache) => cached_postings(corpus, &documents, cache),
        None => analysed_postings(corpus, &documents),
    };
    let mut put = IndexFiles { emit: &mut *emit };
    let budget = settings.term_shard_bytes.unwrap_or(TERM_SHARD_BYTES);
    let terms = write_terms(written, bigrams, budget, &mut put);
    let phrase_files = phrase_files(terms.buckets, &mut put);
    let categories_file = put.file("c", "json", json_object("runs", &category_runs(&documents)));
    let authors_of = author_shards(&documents, settings.facet_documents, &mut put);
    let author_lists = author_lists(corpus, &documents, &mut put);
    let metadata = metadata_packs(corpus, &documents, settings, &mut put);
    let author_files: Vec<String> = corpus
        .authors
        .chunks(AUTHORS_PER_FILE)
        .map(|chunk| {
            let names: Vec<&str> = chunk.iter().map(|a| a.name.as_str()).collect();
            put.file("a", "json", json_object("authors", &names))
        })
        .collect();
    let papers_url = urls.url(&Route::Paper {
        slug: String::new(),
    });
    let entry = Entry {
        version: VERSION,
        documents: documents.len(),
        prefix_weight: PREFIX_WEIGHT,
        impact_step: IMPACT_STEP,
        terms: terms.term_files,
        postings: terms.postings_files,
        phrases: Phrases {
            buckets: terms.bucket_count,
            per_file: BUCKETS_PER_FILE,
            files: phrase_files,
        },
        categories_of: categories_file,
        authors_of,
        author_lists,
        metadata,
        authors: AuthorFiles {
            count: corpus.authors.len(),
            per_file: AUTHORS_PER_FILE,
            files: author_files,
        },
        years: year_starts(corpus, documents.len()),
        categories: corpus
            .categories
            .iter()
            .map(|c| (c.code.as_str(), c.name.as_str()))
            .collect(),
        urls: Urls {
            papers: papers_url.trim_end_matches('/').to_string() + "/",
        },
    };
    emit(
        "search/index.json".to_string(),
        serde_json::to_vec(&entry).unwrap_or_default(),
    );
}

/// Each term with its postings, finished as the index writes them, in
/// term order, and the count of title bigrams among them.
type TermsWritten = (usize, Box<dyn Iterator<Item = (String, Written)>>);

/// [`TermsWritten`] of `documents` from the postings `vellum serve`'s
/// analysis cache holds.
fn cached_postings(corpus: &Corpus, documents: &[&Paper], cache: &AnalysisCache) -> TermsWritten {
    let mut written: Vec<(String, Written)> = cache
        .postings(corpus, documents)
        .into_par_iter()
        .map(|(term, list)| {
            let mut writer = PostingsWriter::default();
            for (doc, level) in list {
                writer.push(doc, level);
            }
            let written = writer.finish(is_bigram(&term));
            (term, written)
        })
        .collect();
    written.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let bigrams = written
        .iter()
        .map(|(term, _)| term)
        .filter(|term| is_bigram(term))
        .count();
    (bigrams, Box::new(written.into_iter()))
}

/// [`TermsWritten`] of `documents`, each analysed here.
fn analysed_postings(corpus: &Corpus, documents: &[&Paper]) -> TermsWritten {
    // Documents in batches, analysed in parallel (each tokenised
    // once), postings appended in document order with their counts
    // per field: two batches' tokens are alive at a time. An impact
    // needs the average field lengths over all documents (BM25F),
    // so each term's list is weighed and finished (compressed) as
    // the index writes it once every document is analysed, freeing
    // its counts as it goes. The terms are sorted where they are
    // (an index map keeps them in a vector) and handed on one by
    // one, never copied. Fx hashing: the keys are short terms,
    // hashed once per posting.
    // A batch's postings are added (on one thread, a large part of
    // this loop) while the next batch is analysed (measured in
    // c75377c).
    let mut counted = Postings::<CountedPostings>::default();
    let mut lengths: Vec<[usize; 4]> = Vec::with_capacity(documents.len());
    let mut add = |analyses: Vec<Analysis>| {
        add_postings(&mut counted, lengths.len(), analyses.iter());
        lengths.extend(analyses.iter().map(|a| a.lengths));
    };
    let mut analysed: Option<Vec<Analysis>> = None;
    for papers in documents.chunks(BATCH) {
        let analyse_batch = || {
            papers
                .par_iter()
                .map(|p| analyse(&fields(corpus, p)))
                .collect()
        };
        let add_last = || analysed.take().map(&mut add);
        analysed = Some(rayon::join(analyse_batch, add_last).0);
    }
    if let Some(last) = analysed {
        add(last);
    }
    let average = average_lengths(lengths.iter());
    let mut postings: Postings<Written> = counted
        .into_par_iter()
        .map(|(term, list)| {
            let written = list.weigh(&lengths, &average).finish(is_bigram(&term));
            (term, written)
        })
        .collect();
    postings.par_sort_unstable_keys();
    let bigrams = postings.keys().filter(|term| is_bigram(term)).count();
    (bigrams, Box::new(postings.into_iter()))
}

/// Hands each index file to `emit` as it is made.
struct IndexFiles<'e> {
    emit: &'e mut dyn FnMut(String, Vec<u8>),
}

impl IndexFiles<'_> {
    /// Emits `bytes` as `search/<prefix>-<hash>.<extension>`, named by
    /// the XXH3-64 of the bytes; returns that name.
    fn file(&mut self, prefix: &str, extension: &str, bytes: Vec<u8>) -> String {
        let name = format!("{prefix}-{:016x}.{extension}", xxh3_64(&bytes));
        (self.emit)(format!("search/{name}"), bytes);
        name
    }
}

/// What [`write_terms`] made: the term shards (each with its first term,
/// empty for the first shard) and postings packs emitted, and the phrase
/// buckets' JSON objects, not yet closed, and their count.
struct Terms {
    term_files: Vec<(String, String)>,
    postings_files: Vec<String>,
    buckets: Vec<Vec<u8>>,
    bucket_count: usize,
}

/// Writes the terms `written` (in term order, `bigrams` title bigrams
/// among them) into term shards, closed once past `budget` bytes, their
/// postings inline or in postings packs, closed past
/// [`POSTINGS_PACK_BYTES`] (between terms); each title bigram into its
/// phrase bucket, FNV-1a(bigram) mod the bucket count, as a member of
/// its JSON object (in term order within the bucket, as the terms come).
fn write_terms(
    written: Box<dyn Iterator<Item = (String, Written)>>,
    bigrams: usize,
    budget: usize,
    put: &mut IndexFiles,
) -> Terms {
    let mut term_files = Vec::new();
    // The members of the open shard's `terms` object, as JSON.
    let mut shard: Vec<u8> = Vec::new();
    let mut shard_bytes = 0;
    let mut first = String::new();
    let mut postings_files = Vec::new();
    let mut pack: Vec<u8> = Vec::new();
    let bucket_count = bigrams.div_ceil(PHRASES_PER_BUCKET).max(1);
    let mut buckets: Vec<Vec<u8>> = vec![Vec::new(); bucket_count];
    for (term, list) in written {
        // Where the term's postings are: `[df,"numbers"]` inline, or
        // `[df,pack,start,end]`, bytes `start..end` of a postings pack
        // (neither a term nor a numbers string needs escaping).
        let located = match list {
            Written::Inline(_, text) if is_bigram(&term) => {
                let bucket = &mut buckets[fnv1a(&term) as usize % bucket_count];
                bucket.extend_from_slice(if bucket.is_empty() { b"{\"" } else { b",\"" });
                for part in [term.as_bytes(), b"\":\"", text.as_bytes(), b"\""] {
                    bucket.extend_from_slice(part);
                }
                continue;
            }
            Written::Inline(df, text) => format!("[{df},\"{text}\"]"),
            Written::Packed(df, bytes) => {
                if pack.len() >= POSTINGS_PACK_BYTES {
                    postings_files.push(put.file("p", "bin", std::mem::take(&mut pack)));
                }
                let start = pack.len();
                pack.extend_from_slice(&bytes);
                format!("[{df},{},{start},{}]", postings_files.len(), pack.len())
            }
        };
        if shard_bytes >= budget && !shard.is_empty() {
            let name = put.file("t", "json", term_shard(&shard));
            term_files.push((std::mem::take(&mut first), name));
            shard.clear();
            shard_bytes = 0;
        }
        if shard.is_empty() {
            first = if term_files.is_empty() {
                String::new()
            } else {
                term.clone()
            };
        } else {
            shard.push(b',');
        }
        // `"term":[…],` counted for each term.
        shard_bytes += term.len() + 4 + located.len();
        for part in [b"\"", term.as_bytes(), b"\":", located.as_bytes()] {
            shard.extend_from_slice(part);
        }
    }
    if !shard.is_empty() || term_files.is_empty() {
        let name = put.file("t", "json", term_shard(&shard));
        term_files.push((first, name));
    }
    if !pack.is_empty() {
        postings_files.push(put.file("p", "bin", pack));
    }
    Terms {
        term_files,
        postings_files,
        buckets,
        bucket_count,
    }
}

/// Emits the phrase buckets' files: each bucket a zlib stream of its
/// JSON object, read as a metadata pack's record is; returns their names.
fn phrase_files(mut buckets: Vec<Vec<u8>>, put: &mut IndexFiles) -> Vec<String> {
    for bucket in buckets.iter_mut().filter(|b| !b.is_empty()) {
        bucket.push(b'}');
    }
    zlib_packs(&buckets, BUCKETS_PER_FILE)
        .into_iter()
        .map(|bytes| put.file("b", "bin", bytes))
        .collect()
}

/// The category runs of `documents`: documents with the same category
/// list, in order, each as its length, its list's length and the list.
fn category_runs(documents: &[&Paper]) -> String {
    let mut runs = String::new();
    for run in documents.chunk_by(|a, b| a.categories == b.categories) {
        encode_number(run.len() as u64, &mut runs);
        encode_number(run[0].categories.len() as u64, &mut runs);
        for &c in &run[0].categories {
            encode_number(c as u64, &mut runs);
        }
    }
    runs
}

/// Emits the author shards: the listed authors of each of `documents`,
/// `per_shard` documents a shard.
fn author_shards(documents: &[&Paper], per_shard: usize, put: &mut IndexFiles) -> AuthorShards {
    let mut author_shard_bytes = 0;
    let author_shards: Vec<String> = documents
        .chunks(per_shard)
        .map(|chunk| {
            let documents: Vec<String> = chunk
                .iter()
                .map(|paper| {
                    let mut text = String::new();
                    for &a in &paper.authors {
                        encode_number(a as u64, &mut text);
                    }
                    text
                })
                .collect();
            let bytes = json_object("documents", &documents);
            author_shard_bytes += bytes.len();
            put.file("f", "json", bytes)
        })
        .collect();
    AuthorShards {
        documents: per_shard,
        bytes: author_shard_bytes,
        files: author_shards,
    }
}

/// Emits the author lists: each listed author's documents, the authors
/// with the most documents first (ties by id), in blocks, packed by
/// [`AUTHOR_BLOCKS_PER_FILE`]. A reader counting the author facet of many
/// results reads blocks from the first until the rest cannot change its
/// top authors. A paper's listed authors are distinct (the corpus keeps
/// them sorted and unique), so no document is in a list twice.
fn author_lists(corpus: &Corpus, documents: &[&Paper], put: &mut IndexFiles) -> AuthorLists {
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); corpus.authors.len()];
    for (doc, paper) in documents.iter().enumerate() {
        for &a in &paper.authors {
            lists[a].push(doc as u32);
        }
    }
    let blocks = author_blocks(&lists, AUTHOR_BLOCK_BYTES);
    drop(lists);
    let author_list_blocks = blocks.len();
    let author_list_files: Vec<String> = zlib_packs(&blocks, AUTHOR_BLOCKS_PER_FILE)
        .into_iter()
        .map(|bytes| put.file("l", "bin", bytes))
        .collect();
    drop(blocks);
    AuthorLists {
        blocks: author_list_blocks,
        per_file: AUTHOR_BLOCKS_PER_FILE,
        files: author_list_files,
    }
}

/// Emits the metadata packs: what a result shows, one record per
/// document.
fn metadata_packs(
    corpus: &Corpus,
    documents: &[&Paper],
    settings: SearchSettings,
    put: &mut IndexFiles,
) -> Packs {
    let metadata_files: Vec<String> = documents
        .chunks(settings.metadata_documents)
        .map(|chunk| {
            let records: Vec<Vec<u8>> = chunk
                .par_iter()
                .map(|paper| {
                    let mut record = serde_json::to_vec(&serde_json::json!([
                        paper.slug,
                        paper.title.plain(),
                        paper.known_year(),
                        corpus.author_names(paper),
                        corpus.category_codes(paper),
                        paper.abstract_text.summary(settings.excerpt_chars),
                    ]))
                    .unwrap_or_default();
                    record.push(b'\n');
                    record
                })
                .collect();
            put.file("m", "bin", records_pack(&records))
        })
        .collect();
    Packs {
        documents: settings.metadata_documents,
        files: metadata_files,
    }
}

/// Each year of `corpus` with its first document, the undated papers
/// (last, from the first of the `documents` not in a year) as `None`.
fn year_starts(corpus: &Corpus, documents: usize) -> Vec<(Option<u16>, usize)> {
    let mut years = Vec::new();
    let mut start = 0;
    for year in &corpus.years {
        years.push((Some(year.year), start));
        start += year.papers.len();
    }
    if start < documents {
        years.push((None, start));
    }
    years
}

/// A term shard's JSON, `{"terms":{…}}`, around its members.
fn term_shard(members: &[u8]) -> Vec<u8> {
    [&b"{\"terms\":{"[..], members, b"}}"].concat()
}

/// `records`, each compressed (an empty one stays empty), in packs of
/// `per_file` ([`records_pack`]): the phrase buckets and the author lists.
fn zlib_packs(records: &[Vec<u8>], per_file: usize) -> Vec<Vec<u8>> {
    records
        .par_chunks(per_file)
        .map(|chunk| {
            let compressed: Vec<Vec<u8>> = chunk
                .iter()
                .map(|record| {
                    if record.is_empty() {
                        Vec::new()
                    } else {
                        zlib(record)
                    }
                })
                .collect();
            records_pack(&compressed)
        })
        .collect()
}

/// `{"<key>": value}` as JSON bytes.
fn json_object<T: Serialize + ?Sized>(key: &str, value: &T) -> Vec<u8> {
    serde_json::to_vec(&BTreeMap::from([(key, value)])).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_normalization::UnicodeNormalization;

    #[test]
    fn counted_postings_weigh_to_the_impacts_of_their_counts() {
        let lengths = vec![[3, 2, 1, 40]; 300];
        let average = [4.0, 2.0, 1.5, 60.0];
        // 3.0 × 2.2 / (1 + 1.2 × (0.25 + 0.75 × 3 / 4)) = 3.34: level 119.
        assert_eq!(impact(&[1, 0, 0, 0], &lengths[0], &average), 119);
        // Distances and counts past one LEB128 byte, fields skipped.
        let postings = [(0, [1, 0, 0, 0]), (5, [0, 2, 0, 200]), (299, [0, 0, 1, 0])];
        let mut counted = CountedPostings::default();
        let mut expected = PostingsWriter::default();
        for (doc, counts) in postings {
            counted.push(doc, counts);
            expected.push(doc, impact(&counts, &lengths[doc as usize], &average));
        }
        let weighed = counted.weigh(&lengths, &average);
        assert_eq!(weighed.distances, [0, 5, 0xa6, 0x02]);
        assert_eq!(weighed.levels, expected.levels);
    }

    #[test]
    fn few_postings_and_bigrams_stay_inline_others_are_zlib_streams() {
        let mut few = PostingsWriter::default();
        few.push(3, 94);
        few.push(40, 1);
        // Distance 3, level 94, distance 37, level 1, as numbers.
        let Written::Inline(2, text) = few.finish(false) else {
            panic!("inline")
        };
        assert_eq!(text, "D-ClBB");
        let mut many = PostingsWriter::default();
        for doc in 0..=INLINE_POSTINGS as u32 {
            many.push(doc * 200, 100);
        }
        let Written::Packed(df, bytes) = many.finish(false) else {
            panic!("packed")
        };
        assert_eq!(df, 9);
        let mut inflated = Vec::new();
        use std::io::Read;
        flate2::read::ZlibDecoder::new(&bytes[..])
            .read_to_end(&mut inflated)
            .unwrap();
        let distances = [0, 0xc8, 1].iter().chain([0xc8, 1].iter().cycle().take(14));
        let expected: Vec<u8> = distances.copied().chain([100; 9]).collect();
        assert_eq!(inflated, expected);
        let mut bigram = PostingsWriter::default();
        for doc in 0..20 {
            bigram.push(doc, 7);
        }
        assert!(matches!(bigram.finish(true), Written::Inline(20, _)));
    }

    #[test]
    fn author_blocks_rank_authors_by_documents_and_never_split_a_list() {
        // Author 0: none; 1: documents 3, 200; 2: 5; 3: 0, 1, 2 (most).
        let lists = vec![vec![], vec![3, 200], vec![5], vec![0, 1, 2]];
        let one = author_blocks(&lists, 1 << 14);
        assert_eq!(one, [vec![3, 3, 0, 1, 1, 1, 2, 3, 0xc5, 1, 2, 1, 5]]);
        // A block closed once it reaches 4 bytes: after each author.
        let split = author_blocks(&lists, 4);
        assert_eq!(
            split,
            [vec![3, 3, 0, 1, 1], vec![1, 2, 3, 0xc5, 1], vec![2, 1, 5]]
        );
        assert!(author_blocks(&[vec![], vec![]], 4).is_empty());
    }

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        assert_eq!(fnv1a(""), 0x811c_9dc5);
        assert_eq!(fnv1a("a"), 0xe40c_292c);
        assert_eq!(fnv1a("foobar"), 0xbf9c_f968);
    }

    #[test]
    fn levels_step_by_five_percent() {
        assert_eq!(level(0.0), 0);
        assert_eq!(level(0.01), 0);
        assert_eq!(level(1.0), 94);
        assert_eq!(level(1.05), 95);
        // The largest impact: every field's weight times k1 + 1.
        assert_eq!(level(8.0 * 2.2), 153);
    }

    /// `tests/search/tokens.json`: the vectors the JavaScript tokenizer
    /// is tested against too.
    #[test]
    fn token_vectors() {
        let text = include_str!("../../tests/search/tokens.json");
        let vectors: Vec<(String, Vec<String>)> = serde_json::from_str(text).unwrap();
        assert!(vectors.len() >= 20);
        for (input, expected) in vectors {
            assert_eq!(tokenize(&input), expected, "{input}");
        }
    }

    #[test]
    fn marks_are_stripped_as_after_nfkd() {
        use unicode_normalization::char::canonical_combining_class;
        let nfkd =
            |text: &str| -> String { text.nfkd().filter(|&c| !is_combining_mark(c)).collect() };
        // The premise: every character NFKD may reorder (a nonzero
        // combining class) is a mark, so none is kept to be reordered.
        // Then every character after a letter, after a mark, and between
        // two marks.
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            assert!(
                canonical_combining_class(c) == 0 || is_combining_mark(c),
                "{:x}",
                c as u32
            );
            for text in [
                format!("a{c}b"),
                format!("e\u{301}{c}"),
                format!("a\u{327}{c}\u{301}"),
            ] {
                assert_eq!(strip_marks(&text), nfkd(&text), "{:x}", c as u32);
            }
        }
        let text = "Zoë Ångström ﬁne-grained ①½ 한국어 Ǆ ẞ ﷺ";
        assert_eq!(strip_marks(text), nfkd(text));
    }

    #[test]
    fn numbers_encode_least_significant_digit_first() {
        let encode = |n| {
            let mut s = String::new();
            encode_number(n, &mut s);
            s
        };
        assert_eq!(encode(0), "A");
        assert_eq!(encode(31), "f");
        assert_eq!(encode(32), "gB");
        assert_eq!(encode(100), "kD");
        assert_eq!(encode(1_000_000), "gywe");
    }

    #[test]
    fn impacts_favour_short_fields_and_title_bigrams() {
        let fields = [
            "Serverless Computing".to_string(),
            "Ana Lima".to_string(),
            "cs.DC Distributed".to_string(),
            "We study serverless systems and serverless costs.".to_string(),
        ];
        let average = [2.0, 2.0, 2.0, 6.0];
        let analysis = analyse(&fields);
        assert_eq!(analysis.lengths, [2, 2, 3, 6]);
        let found: HashMap<&str, u8> = counted_terms(&analysis)
            .map(|(term, counts)| (term, impact(&counts, &analysis.lengths, &average)))
            .collect();
        // Title (3.0, tf 1, len = avg) + abstract (1.0, tf 2, len 6 = avg).
        let title: f64 = 3.0 * 2.2 / (1.0 + 1.2);
        let abstract_part: f64 = 2.0 * 2.2 / (2.0 + 1.2);
        assert_eq!(found["serverless"], level(title + abstract_part));
        assert_eq!(found["serverless"], 125);
        assert_eq!(found["serverless computing"], level(3.0));
        assert_eq!(found["ana"], level(2.5));
        assert!(found["ana"] < found["serverless computing"]);
        assert!(!found.contains_key("and"));
    }
}
