//! Issue 21's findings, one regression test each: script links refused,
//! files Vellum did not write kept, well-formed feeds for any input,
//! bounded time, errors at their `file:line`, no silent guesses.

use crate::common::*;
use proptest::prelude::*;
use vellum::diagnostics::Severity;

/// The paper of [`olumide_site`].
const PAPER: &str = "routing-tokens-in-mixture-of-experts";

fn script_links_in_overrides_and_profiles_are_errors_at_their_line() {
    let dir = olumide_site();
    write(
        dir.path(),
        &format!("content/papers/{PAPER}.md"),
        b"+++\nvenue = \"X\"\nurl = \"javascript:alert(1)\"\npdf = \" JaVaScRiPt:alert(1)\"\ncode = \"java\tscript:alert(1)\"\n+++\n",
    );
    write(
        dir.path(),
        "content/authors/olumide-adeyemi.md",
        b"+++\n\nhomepage = \"data:text/html,<script>alert(1)</script>\"\n+++\n",
    );
    let (report, _) = build_memory(dir.path(), None);
    let file = format!("content/papers/{PAPER}.md");
    let expected = |file: &str, line: usize, key: &str, found: &str, reason: &str| {
        format!(
            "{file}:{line}: error: expected `{key}` to be an http://, https:// or mailto: URL or a \
             relative path, found `{found}` ({reason}); give the address a reader should open"
        )
    };
    let script = "a script URL, which runs code when clicked";
    let hidden =
        "a URL with a space or control character, which browsers drop, so it may hide a scheme";
    assert_eq!(
        messages(&report, Severity::Error),
        [
            expected(
                "content/authors/olumide-adeyemi.md",
                3,
                "homepage",
                "data:text/html,<script>alert(1)</script>",
                script
            ),
            expected(&file, 3, "url", "javascript:alert(1)", script),
            expected(&file, 4, "pdf", " JaVaScRiPt:alert(1)", hidden),
            expected(&file, 5, "code", "java\\tscript:alert(1)", hidden),
        ]
    );
}

/// Found in review: a key after a multi-line string, or a quoted key, was
/// reported at the wrong line or none; `arxiv`, `doi` and `orcid` took
/// any text.
fn identifiers_and_urls_are_checked_at_their_key_line_however_written() {
    let dir = olumide_site();
    write(
        dir.path(),
        &format!("content/papers/{PAPER}.md"),
        b"+++\ntitle = \"\"\"Routing\nurl = not a key\nTokens\"\"\"\n\"url\" = \"javascript:x\"\narxiv = \"javascript:alert(1)\"\ndoi = \"doi:10.1145\"\n+++\n",
    );
    write(
        dir.path(),
        "content/authors/olumide-adeyemi.md",
        b"+++\norcid = \"https://orcid.org/0000-0002\"\n+++\n",
    );
    let (report, _) = build_memory(dir.path(), None);
    let file = format!("content/papers/{PAPER}.md");
    assert_eq!(
        messages(&report, Severity::Error),
        [
            "content/authors/olumide-adeyemi.md:2: error: expected `orcid` to be an ORCID iD such as `0000-0002-1825-0097`, found `0000-0002`".to_string(),
            format!("{file}:5: error: expected `url` to be an http://, https:// or mailto: URL or a relative path, found `javascript:x` (a script URL, which runs code when clicked); give the address a reader should open"),
            format!("{file}:6: error: expected `arxiv` to be an arXiv identifier such as `2405.01234` or `cs/0112017`, found `javascript:alert(1)`"),
            format!("{file}:7: error: expected `doi` to be a DOI such as `10.1145/3600006.3613139`, found `10.1145`"),
        ]
    );
}

/// A script link in a title warns at the title's line, one in an
/// abstract at the abstract's first line, naming a later paragraph.
fn script_links_in_listing_text_are_text_with_a_warning() {
    let listing = String::from_utf8(olumide_listing())
        .unwrap()
        .replace(
            "Routing Tokens in Mixture-of-Experts",
            r"Routing Tokens \href{javascript:alert(1)}{here}",
        )
        .replace("with a URL", r"with \url{data:text/html,x}");
    let dir = temp_site(&[("olumide.txt", listing.as_bytes())], "");
    let (report, site) = build_memory(dir.path(), None);
    let warnings = messages(&report, Severity::Warning);
    assert_eq!(
        warnings,
        [
            "seeds/olumide.txt:11: warning: expected an http, https or mailto URL in `\\href`, found \
             `javascript:alert(1)` (a script URL, which runs code when clicked), so it is not a link; \
             it is shown as written",
            "seeds/olumide.txt:13: warning: in the abstract's paragraph 3: expected an http, https or \
             mailto URL in `\\url`, found `data:text/html,x` (a script URL, which runs code when clicked), \
             so it is not a link; it is shown as written",
        ]
    );
    let page =
        String::from_utf8_lossy(&site["papers/routing-tokens-here-javascript-alert-1/index.html"]);
    assert!(
        page.contains("Routing Tokens here (javascript:alert(1))"),
        "{page}"
    );
    assert!(!page.contains("href=\"javascript"));
}

/// Changes `content/about.md` and builds again.
fn rebuild_after_an_edit(root: &std::path::Path) -> std::process::Output {
    write(
        root,
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\nchanged\n",
    );
    vellum(&["build", "--root", root.to_str().unwrap()], &[])
}

