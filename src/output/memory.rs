//! The memory sink: the last committed site in memory, for `vellum serve`
//! and tests, with the carry-over that incremental rebuilds use.

use crate::output::{lock, Sink, SiteOutput, StreamedFile, WriteStats};
use std::cell::RefCell;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
/// One file of a [`SiteOutput`]: its path and bytes.
type OutputFile = (Arc<str>, StoredFile);

/// The zstd level files are kept at: the fastest of the standard levels,
/// which on the site's files keeps about as few bytes as level 3
/// (measured with `zstd -b` in 6d9daff).
const LEVEL: i32 = 1;

/// The least length of a page taken as a sink's [`Dictionary`].
const DICTIONARY_LEN: usize = 4096;

/// One file of a [`SiteOutput`], kept compressed (zstd) when that makes
/// it smaller, else as it is (fonts, images). Cloning shares the bytes.
/// Two files are equal when their bytes are (by length and XXH3-64 hash:
/// the same bytes may be compressed with different dictionaries).
#[derive(Clone)]
pub struct StoredFile(Arc<Stored>);

struct Stored {
    /// The file's length.
    len: usize,
    /// XXH3-64 of the file's bytes.
    hash: u64,
    data: Data,
}

/// How a [`StoredFile`] holds its bytes.
enum Data {
    /// As they are.
    Raw(Box<[u8]>),
    /// A zstd frame made with the dictionary (or with none).
    Zstd(Box<[u8]>, Option<Dictionary>),
    /// Not at all: a page rendered again when asked for
    /// ([`MemorySink::on_request`]).
    OnRequest,
}

/// A page of the site that other files are compressed against (a zstd
/// raw-content dictionary): pages share their markup (head, navigation,
/// footer, the parts of a list item), which a file alone cannot refer
/// back to. The id tells dictionaries apart without comparing them.
#[derive(Clone)]
struct Dictionary {
    id: u64,
    bytes: Arc<[u8]>,
}

/// The source of [`Dictionary`] ids.
static DICTIONARIES: AtomicU64 = AtomicU64::new(0);

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Dictionary({}, {} bytes)", self.id, self.bytes.len())
    }
}

impl Dictionary {
    fn new(bytes: &[u8]) -> Dictionary {
        Dictionary {
            id: DICTIONARIES.fetch_add(1, Ordering::Relaxed) + 1,
            bytes: bytes.into(),
        }
    }
}

