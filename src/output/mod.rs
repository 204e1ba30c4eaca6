//! Stage 5: the output sink. The renderer hands each finished file to a
//! [`Sink`] as soon as it is rendered ([`Sink::put`], from any thread), so
//! memory stays flat however large the site; nothing becomes visible until
//! [`Sink::commit`], which the build calls only when every job succeeded.
//! A failed build calls [`Sink::abort`] instead and the output is as before.
//!
//! - [`DiskSink`] stages changed files in a sibling directory, then moves
//!   them into place on commit: files whose bytes did not change are never
//!   rewritten (they keep their modification time), stale files are removed.
//! - [`MemorySink`] keeps the site in memory (for `serve`); it can also
//!   carry files over unchanged from its last commit, which incremental
//!   rebuilds use for pages whose inputs did not change: named one by one
//!   ([`Sink::keep`]), or all but the files named dropped
//!   ([`Sink::carry_over`]).
//! - [`NullSink`] only counts (for `check`).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A whole site in memory: output path (relative, with `/`) → bytes.
/// Paths and bytes are shared, so a rebuild carries an unchanged file over
/// without copying either. Unordered (a hash map: built once per build,
/// looked up per request).
pub type SiteOutput = rustc_hash::FxHashMap<Arc<str>, Arc<Vec<u8>>>;

/// One file of a [`SiteOutput`]: its path and bytes.
type OutputFile = (Arc<str>, Arc<Vec<u8>>);

/// Writes one file's bytes to the writer it is given ([`Sink::put_streamed`]).
pub type StreamedFile<'a> = dyn FnMut(&mut dyn io::Write) -> io::Result<()> + 'a;

/// What a sink did in one build.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Files in the site.
    pub files: usize,
    /// Files whose bytes were (re)written.
    pub written: usize,
    /// Stale files removed.
    pub removed: usize,
    /// Bytes in the site.
    pub bytes: u64,
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
    /// Makes the files put since [`Sink::begin`] the whole site.
    fn commit(&mut self) -> io::Result<WriteStats>;
    /// Drops the files put since [`Sink::begin`]; the site stays as it was.
    fn abort(&mut self);
}

