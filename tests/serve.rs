//! `vellum serve` end to end: pages from memory on an ephemeral loopback
//! port, atomic rename-saves picked up, reloads announced after the new
//! pages are in place, failed rebuilds keeping the last good site and
//! announcing the error, and request paths that try to escape the site.

use crate::common::{
    build_memory, bundled_copy, messages, olumide_listing, olumide_site, temp_site, vellum, write,
};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(root: &std::path::Path) -> Server {
    start_with(root, &[])
}

fn start_with(root: &std::path::Path, extra: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vellum"))
        .args(["serve", "--port", "0", "--debounce-ms", "50"])
        .args(extra)
        .arg("--root")
        .arg(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let port = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(rest) = line.strip_prefix("Serving at http://127.0.0.1:") {
            break rest.split('/').next().unwrap().parse().unwrap();
        }
    };
    // Keep draining stdout so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Server { child, port }
}

/// GET over a raw connection: (status, body).
fn get(port: u16, path: &str) -> (u16, String) {
    let (status, _, body) = get_with(port, path, "");
    (status, body)
}

/// GET with extra header lines (each ending in CRLF): (status, response
/// header block, body).
fn get_with(port: u16, path: &str, headers: &str) -> (u16, String, String) {
    request(port, path, "localhost", headers)
}

/// GET naming `host`, with extra header lines: (status, response header
/// block, body).
fn request(port: u16, path: &str, host: &str, headers: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (status, head.to_ascii_lowercase(), body.to_string())
}

/// Opens the event stream; each `event:` name arrives on the channel with its data.
fn events(port: u16) -> mpsc::Receiver<(String, String)> {
    events_at(port, "/__vellum/events")
}

fn events_at(port: u16, path: &str) -> mpsc::Receiver<(String, String)> {
    let (tx, rx) = mpsc::channel();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    std::thread::spawn(move || {
        let mut name = String::new();
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if let Some(n) = line.strip_prefix("event: ") {
                name = n.to_string();
            } else if let Some(data) = line.strip_prefix("data: ") {
                if tx.send((name.clone(), data.to_string())).is_err() {
                    break;
                }
            }
        }
    });
    rx
}

fn wait_for(rx: &mpsc::Receiver<(String, String)>, event: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok((name, data)) if name == event => return data,
            Ok(_) => continue,
            Err(_) => break,
        }
    }
    panic!("no `{event}` event within 10 s");
}

/// An editor's atomic save: write a temp file beside, rename it over.
fn atomic_save(root: &std::path::Path, relative: &str, text: &str) {
    let target = root.join(relative);
    let temp = target.with_file_name(".save.tmp");
    std::fs::write(&temp, text).unwrap();
    std::fs::rename(&temp, &target).unwrap();
}

/// Renames the first paper of the Olumide listing with an atomic save, once
/// the event stream `rx` is connected, and waits for the reload.
fn retitle_and_wait(root: &std::path::Path, rx: &mpsc::Receiver<(String, String)>, title: &str) {
    let listing = String::from_utf8(olumide_listing()).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    atomic_save(
        root,
        "seeds/olumide.txt",
        &listing.replace("Routing Tokens in Mixture-of-Experts", title),
    );
    wait_for(rx, "reload");
}

fn serve_rebuilds_on_save_keeps_the_last_good_site_and_recovers() {
    let listing = String::from_utf8(olumide_listing()).unwrap();
    let site = olumide_site();
    let root = site.path();
    let server = start(root);
    let port = server.port;

    let (status, body) = get(port, "/papers/routing-tokens-in-mixture-of-experts/");
    assert_eq!(status, 200);
    assert!(body.contains("<h1>Routing Tokens in Mixture-of-Experts</h1>"));
    assert!(body.contains(&format!("<link rel=\"canonical\" href=\"http://127.0.0.1:{port}/papers/routing-tokens-in-mixture-of-experts/\">")));
    assert!(
        body.contains("new EventSource(\"/__vellum/events\")"),
        "reload script injected when serving"
    );
    let (status, body) = get(port, "/no/such/page/");
    assert_eq!(status, 404);
    assert!(body.contains("<h1>Page not found</h1>"));
    for escape in [
        "/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/..%2F..%2Fetc%2Fpasswd",
        "/a/%2E%2E/%2E%2E/etc/passwd",
    ] {
        let (status, body) = get(port, escape);
        assert!(status == 400 || status == 404, "{escape}: {status}");
        assert!(!body.contains("root:"), "{escape}");
    }
    let (status, _) = get(port, "/authors");
    assert_eq!(status, 301);

    let rx = events(port);
    retitle_and_wait(root, &rx, "Routing Tokens, Revised");
    let (status, body) = get(port, "/papers/routing-tokens-revised/");
    assert_eq!(
        status,
        200,
        "the new page is in place when the reload is announced: {}",
        get(port, "/").1
    );
    assert!(body.contains("<h1>Routing Tokens, Revised</h1>"));
    // The data files are made after the reload; a request waits for them.
    let (status, body) = get(port, "/corpus.json");
    assert_eq!(status, 200);
    assert!(
        body.contains("\"title\":\"Routing Tokens, Revised\""),
        "{body}"
    );
    assert_eq!(get(port, "/search/index.json").0, 200);
    assert_eq!(
        get(port, "/papers/routing-tokens-in-mixture-of-experts/").0,
        404
    );

    // A broken listing: the error is announced, the last good site stays.
    atomic_save(
        root,
        "seeds/olumide.txt",
        &listing.replace("arXiv2021", "arXiv1850"),
    );
    let error = wait_for(&rx, "build-error");
    assert!(error.contains("seeds/olumide.txt:"), "{error}");
    assert_eq!(get(port, "/papers/routing-tokens-revised/").0, 200);

    // Fixing it recovers without a restart.
    atomic_save(root, "seeds/olumide.txt", &listing);
    wait_for(&rx, "reload");
    assert_eq!(
        get(port, "/papers/routing-tokens-in-mixture-of-experts/").0,
        200
    );

    // Swap files alone trigger nothing; serve never writes public/.
    write(root, "seeds/.olumide.txt.swp", b"junk");
    assert!(
        rx.recv_timeout(Duration::from_millis(600)).is_err(),
        "no rebuild for a swap file"
    );
    assert!(!root.join("public").exists());
}

fn live_reload_works_under_a_sub_path() {
    let site = olumide_site();
    let root = site.path();
    let server = start_with(
        root,
        &["--base-url", "https://lab.example.org/group/papers/"],
    );
    let port = server.port;
    let (status, body) = get(
        port,
        "/group/papers/papers/routing-tokens-in-mixture-of-experts/",
    );
    assert_eq!(status, 200);
    assert!(
        body.contains("new EventSource(\"/group/papers/__vellum/events\")"),
        "the reload script listens under the sub-path"
    );
    assert!(body.contains(&format!(
        "href=\"http://127.0.0.1:{port}/group/papers/papers/routing-tokens-in-mixture-of-experts/\""
    )));
    let rx = events_at(port, "/group/papers/__vellum/events");
    retitle_and_wait(root, &rx, "Routing Tokens, Sub-path");
    let (status, body) = get(port, "/group/papers/papers/routing-tokens-sub-path/");
    assert_eq!(status, 200);
    assert!(body.contains("<h1>Routing Tokens, Sub-path</h1>"));
}

/// `serve --output-dir` writes each good build to disk as `build` does:
/// the site as served (no reload script in the files), a renamed paper's
/// old page removed, a file of the user's there left alone; an input
/// directory is refused as an output.
fn serve_also_writes_the_site_to_an_output_dir() {
    let site = olumide_site();
    let root = site.path();
    let server = start_with(root, &["-o", "public"]);
    let port = server.port;
    write(root, "public/notes.txt", b"mine\n");
    let old = root.join("public/papers/routing-tokens-in-mixture-of-experts/index.html");
    let page = std::fs::read_to_string(&old).unwrap();
    assert!(page.contains(&format!(
        "<link rel=\"canonical\" href=\"http://127.0.0.1:{port}/papers/routing-tokens-in-mixture-of-experts/\">"
    )));
    assert!(
        !page.contains("__vellum/events"),
        "no reload script on disk"
    );
    let rx = events(port);
    retitle_and_wait(root, &rx, "Routing Tokens Written Out");
    let new = root.join("public/papers/routing-tokens-written-out/index.html");
    let deadline = Instant::now() + Duration::from_secs(10);
    while (old.exists() || !new.is_file()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(std::fs::read_to_string(&new)
        .unwrap()
        .contains("<h1>Routing Tokens Written Out</h1>"));
    assert!(!old.exists(), "the renamed paper's old page is removed");
    assert_eq!(
        std::fs::read(root.join("public/notes.txt")).unwrap(),
        b"mine\n"
    );
    drop(server);

    let serve_into = |dir: &str| {
        let root = root.to_str().unwrap();
        vellum(&["serve", "--port", "0", "-o", dir, "--root", root], &[])
    };
    let refused = serve_into("seeds");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).starts_with("error: "));
    // A directory of someone else's: refused at the first build, before
    // anything is written there.
    write(root, "theirs/notes.txt", b"theirs\n");
    let refused = serve_into("theirs");
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("is not empty and holds no previous build"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(root.join("theirs")).unwrap().count(), 1);
}

