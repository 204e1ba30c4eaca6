//! The memory sink: the last committed site in memory, for `vellum serve`
//! and tests, with the carry-over that incremental rebuilds use.

use crate::output::{lock, Sink, SiteOutput, WriteStats};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
/// One file of a [`SiteOutput`]: its path and bytes.
type OutputFile = (Arc<str>, Arc<Vec<u8>>);

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
            kept: 0,
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