fn with_path(path: &Path, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

/// Counts of one build in progress. Paths are kept as XXH3-64 hashes
/// (8 bytes each, not a copy of every path: at 1,000,000 papers the site
/// has 1.8 million files); a stale file is kept by mistake only if its
/// path's hash equals that of a file put.
#[derive(Debug, Default)]
struct Tally {
    paths: Mutex<rustc_hash::FxHashSet<u64>>,
    staged: AtomicUsize,
    bytes: AtomicU64,
}

impl Tally {
    fn record(&self, path: &str, len: usize) {
        self.bytes.fetch_add(len as u64, Ordering::Relaxed);
        lock(&self.paths).insert(xxhash_rust::xxh3::xxh3_64(path.as_bytes()));
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes to a directory on disk through a staging directory beside it.
#[derive(Debug)]
pub struct DiskSink {
    dir: PathBuf,
    staging: PathBuf,
    tally: Tally,
}

impl DiskSink {
    /// A sink for the output directory `dir`, created on the first commit.
    /// Files are staged in `.<name>.staging` beside it (same file system,
    /// so moving them into place is a rename).
    pub fn new(dir: impl Into<PathBuf>) -> DiskSink {
        let dir = dir.into();
        let name = dir
            .file_name()
            .map_or("public".into(), |n| n.to_string_lossy().into_owned());
        let staging = dir.with_file_name(format!(".{name}.staging"));
        DiskSink {
            dir,
            staging,
            tally: Tally::default(),
        }
    }
}

impl Sink for DiskSink {
    /// Refuses an output path that is a file, or a non-empty directory
    /// that does not hold a previous build (no `index.html` and
    /// `sitemap.xml`): committing would delete files Vellum did not write.
    fn begin(&mut self) -> io::Result<()> {
        self.abort();
        let dir = &self.dir;
        let refuse = |why: &str| {
            Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{}: {why}; choose another output directory or remove it",
                    dir.display()
                ),
            ))
        };
        if dir.exists() && !dir.is_dir() {
            return refuse("is a file, not a directory");
        }
        let non_empty = std::fs::read_dir(dir).is_ok_and(|mut it| it.next().is_some());
        let previous_build = dir.join("index.html").is_file() && dir.join("sitemap.xml").is_file();
        if non_empty && !previous_build {
            return refuse(
                "is not empty and holds no previous build (no index.html and sitemap.xml)",
            );
        }
        std::fs::create_dir_all(&self.staging).map_err(|e| with_path(&self.staging, e))
    }

    /// Stages the file unless the output already holds the same bytes.
    fn put(&self, path: &str, bytes: Vec<u8>) -> io::Result<()> {
        self.tally.record(path, bytes.len());
        let current = self.dir.join(path);
        let unchanged = std::fs::metadata(&current)
            .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
            && std::fs::read(&current).is_ok_and(|old| old == bytes);
        if unchanged {
            return Ok(());
        }
        let staged = self.staging.join(path);
        if let Some(parent) = staged.parent() {
            std::fs::create_dir_all(parent).map_err(|e| with_path(parent, e))?;
        }
        std::fs::write(&staged, &bytes).map_err(|e| with_path(&staged, e))?;
        self.tally.staged.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Writes the file to the staging directory through a 1 MiB buffer,
    /// then drops it again if the output already holds the same bytes.
    fn put_streamed(&self, path: &str, write: &mut StreamedFile) -> io::Result<()> {
        let staged = self.staging.join(path);
        if let Some(parent) = staged.parent() {
            std::fs::create_dir_all(parent).map_err(|e| with_path(parent, e))?;
        }
        let file = std::fs::File::create(&staged).map_err(|e| with_path(&staged, e))?;
        let mut out = io::BufWriter::with_capacity(1 << 20, file);
        write(&mut out)
            .and_then(|()| io::Write::flush(&mut out))
            .map_err(|e| with_path(&staged, e))?;
        drop(out);
        let len = std::fs::metadata(&staged)
            .map_err(|e| with_path(&staged, e))?
            .len();
        self.tally.record(path, len as usize);
        if same_bytes(&staged, &self.dir.join(path)) {
            return std::fs::remove_file(&staged).map_err(|e| with_path(&staged, e));
        }
        self.tally.staged.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Moves staged files into place (the staging directory lists them),
    /// then removes stale files and empty directories. A missing output
    /// directory is created by renaming the staging directory.
    fn commit(&mut self) -> io::Result<WriteStats> {
        let tally = std::mem::take(&mut self.tally);
        let paths = tally.paths.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut stats = WriteStats {
            files: paths.len(),
            written: tally.staged.into_inner(),
            removed: 0,
            bytes: tally.bytes.into_inner(),
        };
        if !self.dir.exists() {
            std::fs::rename(&self.staging, &self.dir).map_err(|e| with_path(&self.dir, e))?;
            return Ok(stats);
        }
        let mut staged = Vec::with_capacity(stats.written);
        for entry in walkdir::WalkDir::new(&self.staging).min_depth(1) {
            let entry = entry.map_err(|e| io::Error::other(e.to_string()))?;
            if !entry.file_type().is_dir() {
                staged.push(crate::input::slash_path(entry.path(), &self.staging));
            }
        }
        use rayon::prelude::*;
        staged.par_iter().try_for_each(|path| {
            let target = self.dir.join(path);
            if let Some(parent) = target.parent() {
                if parent.is_file() {
                    std::fs::remove_file(parent).map_err(|e| with_path(parent, e))?;
                }
                std::fs::create_dir_all(parent).map_err(|e| with_path(parent, e))?;
            }
            if target.is_dir() {
                std::fs::remove_dir_all(&target).map_err(|e| with_path(&target, e))?;
            }
            std::fs::rename(self.staging.join(path), &target).map_err(|e| with_path(&target, e))
        })?;
        stats.removed = remove_stale(&self.dir, &paths)?;
        std::fs::remove_dir_all(&self.staging).map_err(|e| with_path(&self.staging, e))?;
        Ok(stats)
    }

    fn abort(&mut self) {
        self.tally = Tally::default();
        // Nothing of the output directory is touched; a missing staging
        // directory is fine.
        let _ = std::fs::remove_dir_all(&self.staging);
    }
}

/// Whether the files `a` and `b` both exist and hold the same bytes,
/// compared 1 MiB at a time.
fn same_bytes(a: &Path, b: &Path) -> bool {
    use io::BufRead;
    let same_len = match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.is_file() && b.is_file() && a.len() == b.len(),
        _ => false,
    };
    let (Ok(a), Ok(b), true) = (std::fs::File::open(a), std::fs::File::open(b), same_len) else {
        return false;
    };
    let mut a = io::BufReader::with_capacity(1 << 20, a);
    let mut b = io::BufReader::with_capacity(1 << 20, b);
    loop {
        let (Ok(left), Ok(right)) = (a.fill_buf(), b.fill_buf()) else {
            return false;
        };
        let n = left.len().min(right.len());
        if n == 0 {
            return left.is_empty() && right.is_empty();
        }
        if left[..n] != right[..n] {
            return false;
        }
        a.consume(n);
        b.consume(n);
    }
}

/// Removes files under `dir` whose path's XXH3-64 hash is not in `keep`,
/// then directories left empty. Returns the number of files removed.
fn remove_stale(dir: &Path, keep: &rustc_hash::FxHashSet<u64>) -> io::Result<usize> {
    let mut removed = 0;
    let mut dirs = Vec::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1) {
        let entry = entry.map_err(|e| io::Error::other(e.to_string()))?;
        if entry.file_type().is_dir() {
            dirs.push(entry.path().to_path_buf());
            continue;
        }
        let relative = crate::input::slash_path(entry.path(), dir);
        if !keep.contains(&xxhash_rust::xxh3::xxh3_64(relative.as_bytes())) {
            std::fs::remove_file(entry.path()).map_err(|e| with_path(entry.path(), e))?;
            removed += 1;
        }
    }
    // Deepest first, so parents empty out after their children.
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    for d in dirs {
        if std::fs::read_dir(&d).is_ok_and(|mut it| it.next().is_none()) {
            std::fs::remove_dir(&d).map_err(|e| with_path(&d, e))?;
        }
    }
    Ok(removed)
}