thread_local! {
    /// Each thread's compression context, reused from file to file, with
    /// the id of the dictionary loaded in it (0: none).
    static COMPRESSOR: RefCell<Option<(u64, zstd::bulk::Compressor<'static>)>> =
        const { RefCell::new(None) };
}

impl PartialEq for StoredFile {
    fn eq(&self, other: &StoredFile) -> bool {
        (self.0.len, self.0.hash) == (other.0.len, other.0.hash)
    }
}

impl Eq for StoredFile {}

impl StoredFile {
    /// Keeps `bytes`, compressed if that makes them smaller.
    pub fn new(bytes: &[u8]) -> StoredFile {
        StoredFile::with_dictionary(bytes, None)
    }

    /// Keeps `bytes`, compressed against `dictionary` if that makes them
    /// smaller.
    fn with_dictionary(bytes: &[u8], dictionary: Option<&Dictionary>) -> StoredFile {
        let id = dictionary.map_or(0, |d| d.id);
        let frame = COMPRESSOR.with_borrow_mut(|slot| {
            if slot.as_ref().is_none_or(|(loaded, _)| *loaded != id) {
                let loaded = dictionary.map_or(&[][..], |d| &d.bytes);
                *slot = Some((
                    id,
                    zstd::bulk::Compressor::with_dictionary(LEVEL, loaded).ok()?,
                ));
            }
            slot.as_mut()?.1.compress(bytes).ok()
        });
        let data = match frame {
            Some(frame) if frame.len() < bytes.len() => {
                Data::Zstd(frame.into_boxed_slice(), dictionary.cloned())
            }
            _ => Data::Raw(bytes.into()),
        };
        StoredFile::holding(bytes, data)
    }

    /// Keeps the bytes `write` writes, compressed as they come, so that a
    /// large file (`corpus.json`: 200 MB at 100,000 papers) is never held
    /// whole. Errors: those of `write`.
    pub fn written(write: &mut StreamedFile) -> io::Result<StoredFile> {
        struct Counted<W> {
            inner: W,
            len: usize,
            hash: xxhash_rust::xxh3::Xxh3,
        }
        impl<W: io::Write> io::Write for Counted<W> {
            fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
                let n = self.inner.write(bytes)?;
                self.len += n;
                self.hash.update(&bytes[..n]);
                Ok(n)
            }
            fn flush(&mut self) -> io::Result<()> {
                self.inner.flush()
            }
        }
        let mut out = Counted {
            inner: zstd::stream::write::Encoder::new(Vec::new(), LEVEL)?,
            len: 0,
            hash: xxhash_rust::xxh3::Xxh3::new(),
        };
        write(&mut out)?;
        let frame = out.inner.finish()?;
        Ok(StoredFile(Arc::new(Stored {
            len: out.len,
            hash: out.hash.digest(),
            data: Data::Zstd(frame.into_boxed_slice(), None),
        })))
    }

    /// Keeps only what tells `bytes` from other bytes (their length and
    /// hash): the page is rendered again when asked for.
    pub fn on_request(bytes: &[u8]) -> StoredFile {
        StoredFile::holding(bytes, Data::OnRequest)
    }

    fn holding(bytes: &[u8], data: Data) -> StoredFile {
        StoredFile(Arc::new(Stored {
            len: bytes.len(),
            hash: xxhash_rust::xxh3::xxh3_64(bytes),
            data,
        }))
    }

    /// The file's length in bytes.
    pub fn len(&self) -> usize {
        self.0.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.0.len == 0
    }

    /// How many bytes of memory the file's bytes take (compressed or
    /// not; 0 for a page rendered on request).
    pub fn stored_len(&self) -> usize {
        match &self.0.data {
            Data::Raw(data) | Data::Zstd(data, _) => data.len(),
            Data::OnRequest => 0,
        }
    }

    /// The file's bytes; `None` for a page rendered on request.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        let (frame, dictionary) = match &self.0.data {
            Data::Raw(data) => return Some(data.to_vec()),
            Data::OnRequest => return None,
            Data::Zstd(frame, dictionary) => (frame, dictionary),
        };
        let dictionary = dictionary.as_ref().map_or(&[][..], |d| &d.bytes);
        // A frame this process made, of this length, with this dictionary:
        // it decompresses.
        zstd::bulk::Decompressor::with_dictionary(dictionary)
            .and_then(|mut d| d.decompress(frame, self.0.len))
            .ok()
    }
}

impl std::fmt::Debug for StoredFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "StoredFile({} bytes in {})",
            self.0.len,
            self.stored_len()
        )
    }
}

/// Keeps the last committed site in memory (for `serve` and tests), each
/// file compressed as it is put ([`StoredFile`]), against the first page
/// put of at least [`DICTIONARY_LEN`] bytes once there is one, so a
/// page's markup shared with it costs almost nothing (measured in
/// 6b281e8).
///
/// A commit starts from a copy of the last site's map (persistent: the
/// copy shares every node, [`SiteOutput`]), then drops the files that
/// were neither carried over nor put (a pass over the map; after
/// [`Sink::carry_over`], only the files named dropped), and adds the files
/// put. So a rebuild that carries most files over costs as much as the
/// files it changes.
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
    /// The page files are compressed against, once one is put.
    dictionary: std::sync::OnceLock<Dictionary>,
    /// Whether the files of page jobs ([`Sink::put_page`]) are kept as
    /// their length and hash only ([`MemorySink::on_request`]).
    pages_on_request: bool,
}

/// The source of commit numbers, shared by every [`MemorySink`].
static COMMITS: AtomicU64 = AtomicU64::new(0);

/// The address of a shared path: the same for every clone of it, so it
/// names one entry of a [`SiteOutput`] while that map is alive.
fn path_address(path: &Arc<str>) -> usize {
    Arc::as_ptr(path) as *const u8 as usize
}

impl MemorySink {
    /// Adds `files` (output path, file) to the committed site, replacing
    /// files of the same path: files made after the commit
    /// ([`crate::build::DeferredExports`]). The site keeps its commit number
    /// ([`Sink::last_commit`]).
    pub fn add(&mut self, files: Vec<(String, StoredFile)>) {
        let site = Arc::make_mut(&mut self.site);
        for (path, file) in files {
            let path: Arc<str> = Arc::from(path);
            self.bytes += file.len() as u64;
            if let Some(old) = site.insert(path, file) {
                self.bytes -= old.len() as u64;
            }
        }
    }
}

