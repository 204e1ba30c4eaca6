//! Stage 4, output: the sink. The renderer hands each finished file to a
//! [`Sink`] as soon as it is rendered ([`Sink::put`], from any thread), so
//! memory stays flat however large the site; nothing becomes visible until
//! [`Sink::commit`], which the build calls only when every job succeeded.
//! A failed build calls [`Sink::abort`] instead and the output is as before.
//!
//! - [`DiskSink`] makes the whole new site in a staging tree beside the
//!   output (unchanged files hard-linked, so they keep their modification
//!   time), then swaps it in with one atomic exchange; its manifest says
//!   which files are Vellum's, and only those are ever replaced or removed.
//! - [`MemorySink`] keeps the site in memory (for `serve`); it can also
//!   carry files over unchanged from its last commit, which incremental
//!   rebuilds use for pages whose inputs did not change: named one by one
//!   ([`Sink::keep`]), or all but the files named dropped
//!   ([`Sink::carry_over`]).
//! - [`NullSink`] only counts.
//!
//! Takes each rendered file (output path, bytes); hands on the site, made
//! visible whole by the commit: on disk ([`disk`]), in memory ([`memory`])
//! or nowhere ([`null`]).

pub mod disk;
pub mod memory;
pub mod null;

pub use disk::DiskSink;
pub use memory::{MemorySink, StoredFile};
pub use null::NullSink;

use std::io;
use std::sync::{Arc, Mutex};

/// A whole site in memory: output path (relative, with `/`) → its bytes,
/// compressed ([`StoredFile`]). Paths and bytes are shared, so a rebuild
/// carries an unchanged file over without copying either. Unordered. A
/// persistent hash map (imbl's, a hash array mapped trie): a copy shares
/// every node until one changes, so a commit that changes a few files
/// of 478,000 copies only the nodes on their way, while the site served
/// keeps the last commit's map.
pub type SiteOutput = imbl::GenericHashMap<
    Arc<str>,
    StoredFile,
    rustc_hash::FxBuildHasher,
    imbl::shared_ptr::DefaultSharedPtr,
>;

/// Writes one file's bytes to the writer it is given ([`Sink::put_streamed`]).
pub type StreamedFile<'a> = dyn FnMut(&mut dyn io::Write) -> io::Result<()> + 'a;

/// What a sink did in one build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Files in the site.
    pub files: usize,
    /// Files whose bytes were (re)written.
    pub written: usize,
    /// Stale files removed.
    pub removed: usize,
    /// Bytes in the site.
    pub bytes: u64,
    /// Warnings naming what was written into the output during the build
    /// and kept out of the new site (each file with where it is and how to
    /// move it back; ten at most, then how many more). The build succeeded.
    pub kept: Vec<crate::diagnostics::Diagnostic>,
}

/// Where a site's files go.
pub trait Sink: Sync {
    /// Starts a build: forgets anything put and not committed.
    /// Errors: I/O errors naming the path.
    fn begin(&mut self) -> io::Result<()>;
    /// Takes one output file (path relative to the site root, `/`
    /// separators). Called from several threads; nothing is visible before
    /// [`Sink::commit`]. Errors: I/O errors naming the path.
    fn put(&self, path: &str, bytes: Vec<u8>) -> io::Result<()>;
    /// Takes the file of a page job, which the build's inputs render again
    /// on request ([`crate::render::Snapshot`]). By default as
    /// [`Sink::put`]. Errors: those of [`Sink::put`].
    fn put_page(&self, path: &str, bytes: Vec<u8>) -> io::Result<()> {
        self.put(path, bytes)
    }
    /// Takes one output file as `write` writes it, for a file too large to
    /// hold whole (`corpus.json`: 2 GB at 1,000,000 papers). By default
    /// the bytes are collected and [`Sink::put`]. Errors: those of `write`
    /// and I/O errors naming the path.
    fn put_streamed(&self, path: &str, write: &mut StreamedFile) -> io::Result<()> {
        let mut bytes = Vec::new();
        write(&mut bytes)?;
        self.put(path, bytes)
    }
    /// Stages each of `paths` with the bytes it had at the last commit,
    /// without rendering it again; returns, one per path, whether the sink
    /// could (it still holds that file). Sinks that keep no previous site
    /// return `false` for every path, and the caller renders the files
    /// instead. One call for many paths: a rebuild that cannot use
    /// [`Sink::carry_over`] keeps about 48,000 files at 10,000 papers.
    fn keep(&self, paths: &[&str]) -> Vec<bool> {
        vec![false; paths.len()]
    }
    /// The commit this sink holds: a number no other commit of any sink
    /// in this process shares, kept by [`MemorySink::add`]; `None` when
    /// the sink keeps no previous site or has committed nothing.
    fn last_commit(&self) -> Option<u64> {
        None
    }
    /// When the sink still holds commit `commit` ([`Sink::last_commit`]),
    /// makes the next commit start from all of that commit's files but
    /// `dropped` (a path put in this build replaces its file either way),
    /// so the caller names the few files that go instead of the many that
    /// stay ([`Sink::keep`]). Returns whether it does; calls in one build
    /// add up their `dropped` paths. By default `false`.
    fn carry_over(&self, _commit: u64, _dropped: &[&str]) -> bool {
        false
    }
    /// Whether the sink needs only the names of the data files that
    /// Vellum's own code makes from the corpus
    /// ([`crate::render::jobs::Job::is_corpus_data`]), not their bytes.
    /// When it does, those jobs are not rendered at all (not put, not
    /// counted by the progress bar) and each file goes to [`Sink::name`]
    /// instead. By default `false`.
    fn names_data_files(&self) -> bool {
        false
    }
    /// Takes a file by its path alone ([`Sink::names_data_files`]). By
    /// default nothing.
    fn name(&self, _path: &str) {}
    /// Makes the files put since [`Sink::begin`] the whole site.
    fn commit(&mut self) -> io::Result<WriteStats>;
    /// Drops the files put since [`Sink::begin`]; the site stays as it was.
    fn abort(&mut self);
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