/// Keeps the last committed site in memory (for `serve` and tests).
///
/// A commit starts from a copy of the last site's map, which shares every
/// path and file and needs no hashing, then drops the files that were
/// neither carried over nor put (or, after [`Sink::carry_over`], the files
/// named dropped), and adds the files put. So a rebuild that carries most
/// files over costs one pass over the map, not a new map.
#[derive(Debug, Default)]
pub struct MemorySink {
    /// The last committed site, shared with whoever serves it.
    pub site: Arc<SiteOutput>,
    /// The number of the commit that made [`MemorySink::site`]
    /// ([`Sink::last_commit`]); 0 before the first.
    commit: u64,
    /// Since [`Sink::begin`]: whether the commit carries every file over
    /// but those named here ([`Sink::carry_over`]).
    dropped: Mutex<Option<Vec<String>>>,
    /// Files put since [`Sink::begin`], in the order they came (a later
    /// file of the same path wins, and a put wins over a keep).
    pending: Mutex<Vec<OutputFile>>,
    /// Files of [`MemorySink::site`] carried over since [`Sink::begin`],
    /// by the address of their shared path ([`path_address`]).
    kept: Mutex<rustc_hash::FxHashSet<usize>>,
    /// The bytes of every file of [`MemorySink::site`], counted as files
    /// come and go rather than read back from each file.
    bytes: u64,
}

/// The source of commit numbers, shared by every [`MemorySink`].
static COMMITS: AtomicU64 = AtomicU64::new(0);

/// The address of a shared path: the same for every clone of it, so it
/// names one entry of a [`SiteOutput`] while that map is alive.
fn path_address(path: &Arc<str>) -> usize {
    Arc::as_ptr(path) as *const u8 as usize
}

impl MemorySink {
    /// Adds `files` (output path, bytes) to the committed site, replacing
    /// files of the same path: files made after the commit
    /// ([`crate::build::DeferredExports`]). The site keeps its commit number
    /// ([`Sink::last_commit`]).
    pub fn add(&mut self, files: Vec<(String, Vec<u8>)>) {
        let site = Arc::make_mut(&mut self.site);
        for (path, bytes) in files {
            self.bytes += bytes.len() as u64;
            if let Some(old) = site.insert(Arc::from(path), Arc::new(bytes)) {
                self.bytes -= old.len() as u64;
            }
        }
    }
}

impl Sink for MemorySink {
    fn begin(&mut self) -> io::Result<()> {
        self.abort();
        Ok(())
    }

    fn put(&self, path: &str, bytes: Vec<u8>) -> io::Result<()> {
        lock(&self.pending).push((Arc::from(path), Arc::new(bytes)));
        Ok(())
    }

