//! `vellum check`: build everything into a [`LinkSink`] (which writes
//! nothing, and takes the corpus's data files by name without their
//! being made: [`crate::output::Sink::names_data_files`]), then check
//! every internal link and anchor of every rendered page. Input errors
//! do not stop the render ([`BuildOptions::keep_going`]), so one run
//! reports every problem: listing and content errors, template
//! errors, and broken links — those written in `content/` at their Markdown
//! file and line, those made by templates at the page that holds them.

use crate::build::{build, BuildOptions, BuildReport, ContentLinks};
use crate::diagnostics::{Diagnostic, Severity};
use crate::output::null;
use crate::output::{Sink, StreamedFile, WriteStats};
use rayon::prelude::*;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::Mutex;

mod scan;
#[cfg(test)]
mod scan_reference;

/// Where a link points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkTarget {
    /// Another site, `mailto:`, `tel:`, `data:` and the like.
    External,
    /// A file of this site, relative to the output root, with the fragment.
    Internal {
        /// Output file (`authors/x/index.html`).
        file: String,
        /// The part after `#`, if any.
        fragment: Option<String>,
    },
    /// A root-relative link outside the base URL's path.
    OutsideBase,
}

/// Resolves `link`, found on the page written to `page_file`, against the
/// site's `base_url` (absolute, with a trailing slash). Directory links get
/// `index.html`; a bare `#x` points at the page itself.
pub fn resolve_link(base_url: &str, page_file: &str, link: &str) -> LinkTarget {
    let after_scheme = base_url.split_once("://").map_or(base_url, |(_, r)| r);
    let base_path = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]);
    let (link, fragment) = match link.split_once('#') {
        Some((l, f)) => (l, Some(f.to_string())),
        None => (link, None),
    };
    let link = link.split('?').next().unwrap_or(link);
    let path = if link.is_empty() {
        return LinkTarget::Internal {
            file: page_file.to_string(),
            fragment,
        };
    } else if let Some(rest) = link.strip_prefix(base_url) {
        rest.to_string()
    } else if link.starts_with("//") || link.contains(':') {
        return LinkTarget::External;
    } else if let Some(rest) = link.strip_prefix(base_path) {
        rest.to_string()
    } else if link.starts_with('/') {
        return LinkTarget::OutsideBase;
    } else {
        let dir = page_file.rsplit_once('/').map_or("", |(d, _)| d);
        let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        for part in link.split('/') {
            match part {
                ".." => {
                    parts.pop();
                }
                "." | "" => {}
                p => parts.push(p),
            }
        }
        let joined = parts.join("/");
        if link.ends_with('/') && !joined.is_empty() {
            format!("{joined}/")
        } else {
            joined
        }
    };
    let file = if path.is_empty() || path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path
    };
    LinkTarget::Internal { file, fragment }
}

/// The links and anchors of one HTML page, as kept: names in the index's
/// [`Names`], each once (a page's repeated links would be reported once).
#[derive(Debug)]
struct KeptPage {
    /// In the order first found.
    links: Box<[u32]>,
    /// Sorted.
    ids: Box<[u32]>,
}

/// Every string the index holds (links as written, ids, output paths),
/// each once, numbered in the order first given: at 100,000 papers the
/// pages hold 4.5 million links (each page's distinct ones) but 595,000
/// distinct strings. Their bytes are kept one after another in blocks,
/// each string found by its number through `spans` and by its text
/// through `table`: about 20 bytes a string besides its text, where a
/// set of boxed strings took about 60 with their allocations (counted
/// from the types' sizes).
#[derive(Debug, Default)]
struct Names {
    /// Blocks of [`Names::BLOCK`] bytes (a longer string has its own), so
    /// the text never moves to grow.
    blocks: Vec<String>,
    /// Each string's block, start and length, by number.
    spans: Vec<(u32, u32, u32)>,
    /// Every string's number, by the hash of its text.
    table: hashbrown::HashTable<u32>,
}

