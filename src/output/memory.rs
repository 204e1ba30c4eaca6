//! The memory sink: the last committed site in memory, for `vellum serve`
//! and tests, with the carry-over that incremental rebuilds use.

use crate::output::{lock, Sink, SiteOutput, WriteStats};
use std::cell::RefCell;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
/// One file of a [`SiteOutput`]: its path and bytes.
type OutputFile = (Arc<str>, StoredFile);

/// The zstd level files are kept at: the fastest of the standard levels.
/// On the 10,000-paper corpus's pages it keeps 38% of the bytes (level 3:
/// 37%, at about half the speed).
const LEVEL: i32 = 1;

/// One file of a [`SiteOutput`], kept compressed (zstd) when that makes
/// it smaller, else as it is (fonts, images). Cloning shares the bytes.
/// Two files are equal when their bytes are: compression at one level is
/// deterministic.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredFile(Arc<Stored>);

#[derive(PartialEq, Eq)]
struct Stored {
    /// The file's length.
    len: usize,
    /// Whether `data` is a zstd frame (else the file's bytes).
    compressed: bool,
    data: Box<[u8]>,
}

thread_local! {
    /// Each thread's compression context, reused from file to file.
    static COMPRESSOR: RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { RefCell::new(None) };
}

impl StoredFile {
    /// Keeps `bytes`, compressed if that makes them smaller.
    pub fn new(bytes: &[u8]) -> StoredFile {
        let frame = COMPRESSOR.with_borrow_mut(|compressor| {
            let compressor = match compressor {
                Some(c) => c,
                None => compressor.insert(zstd::bulk::Compressor::new(LEVEL).ok()?),
            };
            compressor.compress(bytes).ok()
        });
        let stored = match frame {
            Some(frame) if frame.len() < bytes.len() => Stored {
                len: bytes.len(),
                compressed: true,
                data: frame.into_boxed_slice(),
            },
            _ => Stored {
                len: bytes.len(),
                compressed: false,
                data: bytes.into(),
            },
        };
        StoredFile(Arc::new(stored))
    }

    /// The file's length in bytes.
    pub fn len(&self) -> usize {
        self.0.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.0.len == 0
    }

    /// How many bytes of memory the file takes (compressed or not).
    pub fn stored_len(&self) -> usize {
        self.0.data.len()
    }

    /// The file's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        if !self.0.compressed {
            return self.0.data.to_vec();
        }
        // A frame this process made, of this length: it decompresses.
        zstd::bulk::decompress(&self.0.data, self.0.len).unwrap_or_default()
    }
}

impl std::fmt::Debug for StoredFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "StoredFile({} bytes in {})",
            self.0.len,
            self.0.data.len()
        )
    }
}

/// Keeps the last committed site in memory (for `serve` and tests), each
/// file compressed as it is put ([`StoredFile`]): at 100,000 papers the
/// site's 3.5 GB take about 1.3 GB.
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
            if let Some(old) = site.insert(Arc::from(path), StoredFile::new(&bytes)) {
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
        let file = StoredFile::new(&bytes);
        drop(bytes);
        lock(&self.pending).push((Arc::from(path), file));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_kept_compressed_and_read_back_whole() {
        let page = "<li><a href=\"/papers/x/\">A paper</a></li>\n".repeat(200);
        let file = StoredFile::new(page.as_bytes());
        assert_eq!(
            (file.len(), file.bytes()),
            (page.len(), page.clone().into_bytes())
        );
        assert!(file.stored_len() * 20 < page.len(), "{file:?}");
        assert_eq!(file, StoredFile::new(page.as_bytes()), "deterministic");

        // Bytes that do not compress (a font, an image) are kept as they are.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        let file = StoredFile::new(&noise);
        assert_eq!((file.stored_len(), file.bytes()), (noise.len(), noise));

        let empty = StoredFile::new(b"");
        assert!(empty.is_empty());
        assert_eq!(empty.bytes(), b"");
    }
}