impl MemorySink {
    /// A sink that keeps the files of page jobs ([`Sink::put_page`]) as
    /// their length and hash only, for `vellum serve` to render them again
    /// when asked for ([`crate::render::Snapshot`]): the pages, most of
    /// the site, are not held even compressed (measured in 8ea0a38).
    pub fn on_request() -> MemorySink {
        MemorySink {
            pages_on_request: true,
            ..MemorySink::default()
        }
    }

    /// The dictionary to compress `bytes` (of `path`) against: the sink's,
    /// which they become when it has none and they are a page long enough.
    fn dictionary(&self, path: &str, bytes: &[u8]) -> Option<&Dictionary> {
        if self.dictionary.get().is_none()
            && path.ends_with(".html")
            && bytes.len() >= DICTIONARY_LEN
        {
            return Some(self.dictionary.get_or_init(|| Dictionary::new(bytes)));
        }
        self.dictionary.get()
    }
}

impl Sink for MemorySink {
    fn begin(&mut self) -> io::Result<()> {
        self.abort();
        Ok(())
    }

    fn put_page(&self, path: &str, bytes: Vec<u8>) -> io::Result<()> {
        if !self.pages_on_request {
            return self.put(path, bytes);
        }
        lock(&self.pending).push((Arc::from(path), StoredFile::on_request(&bytes)));
        Ok(())
    }

    fn put_streamed(&self, path: &str, write: &mut StreamedFile) -> io::Result<()> {
        let file = StoredFile::written(write)?;
        lock(&self.pending).push((Arc::from(path), file));
        Ok(())
    }

    fn put(&self, path: &str, bytes: Vec<u8>) -> io::Result<()> {
        let file = StoredFile::with_dictionary(&bytes, self.dictionary(path, &bytes));
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
            kept: Vec::new(),
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
            (file.len(), file.bytes().unwrap()),
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
        assert_eq!(
            (file.stored_len(), file.bytes().unwrap()),
            (noise.len(), noise)
        );

        // Equal bytes are equal files, whatever they were compressed with.
        let dictionary = Dictionary::new(page.as_bytes());
        let against = StoredFile::with_dictionary(page.as_bytes(), Some(&dictionary));
        assert_eq!(
            (&against, against.bytes().unwrap()),
            (&StoredFile::new(page.as_bytes()), page.clone().into_bytes())
        );

        // Written in pieces: the same file.
        let written = StoredFile::written(&mut |out| {
            page.as_bytes()
                .chunks(7)
                .try_for_each(|piece| out.write_all(piece))
        })
        .unwrap();
        assert_eq!(
            (&written, written.bytes().unwrap()),
            (&against, page.clone().into_bytes())
        );
        assert!(written.stored_len() * 20 < page.len(), "{written:?}");

        let empty = StoredFile::new(b"");
        assert!(empty.is_empty());
        assert_eq!(empty.bytes().unwrap(), b"");
    }

    #[test]
    fn pages_are_compressed_against_the_first_long_page() {
        // Pages that share their markup (every link differs, so a page
        // alone cannot refer back to it) around a body of their own.
        let chrome: String = (0..250)
            .map(|i| format!("<a href=\"/section-{i}/\">Section {}</a>", i * i % 997))
            .collect();
        let page = |n: usize| {
            format!("<!doctype html><title>Paper {n}</title>{chrome}<p>Abstract {n}</p>")
        };
        let mut sink = MemorySink::default();
        sink.begin().unwrap();
        sink.put("small.html", b"<p>short</p>".to_vec()).unwrap();
        sink.put("a/index.html", page(1).into_bytes()).unwrap();
        sink.put("b/index.html", page(2).into_bytes()).unwrap();
        sink.commit().unwrap();
        assert!(page(1).len() >= DICTIONARY_LEN);
        let alone = StoredFile::new(page(2).as_bytes()).stored_len();
        let b = &sink.site["b/index.html"];
        assert!(b.stored_len() * 10 < alone, "{b:?} against {alone}");
        assert_eq!(b.bytes().unwrap(), page(2).into_bytes());
        assert_eq!(
            sink.site["a/index.html"].bytes().unwrap(),
            page(1).into_bytes()
        );
        assert_eq!(sink.site["small.html"].bytes().unwrap(), b"<p>short</p>");
    }
}
