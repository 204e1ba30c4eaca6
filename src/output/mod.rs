//! Stage 4, output: the sink. The renderer hands each finished file to a
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
//! - [`NullSink`] only counts.
//!
//! Takes each rendered file (output path, bytes); hands on the site, made
//! visible whole by the commit: on disk ([`disk`]), in memory ([`memory`])
//! or nowhere ([`null`]).

pub mod disk;
pub mod memory;
pub mod null;

pub use disk::DiskSink;
pub use memory::MemorySink;
pub use null::NullSink;

use std::io;
use std::sync::{Arc, Mutex};

/// A whole site in memory: output path (relative, with `/`) → bytes.
/// Paths and bytes are shared, so a rebuild carries an unchanged file over
/// without copying either. Unordered (a hash map: built once per build,
/// looked up per request).
pub type SiteOutput = rustc_hash::FxHashMap<Arc<str>, Arc<Vec<u8>>>;

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

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A new, empty directory for one test, removed when dropped.
    fn temp_dir() -> TempDir {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("vellum-output-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    struct TempDir(std::path::PathBuf);

    impl TempDir {
        fn path(&self) -> &std::path::Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn put_all(sink: &mut dyn Sink, files: &[(&str, &str)]) -> WriteStats {
        sink.begin().unwrap();
        for (path, text) in files {
            sink.put(path, text.as_bytes().to_vec()).unwrap();
        }
        sink.commit().unwrap()
    }

    #[test]
    fn disk_sink_writes_changes_only_and_removes_stale() {
        let dir = temp_dir();
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
        let dir = temp_dir();
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