fn an_input_directory_created_after_start_is_watched() {
    let site = olumide_site();
    let root = site.path();
    let _ = std::fs::remove_dir_all(root.join("static"));
    let server = start(root);
    let port = server.port;
    let rx = events(port);
    std::thread::sleep(Duration::from_millis(200));
    std::fs::create_dir(root.join("static")).unwrap();
    wait_for(&rx, "reload");
    // A file written into the new directory afterwards is picked up.
    std::thread::sleep(Duration::from_millis(200));
    write(root, "static/notes.txt", b"first");
    wait_for(&rx, "reload");
    assert_eq!(get(port, "/notes.txt"), (200, "first".to_string()));
    write(root, "static/notes.txt", b"second");
    wait_for(&rx, "reload");
    assert_eq!(get(port, "/notes.txt"), (200, "second".to_string()));
}

/// A directory of listings moved into `seeds/` raises one event, for the
/// directory: it is built all the same, and later edits, told to the
/// rebuild by the watcher, are read.
fn a_directory_of_listings_moved_into_seeds_is_built() {
    let site = olumide_site();
    let root = site.path();
    let server = start(root);
    let port = server.port;
    let rx = events(port);
    // An edit first: later rebuilds trust the watcher's paths.
    retitle_and_wait(root, &rx, "Routing Tokens, Edited");
    let outside = crate::common::tempdir();
    let listing = String::from_utf8(olumide_listing())
        .unwrap()
        .replace("Olumide Adeyemi", "Kai Wu");
    std::fs::create_dir(outside.path().join("group")).unwrap();
    std::fs::write(outside.path().join("group/kai.txt"), &listing).unwrap();
    std::fs::rename(outside.path().join("group"), root.join("seeds/group")).unwrap();
    wait_for(&rx, "reload");
    assert_eq!(get(port, "/authors/kai-wu/").0, 200);
    atomic_save(
        root,
        "seeds/group/kai.txt",
        &listing.replace("Kai Wu", "Kai Wu-Lin"),
    );
    wait_for(&rx, "reload");
    assert_eq!(get(port, "/authors/kai-wu-lin/").0, 200);
    assert_eq!(get(port, "/authors/kai-wu/").0, 404);
}

/// A directory of pages moved into `content/`, then out of it, raises one
/// event each time, for the directory: its pages come, then go.
fn a_directory_of_pages_moved_in_and_out_of_content_is_built() {
    let site = olumide_site();
    let root = site.path();
    std::fs::create_dir_all(root.join("content")).unwrap();
    let server = start(root);
    let port = server.port;
    let rx = events(port);
    let outside = crate::common::tempdir();
    let group = outside.path().join("group");
    std::fs::create_dir(&group).unwrap();
    std::fs::write(
        group.join("_index.md"),
        "+++\ntitle = \"Group\"\n+++\nThe group.\n",
    )
    .unwrap();
    std::fs::write(
        group.join("members.md"),
        "+++\ntitle = \"Members\"\n+++\nPeople.\n",
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    std::fs::rename(&group, root.join("content/group")).unwrap();
    wait_for(&rx, "reload");
    assert_eq!(get(port, "/group/members/").0, 200);
    std::fs::rename(root.join("content/group"), &group).unwrap();
    wait_for(&rx, "reload");
    assert_eq!(get(port, "/group/members/").0, 404);
    assert_eq!(get(port, "/group/").0, 404);
}

fn range_requests_get_the_asked_bytes() {
    let site = olumide_site();
    let server = start(site.path());
    let (status, head, whole) = get_with(server.port, "/style.css", "");
    assert_eq!(status, 200);
    assert!(head.contains("accept-ranges: bytes"), "{head}");
    let (status, head, part) = get_with(server.port, "/style.css", "Range: bytes=10-19\r\n");
    assert_eq!(status, 206);
    assert_eq!(part, whole[10..20]);
    let length = whole.len();
    assert!(
        head.contains(&format!("content-range: bytes 10-19/{length}")),
        "{head}"
    );
    let (status, head, _) = get_with(
        server.port,
        "/style.css",
        &format!("Range: bytes={length}-\r\n"),
    );
    assert_eq!(status, 416);
    assert!(head.contains(&format!("content-range: bytes */{length}")));
    // Several ranges, or a malformed header: the whole file.
    for range in ["bytes=0-1,5-6", "pages=1-2"] {
        let (status, _, body) = get_with(server.port, "/style.css", &format!("Range: {range}\r\n"));
        assert_eq!((status, body.len()), (200, length), "{range}");
    }
}

fn a_busy_port_is_a_clear_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let site = temp_site(&[], "");
    let out = Command::new(env!("CARGO_BIN_EXE_vellum"))
        .args(["serve", "--port", &port, "--root"])
        .arg(site.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("expected 127.0.0.1:{port} to be free")),
        "{stderr}"
    );
}

fn a_site_broken_at_start_serves_the_reload_script_and_recovers() {
    let listing = String::from_utf8(olumide_listing()).unwrap();
    let site = temp_site(
        &[(
            "olumide.txt",
            listing.replace("arXiv2021", "arXiv1850").as_bytes(),
        )],
        "",
    );
    let root = site.path();
    let server = start(root);
    let (status, body) = get(server.port, "/");
    assert_eq!(status, 404);
    assert!(
        body.contains("new EventSource(\"/__vellum/events\")"),
        "{body}"
    );
    let rx = events(server.port);
    assert!(
        wait_for(&rx, "build-error").contains("seeds/olumide.txt:"),
        "the current error is sent on connect"
    );
    atomic_save(root, "seeds/olumide.txt", &listing);
    wait_for(&rx, "reload");
    assert_eq!(get(server.port, "/").0, 200);
    let (status, _) = get(server.port, "/atom.xml");
    assert_eq!(status, 200);
}

/// Rebuilds `root` in memory as `vellum serve` does, with one cache and
/// one sink kept across builds (the first build whole, later ones leaving
/// the data files until after the commit), and, for comparison, afresh
/// without them; the two must be byte-identical. Returns the files the
/// rebuild rendered (the others were carried over).
pub(crate) fn cached_equals_fresh(
    root: &std::path::Path,
    cache: &mut vellum::serve::cache::RebuildCache,
    cached: &mut vellum::output::MemorySink,
) -> Vec<String> {
    told_equals_fresh(root, cache, cached, None)
}

/// [`cached_equals_fresh`], the rebuild told which input paths changed
/// (relative to `root`), as `vellum serve`'s watcher tells it.
pub(crate) fn told_equals_fresh(
    root: &std::path::Path,
    cache: &mut vellum::serve::cache::RebuildCache,
    cached: &mut vellum::output::MemorySink,
    changed_paths: Option<Vec<std::path::PathBuf>>,
) -> Vec<String> {
    use vellum::build::{build, build_with, BuildOptions};
    use vellum::output::MemorySink;
    let options = BuildOptions {
        root: root.to_path_buf(),
        defer_exports: !cached.site.is_empty(),
        changed_paths,
        ..BuildOptions::default()
    };
    let report = build_with(&options, cached, Some(&mut *cache));
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(report.exports.is_some(), options.defer_exports);
    let mut fresh = MemorySink::default();
    build(
        &BuildOptions {
            defer_exports: false,
            changed_paths: None,
            ..options.clone()
        },
        &mut fresh,
    );
    if let Some(exports) = &report.exports {
        assert!(
            !cached.site.contains_key("search/index.json"),
            "the search index is left out of the commit"
        );
        // Served until the data files are made: nothing stale.
        for (file, bytes) in cached.site.iter() {
            assert!(
                fresh.site.get(file) == Some(bytes),
                "{file} is served stale before the data files are made"
            );
        }
        cached.add(exports.make(Some(&mut *cache)));
    }
    assert_eq!(cached.site.len(), fresh.site.len());
    for (file, bytes) in fresh.site.iter() {
        assert!(
            cached.site.get(file) == Some(bytes),
            "{file} differs from a full build"
        );
    }
    cache.rendered_files().to_vec()
}

/// The files of a paper: its page and its three exports.
fn paper_files(slug: &str) -> Vec<String> {
    let mut files = vec![format!("papers/{slug}/index.html")];
    files.extend(["bib", "json", "ris"].map(|ext| format!("papers/{slug}/{slug}.{ext}")));
    files
}

/// The files of an author: page, feed and BibTeX.
fn author_files(slug: &str) -> Vec<String> {
    ["atom.xml", "index.html", &format!("{slug}.bib")]
        .iter()
        .map(|f| format!("authors/{slug}/{f}"))
        .collect()
}

/// The files of a category: page and feed.
fn category_files(slug: &str) -> Vec<String> {
    [
        format!("categories/{slug}/atom.xml"),
        format!("categories/{slug}/index.html"),
    ]
    .to_vec()
}

/// `parts` joined and sorted.
fn files(parts: &[Vec<String>], more: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = parts.concat();
    all.extend(more.iter().map(|f| f.to_string()));
    all.sort();
    all
}

