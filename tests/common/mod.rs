//! Helpers shared by the integration tests: temporary sites, running the
//! binary, building in memory and resolving links.
#![allow(dead_code, reason = "each test file uses a different subset")]

pub mod arxiv_server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use vellum::build::{build, BuildOptions, BuildReport};
use vellum::check::LinkTarget;
use vellum::output::{MemorySink, SiteOutput};

/// The project directory (holds the bundled site).
pub fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary directory, removed with everything in it when dropped. The
/// tests' own rather than the `tempfile` crate's: that one turns on `std`
/// features of crates Vellum shares with it, so `cargo test --release`
/// would compile those and their dependents again.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl TempDir {
    /// Takes `path` (made by the test elsewhere) to remove when dropped.
    pub fn owning(path: PathBuf) -> TempDir {
        TempDir(path)
    }
}

/// A synthetic corpus from `bench/gen-corpus` in a new temporary
/// directory: `listings/` and `manifest.json` under `corpus/`.
pub fn gen_corpus(papers: usize, authors: usize) -> (TempDir, PathBuf) {
    let work = tempdir();
    let corpus = work.path().join("corpus");
    let made = Command::new("python3")
        .arg(project().join("bench/gen-corpus"))
        .args([
            "--papers",
            &papers.to_string(),
            "--authors",
            &authors.to_string(),
            "--out",
        ])
        .arg(&corpus)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    (work, corpus)
}

/// A new, empty directory under the system's temporary directory.
pub fn tempdir() -> TempDir {
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("vellum-test-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// A temporary site: the default theme, a `site.toml` with `extra` lines,
/// and the given `seeds/` files.
pub fn temp_site(seeds: &[(&str, &[u8])], extra_config: &str) -> TempDir {
    let dir = tempdir();
    copy_dir(&project().join("themes"), &dir.path().join("themes"));
    std::fs::write(
        dir.path().join("site.toml"),
        format!("title = \"Test\"\nbase_url = \"https://example.org/\"\n{extra_config}"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("seeds")).unwrap();
    for (name, bytes) in seeds {
        write(dir.path(), &format!("seeds/{name}"), bytes);
    }
    dir
}

/// The one-record fixture listing of Olumide Adeyemi (three abstract
/// paragraphs, three categories).
pub fn olumide_listing() -> Vec<u8> {
    std::fs::read(project().join("tests/fixtures/listings/valid/multi-paragraph/olumide.txt"))
        .unwrap()
}

/// A temporary site holding only [`olumide_listing`] as `seeds/olumide.txt`.
pub fn olumide_site() -> TempDir {
    temp_site(&[("olumide.txt", &olumide_listing())], "")
}

/// Writes `bytes` to `root/relative`, creating directories.
pub fn write(root: &Path, relative: &str, bytes: &[u8]) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Copies a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Copies the bundled site (site.toml, seeds, content, themes) into a temp dir.
pub fn bundled_copy() -> TempDir {
    let dir = tempdir();
    for d in ["seeds", "content", "themes"] {
        copy_dir(&project().join(d), &dir.path().join(d));
    }
    std::fs::copy(project().join("site.toml"), dir.path().join("site.toml")).unwrap();
    dir
}

/// A built site's files as they read: output path → bytes.
pub type Pages = rustc_hash::FxHashMap<std::sync::Arc<str>, Vec<u8>>;

/// The files of `site`, decompressed.
pub fn pages(site: &SiteOutput) -> Pages {
    site.iter()
        .map(|(path, file)| (path.clone(), file.bytes().expect("a kept file")))
        .collect()
}

/// Builds `root` in memory.
pub fn build_memory(root: &Path, base_url: Option<&str>) -> (BuildReport, Pages) {
    let mut sink = MemorySink::default();
    let options = BuildOptions {
        root: root.to_path_buf(),
        base_url: base_url.map(str::to_string),
        ..BuildOptions::default()
    };
    let report = build(&options, &mut sink);
    (report, pages(&sink.site))
}

/// The text of the built file `file` of `site`; panics naming it when it
/// is missing.
pub fn text<'a>(site: &'a Pages, file: &str) -> &'a str {
    std::str::from_utf8(site.get(file).unwrap_or_else(|| panic!("{file} missing"))).unwrap()
}

/// The report's diagnostics of `severity`, each as printed
/// (`file:line: error: …`).
pub fn messages(report: &BuildReport, severity: vellum::diagnostics::Severity) -> Vec<String> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == severity)
        .map(|d| d.to_string())
        .collect()
}