impl Names {
    /// Bytes a block holds.
    const BLOCK: usize = 1 << 20;

    fn hash(name: &str) -> u64 {
        use std::hash::BuildHasher;
        FxBuildHasher.hash_one(name)
    }

    /// The string numbered `at`, of `blocks` by `spans`.
    fn text<'a>(blocks: &'a [String], spans: &[(u32, u32, u32)], at: u32) -> &'a str {
        let (block, start, len) = spans[at as usize];
        &blocks[block as usize][start as usize..(start + len) as usize]
    }

    /// The string numbered `at`.
    fn get(&self, at: u32) -> &str {
        Names::text(&self.blocks, &self.spans, at)
    }

    /// The number of `name`, if it has one.
    fn find(&self, name: &str) -> Option<u32> {
        self.find_hashed(name, Names::hash(name))
    }

    /// [`Names::find`], given `name`'s hash.
    fn find_hashed(&self, name: &str, hash: u64) -> Option<u32> {
        self.table.find(hash, |&at| self.get(at) == name).copied()
    }

    /// The number of `name`, given one if it has none.
    fn number(&mut self, name: &str) -> u32 {
        let hash = Names::hash(name);
        if let Some(at) = self.find_hashed(name, hash) {
            return at;
        }
        let fits = |block: &String| block.capacity() - block.len() >= name.len();
        if !self.blocks.last().is_some_and(fits) {
            self.blocks
                .push(String::with_capacity(name.len().max(Names::BLOCK)));
        }
        let last = self.blocks.len() - 1;
        let block = &mut self.blocks[last];
        let span = (as_u32(last), as_u32(block.len()), as_u32(name.len()));
        block.push_str(name);
        let at = as_u32(self.spans.len());
        self.spans.push(span);
        let (blocks, spans) = (&self.blocks, &self.spans);
        self.table
            .insert_unique(hash, at, |&at| Names::hash(Names::text(blocks, spans, at)));
        at
    }
}

/// `n` as a [`Names`] number, block, start or length.
fn as_u32(n: usize) -> u32 {
    u32::try_from(n).expect("fewer than 2^32 distinct links, ids and paths")
}

/// Every output file, and every page's links and ids.
#[derive(Debug, Default)]
struct LinkIndex {
    names: Names,
    files: FxHashSet<u32>,
    pages: FxHashMap<u32, KeptPage>,
    bytes: u64,
}

impl LinkIndex {
    fn add_file(&mut self, path: &str) -> u32 {
        let file = self.names.number(path);
        self.files.insert(file);
        file
    }
}