/// A page whose fingerprint is unchanged is rendered all the same when the
/// sink no longer holds its file: nothing is missing from the site.
fn a_rebuild_renders_the_unchanged_pages_a_sink_cannot_carry_over() {
    let site = temp_site(&[("olumide.txt", &olumide_listing())], "");
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    let all = cached_equals_fresh(site.path(), &mut cache, &mut sink);
    assert_eq!(all.len(), 24, "the first build renders every page: {all:?}");
    assert!(cached_equals_fresh(site.path(), &mut cache, &mut sink).is_empty());
    let mut empty = vellum::output::MemorySink::default();
    assert_eq!(
        cached_equals_fresh(site.path(), &mut cache, &mut empty),
        all,
        "a sink holding nothing gets every page rendered again"
    );
}

/// A rebuild that carries the sink's last commit over names the files that
/// go: pages no longer planned, a static file deleted, a sitemap's parts,
/// the search index switched off or made anew, and `corpus.json` when it
/// changed. And a file the cache counts on but the sink lacks is rendered.
fn a_rebuild_carrying_the_last_commit_over_drops_what_went() {
    let site = temp_site(&[("olumide.txt", &olumide_listing())], "");
    let root = site.path();
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    let config = std::fs::read_to_string(root.join("site.toml")).unwrap();
    let with_config =
        |extra: &str| write(root, "site.toml", format!("{extra}\n{config}").as_bytes());
    cached_equals_fresh(root, &mut cache, &mut sink);

    write(root, "static/notes.txt", b"notes");
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(sink.site.contains_key("notes.txt"));
    std::fs::remove_file(root.join("static/notes.txt")).unwrap();
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(!sink.site.contains_key("notes.txt"));

    with_config("sitemap_max_urls = 10");
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(sink.site.contains_key("sitemap-2.xml"));
    with_config("");
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(!sink.site.contains_key("sitemap-1.xml"));

    with_config("search = false");
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(!sink.site.keys().any(|f| f.starts_with("search/")));
    with_config("");
    cached_equals_fresh(root, &mut cache, &mut sink);

    // A rebuild that stages the search index itself (not left for after
    // the commit): the last index's shards, named by their hashes, go.
    let listing = String::from_utf8(olumide_listing()).unwrap();
    write(
        root,
        "seeds/olumide.txt",
        listing
            .replace("Routing Tokens", "Steering Tokens")
            .as_bytes(),
    );
    let whole = vellum::build::BuildOptions {
        root: root.to_path_buf(),
        ..vellum::build::BuildOptions::default()
    };
    use vellum::build::build_with;
    let shards = |sink: &vellum::output::MemorySink| {
        let mut shards: Vec<String> = sink
            .site
            .keys()
            .filter(|f| f.starts_with("search/t-"))
            .map(|f| f.to_string())
            .collect();
        shards.sort();
        shards
    };
    let before = shards(&sink);
    assert!(!build_with(&whole, &mut sink, Some(&mut cache)).failed());
    let mut fresh = vellum::output::MemorySink::default();
    vellum::build::build(&whole, &mut fresh);
    assert_ne!(shards(&sink), before);
    assert_eq!(shards(&sink), shards(&fresh));
    assert_eq!(sink.site, fresh.site);

    // corpus.json changed and left for after the commit, which never came:
    // the next rebuild, though nothing changed, makes it.
    write(root, "seeds/olumide.txt", listing.as_bytes());
    let deferred = vellum::build::BuildOptions {
        defer_exports: true,
        ..whole
    };
    assert!(!build_with(&deferred, &mut sink, Some(&mut cache)).failed());
    assert!(!sink.site.contains_key("corpus.json"), "changed: left out");
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(sink.site.contains_key("corpus.json"));
}

/// Every file of a build into `sink` (kept, or rendered again by the
/// build's snapshot) equals a full build's, and how many were kept.
fn kept_and_rendered_again_equal_a_full_build(
    root: &std::path::Path,
    cache: &mut vellum::serve::cache::RebuildCache,
    sink: &mut vellum::output::MemorySink,
) -> usize {
    let options = vellum::build::BuildOptions {
        root: root.to_path_buf(),
        snapshot: true,
        ..vellum::build::BuildOptions::default()
    };
    let report = vellum::build::build_with(&options, sink, Some(cache));
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let snapshot = report.snapshot.expect("a snapshot");
    let (_, fresh) = build_memory(root, None);
    assert_eq!(sink.site.len(), fresh.len());
    let mut kept = 0;
    for (path, file) in sink.site.iter() {
        let bytes = match file.bytes() {
            Some(bytes) => {
                kept += 1;
                bytes
            }
            None => snapshot.render(path).expect("a job").expect("rendered"),
        };
        assert!(bytes == fresh[path], "{path} differs");
    }
    kept
}

