//! `vellum enrich`: finds the arXiv record of each paper of the site and
//! keeps what it found in a file of the site, which builds read (they stay
//! offline and deterministic).
//!
//! - [`record`]: an arXiv record, from an API answer (Atom) or a line of
//!   arXiv's metadata snapshot (JSON lines).
//! - [`matching`]: which record is a listed paper's, with no guess.

pub mod matching;
pub mod record;

use crate::corpus::categories::Taxonomy;
use crate::corpus::listings;
use crate::corpus::Corpus;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::input::records::{PaperRecord, Records, RECORDS_FILE};
use matching::{decide, title_key, Listed, Outcome};
use rayon::prelude::*;
use record::ArxivRecord;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// What `vellum enrich` is asked to do.
#[derive(Debug, Clone)]
pub struct EnrichOptions {
    /// The site root.
    pub root: PathBuf,
    /// arXiv's metadata snapshot, JSON lines (`--arxiv-snapshot`).
    pub snapshot: PathBuf,
}

/// What a run found and did.
#[derive(Debug, Default)]
pub struct EnrichReport {
    /// Errors and warnings, sorted by file and line: papers left unlinked
    /// are warnings at their listing record.
    pub diagnostics: Vec<Diagnostic>,
    /// Papers looked up (those an override gives an `arxiv` are not).
    pub looked_up: usize,
    /// Papers matched, of those looked up.
    pub matched: usize,
    /// Matches the records file did not hold before.
    pub new: usize,
    /// Matches that replaced another record of the same paper.
    pub changed: usize,
    /// Papers with several records that fit, left unlinked.
    pub ambiguous: usize,
    /// Snapshot lines read.
    pub lines: usize,
    /// Whether the records file was written.
    pub wrote: bool,
}

