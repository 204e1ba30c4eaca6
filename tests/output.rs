//! The output sinks, through their public `Sink` interface: the disk sink
//! writes only changed files and removes stale ones, the memory sink counts
//! and carries over its last commit, streamed files are staged like put
//! ones, and the null sink counts.

use std::io;
use vellum::output::{DiskSink, MemorySink, NullSink, Sink, StoredFile, WriteStats};

fn put_all(sink: &mut dyn Sink, files: &[(&str, &str)]) -> WriteStats {
    sink.begin().unwrap();
    for (path, text) in files {
        sink.put(path, text.as_bytes().to_vec()).unwrap();
    }
    sink.commit().unwrap()
}

fn disk_sink_writes_changes_only_and_removes_stale() {
    let dir = crate::common::tempdir();
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
    let staging = dir.path().join(".public.vellum-staging");
    assert!(
        staging.join("site/old/index.html").is_file(),
        "the spare tree is the first build"
    );

    sink.begin().unwrap();
    sink.put("index.html", b"broken".to_vec()).unwrap();
    sink.abort();
    assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"home 2");
    assert!(!staging.join("next").exists());

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
        ("a".into(), StoredFile::new(b"1")),
        ("e".into(), StoredFile::new(b"12")),
    ]);
    let third = put_all(&mut sink, &[("a", "1"), ("e", "12")]);
    assert_eq!((third.files, third.written, third.bytes), (2, 0, 3));
    assert_eq!(third.bytes, held(&sink));
}

fn a_memory_sink_carries_its_last_commit_over_but_the_dropped_files() {
    let mut sink = MemorySink::default();
    assert_eq!(sink.last_commit(), None);
    put_all(&mut sink, &[("a", "1"), ("b", "22"), ("c", "333")]);
    let first = sink.last_commit().unwrap();
    sink.add(vec![("d".into(), StoredFile::new(b"4444"))]);
    assert_eq!(sink.last_commit(), Some(first), "add keeps the commit");

    sink.begin().unwrap();
    assert!(!sink.carry_over(first + 1, &["a"]), "another commit");
    assert!(sink.carry_over(first, &["a", "b"]));
    assert!(sink.carry_over(first, &["gone"]), "drops add up");
    sink.put("b", b"2".to_vec()).unwrap();
    sink.put("e", b"5".to_vec()).unwrap();
    let stats = sink.commit().unwrap();
    let mut files: Vec<(&str, Vec<u8>)> = sink
        .site
        .iter()
        .map(|(path, file)| (&**path, file.bytes().unwrap()))
        .collect();
    files.sort();
    // a dropped; b dropped and put, so put; c and d carried over.
    assert_eq!(
        files,
        [("b", &b"2"[..]), ("c", b"333"), ("d", b"4444"), ("e", b"5")]
            .map(|(p, b)| (p, b.to_vec()))
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

fn streamed_files_are_staged_like_put_ones() {
    let dir = crate::common::tempdir();
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
    assert_eq!(memory.site["corpus.json"].bytes().unwrap(), b"[1,2]");
    let mut null = NullSink::default();
    null.begin().unwrap();
    stream(&null, "corpus.json", "[1,2]").unwrap();
    let stats = null.commit().unwrap();
    assert_eq!((stats.files, stats.bytes), (1, 5));
}

fn memory_and_null_sinks() {
    let mut memory = MemorySink::default();
    assert_eq!(put_all(&mut memory, &[("a", "1"), ("b", "2")]).written, 2);
    assert_eq!(put_all(&mut memory, &[("a", "1")]).removed, 1);
    memory.begin().unwrap();
    assert_eq!(memory.keep(&["a", "b"]), [true, false]);
    memory.put("c", b"3".to_vec()).unwrap();
    let stats = memory.commit().unwrap();
    assert_eq!((stats.files, stats.written), (2, 1));
    assert_eq!(memory.site["a"].bytes().unwrap(), b"1");
    assert_eq!(put_all(&mut memory, &[("d", "old"), ("d", "new")]).files, 1);
    assert_eq!(
        memory.site["d"].bytes().unwrap(),
        b"new",
        "the last put wins"
    );
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
        memory.site["d"].bytes().unwrap(),
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

/// This file's tests, for the harness in `tests/main.rs`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(output: disk_sink_writes_changes_only_and_removes_stale, memory_sink_counts_the_bytes_it_holds, a_memory_sink_carries_its_last_commit_over_but_the_dropped_files, streamed_files_are_staged_like_put_ones, memory_and_null_sinks)
}