fn pages_not_kept_are_rendered_again_as_the_build_rendered_them() {
    let site = bundled_copy();
    let root = site.path();
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::on_request();
    let kept = kept_and_rendered_again_equal_a_full_build(root, &mut cache, &mut sink);
    let (_, fresh) = build_memory(root, None);
    let pages = fresh.keys().filter(|p| p.ends_with(".html")).count();
    // Kept: the static files, corpus.json, the search index and the sitemap.
    let data = fresh
        .keys()
        .filter(|p| {
            !p.ends_with(".html") && !p.starts_with("papers/") && !p.starts_with("authors/")
        })
        .count();
    assert!(
        kept <= data,
        "{kept} kept of {} files, {data} data files",
        fresh.len()
    );
    assert!(pages > 20, "{pages} pages, none kept");
    assert_eq!(sink.site["index.html"].stored_len(), 0);
    // An author's BibTeX file is a page job's too: made again, not kept.
    assert_eq!(sink.site["authors/chuan-wu/chuan-wu.bib"].stored_len(), 0);
    assert!(sink.site["style.css"].stored_len() > 0);

    // After an edit, the rebuild's snapshot renders every page as the
    // new full build does, carried over or not.
    let listing = std::fs::read_dir(root.join("seeds"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&listing).unwrap();
    let at = text.find("\n\narXiv").unwrap() + 2;
    let title_at = text[at..].find("\n\n").unwrap() + at + 2;
    std::fs::write(
        &listing,
        format!("{}Edited: {}", &text[..title_at], &text[title_at..]),
    )
    .unwrap();
    kept_and_rendered_again_equal_a_full_build(root, &mut cache, &mut sink);
}

fn the_cached_listings_hold_an_abstract_once_however_many_list_it() {
    let listing = |author: &str, own: &str| {
        format!(
            "{author}\n\nPublications and source records attributed to {author}.\n\nAt least 2 records \u{b7} Page 1\n\n\
             arXiv2021\n\nShared Graphs\n\nWe study graphs that two authors share.\n\nA second paragraph.\n\ncs.DS\n\n\
             arXiv2020\n\n{own}\n\nThe paper of {author} alone.\n\ncs.LG\n"
        )
    };
    let (ana, ben) = (
        listing("Ana Lima", "Lone Trees"),
        listing("Ben Okafor", "Lone Paths"),
    );
    let site = temp_site(
        &[("ana.txt", ana.as_bytes()), ("ben.txt", ben.as_bytes())],
        "",
    );
    let root = site.path();
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert_eq!(cache.abstracts_held(), 3, "four records, three abstracts");

    // Ben's listing saved as `text`: the abstracts held after the rebuild.
    let mut rebuilt_with = |text: String| {
        write(root, "seeds/ben.txt", text.as_bytes());
        cached_equals_fresh(root, &mut cache, &mut sink);
        cache.abstracts_held()
    };
    // Ben's own abstract edited: the old one is forgotten, the shared one
    // is still held once.
    assert_eq!(rebuilt_with(ben.replace("alone.", "alone, edited.")), 3);
    // Ben's copy of the shared paper now says something else: two abstracts.
    assert_eq!(
        rebuilt_with(ben.replace("two authors share", "both share")),
        4
    );
}

/// The parse reads the listings in chunks (more than a thousand here),
/// keeping each chunk before reading the next: the listings stay in path
/// order and a paper listed in the first chunk and in the last holds its
/// abstract once, as when all are read at once; the rebuilds equal full
/// builds.
fn listings_read_in_several_chunks_are_kept_in_order_and_share_abstracts() {
    // A name of letters only, one per listing.
    let name = |mut n: usize| {
        let mut letters = String::new();
        for _ in 0..3 {
            letters.push(char::from(b'a' + (n % 26) as u8));
            n /= 26;
        }
        format!("Ada {}{}", letters[..1].to_ascii_uppercase(), &letters[1..])
    };
    let listing = |i: usize, shared: bool| {
        let author = name(i);
        let mut text = format!(
            "{author}\n\nPublications and source records attributed to {author}.\n\n\
             At least {} records \u{b7} Page 1\n\n\
             arXiv2020\n\nGraphs of {author}\n\nThe paper of {author} alone.\n\ncs.DS\n",
            1 + usize::from(shared)
        );
        if shared {
            text.push_str(
                "\narXiv2021\n\nShared Graphs\n\nWe study graphs that two authors share.\n\ncs.DS\n",
            );
        }
        text
    };
    let count = 1100;
    let listings: Vec<(String, String)> = (0..count)
        .map(|i| (format!("a{i:04}.txt"), listing(i, i == 0 || i == count - 1)))
        .collect();
    let seeds: Vec<(&str, &[u8])> = listings
        .iter()
        .map(|(file, text)| (file.as_str(), text.as_bytes()))
        .collect();
    let site = temp_site(&seeds, "");
    let root = site.path();
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert_eq!(cache.parsed_count(), count);
    assert_eq!(cache.abstracts_held(), count + 1, "the shared one once");
    let last = format!("seeds/a{:04}.txt", count - 1);
    let edited = listing(count - 1, true).replace("alone.", "alone, edited.");
    write(root, &last, edited.as_bytes());
    told_equals_fresh(root, &mut cache, &mut sink, Some(vec![last.into()]));
    assert_eq!(cache.parsed_count(), count + 1);
    assert_eq!(cache.abstracts_held(), count + 1);
    write(root, "seeds/a0000.txt", listing(0, false).as_bytes());
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert_eq!(cache.abstracts_held(), count + 1, "still held by the last");
}

/// The search page's description counts the papers ("Search 2
/// papers."): a listing added renders it again, as a full build does,
/// though its template shows no count of its own.
fn a_paper_added_renders_the_search_page_again() {
    let site = temp_site(&[("olumide.txt", &olumide_listing())], "");
    let root = site.path();
    write(
        root,
        "templates/search.html",
        b"{% extends \"base.html\" %}{% block content %}<h1>Search</h1>{% endblock content %}",
    );
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    cached_equals_fresh(root, &mut cache, &mut sink);
    let other = b"Mei Lin\n\nPublications and source records attributed to Mei Lin.\n\nAt least 1 records \xc2\xb7 Page 1\n\narXiv2019\n\nFast Graphs\n\nWe study fast graphs.\n\ncs.DS\n";
    write(root, "seeds/mei.txt", other);
    let rendered = cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(
        rendered.contains(&"search/index.html".to_string()),
        "{rendered:?}"
    );
    let search = sink
        .site
        .get("search/index.html")
        .and_then(|file| file.bytes());
    let search = String::from_utf8(search.expect("the search page")).unwrap();
    assert!(search.contains("Search 2 papers."), "{search}");
}

fn rebuilds_with_the_cache_equal_full_builds_and_render_only_what_changed() {
    let other = b"Mei Lin\n\nPublications and source records attributed to Mei Lin.\n\nAt least 1 records \xc2\xb7 Page 1\n\narXiv2019\n\nFast Graphs\n\nWe study fast graphs.\n\ncs.DS\n";
    let site = temp_site(
        &[("olumide.txt", &olumide_listing()), ("mei.txt", other)],
        "",
    );
    let root = site.path();
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    let all = cached_equals_fresh(root, &mut cache, &mut sink);
    assert_eq!(all.len(), 34, "the first build renders every page: {all:?}");
    assert_eq!(cache.parsed_count(), 2, "first build parses everything");
    assert_eq!(cache.indexed_count(), 1);

    // A listing edit: one file parsed again; its paper, author, year and
    // categories, the home page and the site-wide exports rendered.
    let edited = String::from_utf8(olumide_listing())
        .unwrap()
        .replace("Routing Tokens", "Steering Tokens");
    write(root, "seeds/olumide.txt", edited.as_bytes());
    let moe_categories = ["cs-dc", "cs-lg", "stat-ml"].map(category_files);
    let whole_site = ["atom.xml", "corpus.json", "index.html"];
    assert_eq!(
        cached_equals_fresh(root, &mut cache, &mut sink),
        files(
            &[
                paper_files("steering-tokens-in-mixture-of-experts"),
                author_files("olumide-adeyemi"),
                moe_categories.concat(),
            ],
            &[&whole_site[..], &["sitemap.xml", "years/2021/index.html"]].concat()
        )
    );
    assert_eq!(cache.parsed_count(), 3);
    assert_eq!(cache.indexed_count(), 2, "a new title: a new index");
    assert_eq!(
        cache.patched_count(),
        1,
        "one listing edited: the corpus is patched"
    );

    // A template: the pages that use it.
    let paper = root.join("themes/default/templates/paper.html");
    let template = std::fs::read_to_string(&paper).unwrap().replace(
        "<h2 id=\"abstract-heading\">Abstract</h2>",
        "<h2 id=\"abstract-heading\">Summary</h2>",
    );
    std::fs::write(&paper, template).unwrap();
    assert_eq!(
        cached_equals_fresh(root, &mut cache, &mut sink),
        [
            "papers/fast-graphs/index.html",
            "papers/steering-tokens-in-mixture-of-experts/index.html"
        ]
    );
    assert_eq!(cache.parsed_count(), 3, "a template change parses nothing");
    assert_eq!(
        cache.indexed_count(),
        2,
        "a template change keeps the index"
    );

    // A new content page: itself.
    write(
        root,
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\n{{ papers(limit=1) }}\n",
    );
    assert_eq!(
        cached_equals_fresh(root, &mut cache, &mut sink),
        ["about/index.html", "sitemap.xml"]
    );
    assert_eq!(cache.indexed_count(), 2, "a content page keeps the index");

    // A corrected title: the paper and what lists it (the content page's
    // shortcode lists another).
    write(
        root,
        "content/papers/fast-graphs.md",
        b"+++\ntitle = \"Faster Graphs\"\n+++\n",
    );
    let fast_graphs = files(
        &[paper_files("fast-graphs"), category_files("cs-ds")],
        &[&whole_site[..], &["years/2019/index.html"]].concat(),
    );
    assert_eq!(
        cached_equals_fresh(root, &mut cache, &mut sink),
        files(&[fast_graphs.clone(), author_files("mei-lin")], &[])
    );
    assert_eq!(cache.indexed_count(), 3, "a corrected title: a new index");

    // A new listing, a co-author of Fast Graphs: counts change too.
    write(
        root,
        "seeds/sub/ana.txt",
        &String::from_utf8_lossy(other)
            .replace("Mei Lin", "Ana Lima")
            .into_bytes(),
    );
    let new_author = ["authors/index.html", "search/index.html", "sitemap.xml"];
    assert_eq!(
        cached_equals_fresh(root, &mut cache, &mut sink),
        files(
            &[
                fast_graphs.clone(),
                author_files("ana-lima"),
                author_files("mei-lin")
            ],
            &new_author
        )
    );
    assert_eq!(cache.parsed_count(), 4);
    assert_eq!(cache.indexed_count(), 4, "a new author: a new index");
    assert_eq!(
        cache.patched_count(),
        4,
        "a template, a content page or an override patch nothing in; a new listing is merged anew"
    );

    // A deleted listing.
    std::fs::remove_file(root.join("seeds/mei.txt")).unwrap();
    assert_eq!(
        cached_equals_fresh(root, &mut cache, &mut sink),
        files(&[fast_graphs, author_files("ana-lima")], &new_author)
    );
    assert_eq!(cache.parsed_count(), 4, "a deletion parses nothing");
    assert_eq!(cache.indexed_count(), 5);

    // A sitemap split into parts: kept whole while no page comes or goes.
    let config = std::fs::read_to_string(root.join("site.toml")).unwrap();
    write(
        root,
        "site.toml",
        format!("sitemap_max_urls = 10\n{config}").as_bytes(),
    );
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(sink.site.contains_key("sitemap-2.xml"));
    std::fs::write(&paper, std::fs::read_to_string(&paper).unwrap() + "\n").unwrap();
    assert_eq!(
        cached_equals_fresh(root, &mut cache, &mut sink),
        [
            "papers/fast-graphs/index.html",
            "papers/steering-tokens-in-mixture-of-experts/index.html"
        ]
    );

    // site.toml's description: every page a template renders, and the
    // feeds; not the exports, `robots.txt` or the sitemap, which read
    // only the base URL of the configuration (and the sitemap its size).
    let config = std::fs::read_to_string(root.join("site.toml")).unwrap();
    write(
        root,
        "site.toml",
        format!("{config}\ndescription = \"Changed\"\n").as_bytes(),
    );
    let rendered = cached_equals_fresh(root, &mut cache, &mut sink);
    let mut pages: Vec<&str> = sink
        .site
        .keys()
        .map(|f| &**f)
        .filter(|f| !f.starts_with("search/") || *f == "search/index.html")
        .filter(|f| {
            let theme_file = crate::common::project()
                .join("themes/default/static")
                .join(f);
            !theme_file.is_file() && !f.starts_with("sitemap")
        })
        .filter(|f| !f.ends_with(".bib") && !f.ends_with(".ris") && !f.ends_with(".json"))
        .filter(|f| *f != "robots.txt")
        .collect();
    pages.sort();
    assert_eq!(
        rendered.iter().map(String::as_str).collect::<Vec<_>>(),
        pages,
        "site.toml: every page"
    );

    // An author renamed, family name kept: the pages of their papers name
    // them anew, though each paper's own fields, its key included, are
    // unchanged.
    write(
        root,
        "seeds/sub/ana.txt",
        &String::from_utf8_lossy(other)
            .replace("Mei Lin", "Ana-Maria Lima")
            .into_bytes(),
    );
    let rendered = cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(
        rendered.contains(&"papers/fast-graphs/index.html".to_string()),
        "{rendered:?}"
    );
}

fn a_listing_rewritten_with_its_old_size_and_modification_time_is_read_again() {
    // `cp -p`, `touch -r` and `tar x` give a rewritten file its old
    // modification time; with the same size, only the status-change time
    // (and, for a rename over it, the inode) tell it apart.
    let site = temp_site(&[("olumide.txt", &olumide_listing())], "");
    let root = site.path();
    let listing = root.join("seeds/olumide.txt");
    let modified = std::fs::metadata(&listing).unwrap().modified().unwrap();
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    cached_equals_fresh(root, &mut cache, &mut sink);
    let edited = String::from_utf8(olumide_listing())
        .unwrap()
        .replace("Routing Tokens", "Steering Token");
    assert_eq!(edited.len(), olumide_listing().len());
    for (step, in_place) in [(1, true), (2, false)] {
        let text = edited.replace("Steering", if step == 1 { "Steering" } else { "Sneering" });
        if in_place {
            std::fs::write(&listing, &text).unwrap();
        } else {
            let temp = root.join("seeds/.olumide.txt.tmp");
            std::fs::write(&temp, &text).unwrap();
            std::fs::rename(&temp, &listing).unwrap();
        }
        std::fs::File::options()
            .write(true)
            .open(&listing)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        let slug = if step == 1 { "steering" } else { "sneering" };
        let page = format!("papers/{slug}-token-in-mixture-of-experts/index.html");
        let rendered = cached_equals_fresh(root, &mut cache, &mut sink);
        assert!(
            rendered.contains(&page),
            "step {step} is read: {rendered:?}"
        );
        assert_eq!(cache.parsed_count(), 1 + step);
    }
}

/// Told that only listings changed, a rebuild whose site keeps its shape
/// patches the last plan and fingerprints only what changed (the changed
/// papers' pages and exports, their authors', years' and categories'
/// pages, the pages that may show any paper): an abstract edited, a title
/// moving its paper in the order, two titles with one slug, a title whose
/// former slug (an alias) changes. A new category changes the shape: the
/// plan is made anew. Each rebuild equals a full build.
fn a_rebuild_of_the_same_shape_patches_the_plan_and_equals_a_full_build() {
    let listing = |records: &[(&str, &str, &str)]| {
        let mut text = format!(
            "Mei Lin\n\nPublications and source records attributed to Mei Lin.\n\nAt least {} records \u{b7} Page 1\n",
            records.len()
        );
        for (year, title, category) in records {
            text.push_str(&format!(
                "\narXiv{year}\n\n{title}\n\nWe study {title}.\n\n{category}\n"
            ));
        }
        text
    };
    let first = [
        ("2019", "Fast Graphs", "cs.DS"),
        ("2019", "Rates of $\\sqrt{n}$ Growth", "cs.DS"),
        ("2018", "Slow Graphs", "cs.DS"),
    ];
    let site = temp_site(
        &[
            ("olumide.txt", &olumide_listing()),
            ("mei.txt", listing(&first).as_bytes()),
        ],
        "",
    );
    let root = site.path();
    // Under a sub-path, a profile's root-relative link is rewritten only
    // when it names a file of the site: the page of a paper made below.
    write(
        root,
        "site.toml",
        b"title = \"Test\"\nbase_url = \"https://example.org/lab/\"\n",
    );
    write(
        root,
        "content/authors/olumide-adeyemi.md",
        b"+++\n+++\nSee [zebras](/papers/zebra-graphs/).\n",
    );
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    cached_equals_fresh(root, &mut cache, &mut sink);
    let edit = |cache: &mut vellum::serve::cache::RebuildCache,
                sink: &mut vellum::output::MemorySink,
                records: &[(&str, &str, &str)],
                abstract_edit: bool| {
        let mut text = listing(records);
        if abstract_edit {
            text = text.replace("We study Fast Graphs.", "We study fast graphs again.");
        }
        write(root, "seeds/mei.txt", text.as_bytes());
        let rendered = told_equals_fresh(root, cache, sink, Some(vec!["seeds/mei.txt".into()]));
        (cache.patched_plans(), rendered)
    };

    let (patched, rendered) = edit(&mut cache, &mut sink, &first, true);
    assert_eq!(patched, 1);
    assert!(rendered.contains(&"papers/fast-graphs/index.html".to_string()));
    assert!(!rendered.contains(&"papers/slow-graphs/index.html".to_string()));
    assert!(
        !rendered.iter().any(|f| f.starts_with("authors/olumide")),
        "{rendered:?}"
    );

    // Moved after `Rates …` in the order of 2019.
    let moved = [first[1], ("2019", "Zebra Graphs", "cs.DS"), first[2]];
    let (patched, rendered) = edit(&mut cache, &mut sink, &moved, false);
    assert_eq!(patched, 2);
    assert!(rendered.contains(&"papers/zebra-graphs/index.html".to_string()));
    assert!(!sink.site.contains_key("papers/fast-graphs/index.html"));
    assert!(
        rendered.contains(&"authors/olumide-adeyemi/index.html".to_string()),
        "the profile's link now names a page: {rendered:?}"
    );

    // Two titles with one slug: both papers' slugs are made unique.
    let twins = [first[1], ("2019", "Sl\u{f6}w Graphs", "cs.DS"), first[2]];
    let (patched, _) = edit(&mut cache, &mut sink, &twins, false);
    assert_eq!(patched, 3);
    let slow: Vec<&str> = sink
        .site
        .keys()
        .map(|f| &**f)
        .filter(|f| f.starts_with("papers/slow-graphs") && f.ends_with("/index.html"))
        .collect();
    assert_eq!(slow.len(), 2, "{slow:?}");

    // A title with math whose former slug changes: its alias follows.
    let growth = [
        ("2019", "Rates of $\\sqrt{m}$ Growth", "cs.DS"),
        twins[1],
        twins[2],
    ];
    let (patched, _) = edit(&mut cache, &mut sink, &growth, false);
    assert_eq!(patched, 4);
    assert!(sink
        .site
        .contains_key("papers/rates-of-m-growth/index.html"));
    assert!(!sink
        .site
        .contains_key("papers/rates-of-n-growth/index.html"));

    // A category no paper had: the plan is made anew.
    let new_term = [growth[0], twins[1], ("2018", "Slow Graphs", "math.CO")];
    let (patched, _) = edit(&mut cache, &mut sink, &new_term, false);
    assert_eq!(patched, 4);
    assert!(sink.site.contains_key("categories/math-co/index.html"));

    // A template edited while a listing is broken: that build fails. The
    // next one, told only of the listing, plans anew: the template edit
    // reaches every page.
    let template = "themes/default/templates/paper.html";
    let html = std::fs::read_to_string(root.join(template)).unwrap();
    let edited = html.replacen(
        "{% block content %}",
        "{% block content %}<!-- edited -->",
        1,
    );
    write(root, template, edited.as_bytes());
    write(root, "seeds/mei.txt", b"Mei Lin\n\nno listing here\n");
    let options = vellum::build::BuildOptions {
        root: root.to_path_buf(),
        changed_paths: Some(vec![template.into(), "seeds/mei.txt".into()]),
        ..vellum::build::BuildOptions::default()
    };
    assert!(vellum::build::build_with(&options, &mut sink, Some(&mut cache)).failed());
    let (patched, _) = edit(&mut cache, &mut sink, &new_term, false);
    assert_eq!(patched, 4);
}

/// Told that only a listing changed, a rebuild takes the files under
/// `seeds/` from the last build instead of walking it: the BibTeX files
/// among them (read again) and the walk's warnings stay, and a `.bib` file
/// put there unnamed is not found until a path names it.
fn a_rebuild_told_a_listing_changed_keeps_the_bibtex_files_and_walk_warnings() {
    let bib = |name: &str| {
        std::fs::read(
            crate::common::project()
                .join("tests/fixtures/bibtex/biblatex")
                .join(name),
        )
        .unwrap()
    };
    let site = temp_site(
        &[
            ("olumide.txt", &olumide_listing()),
            ("libra.bib", &bib("libra.bib")),
        ],
        "",
    );
    let root = site.path();
    let outside = crate::common::tempdir();
    std::fs::write(outside.path().join("kai.txt"), olumide_listing()).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path().join("kai.txt"), root.join("seeds/kai.txt")).unwrap();
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    let told = |cache: &mut vellum::serve::cache::RebuildCache,
                sink: &mut vellum::output::MemorySink,
                named: &[&str]| {
        let options = vellum::build::BuildOptions {
            root: root.to_path_buf(),
            changed_paths: Some(named.iter().map(Into::into).collect()),
            ..vellum::build::BuildOptions::default()
        };
        let report = vellum::build::build_with(&options, sink, Some(cache));
        assert!(!report.failed(), "{:?}", report.diagnostics);
        let outside_link = report
            .diagnostics
            .iter()
            .filter(|d| d.file == std::path::Path::new("seeds/kai.txt"))
            .filter(|d| {
                d.message
                    .starts_with("expected a symlink to a file inside the site")
            })
            .count();
        (report.counts[0], outside_link)
    };
    cached_equals_fresh(root, &mut cache, &mut sink);
    let first = told(&mut cache, &mut sink, &[]);
    assert_eq!(
        first,
        (36, usize::from(cfg!(unix))),
        "one listing, libra.bib's 35 entries"
    );

    // A listing edited and named; a BibTeX file put there unnamed.
    let edited = String::from_utf8(olumide_listing())
        .unwrap()
        .replace("Routing Tokens", "Steering Tokens");
    write(root, "seeds/olumide.txt", edited.as_bytes());
    write(root, "seeds/rass.bib", &bib("rass.bib"));
    assert_eq!(told(&mut cache, &mut sink, &["seeds/olumide.txt"]), first);
    assert!(sink
        .site
        .contains_key("papers/steering-tokens-in-mixture-of-experts/index.html"));

    // Named, it is found: `seeds/` is walked again.
    assert_eq!(
        told(&mut cache, &mut sink, &["seeds/rass.bib"]),
        (57, usize::from(cfg!(unix))),
        "and the papers of rass.bib's 22 entries"
    );
    told_equals_fresh(
        root,
        &mut cache,
        &mut sink,
        Some(vec!["seeds/rass.bib".into()]),
    );
}