/// Matches every paper of the site at `options.root` to its record in the
/// snapshot, in one streaming pass, and writes `records/arxiv.toml`: the
/// file's earlier records stay for papers this run did not match, matched
/// ones are replaced. Nothing is written when the site has errors.
pub fn enrich(options: &EnrichOptions) -> EnrichReport {
    let mut report = EnrichReport::default();
    let diagnostics = Diagnostics::new();
    let finish = |mut report: EnrichReport, diagnostics: Diagnostics| {
        report.diagnostics = diagnostics.into_sorted(false);
        report
    };
    let root = &options.root;
    let inputs = match crate::input::read(root, None, None) {
        Ok(inputs) => inputs,
        Err(d) => {
            diagnostics.push(d);
            return finish(report, diagnostics);
        }
    };
    let parsed = listings::read_all(&inputs.seeds, root, &diagnostics);
    // Where each paper is listed first, for its warnings.
    let mut places: FxHashMap<std::sync::Arc<str>, (PathBuf, usize)> = FxHashMap::default();
    for listing in &parsed {
        for (record, keys) in listing.listing.records.iter().zip(listing.keys.iter()) {
            places
                .entry(std::sync::Arc::clone(&keys.identity))
                .or_insert_with(|| (listing.file.clone(), record.line));
        }
    }
    let content = crate::input::content::load(&inputs.content, false, &diagnostics);
    let variants = crate::build::name_variants(&inputs.config, &content);
    let corpus = Corpus::build(parsed, Taxonomy::arxiv(), &variants, &diagnostics);
    let corpus = crate::corpus::overrides::apply(
        std::sync::Arc::new(corpus),
        &content.overrides,
        &Records::default(),
        &diagnostics,
    );
    if diagnostics.has_errors(false) {
        return finish(report, diagnostics);
    }
    // Each author's names: the display name and its declared variants.
    let names: Vec<Vec<String>> = corpus
        .authors
        .iter()
        .map(|author| {
            let mut names = vec![author.name.clone()];
            names.extend(
                variants
                    .iter()
                    .filter(|v| v.canonical == author.name || v.canonical == author.slug)
                    .map(|v| v.variant.clone()),
            );
            names
        })
        .collect();
    // Each paper to look up, its slug and identity: the corpus is dropped
    // before the snapshot is read (at 100,000 papers it holds about 350 MB
    // the lookup does not need).
    let wanted: Vec<(String, std::sync::Arc<str>, Listed)> = corpus
        .papers
        .iter()
        .filter(|paper| paper.details.arxiv_id.is_none())
        .map(|paper| {
            let listed = Listed {
                title: paper.title.source.clone(),
                year: paper.year,
                owners: paper.authors.iter().map(|&a| names[a].clone()).collect(),
                categories: corpus
                    .category_codes(paper)
                    .iter()
                    .map(|c| c.to_string())
                    .collect(),
                abstract_text: paper.abstract_text.plain().to_string(),
            };
            (
                paper.slug.clone(),
                std::sync::Arc::clone(&paper.identity),
                listed,
            )
        })
        .collect();
    drop((corpus, content, names));
    let mut papers = inputs.records.papers;
    report.looked_up = wanted.len();
    let keys: Vec<String> = wanted
        .par_iter()
        .map(|(_, _, l)| title_key(&l.title))
        .collect();
    let wanted_keys: FxHashSet<&str> = keys.iter().map(String::as_str).collect();
    let found = match read_snapshot(&options.snapshot, &wanted_keys, &mut report.lines) {
        Ok(found) => found,
        Err(d) => {
            diagnostics.push(d);
            return finish(report, diagnostics);
        }
    };
    let mut by_key: FxHashMap<&str, Vec<&ArxivRecord>> = FxHashMap::default();
    for (key, record) in &found {
        by_key.entry(key.as_str()).or_default().push(record);
    }
    let snapshot = options.snapshot.display().to_string();
    for ((slug, identity, listed), key) in wanted.iter().zip(&keys) {
        let candidates = by_key.get(key.as_str()).cloned().unwrap_or_default();
        let (file, line) = places
            .get(identity)
            .cloned()
            .unwrap_or_else(|| (PathBuf::from("seeds"), 0));
        let ids = |indexes: &mut dyn Iterator<Item = usize>| {
            indexes
                .map(|i| format!("arXiv:{}", candidates[i].id))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let fix = format!("set `arxiv` in content/papers/{slug}.md to link it");
        match decide(listed, &candidates) {
            Outcome::Matched(i) => {
                report.matched += 1;
                let record = paper_record(candidates[i]);
                match papers.insert(slug.clone(), record.clone()) {
                    None => report.new += 1,
                    Some(old) if old.arxiv != record.arxiv => report.changed += 1,
                    Some(_) => {}
                }
            }
            Outcome::Ambiguous(among) => {
                report.ambiguous += 1;
                diagnostics.push(Diagnostic::warning(
                    &file,
                    line,
                    format!(
                        "expected one arXiv record for `{}`, found several that fit equally: {}; it is left unlinked: {fix}",
                        listed.title,
                        ids(&mut among.into_iter())
                    ),
                ));
            }
            Outcome::Unmatched(why) if why.is_empty() => diagnostics.push(Diagnostic::warning(
                &file,
                line,
                format!("expected an arXiv record titled `{}`, found none in {snapshot}; it is left unlinked", listed.title),
            )),
            Outcome::Unmatched(why) => {
                let reasons: Vec<String> = why
                    .iter()
                    .map(|(i, reason)| format!("arXiv:{} ({reason})", candidates[*i].id))
                    .collect();
                diagnostics.push(Diagnostic::warning(
                    &file,
                    line,
                    format!(
                        "expected an arXiv record of `{}` by its listed authors, found only {}; it is left unlinked: {fix}",
                        listed.title,
                        reasons.join(", ")
                    ),
                ));
            }
        }
    }
    match write_records(root, &papers) {
        Ok(()) => report.wrote = true,
        Err(e) => diagnostics.push(Diagnostic::error(
            RECORDS_FILE,
            0,
            format!("expected to write the file, found {e}"),
        )),
    }
    finish(report, diagnostics)
}

/// What the records file keeps of a matched record.
fn paper_record(record: &ArxivRecord) -> PaperRecord {
    PaperRecord {
        arxiv: record.id.clone(),
        version: record.version,
        title: record.title.clone(),
        authors: record.authors.iter().map(|a| a.name.clone()).collect(),
        categories: record.categories.clone(),
        published: record.published.clone(),
        updated: record.updated.clone(),
        doi: record.doi.clone(),
        journal_ref: record.journal_ref.clone(),
        comment: record.comment.clone(),
    }
}

/// Lines of the snapshot read and judged at once: a batch is judged in
/// parallel, and only one batch is in memory.
const BATCH: usize = 20_000;

/// Reads the snapshot once, a batch of lines at a time, and returns each
/// record whose [`title_key`] is `wanted`, with its key; only the title of
/// any other line is read. A line that is not a record is an error at its
/// line.
fn read_snapshot(
    path: &Path,
    wanted: &FxHashSet<&str>,
    lines: &mut usize,
) -> Result<Vec<(String, ArxivRecord)>, Diagnostic> {
    let file = std::fs::File::open(path).map_err(|e| {
        Diagnostic::error(
            path,
            0,
            format!("expected an arXiv metadata snapshot (JSON lines), found {e}"),
        )
    })?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut found = Vec::new();
    let mut batch: Vec<String> = Vec::with_capacity(BATCH);
    loop {
        batch.clear();
        for _ in 0..BATCH {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => batch.push(line),
                Err(e) => {
                    return Err(Diagnostic::error(
                        path,
                        *lines + batch.len() + 1,
                        format!("expected a line of UTF-8 JSON, found {e}"),
                    ))
                }
            }
        }
        if batch.is_empty() {
            return Ok(found);
        }
        let first = *lines + 1;
        let judged: Result<Vec<Option<(String, ArxivRecord)>>, Diagnostic> = batch
            .par_iter()
            .enumerate()
            .map(|(at, line)| {
                let bad = |e: String| {
                    Diagnostic::error(path, first + at, format!("expected an arXiv metadata record (a JSON object with `id` and `title`), found {e}"))
                };
                if line.trim().is_empty() {
                    return Ok(None);
                }
                let key = title_key(&record::snapshot_title(line).map_err(bad)?);
                if !wanted.contains(key.as_str()) {
                    return Ok(None);
                }
                Ok(Some((key, record::from_snapshot_line(line).map_err(bad)?)))
            })
            .collect();
        found.extend(judged?.into_iter().flatten());
        *lines += batch.len();
    }
}

/// Writes the records file whole: to a temporary file beside it, then
/// renamed over it, so a run cut short leaves the old file.
fn write_records(root: &Path, papers: &BTreeMap<String, PaperRecord>) -> std::io::Result<()> {
    let path = root.join(RECORDS_FILE);
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)?;
    }
    let staged = path.with_extension("toml.partial");
    std::fs::write(&staged, Records::to_text(papers))?;
    std::fs::rename(&staged, &path)
}
