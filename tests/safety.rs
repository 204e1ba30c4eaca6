//! Issue 21's findings, one regression test each: script links refused,
//! files Vellum did not write kept, well-formed feeds for any input,
//! bounded time, errors at their `file:line`, no silent guesses.

use crate::common::*;
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

fn script_links_in_listing_text_are_text_with_a_warning() {
    let listing = String::from_utf8(olumide_listing()).unwrap().replace(
        "Routing Tokens in Mixture-of-Experts",
        r"Routing Tokens \href{javascript:alert(1)}{here}",
    );
    let dir = temp_site(&[("olumide.txt", listing.as_bytes())], "");
    let (report, site) = build_memory(dir.path(), None);
    let warnings = messages(&report, Severity::Warning);
    assert_eq!(
        warnings,
        ["seeds/olumide.txt:9: warning: expected an http, https or mailto URL in `\\href`, found \
          `javascript:alert(1)` (a script URL, which runs code when clicked), so it is not a link; \
          it is shown as written"]
    );
    let page =
        String::from_utf8_lossy(&site["papers/routing-tokens-here-javascript-alert-1/index.html"]);
    assert!(
        page.contains("Routing Tokens here (javascript:alert(1))"),
        "{page}"
    );
    assert!(!page.contains("href=\"javascript"));
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
/// an `index.html` and a `sitemap.xml` lost every other file.
fn an_output_dir_without_a_manifest_is_adopted_and_nothing_in_it_removed() {
    let site = olumide_site();
    let root = site.path();
    let x = root
        .parent()
        .unwrap()
        .join(format!("{}-x", root.file_name().unwrap().to_str().unwrap()));
    let _remove = TempDirGuard(x.clone());
    write(&x, "index.html", b"old home");
    write(&x, "sitemap.xml", b"old sitemap");
    write(&x, "docs/thesis.tex", b"\\documentclass{book}");
    let stdout = build_ok(root, &["--output-dir", x.to_str().unwrap()]);
    assert!(stdout.contains(", 0 removed"), "{stdout}");
    assert_eq!(
        std::fs::read(x.join("docs/thesis.tex")).unwrap(),
        b"\\documentclass{book}"
    );
    assert!(std::fs::read_to_string(x.join("index.html"))
        .unwrap()
        .contains("<html"));
    build_ok(root, &["--output-dir", x.to_str().unwrap()]);
    assert!(x.join("docs/thesis.tex").is_file());
    // A non-empty directory with neither a manifest nor a previous build is refused.
    let notes = root.join("notes");
    write(&notes, "a.txt", b"mine");
    let out = vellum(
        &[
            "build",
            "--root",
            root.to_str().unwrap(),
            "--output-dir",
            "notes",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is not empty and holds no previous build (no .vellum-manifest, index.html and sitemap.xml)"), "{stderr}");
    assert_eq!(std::fs::read(notes.join("a.txt")).unwrap(), b"mine");
}

/// Removes a directory outside the test's temporary one when dropped.
struct TempDirGuard(std::path::PathBuf);

impl Drop for TempDirGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Finding (c): a directory `.<out>.staging` beside the output was removed
/// recursively, even when the build was then refused.
fn a_staging_directory_vellum_did_not_make_is_never_removed() {
    let site = olumide_site();
    let root = site.path();
    write(root, ".public.staging/keep.txt", b"mine");
    build_ok(root, &[]);
    assert!(root.join(".public.staging/keep.txt").is_file());
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
    // A killed build's staging directory (marked) is removed by the next.
    std::fs::remove_dir_all(root.join(".public.vellum-staging")).unwrap();
    write(root, ".public.vellum-staging/VELLUM-STAGING", b"");
    write(root, ".public.vellum-staging/site/index.html", b"half");
    build_ok(root, &[]);
    assert!(!root.join(".public.vellum-staging").exists());
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
    assert!(!root.join("www/.site.vellum-staging").exists());
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

/// Finding: `kill -9` while a build moved its files into `public/` left
/// the new home page beside old pages. Builds of 800 papers alternating
/// between two site titles are killed at ten moments spread from a tenth of
/// the last build's time to past its end;
/// each time `public/` is the whole old site or the whole new one, the
/// user's `CNAME` in both, and the next build cleans the staging directory.
fn a_build_killed_at_any_moment_leaves_the_old_site_or_the_new() {
    let work = tempdir();
    let corpus = work.path().join("corpus");
    let made = std::process::Command::new("python3")
        .arg(project().join("bench/gen-corpus"))
        .args(["--papers", "800", "--authors", "160", "--out"])
        .arg(&corpus)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let site = temp_site(&[], "");
    copy_dir(&corpus.join("listings"), &site.path().join("seeds"));
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
        assert!(!root.join(".public.vellum-staging").exists());
    }
    eprintln!(
        "killed builds: {} left the site as it was, {} had published",
        outcomes[0], outcomes[1]
    );
}

pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(safety:
        script_links_in_overrides_and_profiles_are_errors_at_their_line,
        script_links_in_listing_text_are_text_with_a_warning,
        files_vellum_did_not_write_in_public_are_kept,
        an_output_dir_without_a_manifest_is_adopted_and_nothing_in_it_removed,
        a_staging_directory_vellum_did_not_make_is_never_removed,
        a_symlinked_output_directory_keeps_its_link,
        a_build_killed_at_any_moment_leaves_the_old_site_or_the_new,
    )
}