fn build_ok(root: &std::path::Path, extra: &[&str]) -> String {
    let mut args = vec!["build", "--root", root.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = vellum(&args, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Finding (a): a gh-pages worktree's `.git` and a custom-domain `CNAME`
/// in `public/` were removed.
fn files_vellum_did_not_write_in_public_are_kept() {
    let site = olumide_site();
    let root = site.path();
    build_ok(root, &[]);
    let public = root.join("public");
    write(&public, ".git/HEAD", b"ref: refs/heads/gh-pages\n");
    write(&public, ".git/objects/ab/cdef", b"object");
    write(&public, "CNAME", b"lab.example.org\n");
    write(&public, "papers/extra.pdf", b"%PDF");
    std::fs::create_dir_all(public.join(".well-known")).unwrap();
    let stdout = build_ok(root, &[]);
    assert!(stdout.contains("(0 written, 0 removed"), "{stdout}");
    assert_eq!(
        std::fs::read(public.join(".git/HEAD")).unwrap(),
        b"ref: refs/heads/gh-pages\n"
    );
    assert_eq!(
        std::fs::read(public.join(".git/objects/ab/cdef")).unwrap(),
        b"object"
    );
    assert_eq!(
        std::fs::read(public.join("CNAME")).unwrap(),
        b"lab.example.org\n"
    );
    assert_eq!(
        std::fs::read(public.join("papers/extra.pdf")).unwrap(),
        b"%PDF"
    );
    assert!(public.join(".well-known").is_dir());
    // A page that goes is removed; the user's files stay.
    write(
        root,
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\nx\n",
    );
    build_ok(root, &[]);
    std::fs::remove_file(root.join("content/about.md")).unwrap();
    let stdout = build_ok(root, &[]);
    assert!(stdout.contains(", 1 removed"), "{stdout}");
    assert!(!public.join("about").exists());
    assert!(public.join("CNAME").is_file() && public.join(".git/HEAD").is_file());
    let manifest = std::fs::read_to_string(public.join(".vellum-manifest")).unwrap();
    assert!(manifest.starts_with("# Written by Vellum"), "{manifest}");
    assert!(manifest.lines().any(|l| l == "index.html"));
    assert!(!manifest.contains("CNAME") && !manifest.contains(".git"));
    let sitemap = std::fs::read_to_string(public.join("sitemap.xml")).unwrap();
    assert!(!sitemap.contains("manifest"));
}

/// Finding (b): `--output-dir ../x` over a directory that happened to hold
/// an `index.html` and a `sitemap.xml` lost every other file. Such a
/// directory is refused now, untouched; one holding every file a build
/// writes (an earlier build without a manifest) is adopted, and nothing in
/// it is removed.
fn an_output_dir_without_a_manifest_is_adopted_and_nothing_in_it_removed() {
    let site = olumide_site();
    let root = site.path();
    let x = root
        .parent()
        .unwrap()
        .join(format!("{}-x", root.file_name().unwrap().to_str().unwrap()));
    let _remove = TempDir::owning(x.clone());
    write(&x, "index.html", b"my home");
    write(&x, "sitemap.xml", b"my sitemap");
    write(&x, "docs/thesis.tex", b"\\documentclass{book}");
    let before = read_tree(&x);
    let out = vellum(
        &[
            "build",
            "--root",
            root.to_str().unwrap(),
            "--output-dir",
            x.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not empty and holds no previous build (no .vellum-manifest, and not all of index.html, sitemap.xml, authors/index.html, years/index.html); choose another output directory or empty it"),
        "{stderr}"
    );
    assert_eq!(read_tree(&x), before);
    // An earlier build's files, without a manifest.
    write(&x, "authors/index.html", b"old authors");
    write(&x, "years/index.html", b"old years");
    write(
        &x,
        "years/1999/index.html",
        b"a page the next build no longer makes",
    );
    let stdout = build_ok(root, &["--output-dir", x.to_str().unwrap()]);
    assert!(stdout.contains(", 0 removed"), "{stdout}");
    assert_eq!(
        std::fs::read(x.join("docs/thesis.tex")).unwrap(),
        b"\\documentclass{book}"
    );
    assert!(x.join("years/1999/index.html").is_file());
    assert!(std::fs::read_to_string(x.join("index.html"))
        .unwrap()
        .contains("<html"));
    build_ok(root, &["--output-dir", x.to_str().unwrap()]);
    assert!(x.join("docs/thesis.tex").is_file() && x.join("years/1999/index.html").is_file());
}

/// Found in review: a user's own file where a new page is written was
/// replaced silently, then listed in the manifest and removed with the
/// page. It is an error now, and the output is left as it was.
fn a_file_of_the_users_where_the_site_now_writes_one_is_an_error() {
    let site = olumide_site();
    let root = site.path();
    build_ok(root, &[]);
    let public = root.join("public");
    write(&public, "team/index.html", b"HANDWRITTEN");
    write(root, "content/team.md", b"+++\ntitle = \"Team\"\n+++\nhi\n");
    let before = read_tree(&public);
    let out = vellum(&["build", "--root", root.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("public/team/index.html: is a file Vellum did not write, where the site now writes one; move it away (or remove it to let Vellum write there)"),
        "{stderr}"
    );
    assert_eq!(read_tree(&public), before);
    // A file of the user's where the site needs a folder, and a folder of
    // the user's where it writes a file.
    std::fs::remove_dir_all(public.join("team")).unwrap();
    write(&public, "team", b"a file");
    let out = vellum(&["build", "--root", root.to_str().unwrap()], &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("public/team: is a file Vellum did not write where the site now has a directory; move it away"));
    std::fs::remove_file(public.join("team")).unwrap();
    std::fs::remove_file(root.join("content/team.md")).unwrap();
    std::fs::remove_file(public.join("robots.txt")).unwrap();
    write(&public, "robots.txt/mine.txt", b"x");
    let out = vellum(&["build", "--root", root.to_str().unwrap()], &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("public/robots.txt: is a directory where the site now has a file, and it holds robots.txt/mine.txt, which Vellum did not write; move it away"));
    assert_eq!(
        std::fs::read(public.join("robots.txt/mine.txt")).unwrap(),
        b"x"
    );
}

/// Finding (c): a directory `.<out>.staging` beside the output was removed
/// recursively, even when the build was then refused.
fn a_staging_directory_vellum_did_not_make_is_never_removed() {
    let site = olumide_site();
    let root = site.path();
    write(root, ".public.staging/keep.txt", b"mine");
    build_ok(root, &[]);
    assert!(root.join(".public.staging/keep.txt").is_file());
    std::fs::remove_dir_all(root.join(".public.vellum-staging")).unwrap();
    write(root, ".public.vellum-staging/keep.txt", b"mine too");
    let out = vellum(&["build", "--root", root.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(".public.vellum-staging: expected Vellum's staging directory (holding VELLUM-STAGING), found one Vellum did not make; move it away"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(root.join(".public.vellum-staging/keep.txt")).unwrap(),
        b"mine too"
    );
    // A killed build's staging directory (marked) is the next build's:
    // what it half wrote never reaches the output.
    std::fs::remove_dir_all(root.join(".public.vellum-staging")).unwrap();
    let good = std::fs::read(root.join("public/index.html")).unwrap();
    write(root, ".public.vellum-staging/VELLUM-STAGING", b"");
    write(root, ".public.vellum-staging/site/index.html", b"half");
    write(root, ".public.vellum-staging/site/half.html", b"half");
    write(root, ".public.vellum-staging/next/index.html", b"half");
    write(
        root,
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\nchanged\n",
    );
    build_ok(root, &[]);
    assert_eq!(std::fs::read(root.join("public/index.html")).unwrap(), good);
    assert!(!root.join("public/half.html").exists());
    assert!(!root.join(".public.vellum-staging/next").exists());
    // It holds the build before last, which git ignores.
    assert_eq!(
        std::fs::read(root.join(".public.vellum-staging/.gitignore")).unwrap(),
        b"*\n"
    );
    // One killed before it wrote its marker is still empty, and taken.
    std::fs::remove_dir_all(root.join(".public.vellum-staging")).unwrap();
    std::fs::create_dir(root.join(".public.vellum-staging")).unwrap();
    build_ok(root, &[]);
    assert!(root.join(".public.vellum-staging/VELLUM-STAGING").is_file());
}

/// Found in review: two builds of one output at once interleaved and
/// published a broken site. A build holds the lock on its staging
/// directory's marker; another is refused and touches nothing.
fn a_second_build_of_the_same_output_at_once_is_refused() {
    let site = olumide_site();
    let root = site.path();
    build_ok(root, &[]);
    let before = read_tree(&root.join("public"));
    write(root, ".public.vellum-staging/VELLUM-STAGING", b"");
    let held = std::fs::File::open(root.join(".public.vellum-staging/VELLUM-STAGING")).unwrap();
    held.lock().unwrap();
    let out = rebuild_after_an_edit(root);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("public: is being written by another vellum build (its staging directory is locked); wait for it to finish"), "{stderr}");
    assert_eq!(read_tree(&root.join("public")), before);
    assert!(root.join(".public.vellum-staging/VELLUM-STAGING").is_file());
    drop(held);
    build_ok(root, &[]);
    assert!(root.join("public/about/index.html").is_file());
}

/// Found by the attack on the spare tree: `--output-dir nx/../seeds` (and
/// `z/..`, `q/../..`), with `nx` missing, passed both refusals, and the
/// site was published into its own listings or the folder above the root.
fn an_output_dir_stepping_back_out_of_a_missing_folder_is_refused() {
    let site = olumide_site();
    let root = site.path();
    for given in ["nx/../seeds", "z/..", "q/../.."] {
        let out = vellum(
            &[
                "build",
                "--root",
                root.to_str().unwrap(),
                "--output-dir",
                given,
            ],
            &[],
        );
        assert_eq!(out.status.code(), Some(2), "{given}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("error: expected --output-dir without `..` after a folder that does not exist, found")
                && stderr.contains("write the path without it"),
            "{stderr}"
        );
    }
    assert!(!root.join("nx").exists() && !root.join("seeds/index.html").exists());
    // `..` over folders that exist still works.
    build_ok(root, &["--output-dir", "seeds/../site-out"]);
    assert!(root.join("site-out/index.html").is_file());
}

/// Found by the attack on the spare tree: the staging directory's
/// `.gitignore` and marker were written through a link to a user's file.
fn nothing_in_the_staging_directory_is_written_through_a_link() {
    let site = olumide_site();
    let root = site.path();
    build_ok(root, &[]);
    write(root, "mine/ignore", b"my ignore rules");
    write(root, "mine/notes", b"my notes");
    let staging = root.join(".public.vellum-staging");
    std::fs::remove_file(staging.join(".gitignore")).unwrap();
    std::os::unix::fs::symlink(root.join("mine/ignore"), staging.join(".gitignore")).unwrap();
    write(
        root,
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\nchanged\n",
    );
    build_ok(root, &[]);
    assert_eq!(
        std::fs::read(root.join("mine/ignore")).unwrap(),
        b"my ignore rules"
    );
    assert_eq!(std::fs::read(staging.join(".gitignore")).unwrap(), b"*\n");
    // A marker that is a link is not Vellum's: the directory is refused.
    std::fs::remove_file(staging.join(MARKER_NAME)).unwrap();
    std::os::unix::fs::symlink(root.join("mine/notes"), staging.join(MARKER_NAME)).unwrap();
    let out = vellum(&["build", "--root", root.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(root.join("mine/notes")).unwrap(), b"my notes");
}

const MARKER_NAME: &str = vellum::output::disk::MARKER;

/// Found by the attack on the spare tree: a user's file in `public/` whose
/// name is not UTF-8 broke every changing build, and one whose name read
/// the same as another's once made lossy was deleted.
fn a_users_file_named_in_other_than_utf8_stops_the_build_and_is_kept() {
    use std::os::unix::ffi::OsStrExt;
    let site = olumide_site();
    let root = site.path();
    build_ok(root, &[]);
    let name = std::ffi::OsStr::from_bytes(b"report\xe9.txt");
    std::fs::write(root.join("public").join(name), "mine").unwrap();
    let out = rebuild_after_an_edit(root);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is a name that is not UTF-8, which Vellum cannot carry into the new site (it would lose it); rename it or move it out of the output"), "{stderr}");
    assert_eq!(
        std::fs::read(root.join("public").join(name)).unwrap(),
        b"mine"
    );
}

/// Found by the attack on the spare tree: a symlink of the user's at a
/// page's path, to a file of the same bytes, stayed in the output.
fn a_link_at_a_pages_path_is_replaced_by_the_page() {
    let site = olumide_site();
    let root = site.path();
    build_ok(root, &[]);
    let page = root.join("public/authors/index.html");
    std::fs::copy(&page, root.join("copy.html")).unwrap();
    std::fs::remove_file(&page).unwrap();
    std::os::unix::fs::symlink(root.join("copy.html"), &page).unwrap();
    write(
        root,
        "content/extra.md",
        b"+++\ntitle = \"Extra\"\n+++\nnew\n",
    );
    build_ok(root, &[]);
    assert!(std::fs::symlink_metadata(&page).unwrap().is_file());
}

/// Found in review: a static file whose name held a line break split the
/// manifest's line, so a user's file of the other name was removed.
fn a_file_name_with_a_control_character_is_skipped_with_a_warning() {
    let site = olumide_site();
    let root = site.path();
    write(root, "static/notes\nevil", b"x");
    let (report, site_out) = build_memory(root, None);
    assert_eq!(
        messages(&report, Severity::Warning),
        ["static/notes\\u{a}evil: warning: expected a file name of UTF-8 text without control characters, found another; it is skipped: rename it"]
    );
    assert!(!site_out.keys().any(|k| k.contains("notes")));
}

/// A symlinked output directory: the link stays, its target is published.
fn a_symlinked_output_directory_keeps_its_link() {
    let site = olumide_site();
    let root = site.path();
    std::fs::create_dir_all(root.join("www/site")).unwrap();
    std::os::unix::fs::symlink("www/site", root.join("public")).unwrap();
    build_ok(root, &[]);
    build_ok(root, &[]);
    assert!(std::fs::symlink_metadata(root.join("public"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(root.join("www/site/index.html").is_file());
    // The staging directory is beside the link's target.
    assert!(root
        .join("www/.site.vellum-staging/VELLUM-STAGING")
        .is_file());
}

/// Every file under `dir` but a staging directory: relative path → XXH3-64
/// of its bytes.
fn tree_hashes(dir: &std::path::Path) -> std::collections::BTreeMap<String, u64> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            let relative = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (
                relative,
                xxhash_rust::xxh3::xxh3_64(&std::fs::read(e.path()).unwrap()),
            )
        })
        .collect()
}

/// A site of 800 generated papers by 160 authors.
fn site_of_800_papers() -> TempDir {
    let (_work, corpus) = gen_corpus(800, 160);
    let site = temp_site(&[], "");
    copy_dir(&corpus.join("listings"), &site.path().join("seeds"));
    site
}

/// Finding: `kill -9` while a build moved its files into `public/` left
/// the new home page beside old pages. Builds of 800 papers alternating
/// between two site titles are killed at ten moments spread from a tenth of
/// the last build's time to past its end;
/// each time `public/` is the whole old site or the whole new one, the
/// user's `CNAME` in both, and the next build publishes its own site
/// whatever the killed one left in the staging directory.
fn a_build_killed_at_any_moment_leaves_the_old_site_or_the_new() {
    let site = site_of_800_papers();
    let root = site.path();
    let public = root.join("public");
    let set_title = |title: &str| {
        write(
            root,
            "site.toml",
            format!("title = \"{title}\"\nbase_url = \"https://example.org/\"\n").as_bytes(),
        )
    };
    let build = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_vellum"))
            .args(["build", "--quiet", "--root", root.to_str().unwrap()])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    set_title("Old");
    assert!(build().wait().unwrap().success());
    write(&public, "CNAME", b"lab.example.org\n");
    let old = tree_hashes(&public);
    set_title("New");
    let started = std::time::Instant::now();
    assert!(build().wait().unwrap().success());
    let mut duration = started.elapsed();
    let new = tree_hashes(&public);
    assert_ne!(old, new);
    let mut outcomes = [0, 0];
    for i in 1..=10u32 {
        let title = if i % 2 == 1 { "Old" } else { "New" };
        set_title(title);
        let mut child = build();
        let delay = duration * i * 12 / 100;
        std::thread::sleep(delay);
        let _ = child.kill();
        child.wait().unwrap();
        let now = tree_hashes(&public);
        let which = [&old, &new].iter().position(|tree| **tree == now);
        let Some(which) = which else {
            let mixed = now
                .iter()
                .filter(|(p, h)| old.get(*p) != Some(h) && new.get(*p) != Some(h))
                .count();
            panic!("kill {i} after {:?}: public/ is neither the old site nor the new ({mixed} files of neither)", delay);
        };
        // 0: the killed build did not publish; 1: it did.
        outcomes[usize::from((which == 0) == (title == "Old"))] += 1;
        // The next kill's moments follow this build's time: the machine's
        // load changes while the other tests run.
        let started = std::time::Instant::now();
        assert!(build().wait().unwrap().success());
        duration = started.elapsed();
        let built = if title == "Old" { &old } else { &new };
        let now = tree_hashes(&public);
        let differing = built.iter().filter(|(p, h)| now.get(*p) != Some(h)).count();
        assert!(
            now == *built,
            "after kill {i}, the next build differs in {differing} files of {}",
            built.len()
        );
        assert!(!root.join(".public.vellum-staging/next").exists());
    }
    eprintln!(
        "killed builds: {} left the site as it was, {} had published",
        outcomes[0], outcomes[1]
    );
}

/// Finding: a file written into `public/` between the build's survey of
/// it and the exchange landed only in the tree swapped out, and the next
/// build deleted it. Here a writer adds files (at the top and in a folder
/// of its own) all through a rebuild of 800 papers: after it, every one is
/// in `public/` with its bytes or kept in `.public.vellum-staging/kept/`
/// (issue 57, item 7: what only the old site holds is kept there), each
/// kept one named in a warning (ten at most, then how many more), and
/// still so after the build after that.
fn files_written_into_public_during_a_build_are_kept() {
    let site = site_of_800_papers();
    let root = site.path();
    let public = root.join("public");
    let build = || {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_vellum"))
            .args(["build", "--quiet", "--root", root.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(output.status.success(), "{stderr}");
        stderr
    };
    build();
    std::fs::create_dir(public.join("deploy")).unwrap();
    write(
        root,
        "site.toml",
        b"title = \"New\"\nbase_url = \"https://example.org/\"\n",
    );
    let done = std::sync::atomic::AtomicBool::new(false);
    let (written, stderr) = std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            let mut n = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::fs::write(public.join(format!("late-{n}.txt")), n.to_string()).unwrap();
                std::fs::write(public.join(format!("deploy/{n}.txt")), n.to_string()).unwrap();
                n += 1;
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            n
        });
        let stderr = build();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        (writer.join().unwrap(), stderr)
    });
    assert!(
        written > 10,
        "only {written} files written during the build"
    );
    let kept = root.join(".public.vellum-staging/kept");
    // Each file's place: the output or a folder of kept/; those missing.
    let places = || {
        let mut missing = Vec::new();
        let mut kept_files = Vec::new();
        for n in 0..written {
            for path in [format!("late-{n}.txt"), format!("deploy/{n}.txt")] {
                let holds = |dir: &std::path::Path| {
                    std::fs::read_to_string(dir.join(&path)).ok() == Some(n.to_string())
                };
                if holds(&public) {
                    continue;
                }
                let folders = std::fs::read_dir(&kept).into_iter().flatten().flatten();
                match folders.map(|f| f.path()).find(|folder| holds(folder)) {
                    Some(folder) => kept_files.push((folder, std::path::PathBuf::from(&path))),
                    None => missing.push(path),
                }
            }
        }
        kept_files.sort();
        (missing, kept_files)
    };
    let (missing, kept_files) = places();
    assert_eq!(missing, Vec::<String>::new(), "of {written}");
    eprintln!("{} of {written} kept", kept_files.len());
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            l.contains(": warning: expected no file written into the output during the build")
        })
        .collect();
    let named = kept_files.len().min(10) + usize::from(kept_files.len() > 10);
    assert_eq!(warnings.len(), named, "{stderr}");
    if let Some((folder, path)) = kept_files.first() {
        let (p, k, f) = (public.display(), folder.display(), path.display());
        assert_eq!(
            warnings[0],
            format!(
                "{p}/{f}: warning: expected no file written into the output during the build, found \
                 {f}; it is kept at {k}/{f}: move it back with mv '{k}/{f}' '{p}/{f}'"
            )
        );
    }
    build();
    let (missing, _) = places();
    assert_eq!(missing, Vec::<String>::new(), "of {written}");
}

/// Fails unless `bytes` is well-formed XML holding no character XML 1.0
/// forbids.
pub fn assert_well_formed_xml(name: &str, bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    if let Some(c) = text
        .chars()
        .find(|&c| vellum::input::chars::is_forbidden(c))
    {
        panic!("{name}: holds U+{:04X}", c as u32);
    }
    let mut reader = quick_xml::Reader::from_str(text);
    let mut depth = 0i64;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(quick_xml::events::Event::Start(_)) => depth += 1,
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(quick_xml::events::Event::Text(t)) => {
                t.decode().unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            Ok(_) => {}
            Err(e) => panic!(
                "{name}: not well-formed at byte {}: {e}",
                reader.buffer_position()
            ),
        }
    }
    assert_eq!(depth, 0, "{name}: unclosed elements");
}

/// Finding: a listing title or author holding U+0008 (or U+0000, U+0001,
/// U+001B, U+FFFE, U+FFFF) gave feeds no reader could parse.
fn control_characters_in_a_listing_are_replaced_with_a_warning_and_feeds_parse() {
    let listing = String::from_utf8(olumide_listing())
        .unwrap()
        .replace(
            "Routing Tokens in",
            "Routing\u{8}Tokens\u{0}\u{1}\u{1b} in\u{fffe}\u{ffff}",
        )
        .replacen("Olumide Adeyemi", "Olumide\u{1b} Adeyemi", 2);
    let dir = temp_site(&[("olumide.txt", listing.as_bytes())], "");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", messages(&report, Severity::Error));
    assert_eq!(
        messages(&report, Severity::Warning),
        [
            "seeds/olumide.txt:1: warning: expected text, found the control character or noncharacter U+001B, which no page or feed may hold; it is replaced by U+FFFD",
            "seeds/olumide.txt:3: warning: expected text, found the control character or noncharacter U+001B, which no page or feed may hold; it is replaced by U+FFFD",
            "seeds/olumide.txt:11: warning: expected text, found the control character or noncharacter U+0008, U+0000, U+0001, U+001B, U+FFFE, U+FFFF, which no page or feed may hold; it is replaced by U+FFFD",
        ]
    );
    let mut xml = 0;
    for (path, bytes) in &site {
        if path.ends_with(".xml") {
            assert_well_formed_xml(path, bytes);
            xml += 1;
        } else if path.ends_with(".html") {
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !text.chars().any(vellum::input::chars::is_forbidden),
                "{path}"
            );
        }
    }
    assert!(xml >= 4, "{xml} XML files");
    let feed = String::from_utf8_lossy(&site["atom.xml"]);
    assert!(
        feed.contains("Routing\u{fffd}Tokens\u{fffd}\u{fffd}\u{fffd} in\u{fffd}\u{fffd}"),
        "{feed}"
    );
}

/// Findings: no `site.toml` (or a Zola user's `config.toml`) built with
/// defaults over a good `public/`.
fn a_missing_site_toml_is_an_error_that_names_zolas_config_toml() {
    let site = olumide_site();
    let root = site.path();
    build_ok(root, &[]);
    let before = read_tree(&root.join("public"));
    std::fs::rename(root.join("site.toml"), root.join("config.toml")).unwrap();
    let out = vellum(&["build", "--root", root.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let looked_for = root.join("site.toml");
    assert!(
        stderr.starts_with(&format!(
            "site.toml: error: expected the site's settings in {}, found no such file; config.toml \
             is Zola's name for them: Vellum reads site.toml (title, base_url, ...); pass --root \
             with the site's directory, or run `vellum init {}` to make a site",
            looked_for.display(),
            root.display()
        )),
        "{stderr}"
    );
    assert_eq!(read_tree(&root.join("public")), before);
}

/// Findings: invalid UTF-8 in `site.toml` or a template had no line; in
/// `content/bad.md` at line 5 it was reported at line 1.
fn invalid_utf8_is_reported_at_the_line_of_the_first_bad_byte() {
    let expected = |file: &str, line: usize, byte: &str| {
        format!("{file}:{line}: error: expected UTF-8 text, found the byte 0x{byte}, which is not UTF-8; save the file as UTF-8")
    };
    let site = olumide_site();
    write(
        site.path(),
        "content/bad.md",
        b"+++\ntitle = \"Bad\"\n+++\n\nline \xfe five\n",
    );
    let (report, _) = build_memory(site.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        [expected("content/bad.md", 5, "FE")]
    );
    std::fs::remove_file(site.path().join("content/bad.md")).unwrap();
    write(
        site.path(),
        "templates/404.html",
        b"{% extends \"base.html\" %}\n\n{# \xc3( #}\n",
    );
    let (report, _) = build_memory(site.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        [expected("templates/404.html", 3, "C3")]
    );
    std::fs::remove_file(site.path().join("templates/404.html")).unwrap();
    let mut config = std::fs::read(site.path().join("site.toml")).unwrap();
    config.extend_from_slice(b"# caf\xe9\n");
    std::fs::write(site.path().join("site.toml"), config).unwrap();
    let (report, _) = build_memory(site.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        [expected("site.toml", 3, "E9")]
    );
}

/// Files with classic Mac OS line endings (a carriage return alone, which
/// CommonMark reads as a line ending) read as their author sees them: the
/// listing's record, the page's front matter, and each message at its
/// line, not all at line 1.
fn lone_carriage_returns_end_lines() {
    let cr = |text: &[u8]| -> Vec<u8> {
        text.iter()
            .map(|&b| if b == b'\n' { b'\r' } else { b })
            .collect()
    };
    let listing = String::from_utf8(olumide_listing())
        .unwrap()
        .replace("First paragraph", "First \u{8} paragraph");
    let dir = temp_site(&[("olumide.txt", &cr(listing.as_bytes()))], "");
    write(
        dir.path(),
        "content/about.md",
        &cr(b"+++\ntitle = \"About\"\n+++\n\nHello.\n\n{{ papers(limit=1) }} here\n"),
    );
    let (report, site) = build_memory(dir.path(), None);
    assert_eq!(
        messages(&report, Severity::Warning),
        [
            "seeds/olumide.txt:13: warning: expected text, found the control character or \
          noncharacter U+0008, which no page or feed may hold; it is replaced by U+FFFD"
        ]
    );
    assert_eq!(
        messages(&report, Severity::Error),
        ["content/about.md:7: error: expected a shortcode closed on its line, `{{ papers(...) }}`, \
          found `{{ papers(limit=1) }} here`"]
    );
    std::fs::remove_file(dir.path().join("content/about.md")).unwrap();
    write(
        dir.path(),
        "content/about.md",
        &cr(b"+++\ntitle = \"About\"\n+++\n\nHello.\n"),
    );
    let (report, site_out) = build_memory(dir.path(), None);
    assert_eq!(report.counts[0], 1);
    let about = String::from_utf8_lossy(&site_out["about/index.html"]).into_owned();
    assert!(about.contains("<p>Hello.</p>"), "{about}");
    drop(site);
    write(
        dir.path(),
        "content/bad.md",
        b"+++\rtitle = \"Bad\"\r+++\r\rline \xfe five\r",
    );
    let (report, _) = build_memory(dir.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        ["content/bad.md:5: error: expected UTF-8 text, found the byte 0xFE, which is not UTF-8; \
          save the file as UTF-8"]
    );
}

/// Findings: dot-files in `static/` (`.well-known/`, `.nojekyll`) and
/// symlinked listings or static files were skipped without a word. (The
/// watcher of `serve` reads the static folders the same way: its
/// classification table.)
fn dot_files_in_static_are_copied_and_symlinks_followed_inside_the_site_or_reported() {
    let site = olumide_site();
    let root = site.path();
    write(root, "static/.nojekyll", b"");
    write(
        root,
        "static/.well-known/security.txt",
        b"Contact: mailto:a@b.org\n",
    );
    write(root, "static/.git/HEAD", b"ref");
    // An editor's swap and backup files are not published.
    write(root, "static/.style.css.swp", b"swap");
    write(root, "static/style.css~", b"backup");
    write(root, "files/cv.pdf", b"%PDF");
    std::os::unix::fs::symlink("../files/cv.pdf", root.join("static/cv.pdf")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", root.join("static/host.txt")).unwrap();
    std::os::unix::fs::symlink("nowhere.txt", root.join("static/broken.txt")).unwrap();
    std::fs::rename(
        root.join("seeds/olumide.txt"),
        root.join("files/olumide.txt"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../files/olumide.txt", root.join("seeds/olumide.txt")).unwrap();
    let (report, site_out) = build_memory(root, None);
    assert_eq!(
        messages(&report, Severity::Warning),
        [
            "static/broken.txt: warning: expected a readable file or a symlink to an existing file, found neither; it is skipped",
            "static/host.txt: warning: expected a symlink to a file inside the site, found one to /etc/hostname; it is skipped: copy the file into the site",
        ]
    );
    assert_eq!(report.counts[0], 1, "the symlinked listing is read");
    assert_eq!(site_out[".nojekyll"].as_slice(), b"");
    assert_eq!(
        site_out[".well-known/security.txt"].as_slice(),
        b"Contact: mailto:a@b.org\n"
    );
    assert_eq!(site_out["cv.pdf"].as_slice(), b"%PDF");
    assert!(!site_out.keys().any(|k| k.starts_with(".git")));
    assert!(!site_out.contains_key(".style.css.swp"));
    assert!(!site_out.contains_key("style.css~"));
}

/// Finding: a title of many `$x$` spans took time quadratic in its length,
/// and `$\\text{` 10^6 times, `x`, `}$` 10^6 times did not finish
/// (measured in ea71704). A guard against hangs only (the shapes are
/// `bench/worst_case.py`'s): each shape, 0.8 to 1.8 MB, must build within
/// 10 s, far longer than linear code takes; deep nesting must not overflow
/// the stack.
fn worst_shapes_of_title_build_in_bounded_time() {
    let n = 200_000;
    let shapes = [
        "$x$ ".repeat(n * 2),
        format!("{}x{}", "$\\text{".repeat(n), "}$".repeat(n)),
        format!("{}x{}", "{".repeat(n * 4), "}".repeat(n * 4)),
        format!("{}x{}", "\\textbf{".repeat(n), "}".repeat(n)),
    ];
    for title in shapes {
        let listing = String::from_utf8(olumide_listing())
            .unwrap()
            .replace("Routing Tokens in Mixture-of-Experts", &title);
        let dir = temp_site(&[("olumide.txt", listing.as_bytes())], "");
        let root = dir.path().to_path_buf();
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                let (report, site) = build_memory(&root, None);
                let _ = done.send((report.counts[0], site.len()));
            })
            .unwrap();
        let shown: String = title.chars().take(12).collect();
        let (papers, files) = finished
            .recv_timeout(std::time::Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("`{shown}…` ({} bytes) did not build in 10 s", title.len()));
        assert_eq!(papers, 1, "{shown}");
        assert!(files > 10, "{shown}");
    }
}

/// Finding: an alias taking a generated file's path (`corpus.json/`,
/// `search/index.json`, an author's `.bib` or `atom.xml`, a 300-character
/// segment, a NUL) was reported as `output: error: expected to stage ...
/// File exists`, and a NUL was printed raw.
fn an_alias_on_a_generated_file_is_an_error_at_its_line_naming_the_file() {
    let site = olumide_site();
    let fix = "; choose another old path or remove the alias";
    let cases = [
        ("corpus.json/", format!("expected alias `corpus.json/` to be a free path, found /corpus.json which is the corpus export{fix}")),
        ("search/index.json", format!("expected alias `search/index.json` to be a free path, found /search which is the folder of the search index{fix}")),
        ("authors/olumide-adeyemi/olumide-adeyemi.bib", format!("expected alias `authors/olumide-adeyemi/olumide-adeyemi.bib` to be a free path, found /authors/olumide-adeyemi/olumide-adeyemi.bib which is the BibTeX file of author Olumide Adeyemi{fix}")),
        ("authors/olumide-adeyemi/atom.xml/", format!("expected alias `authors/olumide-adeyemi/atom.xml/` to be a free path, found /authors/olumide-adeyemi/atom.xml which is the feed of author Olumide Adeyemi{fix}")),
        (&format!("papers/{PAPER}/{PAPER}.ris/"), format!("expected alias `papers/{PAPER}/{PAPER}.ris/` to be a free path, found /papers/{PAPER}/{PAPER}.ris which is the ris export of paper `Routing Tokens in Mixture-of-Experts`{fix}")),
        ("style.css/", format!("expected alias `style.css/` to be a free path, found /style.css which is the static file copied from the theme or static/{fix}")),
        (".git/", "expected an alias to be a site path such as `people/name/`, found `.git/`, which has a segment starting with `.`, a hidden path (`.git/` is a repository's)".to_string()),
        (".vellum-manifest/", "expected an alias to be a site path such as `people/name/`, found `.vellum-manifest/`, which has a segment starting with `.`, a hidden path (`.git/` is a repository's)".to_string()),
        ("x\\r\\ny/", "expected an alias to be a site path such as `people/name/`, found `x\\r\\ny/`, which has a control character".to_string()),
        (&format!("{}/", "a".repeat(300)), format!("expected an alias to be a site path such as `people/name/`, found `{}…`, which has a segment longer than 255 bytes, which no file system takes as a name", "a".repeat(120))),
    ];
    write(site.path(), "static/search/index.json", b"{}");
    let (report, _) = build_memory(site.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        ["static/search/index.json: error: expected a path of its own, found /search/index.json in the folder of the search index; move it out of search/"]
    );
    std::fs::remove_dir_all(site.path().join("static")).unwrap();
    for (alias, expected) in cases {
        write(
            site.path(),
            "content/authors/olumide-adeyemi.md",
            format!("+++\n\naliases = [\"{alias}\"]\n+++\n").as_bytes(),
        );
        let (report, _) = build_memory(site.path(), None);
        assert_eq!(
            messages(&report, Severity::Error),
            [format!(
                "content/authors/olumide-adeyemi.md:3: error: {expected}"
            )],
            "{alias}"
        );
    }
}

/// Findings: a record whose title line is missing was accepted (the
/// abstract became a 1,275-character title and a duplicate paper); a title
/// of only `}` gave an empty `<h1>` and empty link text.
fn a_missing_or_empty_title_is_an_error_at_its_line() {
    let site = bundled_copy();
    let root = site.path();
    let original = std::fs::read_to_string(root.join("seeds/000_a6125076a0f68246.txt")).unwrap();
    let title = "Optimizing Distributed Deployment of Mixture-of-Experts Model Inference in Serverless Computing\n\n";
    assert_eq!(original.lines().nth(10), Some(title.trim_end()));
    // Another page of Chuan Wu's listing, whose first record lost its title line.
    write(
        root,
        "seeds/001_copy.txt",
        original.replacen(title, "", 1).as_bytes(),
    );
    let (report, _) = build_memory(root, None);
    assert_eq!(
        messages(&report, Severity::Error),
        ["seeds/001_copy.txt:11: error: expected a title after the record marker at line 9, found \
          the abstract of `Optimizing Distributed Deployment of Mixture-of-Experts Model Inference \
          in Serverless Computing` (seeds/000_a6125076a0f68246.txt:9); add the title line above it"]
    );
    let listing = String::from_utf8(olumide_listing())
        .unwrap()
        .replace("Routing Tokens in Mixture-of-Experts", "}");
    let dir = temp_site(&[("olumide.txt", listing.as_bytes())], "");
    let (report, _) = build_memory(dir.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        ["seeds/olumide.txt:11: error: expected a title after the record marker, found `}`, which shows as nothing"]
    );
    // A title that reads like an abstract is a warning at its line.
    let long = "We study routing. ".repeat(20);
    let listing = String::from_utf8(olumide_listing())
        .unwrap()
        .replace("Routing Tokens in Mixture-of-Experts", long.trim_end());
    let dir = temp_site(&[("olumide.txt", listing.as_bytes())], "");
    let (report, _) = build_memory(dir.path(), None);
    assert_eq!(
        messages(&report, Severity::Warning),
        ["seeds/olumide.txt:11: warning: expected a title, found 359 characters in 20 sentences, \
          which reads like an abstract; check that the title line is not missing"]
    );
}

/// Finding: `{{ papers(limit=2) }}` inside a paragraph was printed as text.
/// In backticks or a fenced code block it is code, shown as written.
fn a_shortcode_inside_a_paragraph_is_an_error_at_its_line() {
    let site = olumide_site();
    let page = "+++\ntitle = \"P\"\n+++\n\nSee {{ papers(limit=2) }} here.\n\n`{{ papers(limit=1) }}` is code.\n\n```\n{{ papers(limit=3) }}\n```\n\n{{ papers(limit=2) }}\n";
    write(site.path(), "content/p.md", page.as_bytes());
    let (report, _) = build_memory(site.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        ["content/p.md:5: error: expected a `{{ papers(...) }}` shortcode alone on its line, found \
          it inside text: `See {{ papers(limit=2) }} here.`; put it on a line of its own (or in \
          backticks to show it as code)"]
    );
    write(
        site.path(),
        "content/p.md",
        page.replace("See {{ papers(limit=2) }} here.", "See below.")
            .as_bytes(),
    );
    let (report, site_out) = build_memory(site.path(), None);
    assert!(!report.failed());
    let html = String::from_utf8_lossy(&site_out["p/index.html"]);
    assert!(
        html.contains("<code>{{ papers(limit=1) }}</code>"),
        "{html}"
    );
    assert!(
        html.contains("<pre><code>{{ papers(limit=3) }}\n</code></pre>"),
        "{html}"
    );
    assert_eq!(
        html.matches(&format!("href=\"/papers/{PAPER}/\"")).count(),
        1,
        "{html}"
    );
}

/// Stands for `\\u0008` in [`junk`].
const TOML_ESCAPE: char = '\u{e000}';

/// `text` as a TOML basic string's content: `\\` and `"` escaped, each
/// [`TOML_ESCAPE`] a `\\u0008` escape, line breaks as spaces.
fn toml_string(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace(['\n', '\r'], " ")
        .replace(TOML_ESCAPE, "\\u0008")
}

/// Pieces of hostile text: characters no page may hold, raw and as TOML
/// escapes, markup, script links, unbalanced LaTeX, any character.
fn junk() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\u{0}".to_string()),
        Just("\u{8}".to_string()),
        Just("\u{1b}".to_string()),
        Just("\u{85}".to_string()),
        Just("\u{fffe}".to_string()),
        Just("\u{ffff}".to_string()),
        Just("\\u0008".to_string()),
        Just("<script>".to_string()),
        Just("]]>".to_string()),
        Just("&amp;".to_string()),
        Just("$x$".to_string()),
        Just("$\\text{".to_string()),
        Just("\\href{javascript:alert(1)}{x}".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("\"".to_string()),
        "\\PC{1,6}",
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(piece, 1..12).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// A build of hostile text in a listing's title, abstract and author,
    /// a page's front matter and body, and `site.toml`'s title never
    /// panics, and when it succeeds every XML file is well-formed and no
    /// page holds a character HTML forbids.
    fn fuzzed_builds_never_panic_and_write_well_formed_xml(
        title in junk(),
        abstract_text in junk(),
        author in junk(),
        page_title in junk(),
        body in junk(),
        site_title in junk(),
    ) {
        let [title, abstract_text, author, body] =
            [title, abstract_text, author, body].map(|t| t.replace(TOML_ESCAPE, "\\u0008"));
        let listing = String::from_utf8(olumide_listing())
            .unwrap()
            .replace("Routing Tokens in Mixture-of-Experts", &format!("Routing {title}"))
            .replace("First paragraph about routing.", &abstract_text)
            .replace("Olumide Adeyemi", &format!("Olumide {}", author.replace(['\n', '\r'], " ")));
        let dir = temp_site(&[("olumide.txt", listing.as_bytes())], "");
        write(
            dir.path(),
            "site.toml",
            format!("title = \"{}\"\nbase_url = \"https://example.org/\"\n", toml_string(&site_title)).as_bytes(),
        );
        write(
            dir.path(),
            "content/p.md",
            format!("+++\ntitle = \"{}\"\n+++\n\n{body}\n", toml_string(&page_title)).as_bytes(),
        );
        let (report, site) = build_memory(dir.path(), None);
        // The pieces are all accepted, with warnings: a failed build would
        // check nothing.
        prop_assert!(!report.failed(), "{:?}", messages(&report, Severity::Error));
        for (path, bytes) in &site {
            if path.ends_with(".xml") {
                assert_well_formed_xml(path, bytes);
            } else if path.ends_with(".html") {
                let text = String::from_utf8_lossy(bytes);
                prop_assert!(!text.chars().any(vellum::input::chars::is_forbidden), "{}", path);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    /// `site.toml` and Markdown pages of any bytes never panic the parsers.
    fn config_and_page_parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300), text in "\\PC{0,200}") {
        for input in [bytes.clone(), text.clone().into_bytes(), format!("+++\n{text}\n+++\n{text}").into_bytes()] {
            let file = ("p.md".to_string(), std::path::PathBuf::from("content/p.md"), input.clone());
            let diagnostics = vellum::diagnostics::Diagnostics::new();
            let _ = vellum::input::content::load(&[file], false, &diagnostics);
            if let Ok(text) = std::str::from_utf8(&input) {
                let _ = vellum::input::config::Config::parse(text, std::path::Path::new("site.toml"));
            }
        }
    }
}

pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(safety:
        script_links_in_overrides_and_profiles_are_errors_at_their_line,
        script_links_in_listing_text_are_text_with_a_warning,
        identifiers_and_urls_are_checked_at_their_key_line_however_written,
        files_vellum_did_not_write_in_public_are_kept,
        an_output_dir_without_a_manifest_is_adopted_and_nothing_in_it_removed,
        a_file_of_the_users_where_the_site_now_writes_one_is_an_error,
        a_staging_directory_vellum_did_not_make_is_never_removed,
        a_symlinked_output_directory_keeps_its_link,
        a_second_build_of_the_same_output_at_once_is_refused,
        an_output_dir_stepping_back_out_of_a_missing_folder_is_refused,
        nothing_in_the_staging_directory_is_written_through_a_link,
        a_users_file_named_in_other_than_utf8_stops_the_build_and_is_kept,
        a_link_at_a_pages_path_is_replaced_by_the_page,
        a_file_name_with_a_control_character_is_skipped_with_a_warning,
        a_build_killed_at_any_moment_leaves_the_old_site_or_the_new,
        files_written_into_public_during_a_build_are_kept,
        control_characters_in_a_listing_are_replaced_with_a_warning_and_feeds_parse,
        a_missing_site_toml_is_an_error_that_names_zolas_config_toml,
        invalid_utf8_is_reported_at_the_line_of_the_first_bad_byte,
        lone_carriage_returns_end_lines,
        dot_files_in_static_are_copied_and_symlinks_followed_inside_the_site_or_reported,
        worst_shapes_of_title_build_in_bounded_time,
        an_alias_on_a_generated_file_is_an_error_at_its_line_naming_the_file,
        a_missing_or_empty_title_is_an_error_at_its_line,
        a_shortcode_inside_a_paragraph_is_an_error_at_its_line,
        fuzzed_builds_never_panic_and_write_well_formed_xml,
        config_and_page_parsers_never_panic,
    )
}