/// A rebuild told which listings changed finds a title that is another
/// record's first abstract paragraph either way round: the edited listing
/// lost a title line, so its title is an unchanged record's abstract; or
/// the edited listing's abstract now opens with an unchanged record's
/// long title. Its errors are a full build's; fixed, they go. A title
/// that reads like an abstract in a listing not read again is warned of
/// on every rebuild, as a full build warns of it.
fn a_rebuild_told_a_listing_changed_finds_a_title_that_is_an_abstract() {
    use vellum::build::{build_with, BuildOptions, Incremental};
    use vellum::diagnostics::Severity;
    let lead = "We route tokens between experts with a learned gate and a capacity bound.";
    let olumide = String::from_utf8(olumide_listing())
        .unwrap()
        .replace("First paragraph about routing.", lead);
    let mei = "Mei Lin\n\nPublications and source records attributed to Mei Lin.\n\n\
               At least 1 records \u{b7} Page 1\n\narXiv2019\n\n\
               A Study of Graph Partitioning at the Scale of Whole Continents\n\n\
               We study fast graphs.\n\ncs.DS\n";
    let long_title = "We study graphs. We partition them at the scale of whole continents, \
                      with a method that reads every edge once and keeps a small state per \
                      vertex. It runs on one machine in hours where others need a cluster for \
                      days, and its cuts are within a few percent of the best known on every \
                      road network we tried.";
    let ada = format!(
        "Ada Byron\n\nPublications and source records attributed to Ada Byron.\n\n\
         arXiv2020\n\n{long_title}\n\nWe study partitions.\n\ncs.DS\n"
    );
    let site = temp_site(
        &[
            ("olumide.txt", olumide.as_bytes()),
            ("mei.txt", mei.as_bytes()),
            ("ada.txt", ada.as_bytes()),
        ],
        "",
    );
    let root = site.path();
    let abstract_like = format!(
        "seeds/ada.txt:7: warning: expected a title, found {} characters in 3 sentences, \
         which reads like an abstract; check that the title line is not missing",
        long_title.chars().count()
    );
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    let rebuild = |cache: &mut vellum::serve::cache::RebuildCache,
                   sink: &mut vellum::output::MemorySink,
                   changed: &str| {
        let options = BuildOptions {
            root: root.to_path_buf(),
            changed_paths: Some(vec![changed.into()]),
            ..BuildOptions::default()
        };
        let told = build_with(&options, sink, Some(cache));
        let fresh = build_memory(root, None).0;
        let errors = messages(&told, Severity::Error);
        assert_eq!(errors, messages(&fresh, Severity::Error), "{changed}");
        let warnings = messages(&told, Severity::Warning);
        assert_eq!(warnings, messages(&fresh, Severity::Warning), "{changed}");
        assert!(warnings.contains(&abstract_like), "{warnings:?}");
        errors
    };
    let first = build_with(
        &BuildOptions {
            root: root.to_path_buf(),
            ..BuildOptions::default()
        },
        &mut sink,
        Some(&mut cache),
    );
    assert!(!first.failed(), "{:?}", first.diagnostics);
    assert!(!cache.titles_may_clash());

    // Mei's record lost its title line: its title is Olumide's abstract.
    let lost = mei.replace(
        "A Study of Graph Partitioning at the Scale of Whole Continents\n\nWe study fast graphs.",
        &format!("{lead}\n\nWe study fast graphs."),
    );
    write(root, "seeds/mei.txt", lost.as_bytes());
    assert_eq!(
        rebuild(&mut cache, &mut sink, "seeds/mei.txt"),
        [
            "seeds/mei.txt:9: error: expected a title after the record marker at line 7, found \
          the abstract of `Routing Tokens in Mixture-of-Experts` (seeds/olumide.txt:9); add the \
          title line above it"
        ]
    );
    assert!(cache.titles_may_clash());
    write(root, "seeds/mei.txt", mei.as_bytes());
    assert_eq!(
        rebuild(&mut cache, &mut sink, "seeds/mei.txt"),
        Vec::<String>::new()
    );
    assert!(!cache.titles_may_clash(), "the clash went with the edit");

    // Olumide's abstract now opens with Mei's title: Mei's record, not
    // read again, is the one whose title is an abstract.
    let title = "A Study of Graph Partitioning at the Scale of Whole Continents";
    write(
        root,
        "seeds/olumide.txt",
        olumide.replace(lead, title).as_bytes(),
    );
    assert_eq!(
        rebuild(&mut cache, &mut sink, "seeds/olumide.txt"),
        ["seeds/mei.txt:9: error: expected a title after the record marker at line 7, found the \
          abstract of `Routing Tokens in Mixture-of-Experts` (seeds/olumide.txt:9); add the title \
          line above it"]
    );
    write(root, "seeds/olumide.txt", olumide.as_bytes());
    assert_eq!(
        rebuild(&mut cache, &mut sink, "seeds/olumide.txt"),
        Vec::<String>::new()
    );
    assert!(!cache.titles_may_clash());
}