/// Runs the `vellum` binary with `args` and extra environment variables.
pub fn vellum(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vellum"));
    command.args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

/// The error lines of a command's stderr (`file:line: error: …`), in order.
pub fn error_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(": error: ")).collect()
}

/// Every file under `dir`: relative path → bytes.
pub fn read_tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// Every `href` and `src` in an HTML page.
pub fn links(html: &str) -> Vec<String> {
    let doc = scraper::Html::parse_document(html);
    let selector = scraper::Selector::parse("[href], [src]").unwrap();
    doc.select(&selector)
        .flat_map(|e| {
            ["href", "src"]
                .into_iter()
                .filter_map(|a| e.value().attr(a).map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Resolves an internal link found on the page at `page_file` to an output
/// file: `Ok(Some(file))` when it exists, `Ok(None)` for an external link,
/// `Err(why)` when it points nowhere. `base` is the base URL with its slash.
pub fn resolve(
    site: &Pages,
    base: &str,
    page_file: &str,
    link: &str,
) -> Result<Option<String>, String> {
    match vellum::check::resolve_link(base, page_file, link) {
        LinkTarget::External => Ok(None),
        LinkTarget::OutsideBase => Err(format!("{link} is outside the base URL {base}")),
        LinkTarget::Internal { file, .. } if site.contains_key(file.as_str()) => Ok(Some(file)),
        LinkTarget::Internal { file, .. } => Err(format!("{link} → {file} does not exist")),
    }
}

/// The tools some tests need beyond `cargo test`'s build, each as what is
/// missing (`None`: all present). The harness (`tests/main.rs`) checks them
/// before the run: outside CI a test whose tool is missing is skipped with
/// the reason in the summary; in CI (`CI` set) it fails. `.ci/run`
/// installs them all.
pub mod tools {
    use super::project;
    use std::path::{Path, PathBuf};

    /// `what` when `present` is false.
    fn missing(present: bool, what: &str) -> Option<String> {
        (!present).then(|| what.to_string())
    }

    /// The Nu Html Checker's jar, from `tests/browser` (`npm ci` there).
    pub fn vnu_jar() -> PathBuf {
        project().join("tests/browser/node_modules/vnu-jar/build/dist/vnu.jar")
    }

    /// Java and the Nu Html Checker.
    pub fn vnu() -> Option<String> {
        let java = std::process::Command::new("java").arg("-version").output();
        missing(
            java.is_ok() && vnu_jar().exists(),
            "java or vnu.jar (npm ci in tests/browser)",
        )
    }

    /// Node.js.
    pub fn node() -> Option<String> {
        missing(super::have_node(), "node")
    }

    /// Node.js, playwright-core (`npm ci` in `tests/browser`) and Debian's chromium.
    pub fn chromium() -> Option<String> {
        let playwright = project().join("tests/browser/node_modules/playwright-core");
        missing(
            super::have_node() && playwright.exists() && Path::new("/usr/bin/chromium").exists(),
            "node, playwright-core (npm ci in tests/browser) or /usr/bin/chromium",
        )
    }

    /// Node.js and citeproc-js (`npm ci` in `tests/cite`).
    pub fn citeproc() -> Option<String> {
        let citeproc = project().join("tests/cite/node_modules/citeproc");
        missing(
            super::have_node() && citeproc.exists(),
            "node or citeproc (npm ci in tests/cite)",
        )
    }
}

/// Builds the site at `dir` with the binary into `dir/public`.
pub fn build_to_disk(dir: &Path) -> PathBuf {
    let out = vellum(&["build", "--root", dir.to_str().unwrap(), "--quiet"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("public")
}

/// Runs `node` with `args` in the project directory and `env`; fails the
/// test with node's output unless it succeeds; returns its stdout.
pub fn node(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> String {
    let mut command = Command::new("node");
    command.args(args).current_dir(project());
    for (k, v) in env {
        command.env(k, v);
    }
    let run = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

/// Whether `node` runs (asked once per test run).
pub fn have_node() -> bool {
    static NODE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *NODE.get_or_init(|| {
        Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// A listing file of `author` holding `records`: (title, year, abstract,
/// category line).
pub fn listing(author: &str, records: &[(&str, u16, &str, &str)]) -> Vec<u8> {
    let mut out = format!(
        "{author}\n\nPublications and source records attributed to {author}.\n\nAt least {} records · Page 1\n\nLinked to original sources\n",
        records.len()
    );
    for (title, year, abstract_text, categories) in records {
        out.push_str(&format!(
            "\narXiv{year}\n\n{title}\n\n{abstract_text}\n\n{categories}\n"
        ));
    }
    out.into_bytes()
}