    /// Looks the paths up in parallel, then records them under one lock
    /// (after [`Sink::carry_over`], the commit carries them over anyway).
    fn keep(&self, paths: &[&str]) -> Vec<bool> {
        use rayon::prelude::*;
        let found: Vec<Option<usize>> = paths
            .par_iter()
            .map(|path| self.site.get_key_value(*path).map(|(p, _)| path_address(p)))
            .collect();
        let mut kept = lock(&self.kept);
        kept.reserve(found.len());
        found
            .into_iter()
            .map(|address| address.map(|a| kept.insert(a)).is_some())
            .collect()
    }

    fn last_commit(&self) -> Option<u64> {
        (self.commit != 0).then_some(self.commit)
    }

    fn carry_over(&self, commit: u64, dropped: &[&str]) -> bool {
        if commit != self.commit {
            return false;
        }
        lock(&self.dropped)
            .get_or_insert_with(Vec::new)
            .extend(dropped.iter().map(|&path| path.to_string()));
        true
    }

    fn commit(&mut self) -> io::Result<WriteStats> {
        let pending = std::mem::take(self.pending.get_mut().unwrap_or_else(|e| e.into_inner()));
        let kept = std::mem::take(self.kept.get_mut().unwrap_or_else(|e| e.into_inner()));
        let dropped = self
            .dropped
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let put: rustc_hash::FxHashSet<Arc<str>> =
            pending.iter().map(|(path, _)| Arc::clone(path)).collect();
        let mut site = SiteOutput::clone(&self.site);
        let before = site.len();
        let mut bytes = self.bytes;
        match dropped {
            Some(dropped) => {
                for path in dropped.iter().filter(|path| !put.contains(path.as_str())) {
                    if let Some(old) = site.remove(path.as_str()) {
                        bytes -= old.len() as u64;
                    }
                }
            }
            None => site.retain(|path, old| {
                let stays = kept.contains(&path_address(path)) || put.contains(path);
                if !stays {
                    bytes -= old.len() as u64;
                }
                stays
            }),
        }
        let removed = before - site.len();
        for (path, new) in pending {
            bytes += new.len() as u64;
            if let Some(old) = site.insert(path, new) {
                bytes -= old.len() as u64;
            }
        }
        let written = put
            .iter()
            .filter(|path| self.site.get(&**path) != site.get(&**path))
            .count();
        let stats = WriteStats {
            files: site.len(),
            written,
            removed,
            bytes,
        };
        self.site = Arc::new(site);
        self.bytes = bytes;
        self.commit = COMMITS.fetch_add(1, Ordering::Relaxed) + 1;
        Ok(stats)
    }

    fn abort(&mut self) {
        self.pending
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        *self.dropped.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
        self.kept
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// Discards every file, counting them (for `check`).
#[derive(Debug, Default)]
pub struct NullSink {
    files: AtomicUsize,
    bytes: AtomicU64,
}

impl Sink for NullSink {
    fn begin(&mut self) -> io::Result<()> {
        self.abort();
        Ok(())
    }

    fn put(&self, _path: &str, bytes: Vec<u8>) -> io::Result<()> {
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Counts the bytes as they are written; holds none.
    fn put_streamed(&self, _path: &str, write: &mut StreamedFile) -> io::Result<()> {
        let mut counter = ByteCounter(0);
        write(&mut counter)?;
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(counter.0, Ordering::Relaxed);
        Ok(())
    }

    fn commit(&mut self) -> io::Result<WriteStats> {
        Ok(WriteStats {
            files: std::mem::take(self.files.get_mut()),
            bytes: std::mem::take(self.bytes.get_mut()),
            ..WriteStats::default()
        })
    }

    fn abort(&mut self) {
        *self.files.get_mut() = 0;
        *self.bytes.get_mut() = 0;
    }
}

/// An [`io::Write`] that only counts the bytes written to it.
struct ByteCounter(u64);

impl io::Write for ByteCounter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put_all(sink: &mut dyn Sink, files: &[(&str, &str)]) -> WriteStats {
        sink.begin().unwrap();
        for (path, text) in files {
            sink.put(path, text.as_bytes().to_vec()).unwrap();
        }
        sink.commit().unwrap()
    }

    #[test]
    fn disk_sink_writes_changes_only_and_removes_stale() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let mut sink = DiskSink::new(&out);
        let first = put_all(
            &mut sink,
            &[
                ("index.html", "home"),
                ("sitemap.xml", "s"),
                ("a/b/index.html", "b"),
                ("old/index.html", "old"),
            ],
        );
        assert_eq!((first.files, first.written, first.removed), (4, 4, 0));
        let second = put_all(
            &mut sink,
            &[
                ("index.html", "home 2"),
                ("sitemap.xml", "s"),
                ("a/b/index.html", "b"),
            ],
        );
        assert_eq!((second.files, second.written, second.removed), (3, 1, 1));
        assert!(!out.join("old").exists());
        assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"home 2");
        assert!(!dir.path().join(".public.staging").exists());

        sink.begin().unwrap();
        sink.put("index.html", b"broken".to_vec()).unwrap();
        sink.abort();
        assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"home 2");
        assert!(!dir.path().join(".public.staging").exists());

