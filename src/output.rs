//! Stage 5: the output sink. The build hands a complete [`SiteOutput`] (every
//! file, rendered in memory) to a [`Sink`] only after everything rendered,
//! so a failed build never touches the output. [`DiskSink`] writes only the
//! files whose bytes changed (unchanged files keep their modification
//! time), in parallel, and removes stale files; [`MemorySink`] keeps the
//! site in memory for `serve`; [`NullSink`] discards it for `check`.

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// Every output file: path relative to the output directory (with `/`) → bytes.
pub type SiteOutput = BTreeMap<String, Vec<u8>>;

/// What a sink did.
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

/// Where a finished site goes.
pub trait Sink {
    /// Takes the whole site. Errors: I/O errors with the path concerned.
    fn commit(&mut self, site: &SiteOutput) -> io::Result<WriteStats>;
}

/// Writes to a directory on disk.
#[derive(Debug, Clone)]
pub struct DiskSink {
    dir: PathBuf,
}

impl DiskSink {
    /// A sink writing into `dir`, created when missing.
    pub fn new(dir: impl Into<PathBuf>) -> DiskSink {
        DiskSink { dir: dir.into() }
    }
}

fn with_path(path: &Path, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

impl Sink for DiskSink {
    /// Writes changed files, leaves identical ones untouched, then removes
    /// files and empty directories the site no longer has.
    fn commit(&mut self, site: &SiteOutput) -> io::Result<WriteStats> {
        std::fs::create_dir_all(&self.dir).map_err(|e| with_path(&self.dir, e))?;
        let written = site
            .par_iter()
            .map(|(relative, bytes)| {
                let path = self.dir.join(relative);
                let unchanged = std::fs::metadata(&path)
                    .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
                    && std::fs::read(&path).is_ok_and(|old| &old == bytes);
                if unchanged {
                    return Ok(0);
                }
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| with_path(parent, e))?;
                }
                if path.is_dir() {
                    std::fs::remove_dir_all(&path).map_err(|e| with_path(&path, e))?;
                }
                std::fs::write(&path, bytes).map_err(|e| with_path(&path, e))?;
                Ok(1)
            })
            .collect::<io::Result<Vec<usize>>>()?
            .into_iter()
            .sum();
        let removed = remove_stale(&self.dir, site)?;
        Ok(WriteStats {
            files: site.len(),
            written,
            removed,
            bytes: site.values().map(|b| b.len() as u64).sum(),
        })
    }
}

/// Removes files under `dir` that are not in `site`, then empty directories.
fn remove_stale(dir: &Path, site: &SiteOutput) -> io::Result<usize> {
    let mut removed = 0;
    let mut dirs = Vec::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1) {
        let entry = entry.map_err(|e| io::Error::other(e.to_string()))?;
        let relative = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if entry.file_type().is_dir() {
            dirs.push(entry.path().to_path_buf());
        } else if !site.contains_key(&relative) {
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

/// Keeps the last committed site in memory (for `serve`).
#[derive(Debug, Clone, Default)]
pub struct MemorySink {
    /// The last committed site.
    pub site: SiteOutput,
}

impl Sink for MemorySink {
    fn commit(&mut self, site: &SiteOutput) -> io::Result<WriteStats> {
        let written = site
            .iter()
            .filter(|(path, bytes)| self.site.get(*path) != Some(*bytes))
            .count();
        let removed = self.site.keys().filter(|k| !site.contains_key(*k)).count();
        self.site = site.clone();
        Ok(WriteStats {
            files: site.len(),
            written,
            removed,
            bytes: site.values().map(|b| b.len() as u64).sum(),
        })
    }
}

/// Discards the site (for `check`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NullSink;

impl Sink for NullSink {
    fn commit(&mut self, site: &SiteOutput) -> io::Result<WriteStats> {
        Ok(WriteStats {
            files: site.len(),
            bytes: site.values().map(|b| b.len() as u64).sum(),
            ..WriteStats::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_sink_writes_changes_only_and_removes_stale() {
        let dir = tempfile::tempdir().unwrap();
        let mut sink = DiskSink::new(dir.path());
        let mut site = SiteOutput::new();
        site.insert("index.html".into(), b"home".to_vec());
        site.insert("a/b/index.html".into(), b"b".to_vec());
        site.insert("old/index.html".into(), b"old".to_vec());
        let first = sink.commit(&site).unwrap();
        assert_eq!((first.files, first.written, first.removed), (3, 3, 0));
        site.remove("old/index.html");
        site.insert("index.html".into(), b"home 2".to_vec());
        let second = sink.commit(&site).unwrap();
        assert_eq!((second.written, second.removed), (1, 1));
        assert!(!dir.path().join("old").exists());
        assert_eq!(
            std::fs::read(dir.path().join("index.html")).unwrap(),
            b"home 2"
        );
        let mut memory = MemorySink::default();
        assert_eq!(memory.commit(&site).unwrap().written, 2);
        assert_eq!(memory.commit(&site).unwrap().written, 0);
    }
}