/// A sink that writes nothing and indexes every page's links and ids.
#[derive(Debug, Default)]
pub struct LinkSink {
    index: Mutex<LinkIndex>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Sink for LinkSink {
    fn begin(&mut self) -> io::Result<()> {
        *self = LinkSink::default();
        Ok(())
    }

    fn put(&self, path: &str, bytes: Vec<u8>) -> io::Result<()> {
        let scanned = path.ends_with(".html").then(|| scan::scan(&bytes));
        let mut index = lock(&self.index);
        index.bytes += bytes.len() as u64;
        let file = index.add_file(path);
        if let Some(page) = scanned {
            let mut seen = FxHashSet::default();
            let links = (page.links.iter())
                .map(|link| index.names.number(link))
                .filter(|&link| seen.insert(link))
                .collect();
            let mut ids: Vec<u32> = page.ids.iter().map(|id| index.names.number(id)).collect();
            ids.sort_unstable();
            ids.dedup();
            let ids = ids.into_boxed_slice();
            index.pages.insert(file, KeptPage { links, ids });
        }
        Ok(())
    }

    /// Counts the bytes as they are written and holds none: a streamed
    /// file is `corpus.json` (2 GB at 1,000,000 papers), not a page.
    fn put_streamed(&self, path: &str, write: &mut StreamedFile) -> io::Result<()> {
        debug_assert!(!path.ends_with(".html"), "a streamed page is not scanned");
        let bytes = null::count(write)?;
        let mut index = lock(&self.index);
        index.bytes += bytes;
        index.add_file(path);
        Ok(())
    }

    /// Data files made from the corpus (citation exports, `corpus.json`)
    /// are only named: links to them resolve, and nothing in them is
    /// checked.
    fn names_data_files(&self) -> bool {
        true
    }

    fn name(&self, path: &str) {
        lock(&self.index).add_file(path);
    }

    fn commit(&mut self) -> io::Result<WriteStats> {
        let index = lock(&self.index);
        Ok(WriteStats {
            files: index.files.len(),
            bytes: index.bytes,
            ..WriteStats::default()
        })
    }

    /// Keeps the index: `check` reports links even when inputs had errors.
    fn abort(&mut self) {}
}

/// Whether what `link` points at depends on the page holding it: an empty
/// link, a bare `#x` or a relative path ([`resolve_link`]).
fn depends_on_page(link: &str) -> bool {
    let path = link.split(['#', '?']).next().unwrap_or(link);
    path.is_empty() || !(path.starts_with('/') || path.contains(':'))
}

impl LinkSink {
    /// Counts `files` (output paths) as existing: pages that failed to
    /// render, whose template error is reported instead.
    fn add_files<'a>(&self, files: impl IntoIterator<Item = &'a str>) {
        let mut index = lock(&self.index);
        for file in files {
            index.add_file(file);
        }
    }

    /// Every broken internal link and anchor, sorted. `content_links` maps
    /// a content page's output file to its source file and its Markdown
    /// links with their lines, so those are reported at the source.
    pub fn broken_links(&self, base_url: &str, content_links: &ContentLinks) -> Vec<Diagnostic> {
        let guard = lock(&self.index);
        let index: &LinkIndex = &guard;
        let names = &index.names;
        let name = |at: u32| names.get(at);
        // Why `link` on `page_file` is broken, if it is.
        let verdict = |page_file: &str, link: &str| -> Option<String> {
            Some(match resolve_link(base_url, page_file, link) {
                LinkTarget::External => return None,
                LinkTarget::OutsideBase => {
                    format!("expected a link under the base URL {base_url}, found `{link}`")
                }
                LinkTarget::Internal { file, fragment } => {
                    let found = names.find(file.as_str());
                    if !found.is_some_and(|at| index.files.contains(&at)) {
                        format!(
                            "expected a link to an existing page, found `{link}` (no file {file})"
                        )
                    } else if let Some(fragment) = fragment.filter(|f| !f.is_empty()) {
                        let id = names.find(fragment.as_str());
                        match found.and_then(|at| index.pages.get(&at)) {
                            Some(target)
                                if id.is_none_or(|id| target.ids.binary_search(&id).is_err()) =>
                            {
                                format!(
                                    "expected an anchor `#{fragment}` on {file}, found no element with that id (link `{link}`)"
                                )
                            }
                            _ => return None,
                        }
                    } else {
                        return None;
                    }
                }
            })
        };
        // A link that means the same on every page is judged once: each
        // name's verdict where it is such a link, in parallel.
        let mut is_link = vec![false; names.spans.len()];
        for page in index.pages.values() {
            for &at in page.links.iter() {
                is_link[at as usize] = true;
            }
        }
        // Judged on each page it is on: a link whose target depends on
        // the page, or a broken one (judged again there for its message).
        let on_each_page: Vec<bool> = (is_link.par_iter().enumerate())
            .map(|(at, &is_link)| {
                let link = name(as_u32(at));
                is_link && (depends_on_page(link) || verdict("", link).is_some())
            })
            .collect();
        let mut problems: Vec<Diagnostic> = (index.pages.par_iter())
            .flat_map_iter(|(&file, page)| {
                let page_file = name(file);
                let source = content_links.get(page_file);
                let on_page = (page.links.iter()).filter(|&&at| on_each_page[at as usize]);
                on_page.filter_map(move |&at| {
                    let link = name(at);
                    let why = verdict(page_file, link)?;
                    let at_source = source.and_then(|(md, links)| {
                        links
                            .iter()
                            .find(|(target, _)| target == link)
                            .map(|(_, line)| (md.clone(), *line))
                    });
                    Some(match at_source {
                        Some((md, line)) => Diagnostic::error(md, line, why),
                        None => Diagnostic::error(format!("(page {page_file})"), 0, why),
                    })
                })
            })
            .collect();
        problems.sort();
        problems.dedup();
        // A broken link a template writes on many pages is reported once,
        // at the first page, with how many more hold it.
        let mut pages_of: HashMap<String, usize> = HashMap::new();
        for problem in problems.iter().filter(|d| d.line == 0) {
            *pages_of.entry(problem.message.clone()).or_default() += 1;
        }
        let mut reported = HashSet::new();
        problems.retain_mut(|problem| {
            let more = match pages_of.get(&problem.message) {
                Some(&pages) if problem.line == 0 => pages - 1,
                _ => return true,
            };
            if !reported.insert(problem.message.clone()) {
                return false;
            }
            if more > 0 {
                let noun = if more == 1 { "page" } else { "pages" };
                problem.message.push_str(&format!(
                    " (and on {more} more {noun}: a link a template writes)"
                ));
            }
            true
        });
        problems
    }
}