        // A directory Vellum did not build, or a file, is never cleaned.
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "fn main() {}").unwrap();
        assert!(DiskSink::new(dir.path().join("src")).begin().is_err());
        assert!(DiskSink::new(dir.path().join("src/main.rs"))
            .begin()
            .is_err());
        assert!(dir.path().join("src/main.rs").is_file());
    }

    /// The memory sink counts its bytes as files come and go: after puts,
    /// keeps, drops, a path put twice and files added after a commit, the
    /// count equals the bytes of the files it holds.
    #[test]
    fn memory_sink_counts_the_bytes_it_holds() {
        let mut sink = MemorySink::default();
        let held = |sink: &MemorySink| sink.site.values().map(|b| b.len() as u64).sum::<u64>();
        let first = put_all(&mut sink, &[("a", "1234"), ("b", "12"), ("c", "123456")]);
        assert_eq!((first.files, first.bytes), (3, 12));
        sink.begin().unwrap();
        assert_eq!(sink.keep(&["a", "gone"]), [true, false]);
        sink.put("b", b"123".to_vec()).unwrap();
        sink.put("d", b"1".to_vec()).unwrap();
        sink.put("d", b"12345".to_vec()).unwrap();
        let second = sink.commit().unwrap();
        // a kept (4), b replaced (3), c dropped, d put twice, the last wins (5).
        assert_eq!((second.files, second.removed, second.bytes), (3, 1, 12));
        assert_eq!(second.bytes, held(&sink));
        sink.add(vec![
            ("a".into(), b"1".to_vec()),
            ("e".into(), b"12".to_vec()),
        ]);
        let third = put_all(&mut sink, &[("a", "1"), ("e", "12")]);
        assert_eq!((third.files, third.written, third.bytes), (2, 0, 3));
        assert_eq!(third.bytes, held(&sink));
    }

    #[test]
    fn a_memory_sink_carries_its_last_commit_over_but_the_dropped_files() {
        let mut sink = MemorySink::default();
        assert_eq!(sink.last_commit(), None);
        put_all(&mut sink, &[("a", "1"), ("b", "22"), ("c", "333")]);
        let first = sink.last_commit().unwrap();
        sink.add(vec![("d".into(), b"4444".to_vec())]);
        assert_eq!(sink.last_commit(), Some(first), "add keeps the commit");

        sink.begin().unwrap();
        assert!(!sink.carry_over(first + 1, &["a"]), "another commit");
        assert!(sink.carry_over(first, &["a", "b"]));
        assert!(sink.carry_over(first, &["gone"]), "drops add up");
        sink.put("b", b"2".to_vec()).unwrap();
        sink.put("e", b"5".to_vec()).unwrap();
        let stats = sink.commit().unwrap();
        let mut files: Vec<(&str, &[u8])> = sink
            .site
            .iter()
            .map(|(path, bytes)| (&**path, bytes.as_slice()))
            .collect();
        files.sort();
        // a dropped; b dropped and put, so put; c and d carried over.
        assert_eq!(
            files,
            [("b", &b"2"[..]), ("c", b"333"), ("d", b"4444"), ("e", b"5")]
        );
        assert_eq!((stats.files, stats.removed, stats.bytes), (4, 1, 9));
        let second = sink.last_commit().unwrap();
        assert_ne!(second, first);

        // An aborted build's carry-over does not outlive it.
        sink.begin().unwrap();
        assert!(sink.carry_over(second, &["c"]));
        sink.abort();
        let stats = put_all(&mut sink, &[("c", "333")]);
        assert_eq!((stats.files, stats.removed), (1, 3));
    }

    fn stream(sink: &dyn Sink, path: &str, text: &str) -> io::Result<()> {
        sink.put_streamed(path, &mut |out| {
            // In two writes, as a serialiser would.
            let (head, tail) = text.split_at(text.len() / 2);
            out.write_all(head.as_bytes())?;
            out.write_all(tail.as_bytes())
        })
    }

    #[test]
    fn streamed_files_are_staged_like_put_ones() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let mut sink = DiskSink::new(&out);
        sink.begin().unwrap();
        sink.put("index.html", b"home".to_vec()).unwrap();
        sink.put("sitemap.xml", b"s".to_vec()).unwrap();
        stream(&sink, "data/corpus.json", "{\"papers\":[1,2]}").unwrap();
        let first = sink.commit().unwrap();
        assert_eq!((first.files, first.written, first.bytes), (3, 3, 21));
        assert_eq!(
            std::fs::read_to_string(out.join("data/corpus.json")).unwrap(),
            "{\"papers\":[1,2]}"
        );
        // The same bytes are not rewritten; other bytes of the same length are.
        for (text, written) in [("{\"papers\":[1,2]}", 0), ("{\"papers\":[1,3]}", 1)] {
            sink.begin().unwrap();
            sink.put("index.html", b"home".to_vec()).unwrap();
            sink.put("sitemap.xml", b"s".to_vec()).unwrap();
            stream(&sink, "data/corpus.json", text).unwrap();
            let stats = sink.commit().unwrap();
            assert_eq!((stats.files, stats.written), (3, written), "{text}");
            assert_eq!(
                std::fs::read_to_string(out.join("data/corpus.json")).unwrap(),
                text
            );
        }
        // A failing writer fails the put and leaves the output as it was.
        sink.begin().unwrap();
        let failed = sink.put_streamed("data/corpus.json", &mut |out| {
            out.write_all(b"{")?;
            Err(io::Error::other("serialiser failed"))
        });
        assert!(failed
            .unwrap_err()
            .to_string()
            .contains("serialiser failed"));
        sink.abort();
        assert_eq!(
            std::fs::read_to_string(out.join("data/corpus.json")).unwrap(),
            "{\"papers\":[1,3]}"
        );

        let mut memory = MemorySink::default();
        memory.begin().unwrap();
        stream(&memory, "corpus.json", "[1,2]").unwrap();
        memory.commit().unwrap();
        assert_eq!(memory.site["corpus.json"].as_slice(), b"[1,2]");
        let mut null = NullSink::default();
        null.begin().unwrap();
        stream(&null, "corpus.json", "[1,2]").unwrap();
        let stats = null.commit().unwrap();
        assert_eq!((stats.files, stats.bytes), (1, 5));
    }

    #[test]
    fn memory_and_null_sinks() {
        let mut memory = MemorySink::default();
        assert_eq!(put_all(&mut memory, &[("a", "1"), ("b", "2")]).written, 2);
        assert_eq!(put_all(&mut memory, &[("a", "1")]).removed, 1);
        memory.begin().unwrap();
        assert_eq!(memory.keep(&["a", "b"]), [true, false]);
        memory.put("c", b"3".to_vec()).unwrap();
        let stats = memory.commit().unwrap();
        assert_eq!((stats.files, stats.written), (2, 1));
        assert_eq!(memory.site["a"].as_slice(), b"1");
        assert_eq!(put_all(&mut memory, &[("d", "old"), ("d", "new")]).files, 1);
        assert_eq!(memory.site["d"].as_slice(), b"new", "the last put wins");
        memory.begin().unwrap();
        assert_eq!(memory.keep(&["d"]), [true]);
        memory.put("e", b"5".to_vec()).unwrap();
        let stats = memory.commit().unwrap();
        assert_eq!((stats.files, stats.written, stats.removed), (2, 1, 0));
        memory.begin().unwrap();
        assert_eq!(memory.keep(&["d"]), [true]);
        memory.put("d", b"newer".to_vec()).unwrap();
        let stats = memory.commit().unwrap();
        assert_eq!((stats.files, stats.written, stats.removed), (1, 1, 1));
        assert_eq!(
            memory.site["d"].as_slice(),
            b"newer",
            "a put wins over a keep"
        );
        memory.begin().unwrap();
        assert_eq!(memory.keep(&["d"]), [true]);
        memory.abort();
        assert_eq!(
            memory.commit().unwrap().removed,
            1,
            "an abort forgets the keep"
        );
        let mut null = NullSink::default();
        let stats = put_all(&mut null, &[("a", "12"), ("b", "3")]);
        assert_eq!((stats.files, stats.bytes, stats.written), (2, 3, 0));
    }
}
