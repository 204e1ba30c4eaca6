//! The disk sink: stages changed files beside the output directory, then
//! moves them into place on commit.

use crate::output::{lock, Sink, StreamedFile, WriteStats};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

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