/// Runs `vellum check`: everything `build` does except writing and
/// making the corpus's data files, plus the link check. The report's
/// diagnostics hold every problem, sorted; with `options.strict`
/// warnings count as errors.
pub fn check(options: &BuildOptions) -> BuildReport {
    let mut sink = LinkSink::default();
    let options = BuildOptions {
        keep_going: true,
        ..options.clone()
    };
    let mut report = build(&options, &mut sink);
    // A page that failed to render is missing: links to it are counted
    // as resolving, so only its template error is reported.
    if let (Some(base_url), Some(unrendered)) = (report.base_url.clone(), &report.unrendered) {
        sink.add_files(unrendered.iter().map(String::as_str));
        let content_links = &report.content_links;
        let mut links =
            (report.timings).time("links", || sink.broken_links(&base_url, content_links));
        // A Markdown link the build already reported at its line is not
        // reported again: an `@/` link to no file (an error), and a
        // root-relative link outside the base path, which the build left
        // as written with a warning (`/~user/cv.pdf` on the same host). A
        // link under the base path to no page stays an error here.
        let mut at_line: HashMap<(&std::path::Path, usize), Vec<&Diagnostic>> = HashMap::new();
        for d in report.diagnostics.iter().filter(|d| d.line != 0) {
            at_line.entry((&d.file, d.line)).or_default().push(d);
        }
        links.retain(|link| {
            let target = format!("`{}`", link.message.split('`').nth(1).unwrap_or(""));
            let outside = link
                .message
                .starts_with("expected a link under the base URL");
            let reported = at_line.get(&(link.file.as_path(), link.line));
            !reported.is_some_and(|found| {
                found.iter().any(|d| {
                    (d.severity == Severity::Error || outside) && d.message.contains(&target)
                })
            })
        });
        if options.strict {
            for d in &mut links {
                d.severity = Severity::Error;
            }
        }
        report.diagnostics.extend(links);
        report.diagnostics.sort();
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_links_under_a_sub_path() {
        let base = "https://lab.github.io/papers/";
        let internal = |file: &str, fragment: Option<&str>| LinkTarget::Internal {
            file: file.into(),
            fragment: fragment.map(str::to_string),
        };
        assert_eq!(
            resolve_link(base, "index.html", "/papers/authors/"),
            internal("authors/index.html", None)
        );
        assert_eq!(
            resolve_link(base, "a/index.html", "../b/#x"),
            internal("b/index.html", Some("x"))
        );
        assert_eq!(
            resolve_link(base, "a/index.html", "#top"),
            internal("a/index.html", Some("top"))
        );
        assert_eq!(
            resolve_link(base, "index.html", "https://lab.github.io/papers/style.css"),
            internal("style.css", None)
        );
        assert_eq!(
            resolve_link(base, "index.html", "/authors/"),
            LinkTarget::OutsideBase
        );
        assert_eq!(
            resolve_link(base, "index.html", "https://orcid.org/x"),
            LinkTarget::External
        );
        assert_eq!(
            resolve_link(base, "index.html", "mailto:a@b.c"),
            LinkTarget::External
        );
    }

    #[test]
    fn a_relative_link_or_bare_anchor_is_judged_on_each_page_it_is_on() {
        let mut sink = LinkSink::default();
        sink.begin().unwrap();
        let page = |links: &str| format!("<main id=\"top\">{links}</main>").into_bytes();
        let put_bytes = std::sync::atomic::AtomicU64::new(0);
        let put = |path: &str, bytes: Vec<u8>| {
            put_bytes.fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
            sink.put(path, bytes).unwrap()
        };
        put(
            "a/index.html",
            page("<a href=\"x/\"></a><a href=\"/b/#top\"></a><a href=\"#a\" id=\"a\"></a>"),
        );
        put(
            "b/index.html",
            page("<a href=\"x/\"></a><a href=\"/a/#nope\"></a><a href=\"#a\"></a>"),
        );
        put(
            "c/index.html",
            page("<a href=\"/a/#nope\"></a><a href=\"x/\"></a>"),
        );
        put("a/x/index.html", page(""));
        let mut corpus = |out: &mut dyn io::Write| out.write_all(b"{\"papers\": []}");
        sink.put_streamed("corpus.json", &mut corpus).unwrap();
        let stats = sink.commit().unwrap();
        let bytes = put_bytes.into_inner() + 14;
        assert_eq!((stats.files, stats.bytes), (5, bytes));
        let broken: Vec<String> = sink
            .broken_links("https://lab.org/", &ContentLinks::new())
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(
            broken,
            [
                "(page b/index.html): error: expected a link to an existing page, found `x/` (no \
                 file b/x/index.html)",
                "(page b/index.html): error: expected an anchor `#a` on b/index.html, found no \
                 element with that id (link `#a`)",
                "(page b/index.html): error: expected an anchor `#nope` on a/index.html, found no \
                 element with that id (link `/a/#nope`) (and on 1 more page: a link a template \
                 writes)",
                "(page c/index.html): error: expected a link to an existing page, found `x/` (no \
                 file c/x/index.html)",
            ]
        );
    }

    #[test]
    fn names_are_numbered_once_across_blocks() {
        let mut names = Names::default();
        let long = "x".repeat(Names::BLOCK + 1);
        let all: Vec<String> = (0..150_000)
            .map(|i| format!("/papers/paper-{i}/"))
            .chain([long.clone(), String::new(), "after".into()])
            .collect();
        for (i, name) in all.iter().enumerate() {
            assert_eq!(names.number(name), i as u32);
        }
        // The short names' 3.0 MB in three blocks, the long name in one of
        // its own, "after" in a fifth.
        let short: usize = all[..150_000].iter().map(String::len).sum();
        assert_eq!(short, 3_038_890);
        assert_eq!(names.blocks.len(), 5);
        for (i, name) in all.iter().enumerate().rev() {
            assert_eq!(names.number(name), i as u32);
            assert_eq!(names.get(i as u32), name);
        }
        assert_eq!(names.find("/papers/paper-149999/"), Some(149_999));
        assert_eq!(names.find(&long), Some(150_000));
        assert_eq!(names.find("/papers/paper-150000/"), None);
    }
}