/// Told which paths changed (as `vellum serve`'s watcher tells it), a
/// rebuild reads those listings only: a listing edited on disk but not
/// named is not even stamped, until a path under `seeds/` that is no
/// listing (a directory moved in) makes the rebuild walk `seeds/` again.
fn a_rebuild_told_the_changed_paths_reads_only_those_listings() {
    let mei = "Mei Lin\n\nPublications and source records attributed to Mei Lin.\n\nAt least 1 records \u{b7} Page 1\n\narXiv2019\n\nFast Graphs\n\nWe study fast graphs.\n\ncs.DS\n";
    let site = temp_site(
        &[
            ("olumide.txt", &olumide_listing()),
            ("mei.txt", mei.as_bytes()),
        ],
        "",
    );
    let root = site.path();
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert_eq!(cache.parsed_count(), 2);

    // An edit, a listing added in a new directory, a deletion: all named.
    let edited = String::from_utf8(olumide_listing())
        .unwrap()
        .replace("Routing Tokens", "Steering Tokens");
    write(root, "seeds/olumide.txt", edited.as_bytes());
    write(
        root,
        "seeds/sub/ana.txt",
        mei.replace("Mei Lin", "Ana Lima").as_bytes(),
    );
    std::fs::remove_file(root.join("seeds/mei.txt")).unwrap();
    let named = [
        "seeds/olumide.txt",
        "seeds/sub/ana.txt",
        "seeds/mei.txt",
        "content/x.md",
    ];
    told_equals_fresh(
        root,
        &mut cache,
        &mut sink,
        Some(named.map(Into::into).to_vec()),
    );
    assert_eq!(cache.parsed_count(), 4, "the edited and the added listing");
    assert!(sink.site.contains_key("authors/ana-lima/index.html"));
    assert!(!sink.site.contains_key("authors/mei-lin/index.html"));

    // Edited on disk, not named: taken from the cache, unread.
    write(
        root,
        "seeds/sub/ana.txt",
        mei.replace("Mei Lin", "Ana Lima")
            .replace("Fast Graphs", "Faster Graphs")
            .as_bytes(),
    );
    let options = vellum::build::BuildOptions {
        root: root.to_path_buf(),
        changed_paths: Some(vec!["seeds/olumide.txt".into()]),
        ..vellum::build::BuildOptions::default()
    };
    use vellum::build::build_with;
    assert!(!build_with(&options, &mut sink, Some(&mut cache)).failed());
    assert_eq!(
        cache.parsed_count(),
        4,
        "nothing named changed: nothing read"
    );
    // The same with the root given with a trailing slash.
    let options = vellum::build::BuildOptions {
        root: format!("{}/", root.display()).into(),
        ..options
    };
    assert!(!build_with(&options, &mut sink, Some(&mut cache)).failed());
    assert_eq!(cache.parsed_count(), 4, "a root ending in a slash");
    assert!(sink.site.contains_key("papers/fast-graphs/index.html"));

    // A directory moved in: seeds/ is walked and stamped again, which
    // finds its listing and the edit above.
    std::fs::create_dir_all(root.join("seeds/group")).unwrap();
    write(
        root,
        "seeds/group/kai.txt",
        mei.replace("Mei Lin", "Kai Wu").as_bytes(),
    );
    told_equals_fresh(
        root,
        &mut cache,
        &mut sink,
        Some(vec!["seeds/group".into()]),
    );
    assert_eq!(cache.parsed_count(), 6);
    assert!(sink.site.contains_key("authors/kai-wu/index.html"));
    assert!(sink.site.contains_key("papers/faster-graphs/index.html"));

    // A hard link of a listing, edited in place under its other name: it
    // changed too, though only that name is told.
    #[cfg(unix)]
    {
        std::fs::hard_link(root.join("seeds/olumide.txt"), root.join("seeds/a0.txt")).unwrap();
        told_equals_fresh(
            root,
            &mut cache,
            &mut sink,
            Some(vec!["seeds/a0.txt".into()]),
        );
        let linked = std::fs::read_to_string(root.join("seeds/olumide.txt")).unwrap();
        std::fs::write(
            root.join("seeds/olumide.txt"),
            linked.replace("Steering Tokens", "Guiding Tokens"),
        )
        .unwrap();
        told_equals_fresh(
            root,
            &mut cache,
            &mut sink,
            Some(vec!["seeds/olumide.txt".into()]),
        );
        assert!(sink
            .site
            .contains_key("papers/guiding-tokens-in-mixture-of-experts/index.html"));
        std::fs::remove_file(root.join("seeds/a0.txt")).unwrap();
        told_equals_fresh(
            root,
            &mut cache,
            &mut sink,
            Some(vec!["seeds/a0.txt".into()]),
        );
    }

    // A directory named like a listing, moved in and out: walked both times.
    let outside = crate::common::tempdir();
    write(
        root,
        "seeds/grp.txt/gina.txt",
        mei.replace("Mei Lin", "Gina Dir").as_bytes(),
    );
    told_equals_fresh(
        root,
        &mut cache,
        &mut sink,
        Some(vec!["seeds/grp.txt".into()]),
    );
    assert!(sink.site.contains_key("authors/gina-dir/index.html"));
    std::fs::rename(root.join("seeds/grp.txt"), outside.path().join("grp.txt")).unwrap();
    told_equals_fresh(
        root,
        &mut cache,
        &mut sink,
        Some(vec!["seeds/grp.txt".into()]),
    );
    assert!(!sink.site.contains_key("authors/gina-dir/index.html"));

    // A symbolic link to a listing: skipped, as the walk skips it.
    #[cfg(unix)]
    {
        let outside = crate::common::tempdir();
        let lee = outside.path().join("lee.txt");
        std::fs::write(&lee, mei.replace("Mei Lin", "Lee Kim")).unwrap();
        std::os::unix::fs::symlink(&lee, root.join("seeds/lee.txt")).unwrap();
        told_equals_fresh(
            root,
            &mut cache,
            &mut sink,
            Some(vec!["seeds/lee.txt".into()]),
        );
        assert!(!sink.site.contains_key("authors/lee-kim/index.html"));
        std::fs::remove_file(root.join("seeds/lee.txt")).unwrap();
    }
}

/// An author's papers keep listing order in `corpus.json`: reordering a
/// listing's records makes it again, though no paper and no count changed.
fn reordering_a_listings_records_makes_corpus_json_again() {
    let record =
        |title: &str, year: u16| format!("arXiv{year}\n\n{title}\n\nWe study it.\n\ncs.DS\n\n");
    let head = "Mei Lin\n\nPublications and source records attributed to Mei Lin.\n\nAt least 2 records \u{b7} Page 1\n\n";
    let (alpha, beta) = (record("Alpha Paper", 2023), record("Beta Paper", 2022));
    let site = temp_site(
        &[("mei.txt", format!("{head}{alpha}{beta}").as_bytes())],
        "",
    );
    let root = site.path();
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    cached_equals_fresh(root, &mut cache, &mut sink);
    write(
        root,
        "seeds/mei.txt",
        format!("{head}{beta}{alpha}").as_bytes(),
    );
    let rendered = cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(
        rendered.contains(&"corpus.json".to_string()),
        "{rendered:?}"
    );
}

/// (status, body) of `GET /` naming `host` in its `Host` header.
fn get_host(port: u16, host: &str) -> (u16, String) {
    let (status, _, body) = request(port, "/", host, "");
    (status, body)
}

/// Finding: `serve` did not check the `Host` header, so a page whose name
/// a DNS-rebinding attack pointed at this machine could read the preview.
fn serve_answers_only_to_loopback_names_ip_addresses_and_allowed_hosts() {
    let site = olumide_site();
    let server = start_with(site.path(), &["--allowed-host", "Laptop.Local"]);
    for host in ["localhost", "127.0.0.1:1111", "[::1]", "laptop.local:1111"] {
        assert_eq!(get_host(server.port, host).0, 200, "{host}");
    }
    let (status, body) = get_host(server.port, "rebind.evil.example:1111");
    assert_eq!(status, 403);
    assert_eq!(
        body,
        "This preview answers to localhost, IP addresses and laptop.local only, not to `rebind.evil.example`. \
         To allow it, run vellum serve --allowed-host rebind.evil.example\n"
    );
    // A request naming no host at all.
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(stream, "GET / HTTP/1.0\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(
        response.starts_with("HTTP/1.0 403") || response.starts_with("HTTP/1.1 403"),
        "{response}"
    );
    // A name that is no host name is refused at the command line.
    for bad in ["", "http://x", "*.evil.com"] {
        let out = Command::new(env!("CARGO_BIN_EXE_vellum"))
            .args(["serve", "--allowed-host", bad, "--root"])
            .arg(site.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("expected a host name such as `laptop.local`"),
            "{stderr}"
        );
    }
}

/// Finding: `serve` never timed out a half-sent request (1,000 held open
/// for 90 s). A connection whose headers do not end in 10 s is closed.
fn serve_closes_a_connection_whose_request_headers_never_end() {
    let site = olumide_site();
    let server = start(site.path());
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(stream, "GET / HTTP/1.1\r\nHost: localhost\r\n").unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let started = Instant::now();
    let mut rest = Vec::new();
    let read = stream.read_to_end(&mut rest);
    let waited = started.elapsed();
    assert!(read.is_ok(), "{read:?} after {waited:?}");
    assert!(
        (Duration::from_secs(9)..Duration::from_secs(20)).contains(&waited),
        "closed after {waited:?}"
    );
    // A whole request on a new connection is still answered.
    assert_eq!(get(server.port, "/").0, 200);
}

/// Finding: `--interface 0.0.0.0` bound every interface without a word.
fn serve_warns_when_it_listens_beyond_loopback() {
    let site = olumide_site();
    let mut child = Command::new(env!("CARGO_BIN_EXE_vellum"))
        .args(["serve", "--port", "0", "--interface", "0.0.0.0", "--root"])
        .arg(site.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let warning = stderr
        .lines()
        .map(Result::unwrap)
        .find(|l| l.starts_with("warning: serving on"));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        warning.as_deref(),
        Some("warning: serving on 0.0.0.0, reachable from other machines on the network; the preview is meant for this machine (--interface 127.0.0.1)")
    );
}

/// Finding: `serve` accepted an alias with a CR LF that `build` rejects:
/// both refuse it at its line.
fn serve_refuses_the_alias_build_refuses() {
    let site = olumide_site();
    write(
        site.path(),
        "content/authors/olumide-adeyemi.md",
        b"+++\naliases = [\"x\\r\\ny/\"]\n+++\n",
    );
    let expected = "content/authors/olumide-adeyemi.md:2: error: expected an alias to be a site path such as `people/name/`, found `x\\r\\ny/`, which has a control character";
    let built = Command::new(env!("CARGO_BIN_EXE_vellum"))
        .args(["build", "--root"])
        .arg(site.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&built.stderr).contains(expected));
    let mut child = Command::new(env!("CARGO_BIN_EXE_vellum"))
        .args(["serve", "--port", "0", "--root"])
        .arg(site.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let first = stderr.lines().next().map(Result::unwrap);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(first.as_deref(), Some(expected));
}

/// This file's tests, for the harness in `tests/main.rs`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(serve: serve_rebuilds_on_save_keeps_the_last_good_site_and_recovers, live_reload_works_under_a_sub_path, serve_also_writes_the_site_to_an_output_dir, an_input_directory_created_after_start_is_watched, a_directory_of_listings_moved_into_seeds_is_built, a_directory_of_pages_moved_in_and_out_of_content_is_built, range_requests_get_the_asked_bytes, a_busy_port_is_a_clear_error, a_site_broken_at_start_serves_the_reload_script_and_recovers, a_rebuild_renders_the_unchanged_pages_a_sink_cannot_carry_over, a_rebuild_carrying_the_last_commit_over_drops_what_went, the_cached_listings_hold_an_abstract_once_however_many_list_it, listings_read_in_several_chunks_are_kept_in_order_and_share_abstracts, pages_not_kept_are_rendered_again_as_the_build_rendered_them, a_paper_added_renders_the_search_page_again, rebuilds_with_the_cache_equal_full_builds_and_render_only_what_changed, a_listing_rewritten_with_its_old_size_and_modification_time_is_read_again, a_rebuild_told_the_changed_paths_reads_only_those_listings, a_rebuild_told_a_listing_changed_finds_a_title_that_is_an_abstract, a_rebuild_told_a_listing_changed_keeps_the_bibtex_files_and_walk_warnings, a_rebuild_of_the_same_shape_patches_the_plan_and_equals_a_full_build, reordering_a_listings_records_makes_corpus_json_again, serve_answers_only_to_loopback_names_ip_addresses_and_allowed_hosts, serve_closes_a_connection_whose_request_headers_never_end, serve_warns_when_it_listens_beyond_loopback, serve_refuses_the_alias_build_refuses, each_input_kind_renders_again_exactly_the_pages_it_changes)
}

/// Rebuilds `root` as `vellum serve` does ([`cached_equals_fresh`]) and
/// returns the files it rendered and the files whose bytes changed since
/// the last build (new ones included), both sorted; the search index's
/// data files, made apart from the pages, are left out of both.
fn rendered_and_changed(
    root: &std::path::Path,
    cache: &mut vellum::serve::cache::RebuildCache,
    sink: &mut vellum::output::MemorySink,
) -> (Vec<String>, Vec<String>) {
    let before = crate::common::pages(&sink.site);
    let mut rendered = cached_equals_fresh(root, cache, sink);
    rendered.sort();
    let mut changed: Vec<String> = crate::common::pages(&sink.site)
        .into_iter()
        .filter(|(file, bytes)| before.get(file) != Some(bytes))
        .map(|(file, _)| file.to_string())
        .filter(|file| !file.starts_with("search/") || file == "search/index.html")
        .collect();
    changed.sort();
    (rendered, changed)
}

/// One edit of each input kind (a listing, the records file, a `.bib`,
/// content: the home page's intro, a page, a paper's override and an
/// author's profile; templates; `site.toml`): a rebuild renders exactly
/// the pages whose bytes change, no fewer (the cached build equals a full
/// one) and no more (a fingerprint covers only what its page reads).
fn each_input_kind_renders_again_exactly_the_pages_it_changes() {
    let site = bundled_copy();
    let root = site.path();
    let project = crate::common::project();
    let bib = project.join("tests/fixtures/bibtex/biblatex/polaritons.bib");
    let bib = std::fs::read_to_string(bib).unwrap();
    write(root, "seeds/polaritons.bib", bib.as_bytes());
    // A real arXiv record (tests/fixtures/arxiv-api/snapshot.jsonl) and a
    // listing of its paper, with its title, year, abstract and category.
    let snapshot =
        std::fs::read_to_string(project.join("tests/fixtures/arxiv-api/snapshot.jsonl")).unwrap();
    let record: serde_json::Value = snapshot
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|record| record["id"] == "0804.0970")
        .unwrap();
    let title = record["title"].as_str().unwrap();
    let abstract_text = record["abstract"].as_str().unwrap().trim();
    let listing = crate::common::listing(
        "Marie-Claude Gaudel",
        &[(title, 2008, abstract_text, "cs.PL")],
    );
    write(root, "seeds/gaudel.txt", &listing);
    let slug = "testing-data-types-implementations-from-algebraic-specifications";
    let records = |journal: &str| {
        format!("[papers.{slug}]\narxiv = \"0804.0970\"\nversion = 1\ntitle = \"{title}\"\nauthors = [\"Marie-Claude Gaudel\", \"Pascale Le Gall\"]\ncategories = [\"cs.PL\"]\npublished = \"2008-04-07\"\nupdated = \"2008-04-07\"\njournal_ref = \"{journal}\"\n")
    };
    write(
        root,
        "records/arxiv.toml",
        records("Formal Methods and Testing, Springer-Verlag (Ed.) (2008) 209-239").as_bytes(),
    );
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(sink
        .site
        .contains_key(&*format!("papers/{slug}/index.html")));

    let edit = |relative: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(root.join(relative)).unwrap_or_default();
        assert!(text.contains(from), "{relative} holds {from:?}");
        write(root, relative, text.replacen(from, to, 1).as_bytes());
    };
    let check = |cache: &mut vellum::serve::cache::RebuildCache,
                 sink: &mut vellum::output::MemorySink,
                 what: &str,
                 expected_at_least: usize| {
        let (rendered, changed) = rendered_and_changed(root, cache, sink);
        let only = |these: &[String], not: &[String]| -> Vec<String> {
            these.iter().filter(|f| !not.contains(f)).cloned().collect()
        };
        assert_eq!(
            (only(&rendered, &changed), only(&changed, &rendered)),
            (vec![], vec![]),
            "{what}: (rendered though unchanged, changed though not rendered)"
        );
        assert!(changed.len() >= expected_at_least, "{what}: {changed:?}");
    };
    // A listing: an older paper's abstract, then its title.
    let chu = "seeds/002_6e23376fd8dff3a4.txt";
    let last_abstract = std::fs::read_to_string(root.join(chu)).unwrap();
    let last_abstract = last_abstract
        .trim_end()
        .lines()
        .rev()
        .nth(2)
        .unwrap()
        .to_string();
    edit(chu, &last_abstract, &format!("{last_abstract} Revised."));
    check(&mut cache, &mut sink, "a listing's abstract", 3);
    edit(chu, "arXiv2024\n\n", "arXiv2024\n\nRevised: ");
    check(&mut cache, &mut sink, "a listing's title", 5);
    // The records file: a journal reference.
    write(
        root,
        "records/arxiv.toml",
        records("Formal Methods and Testing (2008) 209-239").as_bytes(),
    );
    check(&mut cache, &mut sink, "the records file", 2);
    // A .bib entry's journal, then its year.
    edit(
        "seeds/polaritons.bib",
        "journal = {Proc. Natl. Acad. Sci.}",
        "journal = {Proc. Natl. Acad. Sci. U.S.A.}",
    );
    check(&mut cache, &mut sink, "a .bib entry's journal", 1);
    edit(
        "seeds/polaritons.bib",
        "year = {2011},\n  volume = {108}",
        "year = {2010},\n  volume = {108}",
    );
    check(&mut cache, &mut sink, "a .bib entry's year", 5);
    // Content: the home page's intro, a page, a paper's override, a profile.
    edit("content/_index.md", "This site lists", "This site shows");
    check(&mut cache, &mut sink, "the home page's intro", 1);
    let about = std::fs::read_to_string(root.join("content/about.md")).unwrap();
    write(
        root,
        "content/about.md",
        format!("{about}\nOne more line.\n").as_bytes(),
    );
    check(&mut cache, &mut sink, "a content page", 1);
    // A paper's override: a code link, which only its page shows. A
    // paper's details are hashed whole, so the pages and exports that
    // list it render again too, though unchanged.
    write(
        root,
        &format!("content/papers/{slug}.md"),
        b"+++\ncode = \"https://example.org/code\"\n+++\n",
    );
    let (rendered, changed) = rendered_and_changed(root, &mut cache, &mut sink);
    assert_eq!(changed, [format!("papers/{slug}/index.html")]);
    let exports = ["bib", "json", "ris"].map(|ext| format!("papers/{slug}/{slug}.{ext}"));
    let listing_it = [
        "authors/marie-claude-gaudel/index.html",
        "authors/marie-claude-gaudel/marie-claude-gaudel.bib",
        "categories/cs-pl/index.html",
        "corpus.json",
        "years/2008/index.html",
    ];
    let mut expected: Vec<String> = listing_it.iter().map(|f| f.to_string()).collect();
    expected.extend(exports);
    expected.extend(changed);
    expected.sort();
    assert_eq!(rendered, expected, "a paper's override");
    write(
        root,
        "content/authors/chuan-wu.md",
        b"+++\nhomepage = \"https://example.org/wu\"\n+++\nWorks on systems.\n",
    );
    check(&mut cache, &mut sink, "an author's profile", 1);
    // Templates: the list item, then the paper page's.
    edit(
        "themes/default/templates/partials/paper_item.html",
        "</li>",
        "</li>\n",
    );
    check(&mut cache, &mut sink, "the list item template", 5);
    edit(
        "themes/default/templates/paper.html",
        "Abstract</h2>",
        "Summary</h2>",
    );
    check(&mut cache, &mut sink, "the paper template", 5);
    // site.toml: the title, on every page and feed.
    edit(
        "site.toml",
        "title = \"Distributed ML Publications\"",
        "title = \"Distributed ML Papers\"",
    );
    check(&mut cache, &mut sink, "site.toml's title", 20);
}
