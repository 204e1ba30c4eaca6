//! The disk sink: builds the whole new site in a staging tree beside the
//! output directory, then puts it in place with one atomic exchange, so a
//! build killed at any moment leaves the whole old site or the whole new
//! one.
//!
//! - **Ownership.** The output holds a manifest, [`MANIFEST`]: the sorted
//!   paths of the files the last build wrote. A build replaces or removes
//!   only those. Everything else in the output (`.git/`, `CNAME`, a file a
//!   deploy script added) is carried into the new tree as a hard link, so
//!   it is kept, with its bytes and modification time. An output directory
//!   without a manifest (one built before manifests, or a user's folder that
//!   holds a previous build: an `index.html` and a `sitemap.xml`) is
//!   adopted: nothing in it is removed, and the manifest starts with this
//!   build. Any other non-empty directory is refused.
//! - **Staging.** The staging directory `.<name>.vellum-staging/` beside
//!   the output (the same file system) holds a marker file, [`MARKER`]:
//!   only a directory with that marker is ever changed or removed. Each
//!   changed file is written to its `next/` as it is rendered; a build that
//!   changes nothing leaves the output as it is.
//! - **The spare tree.** `site/` in the staging directory is the site of
//!   the build before last (the tree the last exchange took out), its
//!   files hard links of the output's where they did not change. At
//!   commit it is made the new site: what it holds that the new site does
//!   not (the same path with another inode) goes, the changed files are
//!   moved in from `next/`, and every other file of the output is
//!   hard-linked in (keeping its modification time). A rebuild so reads
//!   two trees' folders and touches only what changed since the build
//!   before last, instead of linking and removing every file.
//! - **Publishing.** On Linux the spare tree and the output are swapped by
//!   `renameat2(RENAME_EXCHANGE)`, one atomic step; the old site is the
//!   next build's spare. What the user wrote into the output while the
//!   build published (after its survey) only the old site holds: right
//!   after the exchange it is moved into a new numbered folder of the
//!   staging directory's `kept/` (which Vellum never changes or removes),
//!   at its path in the output, and each is named in a warning with the
//!   command that moves it back. A note of the exchange, `EXCHANGING`,
//!   lists the user's files the new site carried, so the next build also
//!   keeps, never removes, what reached the old site later (a build killed
//!   right after its exchange, a program working inside the old folder).
//!   Where that is not possible (other systems, a file
//!   system without it, an output directory that is a mount point) the
//!   changed files are moved into the output one by one from a staging
//!   directory inside it (each file replaced atomically, the site as a
//!   whole not), after a manifest listing both builds' files, so a build
//!   killed then leaves nothing the next one takes for the user's. A
//!   symlinked output directory is resolved first: the link stays and its
//!   target is published.

use crate::diagnostics::Diagnostic;
use crate::output::{lock, Sink, StreamedFile, WriteStats};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The manifest's file name in the output directory. Its first line is
/// [`MANIFEST_HEADER`]; each further line is one path the build wrote,
/// sorted. Not a page: the sitemap, `check` and search never see it.
pub const MANIFEST: &str = ".vellum-manifest";

/// The first line of a manifest; a file without it is not one.
pub const MANIFEST_HEADER: &str =
    "# Written by Vellum: the files of its last build here. Only these are ever replaced or removed.";

/// The marker file in a staging directory: only a directory holding it is
/// ever removed (or an empty one).
pub const MARKER: &str = "VELLUM-STAGING";

/// The note of the last exchange in a staging directory: the files of
/// the user's that the new site carried, each with its inode as the old
/// site (now the spare tree) holds it, after [`NOTE_HEADER`]. It lets the
/// next build tell those from a file written into the old site after the
/// build looked ([`Staging::make_spare`]), and goes before that build
/// changes the spare tree.
const EXCHANGING: &str = "EXCHANGING";

/// The first line of [`EXCHANGING`]; then, for each file, its inode, a
/// tab, its path and a NUL.
const NOTE_HEADER: &str =
    "# The user's files the last exchange carried into the output: inode, tab, path, NUL.";

/// The folder of a staging directory that keeps what was written into the
/// output during a build, one numbered folder a build (`kept/1`, …), each
/// file at its path in the output. Vellum never changes or removes it.
const KEPT: &str = "kept";

/// How many kept files a build names one by one; a last warning counts
/// the rest.
const KEPT_NAMED: usize = 10;

/// The files every build writes: an output directory without a manifest
/// that holds them all is an earlier build, adopted; a user's own site is
/// not taken for one just for holding an `index.html` and a sitemap.
const PREVIOUS_BUILD: [&str; 4] = [
    "index.html",
    "sitemap.xml",
    "authors/index.html",
    "years/index.html",
];

fn with_path(path: &Path, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

fn hash(path: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(path.as_bytes())
}

/// How the staged tree reaches the output directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Publish {
    /// One atomic exchange of the spare tree and the output (or a rename
    /// when the output does not exist yet).
    Exchange,
    /// Changed files moved in one by one: an output that is a mount point,
    /// or a system without the exchange.
    InPlace,
}

/// One build in progress: the output resolved, what the last manifest
/// lists, and what this build put.
#[derive(Debug)]
struct Staging {
    /// The output directory, symlinks resolved.
    out: PathBuf,
    /// `.<name>.vellum-staging`, holding [`MARKER`], `next/` and `site/`.
    dir: PathBuf,
    /// `next/`: where the changed files are written.
    next: PathBuf,
    /// `site/`: the spare tree, made the new site at commit.
    spare: PathBuf,
    publish: Publish,
    /// XXH3-64 hashes of the paths the last manifest lists (8 bytes a path:
    /// at 1,000,000 papers the site has 1.8 million files); a file of the
    /// user's is taken for the last build's only if its path's hash equals
    /// one of those.
    owned: FxHashSet<u64>,
    /// The output had no manifest but held an earlier build, whose files
    /// this build may replace.
    adopted: bool,
    /// The marker, locked while this build runs.
    _lock: std::fs::File,
    /// Each path put, and whether its bytes changed.
    paths: Mutex<Vec<(Box<str>, bool)>>,
    bytes: AtomicU64,
}

/// What [`Staging::survey`] found in the output beside the site's files.
#[derive(Debug, Default)]
struct Foreign {
    /// Files and symlinks of the user's, relative to the output.
    files: Vec<String>,
    /// Empty folders of the user's.
    empty_folders: Vec<String>,
    /// Files the last build wrote that this one does not, which go.
    stale: Vec<PathBuf>,
    /// The inode of each file the new site keeps from the output (the
    /// user's and the site's), by its path's hash.
    inodes: FxHashMap<u64, u64>,
    /// Every folder of the output, relative (`""` is the output itself):
    /// those [`Staging::late_writes`] reads after the exchange.
    all_folders: Vec<String>,
}

/// What [`Staging::make_site`] leaves to do.
enum Made {
    /// Nothing: the output is the new site.
    Done(WriteStats),
    /// The exchange: the spare tree is the new site ([`Staging::swap_in`]).
    Ready(Box<Ready>),
}

/// The new site made in the spare tree, before the exchange.
struct Ready {
    stats: WriteStats,
    foreign: Foreign,
    paths: Vec<(Box<str>, bool)>,
    manifest: String,
    /// What was kept from the spare tree while it was made.
    kept: Vec<Kept>,
}

/// A file (or folder) written into the output during a build, which only
/// the old site held: kept out of the site ([`Staging::keep`]).
#[derive(Debug)]
struct Kept {
    /// Its path in the output.
    relative: PathBuf,
    /// Whether it is a folder.
    folder: bool,
    /// Where it is now.
    at: PathBuf,
    /// Why it could not be moved (then `at` is where it was).
    error: Option<io::Error>,
}

/// The spare tree's entries sorted by fate ([`Staging::sort_spare`]).
#[derive(Default)]
struct SpareFates<'e> {
    /// The hashes of the files that stay: the output's, unchanged.
    stay: FxHashSet<u64>,
    /// The late writes, relative to the spare, in path order.
    late: Vec<PathBuf>,
    /// The files to remove.
    doomed_files: Vec<&'e Path>,
    /// The folders to remove, once emptied.
    doomed_folders: Vec<&'e Path>,
}

/// Writes to a directory on disk through a staging tree beside it.
#[derive(Debug)]
pub struct DiskSink {
    dir: PathBuf,
    staging: Option<Staging>,
}

impl Foreign {
    /// The folders holding the user's files and empty folders, and those
    /// empty folders, sorted, each once.
    fn folders(&self) -> Vec<&str> {
        let mut all: Vec<&str> = self
            .files
            .iter()
            .chain(&self.empty_folders)
            .flat_map(|path| path.match_indices('/').map(|(at, _)| &path[..at]))
            .chain(self.empty_folders.iter().map(String::as_str))
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

impl DiskSink {
    /// A sink for the output directory `dir`, created on the first commit.
    pub fn new(dir: impl Into<PathBuf>) -> DiskSink {
        DiskSink {
            dir: dir.into(),
            staging: None,
        }
    }

    fn staging(&self) -> io::Result<&Staging> {
        self.staging
            .as_ref()
            .ok_or_else(|| io::Error::other("the disk sink was not begun"))
    }
}

fn refuse(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{}: {why}", path.display()),
    )
}

/// The staging directory beside `out` (resolved): `.<name>.vellum-staging`.
fn staging_dir(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or("public".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{name}.vellum-staging"))
}

/// Refuses a staging directory `dir` Vellum did not make: only a missing
/// one, an empty one (a build killed before it wrote its marker) or one
/// holding the marker as a plain file is taken.
fn check_staging(dir: &Path) -> io::Result<()> {
    let marked = || std::fs::symlink_metadata(dir.join(MARKER)).is_ok_and(|m| m.is_file());
    let empty = || std::fs::read_dir(dir).is_ok_and(|mut it| it.next().is_none());
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(with_path(dir, e)),
        Ok(meta) if meta.is_dir() && (marked() || empty()) => Ok(()),
        Ok(_) => Err(refuse(
            dir,
            &format!(
                "expected Vellum's staging directory (holding {MARKER}), found one Vellum did not \
                 make; move it away, Vellum never removes it"
            ),
        )),
    }
}

/// Empties the staging directory `dir` (its lock held) but for its marker
/// and, when `keep_spare`, the spare tree `site/` and [`KEPT`] (folders: a
/// link in their place goes), the note [`EXCHANGING`] and the
/// `.gitignore`: what a killed build left goes.
fn clear_staging(dir: &Path, keep_spare: bool) -> io::Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| with_path(dir, e))? {
        let entry = entry.map_err(|e| with_path(dir, e))?;
        let name = entry.file_name();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let ours = (name == "site" || name == KEPT) && is_dir;
        let kept =
            name == MARKER || (keep_spare && (ours || name == ".gitignore" || name == EXCHANGING));
        if !kept {
            remove_our_path(&entry.path())?;
        }
    }
    Ok(())
}

/// Removes `path` inside a marked staging directory: a file or link
/// itself, a folder with everything in it (links, not their targets).
fn remove_our_path(path: &Path) -> io::Result<()> {
    let removed = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => Err(e),
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
    };
    removed.map_err(|e| with_path(path, e))
}

/// The paths `dir`'s manifest lists, or `None` when it has none (or a
/// file of that name that is not a manifest).
fn manifest_text(dir: &Path) -> io::Result<Option<String>> {
    let path = dir.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::InvalidData => return Ok(None),
        Err(e) => return Err(with_path(&path, e)),
    };
    Ok(text
        .strip_prefix(MANIFEST_HEADER)
        .and_then(|rest| rest.strip_prefix('\n'))
        .map(str::to_owned))
}

/// The hashes of the paths `out`'s manifest lists, or `None` when it has
/// none.
fn read_manifest(out: &Path) -> io::Result<Option<FxHashSet<u64>>> {
    Ok(manifest_text(out)?.map(|text| text.lines().filter(|l| !l.is_empty()).map(hash).collect()))
}

/// The files the note of the last exchange at `path` lists ([`EXCHANGING`]):
/// their paths' hashes and inodes; `None` without a note.
fn read_note(path: &Path) -> io::Result<Option<FxHashMap<u64, u64>>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(with_path(path, e)),
    };
    let records = text.split_once('\n').map_or("", |(_, records)| records);
    Ok(Some(
        records
            .split('\0')
            .filter_map(|record| record.split_once('\t'))
            .filter_map(|(ino, path)| Some((hash(path), ino.parse().ok()?)))
            .collect(),
    ))
}

/// `path` quoted for a POSIX shell.
fn quoted(path: &Path) -> String {
    let text = path.display().to_string();
    if !text.chars().any(char::is_control) {
        return format!("'{}'", text.replace('\'', "'\\''"));
    }
    // A control character (a newline in a name) would be printed escaped
    // in the warning: ANSI-C quoting names it in printable characters
    // that the shell reads back as the name.
    let mut quoted = String::from("$'");
    for c in text.chars() {
        match c {
            '\\' | '\'' => quoted.extend(['\\', c]),
            c if c.is_control() => {
                let mut bytes = [0; 4];
                for byte in c.encode_utf8(&mut bytes).bytes() {
                    quoted.push_str(&format!("\\x{byte:02x}"));
                }
            }
            c => quoted.push(c),
        }
    }
    quoted.push('\'');
    quoted
}

/// Whether `out` is a mount point, where neither an exchange nor a
/// staging tree beside it can work: on Linux as `statx` says (which also
/// knows a bind mount of a folder of the same file system, as Docker's
/// `-v` makes), elsewhere when its device differs from its parent's.
fn is_mount_point(out: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        if let Ok(path) = CString::new(out.as_os_str().as_bytes()) {
            // SAFETY: a valid NUL-terminated path and a zeroed buffer of
            // the type statx fills.
            let mut buffer: libc::statx = unsafe { std::mem::zeroed() };
            let result = unsafe {
                libc::statx(
                    libc::AT_FDCWD,
                    path.as_ptr(),
                    0,
                    libc::STATX_BASIC_STATS,
                    &mut buffer,
                )
            };
            let known = buffer.stx_attributes_mask & libc::STATX_ATTR_MOUNT_ROOT as u64 != 0;
            if result == 0 && known {
                return buffer.stx_attributes & libc::STATX_ATTR_MOUNT_ROOT as u64 != 0;
            }
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let parent = out.parent().unwrap_or(Path::new("/"));
        match (std::fs::metadata(out), std::fs::metadata(parent)) {
            (Ok(a), Ok(b)) => a.dev() != b.dev(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = out;
        false
    }
}

impl Sink for DiskSink {
    /// Resolves the output directory, removes a killed build's staging
    /// directory, reads the manifest and makes a new staging tree.
    /// Refuses an output path that is a file, a non-empty directory with
    /// neither a manifest nor a previous build (`index.html` and
    /// `sitemap.xml`), and a directory named as the staging directory that
    /// Vellum did not make.
    fn begin(&mut self) -> io::Result<()> {
        self.abort();
        let given = &self.dir;
        let out = match std::fs::symlink_metadata(given) {
            Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(given)
                .map_err(|e| {
                    refuse(
                        given,
                        &format!("is a symlink to a directory that cannot be read ({e}); make its target"),
                    )
                })?,
            _ => given.clone(),
        };
        if out.exists() && !out.is_dir() {
            return Err(refuse(
                given,
                "is a file, not a directory; choose another output directory or remove it",
            ));
        }
        let publish = if !cfg!(target_os = "linux") || (out.exists() && is_mount_point(&out)) {
            Publish::InPlace
        } else {
            Publish::Exchange
        };
        let dir = match publish {
            Publish::Exchange => staging_dir(&out),
            Publish::InPlace => out.join(".vellum-staging"),
        };
        // A build writing this output holds the lock on its marker.
        let busy = || {
            refuse(
                given,
                "is being written by another vellum build (its staging directory is locked); wait for it to finish",
            )
        };
        check_staging(&dir)?;
        let (owned, adopted) = match read_manifest(&out)? {
            Some(owned) => (owned, false),
            None => {
                let non_empty = std::fs::read_dir(&out).is_ok_and(|mut it| it.next().is_some());
                let previous_build = PREVIOUS_BUILD.iter().all(|file| out.join(file).is_file());
                if non_empty && !previous_build {
                    return Err(refuse(
                        given,
                        &format!(
                            "is not empty and holds no previous build (no {MANIFEST}, and not all of {}); \
                             choose another output directory or empty it",
                            PREVIOUS_BUILD.join(", ")
                        ),
                    ));
                }
                (FxHashSet::default(), non_empty)
            }
        };
        // The marker first: a build killed at any moment leaves a staging
        // directory that is empty or marked. Its lock is taken before
        // anything in the directory changes and held until the build is
        // committed or aborted: a second build of the same output at the
        // same time is refused, not interleaved. An existing marker is
        // never written to (it might be linked to another file).
        std::fs::create_dir_all(&dir).map_err(|e| with_path(&dir, e))?;
        let marker = dir.join(MARKER);
        let mut options = std::fs::File::options();
        options.create(true).append(true);
        #[cfg(target_os = "linux")]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
        let mut lock = options.open(&marker).map_err(|e| with_path(&marker, e))?;
        if lock.try_lock().is_err() {
            return Err(busy());
        }
        if lock.metadata().is_ok_and(|m| m.len() == 0) {
            writeln!(
                lock,
                "Vellum's staging directory for {}: site/ is the build before last, as hard \
                 links, so a rebuild touches only what changed; kept/ holds what was written \
                 into the output during a build, which Vellum never removes. Remove the rest \
                 only between builds.",
                out.display()
            )
            .map_err(|e| with_path(&marker, e))?;
        }
        // Inside the output a spare tree would be published: never kept.
        let keep_spare = publish == Publish::Exchange;
        clear_staging(&dir, keep_spare)?;
        if keep_spare {
            // Git ignores the folder (the spare tree is no source to commit).
            write_new(&dir.join(".gitignore"), b"*\n")?;
        }
        let next = dir.join("next");
        std::fs::create_dir(&next).map_err(|e| with_path(&next, e))?;
        self.staging = Some(Staging {
            out,
            spare: dir.join("site"),
            dir,
            next,
            publish,
            owned,
            adopted,
            _lock: lock,
            paths: Mutex::default(),
            bytes: AtomicU64::new(0),
        });
        Ok(())
    }

    /// Stages the file, unless the output already holds the same bytes:
    /// then it is linked into the staging tree at commit, and only if the
    /// site changed at all.
    fn put(&self, path: &str, bytes: Vec<u8>) -> io::Result<()> {
        let staging = self.staging()?;
        let current = staging.out.join(path);
        // A link of the user's at the page's path is not the page.
        let unchanged = std::fs::symlink_metadata(&current)
            .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
            && std::fs::read(&current).is_ok_and(|old| old == bytes);
        if !unchanged {
            let staged = staging.next.join(path);
            make_parent(&staged)?;
            write_new(&staged, &bytes)?;
        }
        staging.record(path, bytes.len() as u64, !unchanged);
        Ok(())
    }

    /// Writes the file to the staging tree through a 1 MiB buffer, then
    /// drops it again if the output already holds the same bytes (as
    /// [`DiskSink::put`]).
    fn put_streamed(&self, path: &str, write: &mut StreamedFile) -> io::Result<()> {
        let staging = self.staging()?;
        let staged = staging.next.join(path);
        make_parent(&staged)?;
        remove_if_present(&staged)?;
        let file = std::fs::File::create_new(&staged).map_err(|e| with_path(&staged, e))?;
        let mut out = io::BufWriter::with_capacity(1 << 20, file);
        write(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| with_path(&staged, e))?;
        drop(out);
        let len = std::fs::metadata(&staged)
            .map_err(|e| with_path(&staged, e))?
            .len();
        let unchanged = same_bytes(&staged, &staging.out.join(path));
        if unchanged {
            remove_if_present(&staged)?;
        }
        staging.record(path, len, !unchanged);
        Ok(())
    }

    /// Makes the spare tree the new site, with the files the manifest does
    /// not list and the new manifest, and publishes it (see the module
    /// doc).
    fn commit(&mut self) -> io::Result<WriteStats> {
        let staging = self
            .staging
            .take()
            .ok_or_else(|| io::Error::other("the disk sink was not begun"))?;
        let result = staging.publish();
        staging.clean_up();
        result
    }

    /// Removes the files this build wrote; the output is not touched.
    fn abort(&mut self) {
        if let Some(staging) = self.staging.take() {
            staging.clean_up();
        }
    }
}

impl Staging {
    /// Removes `next/`, or the whole staging directory when it is inside
    /// the output; the spare tree stays for the next build.
    fn clean_up(&self) {
        let _ = match self.publish {
            Publish::Exchange => remove_our_path(&self.next),
            Publish::InPlace => remove_tree(&self.dir),
        };
    }

    fn record(&self, path: &str, len: u64, changed: bool) {
        self.bytes.fetch_add(len, Ordering::Relaxed);
        lock(&self.paths).push((path.into(), changed));
    }

    fn publish(&self) -> io::Result<WriteStats> {
        match self.make_site()? {
            Made::Done(stats) => Ok(stats),
            Made::Ready(ready) => self.swap_in(*ready),
        }
    }

    /// Publishing up to the exchange: every check (the survey), then the
    /// new site made in the spare tree with its manifest. Done when the
    /// output already is the site, when the changed files were moved in
    /// one by one, or when there was no output (the spare tree took its
    /// name); else ready for [`Staging::swap_in`].
    fn make_site(&self) -> io::Result<Made> {
        let mut paths = std::mem::take(&mut *lock(&self.paths));
        paths.par_sort_unstable();
        // The plan gives each file its own path; one put twice counts once.
        paths.dedup_by(|later, earlier| {
            let same = later.0 == earlier.0;
            earlier.1 |= same && later.1;
            same
        });
        let new: FxHashSet<u64> = paths.par_iter().map(|(p, _)| hash(p)).collect();
        let mut stats = WriteStats {
            files: paths.len(),
            written: paths.iter().filter(|(_, changed)| *changed).count(),
            removed: 0,
            bytes: self.bytes.load(Ordering::Relaxed),
            kept: Vec::new(),
        };
        let mut manifest = String::with_capacity(paths.len() * 48);
        manifest.push_str(MANIFEST_HEADER);
        manifest.push('\n');
        for (path, _) in &paths {
            manifest.push_str(path);
            manifest.push('\n');
        }
        // Every check before anything of the output changes, in both ways
        // of publishing.
        let folders: FxHashSet<u64> = paths
            .par_iter()
            .flat_map_iter(|(path, _)| path.match_indices('/').map(|(at, _)| hash(&path[..at])))
            .collect();
        let exists = self.out.exists();
        // The spare tree is listed while the output is surveyed: both are
        // walks of folders, most of a rebuild's publishing time.
        let (foreign, spare) = rayon::join(
            || match exists {
                true => self.survey(&new, &folders),
                false => Ok(Foreign::default()),
            },
            || self.list_spare(),
        );
        let (mut foreign, spare) = (foreign?, spare?);
        stats.removed = foreign.stale.len();
        let old_manifest = self.out.join(MANIFEST);
        let same_manifest = std::fs::read(&old_manifest).is_ok_and(|b| b == manifest.as_bytes());
        if exists && stats.written == 0 && stats.removed == 0 && same_manifest {
            // The output already is this site, file for file.
            return Ok(Made::Done(stats));
        }
        if self.publish == Publish::InPlace {
            self.in_place(&self.next, &paths, &foreign.stale, &manifest)?;
            return Ok(Made::Done(stats));
        }
        let (vanished, kept) = self.make_spare(&paths, &foreign, &folders, spare)?;
        // A file of the user's removed since the survey is not carried,
        // and so not the user's file the build put in the new site.
        for key in vanished {
            foreign.inodes.remove(&key);
        }
        let staged = self.spare.join(MANIFEST);
        if !(same_manifest && link(&old_manifest, &staged).is_ok()) {
            write_new(&staged, manifest.as_bytes())?;
        }
        self.carry_folders(&foreign, &folders)?;
        if !exists {
            std::fs::rename(&self.spare, &self.out).map_err(|e| with_path(&self.out, e))?;
            stats.kept = self.warnings(kept);
            return Ok(Made::Done(stats));
        }
        Ok(Made::Ready(Box::new(Ready {
            stats,
            foreign,
            paths,
            manifest,
            kept,
        })))
    }

    /// Notes the user's files the new site carries ([`EXCHANGING`]), swaps
    /// the spare tree and the output, then keeps what was written into the
    /// output after the survey began, which only the old site (now the
    /// spare) holds ([`Staging::late_writes`]): each is moved into a new
    /// folder of `kept/` and named in a warning. Where the system cannot
    /// swap, the changed files are moved in one by one.
    fn swap_in(&self, ready: Ready) -> io::Result<WriteStats> {
        let Ready {
            mut stats,
            foreign,
            paths,
            manifest,
            mut kept,
        } = ready;
        let note = self.dir.join(EXCHANGING);
        let mut text = format!("{NOTE_HEADER}\n");
        for path in &foreign.files {
            if let Some(ino) = foreign.inodes.get(&hash(path)) {
                text.push_str(&format!("{ino}\t{path}\0"));
            }
        }
        write_new(&note, text.as_bytes())?;
        match exchange(&self.spare, &self.out) {
            Ok(()) => {
                // The site is published: what cannot be moved stays where
                // it is, named, and the next build keeps it.
                let late = self.late_writes(&foreign);
                kept.extend(self.keep(late));
            }
            Err(e) => {
                remove_if_present(&note)?;
                if !exchange_unsupported(&e) {
                    return Err(with_path(&self.out, e));
                }
                self.in_place(&self.spare, &paths, &foreign.stale, &manifest)?;
            }
        }
        stats.kept = self.warnings(kept);
        Ok(stats)
    }

    /// After the exchange: what the old site (now the spare tree) holds
    /// that was written into it after the survey began, relative. A file
    /// is not when the last manifest lists it (the build's), when the
    /// survey saw it (by its inode: the new site carries it), or when the
    /// new site holds it (the same inode at its path); a folder is not
    /// when the survey saw it, and one it did not see is late whole.
    fn late_writes(&self, foreign: &Foreign) -> Vec<PathBuf> {
        let seen: FxHashSet<u64> = foreign.all_folders.iter().map(|f| hash(f)).collect();
        let known = |folder: &str, entry: &std::fs::DirEntry| {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                // Never a name Vellum writes, nor one the survey passes.
                return false;
            };
            if folder.is_empty() && name == MANIFEST {
                return true;
            }
            let relative = match folder.is_empty() {
                true => name.to_owned(),
                false => format!("{folder}/{name}"),
            };
            let key = hash(&relative);
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                return seen.contains(&key);
            }
            self.owned.contains(&key)
                || entry.metadata().is_ok_and(|meta| {
                    let ino = inode(&meta);
                    foreign.inodes.get(&key) == Some(&ino)
                        || std::fs::symlink_metadata(self.out.join(&relative))
                            .is_ok_and(|there| inode(&there) == ino)
                })
        };
        let mut late: Vec<PathBuf> = foreign
            .all_folders
            .par_iter()
            .flat_map_iter(|folder| {
                let entries = std::fs::read_dir(self.spare.join(folder)).into_iter();
                entries
                    .flatten()
                    .flatten()
                    .filter(|entry| !known(folder, entry))
                    .map(|entry| Path::new(folder).join(entry.file_name()))
                    .collect::<Vec<_>>()
            })
            .collect();
        late.par_sort_unstable();
        late
    }

    /// Moves each of `late` (relative to the spare tree) to the same path
    /// in a new folder of the staging directory's `kept/` (`kept/1`,
    /// `kept/2`, …), which Vellum never changes or removes. Returns where
    /// each is now; one that cannot be moved stays where it is, with the
    /// error.
    fn keep(&self, late: Vec<PathBuf>) -> Vec<Kept> {
        if late.is_empty() {
            return Vec::new();
        }
        let folder = self.kept_folder();
        late.into_iter()
            .map(|relative| {
                let from = self.spare.join(&relative);
                let folder_itself = std::fs::symlink_metadata(&from).is_ok_and(|m| m.is_dir());
                let moved = folder
                    .as_ref()
                    .map_err(|e| io::Error::new(e.kind(), e.to_string()));
                let moved = moved.and_then(|folder| {
                    let to = folder.join(&relative);
                    make_parent(&to)?;
                    std::fs::rename(&from, &to).map_err(|e| with_path(&to, e))?;
                    Ok(to)
                });
                let (at, error) = match moved {
                    Ok(to) => (to, None),
                    Err(e) => (from, Some(e)),
                };
                Kept {
                    relative,
                    folder: folder_itself,
                    at,
                    error,
                }
            })
            .collect()
    }

    /// A new folder in `kept/`: the first of `1`, `2`, … not there yet.
    fn kept_folder(&self) -> io::Result<PathBuf> {
        let kept = self.dir.join(KEPT);
        std::fs::create_dir_all(&kept).map_err(|e| with_path(&kept, e))?;
        for n in 1u32.. {
            let folder = kept.join(n.to_string());
            match std::fs::create_dir(&folder) {
                Ok(()) => return Ok(folder),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(with_path(&folder, e)),
            }
        }
        Err(io::Error::other(format!("{}: full", kept.display())))
    }

    /// The warning naming each of `kept` (at most [`KEPT_NAMED`], then how
    /// many more), with where it is and how to move it back.
    fn warnings(&self, mut kept: Vec<Kept>) -> Vec<Diagnostic> {
        kept.sort_unstable_by(|a, b| a.relative.cmp(&b.relative));
        let mut warnings: Vec<Diagnostic> = kept
            .iter()
            .take(KEPT_NAMED)
            .map(|kept| {
                let place = self.out.join(&kept.relative);
                let name = format!(
                    "{}{}",
                    kept.relative.display(),
                    if kept.folder { "/" } else { "" }
                );
                let fix = match std::fs::symlink_metadata(&place) {
                    Ok(_) => format!(
                        ", as the output has another {name} now: compare the two and keep one"
                    ),
                    Err(_) => format!(
                        ": move it back with mv {} {}",
                        quoted(&kept.at),
                        quoted(&place)
                    ),
                };
                Diagnostic::warning(
                    &place,
                    0,
                    format!(
                        "expected no file written into the output during the build, found {name}; \
                         it is kept at {}{fix}",
                        kept.at.display()
                    ),
                )
            })
            .collect();
        if kept.len() > KEPT_NAMED {
            warnings.push(Diagnostic::warning(
                &self.out,
                0,
                format!(
                    "expected no file written into the output during the build, found {} more; \
                     each is kept in a folder of {} at its path in the output: move them back as \
                     those above",
                    kept.len() - KEPT_NAMED,
                    self.dir.join(KEPT).display()
                ),
            ));
        }
        warnings
    }

    /// Makes the spare tree the new site (see the module doc): the spare
    /// of the last exchange reused ([`Staging::reuse_spare`]) when `spare`
    /// lists it ([`Staging::list_spare`]), else `next/` renamed to be it;
    /// then the output's files it lacks linked in
    /// ([`Staging::link_unchanged`]) and the user's empty folders made.
    /// The user's folders' owners, permissions and modification times come
    /// later ([`Staging::carry_folders`]). `folders` are the hashes of the
    /// site's folders. Returns the hashes of the user's files removed since
    /// the survey, and what was kept.
    fn make_spare(
        &self,
        paths: &[(Box<str>, bool)],
        foreign: &Foreign,
        folders: &FxHashSet<u64>,
        spare: Option<Vec<walkdir::DirEntry>>,
    ) -> io::Result<(Vec<u64>, Vec<Kept>)> {
        let (stay, kept) = match spare {
            Some(entries) => self.reuse_spare(paths, foreign, folders, &entries)?,
            None => {
                remove_if_present(&self.dir.join(EXCHANGING))?;
                std::fs::rename(&self.next, &self.spare).map_err(|e| with_path(&self.spare, e))?;
                (FxHashSet::default(), Vec::new())
            }
        };
        let vanished = self.link_unchanged(paths, foreign, &stay)?;
        for folder in &foreign.empty_folders {
            let target = self.spare.join(folder);
            std::fs::create_dir_all(&target).map_err(|e| with_path(&target, e))?;
        }
        Ok((vanished, kept))
    }

    /// Reuses the spare tree listed as `entries`: removes what it holds
    /// that the new site does not (a file whose inode is not the output's,
    /// or that changed; a folder the new site does not have), after moving
    /// the late writes ([`Staging::sort_spare`]) to `kept/`, never removing
    /// them; then moves the changed files in from `next/`. Returns the
    /// hashes of the files that stay and what was kept. Errors: a late
    /// write that could not be kept, and those of the file system.
    fn reuse_spare(
        &self,
        paths: &[(Box<str>, bool)],
        foreign: &Foreign,
        folders: &FxHashSet<u64>,
        entries: &[walkdir::DirEntry],
    ) -> io::Result<(FxHashSet<u64>, Vec<Kept>)> {
        let changed: FxHashSet<u64> = paths
            .par_iter()
            .filter(|(_, changed)| *changed)
            .map(|(p, _)| hash(p))
            .collect();
        let sorted = self.sort_spare(entries, foreign, folders, &changed)?;
        let mut kept = self.keep(sorted.late);
        if let Some(error) = kept.iter_mut().find_map(|k| k.error.take()) {
            return Err(io::Error::new(
                error.kind(),
                format!(
                    "expected to keep what was written into the output during the last build \
                     in {}, found {error}; move it yourself",
                    self.dir.join(KEPT).display()
                ),
            ));
        }
        // From here on the spare holds nothing of the user's the output
        // does not: the note goes before anything else does.
        remove_if_present(&self.dir.join(EXCHANGING))?;
        sorted
            .doomed_files
            .par_iter()
            .try_for_each(|file| std::fs::remove_file(file).map_err(|e| with_path(file, e)))?;
        // A file that stays is never in a doomed folder (its folders are
        // the site's or the user's), and a late one was moved out: each is
        // empty now.
        for folder in &sorted.doomed_folders {
            std::fs::remove_dir(folder).map_err(|e| with_path(folder, e))?;
        }
        make_folders(
            &self.spare,
            paths.iter().filter(|(_, c)| *c).map(|(p, _)| &**p),
        )?;
        paths
            .par_iter()
            .filter(|(_, changed)| *changed)
            .try_for_each(|(path, _)| {
                let target = self.spare.join(&**path);
                std::fs::rename(self.next.join(&**path), &target).map_err(|e| with_path(&target, e))
            })?;
        Ok((sorted.stay, kept))
    }

    /// Sorts the spare tree's `entries` by their fate, after opening again
    /// the folders the last build made read-only (the user's, as they are
    /// in the output). A file stays when it is the output's (its inode)
    /// and did not change (`changed`); a folder when it is the site's
    /// (`folders`) or the user's. A file of the spare that the note of the
    /// last exchange ([`EXCHANGING`]) and its manifest do not know was
    /// written into the old site after that build looked (the build was
    /// killed before it looked again, or a program working inside the old
    /// folder wrote it later): a late write.
    fn sort_spare<'e>(
        &self,
        entries: &'e [walkdir::DirEntry],
        foreign: &Foreign,
        folders: &FxHashSet<u64>,
        changed: &FxHashSet<u64>,
    ) -> io::Result<SpareFates<'e>> {
        use walkdir::DirEntryExt;
        let folders_of = entries
            .iter()
            .filter(|e| e.file_type().is_dir())
            .map(|e| e.path());
        for folder in std::iter::once(self.spare.as_path()).chain(folders_of) {
            make_writable(folder)?;
        }
        // What the old site held when the last exchange swapped it out:
        // its manifest's files (an adopted site's are this output's) and
        // the user's files the note lists with their inodes.
        let carried = read_note(&self.dir.join(EXCHANGING))?;
        let listed = match carried {
            Some(_) => read_manifest(&self.spare)?,
            None => None,
        };
        let manifest = hash(MANIFEST);
        let known = |key: u64, ino: u64| match &carried {
            None => true,
            Some(carried) => {
                key == manifest
                    || listed.as_ref().unwrap_or(&self.owned).contains(&key)
                    || carried.get(&key) == Some(&ino)
                    || foreign.inodes.get(&key) == Some(&ino)
            }
        };
        let users: FxHashSet<u64> = foreign.folders().iter().map(|f| hash(f)).collect();
        // Each entry: its path's hash, whether it stays, and whether it is
        // a late write.
        let fates: Vec<(u64, bool, bool)> = entries
            .par_iter()
            .map(|entry| {
                let key = hash(&crate::input::slash_path(entry.path(), &self.spare));
                if entry.file_type().is_dir() {
                    return (key, folders.contains(&key) || users.contains(&key), false);
                }
                let stays =
                    foreign.inodes.get(&key) == Some(&entry.ino()) && !changed.contains(&key);
                (key, stays, !stays && !known(key, entry.ino()))
            })
            .collect();
        let mut sorted = SpareFates::default();
        for (entry, (key, stays, is_late)) in entries.iter().zip(fates) {
            match (entry.file_type().is_dir(), stays) {
                (false, true) => {
                    sorted.stay.insert(key);
                }
                (false, false) if is_late => sorted.late.push(
                    entry
                        .path()
                        .strip_prefix(&self.spare)
                        .unwrap_or(entry.path())
                        .to_path_buf(),
                ),
                (false, false) => sorted.doomed_files.push(entry.path()),
                (true, false) => sorted.doomed_folders.push(entry.path()),
                (true, true) => {}
            }
        }
        sorted.late.sort_unstable();
        Ok(sorted)
    }

    /// Links into the spare the rest of the new site: the output's files
    /// it lacks (not in `stay`), as hard links (they keep their
    /// modification times). A file of the user's removed from the output
    /// since the survey stays removed: returns their paths' hashes.
    fn link_unchanged(
        &self,
        paths: &[(Box<str>, bool)],
        foreign: &Foreign,
        stay: &FxHashSet<u64>,
    ) -> io::Result<Vec<u64>> {
        let missing: Vec<(&str, bool)> = paths
            .iter()
            .filter(|(_, changed)| !changed)
            .map(|(p, _)| (&**p, false))
            .chain(foreign.files.iter().map(|p| (p.as_str(), true)))
            .filter(|(p, _)| !stay.contains(&hash(p)))
            .collect();
        make_folders(&self.spare, missing.iter().map(|(p, _)| *p))?;
        missing
            .par_iter()
            .map(|&(path, users)| {
                match link_or_copy(&self.out.join(path), &self.spare.join(path)) {
                    Err(_) if users && std::fs::symlink_metadata(self.out.join(path)).is_err() => {
                        Ok(Some(hash(path)))
                    }
                    Err(e) => Err(e),
                    Ok(()) => Ok(None),
                }
            })
            .filter_map(Result::transpose)
            .collect()
    }

    /// Gives the spare tree's folders the owner and permissions of the
    /// output's (a private one stays private), the output's own included,
    /// and the user's own folders (those holding no page, `folders` are
    /// the site's) their modification times; done last, once the manifest
    /// is in, as a read-only folder refuses what is put in it.
    fn carry_folders(&self, foreign: &Foreign, folders: &FxHashSet<u64>) -> io::Result<()> {
        let users_folders = foreign.folders();
        for folder in std::iter::once("").chain(users_folders.into_iter().rev()) {
            if let Ok(meta) = std::fs::metadata(self.out.join(folder)) {
                let target = self.spare.join(folder);
                let users = !folder.is_empty() && !folders.contains(&hash(folder));
                carry_folder(&meta, &target, users)?;
            }
        }
        Ok(())
    }

    /// The entries of the spare tree, children before their folders;
    /// `None` when there is none.
    fn list_spare(&self) -> io::Result<Option<Vec<walkdir::DirEntry>>> {
        if self.publish != Publish::Exchange || !self.spare.is_dir() {
            return Ok(None);
        }
        let walk = walkdir::WalkDir::new(&self.spare)
            .min_depth(1)
            .contents_first(true);
        let entries: Result<Vec<_>, _> = walk.into_iter().collect();
        entries
            .map(Some)
            .map_err(|e| io::Error::other(e.to_string()))
    }

    /// Walks the output and checks that publishing loses none of the
    /// user's files: a file the last manifest does not list where this
    /// build writes one (unless the output is adopted: its files are an
    /// earlier build's), or where it needs a folder (`folders`: hashes of
    /// the folders the `new` paths are in), and a folder of the user's
    /// where it writes a file, are errors. Returns the files and empty
    /// folders of the user's, which the new tree carries, the listed files
    /// this build no longer writes (it removes them), and the inodes of
    /// the files it keeps.
    fn survey(&self, new: &FxHashSet<u64>, folders: &FxHashSet<u64>) -> io::Result<Foreign> {
        use walkdir::DirEntryExt;
        let walk = walkdir::WalkDir::new(&self.out)
            .min_depth(1)
            .into_iter()
            .filter_entry(|e| e.path() != self.dir);
        let mut foreign = Foreign {
            all_folders: vec![String::new()],
            ..Foreign::default()
        };
        let mut flips = FxHashSet::default();
        // The last folder seen, until the next entry says whether it is
        // empty (a folder's entries come right after it).
        let mut open: Option<(usize, walkdir::DirEntry, String, u64)> = None;
        let empty_folder = |(_, entry, relative, key): (usize, walkdir::DirEntry, String, u64),
                            foreign: &mut Foreign|
         -> io::Result<()> {
            if new.contains(&key) {
                return Err(refuse(
                    entry.path(),
                    "is a directory Vellum did not write where the site now has a file; move it away",
                ));
            }
            // A build never leaves an empty folder, so it is the user's.
            if !folders.contains(&key) {
                foreign.empty_folders.push(relative);
            }
            Ok(())
        };
        for entry in walk {
            let entry = entry.map_err(|e| io::Error::other(e.to_string()))?;
            if let Some(folder) = open.take() {
                if entry.depth() <= folder.0 {
                    empty_folder(folder, &mut foreign)?;
                }
            }
            if entry.file_name().to_str().is_none() {
                return Err(refuse(
                    entry.path(),
                    "is a name that is not UTF-8, which Vellum cannot carry into the new site \
                     (it would lose it); rename it or move it out of the output",
                ));
            }
            let relative = crate::input::slash_path(entry.path(), &self.out);
            if relative == MANIFEST {
                continue;
            }
            let key = hash(&relative);
            if entry.file_type().is_dir() {
                if is_mount_point(entry.path()) {
                    return Err(refuse(
                        entry.path(),
                        "is a mount point inside the output, which Vellum cannot publish around \
                         (it would copy it); unmount it or choose another output directory",
                    ));
                }
                if new.contains(&key) {
                    // Fine if every file below is the last build's: those
                    // are stale and go (checked after the walk).
                    flips.insert(key);
                }
                foreign.all_folders.push(relative.clone());
                open = Some((entry.depth(), entry, relative, key));
                continue;
            }
            if self.owned.contains(&key) {
                if new.contains(&key) {
                    foreign.inodes.insert(key, entry.ino());
                } else {
                    foreign.stale.push(entry.into_path());
                }
                continue;
            }
            if new.contains(&key) {
                if self.adopted {
                    foreign.inodes.insert(key, entry.ino());
                    continue;
                }
                return Err(refuse(
                    entry.path(),
                    "is a file Vellum did not write, where the site now writes one; move it away \
                     (or remove it to let Vellum write there)",
                ));
            }
            if folders.contains(&key) {
                return Err(refuse(
                    entry.path(),
                    "is a file Vellum did not write where the site now has a directory; move it away",
                ));
            }
            foreign.inodes.insert(key, entry.ino());
            foreign.files.push(relative);
        }
        if let Some(folder) = open.take() {
            empty_folder(folder, &mut foreign)?;
        }
        if !flips.is_empty() {
            let kept = foreign.files.iter().chain(&foreign.empty_folders);
            for path in kept {
                let folder = path
                    .match_indices('/')
                    .map(|(at, _)| &path[..at])
                    .chain([path.as_str()])
                    .find(|folder| flips.contains(&hash(folder)));
                if let Some(folder) = folder {
                    return Err(refuse(
                        &self.out.join(folder),
                        &format!(
                            "is a directory where the site now has a file, and it holds {path}, which \
                             Vellum did not write; move it away"
                        ),
                    ));
                }
            }
        }
        Ok(foreign)
    }

    /// The fallback: moves the changed files from `from` into the output.
    /// Each step leaves a manifest listing every file of the last build's
    /// or this one's in the output, so a build killed at any moment leaves
    /// files the next one knows as its own (and finishes), never one it
    /// takes for the user's. First the manifest of both builds, then the
    /// `stale` files ([`Staging::survey`] found them) and the directories
    /// they leave empty go (a folder may become a file or a file a folder),
    /// then each changed file is moved in, and last the manifest of this
    /// build.
    fn in_place(
        &self,
        from: &Path,
        paths: &[(Box<str>, bool)],
        stale: &[PathBuf],
        manifest: &str,
    ) -> io::Result<()> {
        std::fs::create_dir_all(&self.out).map_err(|e| with_path(&self.out, e))?;
        let old = std::fs::read_to_string(self.out.join(MANIFEST)).unwrap_or_default();
        let mut both: Vec<&str> = old
            .lines()
            .skip(1)
            .filter(|l| !l.is_empty())
            .chain(paths.iter().map(|(p, _)| &**p))
            .collect();
        both.par_sort_unstable();
        both.dedup();
        let mut union = String::with_capacity(manifest.len() + old.len());
        for line in std::iter::once(MANIFEST_HEADER).chain(both) {
            union.push_str(line);
            union.push('\n');
        }
        self.replace_manifest(&union)?;
        let mut emptied = Vec::new();
        for file in stale {
            std::fs::remove_file(file).map_err(|e| with_path(file, e))?;
            emptied.extend(file.parent().map(Path::to_path_buf));
        }
        // Deepest first, so parents empty out after their children; only
        // directories a removed file was in, and never the output itself.
        emptied.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        emptied.dedup();
        for mut dir in emptied {
            while dir != self.out && std::fs::remove_dir(&dir).is_ok() {
                if !dir.pop() {
                    break;
                }
            }
        }
        let changed = paths
            .iter()
            .filter(|(_, changed)| *changed)
            .map(|(p, _)| &**p);
        make_folders(&self.out, changed)?;
        paths
            .par_iter()
            .filter(|(_, changed)| *changed)
            .try_for_each(|(path, _)| {
                let target = self.out.join(&**path);
                std::fs::rename(from.join(&**path), &target).map_err(|e| with_path(&target, e))
            })?;
        self.replace_manifest(manifest)
    }

    /// Replaces the output's manifest in one rename.
    fn replace_manifest(&self, manifest: &str) -> io::Result<()> {
        let staged = self.dir.join(MANIFEST);
        write_new(&staged, manifest.as_bytes())?;
        let target = self.out.join(MANIFEST);
        std::fs::rename(&staged, &target).map_err(|e| with_path(&target, e))
    }
}

fn inode(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::ino(meta)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}

/// Removes the staging directory `dir` and everything in it (symlinks,
/// not their targets), files in parallel (after a publish it holds the
/// whole old site), its [`MARKER`] last: a removal cut short leaves a
/// directory the next build still knows as its own.
fn remove_tree(dir: &Path) -> io::Result<()> {
    let marker = dir.join(MARKER);
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.map_err(|e| io::Error::other(e.to_string()))?;
        if entry.file_type().is_dir() {
            dirs.push(entry.into_path());
        } else if entry.path() != marker {
            files.push(entry.into_path());
        }
    }
    // A read-only folder of the user's (carried into the new tree) would
    // refuse the removal of the old links in it.
    for dir in &dirs {
        if let Ok(meta) = std::fs::symlink_metadata(dir) {
            let mut permissions = meta.permissions();
            if permissions.readonly() {
                #[allow(
                    clippy::permissions_set_readonly_false,
                    reason = "only for removing it"
                )]
                permissions.set_readonly(false);
                let _ = std::fs::set_permissions(dir, permissions);
            }
        }
    }
    files.par_iter().try_for_each(std::fs::remove_file)?;
    // Children before their parents (walkdir lists parents first); the
    // directory itself last, after its marker.
    let top = dirs.first().cloned();
    dirs.iter()
        .skip(1)
        .rev()
        .try_for_each(std::fs::remove_dir)?;
    remove_if_present(&marker)?;
    top.map_or(Ok(()), std::fs::remove_dir)
}

/// Lets this process write in `folder` (its owner's write permission).
fn make_writable(folder: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::symlink_metadata(folder).map_err(|e| with_path(folder, e))?;
        let mode = meta.permissions().mode();
        if meta.is_dir() && mode & 0o300 != 0o300 {
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode | 0o700))
                .map_err(|e| with_path(folder, e))?;
        }
    }
    #[cfg(not(unix))]
    let _ = folder;
    Ok(())
}

/// Gives the folder `target` the owner and permissions of `meta`'s (the
/// owner where the system lets this process give it), and with `times`
/// its modification time.
fn carry_folder(meta: &std::fs::Metadata, target: &Path, times: bool) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = std::os::unix::fs::chown(target, Some(meta.uid()), Some(meta.gid()));
    }
    if times {
        if let (Ok(modified), Ok(folder)) = (meta.modified(), std::fs::File::open(target)) {
            let _ = folder.set_modified(modified);
        }
    }
    std::fs::set_permissions(target, meta.permissions()).map_err(|e| with_path(target, e))
}

/// Makes the folders under `root` that the files at `paths` (sorted) are
/// in: each folder once, however many files it holds.
fn make_folders<'a>(root: &Path, paths: impl Iterator<Item = &'a str>) -> io::Result<()> {
    let mut last = None;
    for path in paths {
        let folder = path.rfind('/').map(|at| &path[..at]);
        if folder.is_some() && folder != last {
            let target = root.join(folder.unwrap_or_default());
            std::fs::create_dir_all(&target).map_err(|e| with_path(&target, e))?;
            last = folder;
        }
    }
    Ok(())
}

fn make_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) => std::fs::create_dir_all(parent).map_err(|e| with_path(parent, e)),
        None => Ok(()),
    }
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(with_path(path, e)),
        _ => Ok(()),
    }
}

/// Hard-links `from` at `to`, replacing a file put there before.
fn link(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::hard_link(from, to) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            remove_if_present(to)?;
            std::fs::hard_link(from, to)
        }
        other => other,
    }
}

/// Hard-links `from` at `to`; where the file system cannot, copies it and
/// its modification time.
fn link_or_copy(from: &Path, to: &Path) -> io::Result<()> {
    if link(from, to).is_ok() {
        return Ok(());
    }
    // Never written through: a file there may be a link to another.
    remove_if_present(to)?;
    std::fs::copy(from, to).map_err(|e| with_path(to, e))?;
    let modified = std::fs::metadata(from).and_then(|m| m.modified());
    if let Ok(modified) = modified {
        let file = std::fs::File::options()
            .write(true)
            .open(to)
            .map_err(|e| with_path(to, e))?;
        file.set_modified(modified).map_err(|e| with_path(to, e))?;
    }
    Ok(())
}

/// Writes `bytes` to a new file at `path`, replacing (never writing
/// through) a file put there before, which may be a link to the output's.
fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    remove_if_present(path)?;
    let mut file = std::fs::File::create_new(path).map_err(|e| with_path(path, e))?;
    file.write_all(bytes).map_err(|e| with_path(path, e))
}

/// Swaps the directories `a` and `b` in one step.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both are valid NUL-terminated paths; the call reads them only.
    let result = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Whether an exchange failed because the system or file system cannot do
/// one (then the changed files are moved in one by one).
fn exchange_unsupported(error: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if matches!(
        error.raw_os_error(),
        Some(libc::EINVAL | libc::ENOSYS | libc::EXDEV | libc::EBUSY | libc::ENOTSUP)
    ) {
        return true;
    }
    error.kind() == io::ErrorKind::Unsupported
}

/// Whether the files `a` and `b` both exist and hold the same bytes,
/// compared 1 MiB at a time.
fn same_bytes(a: &Path, b: &Path) -> bool {
    use io::BufRead;
    let same_len = match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
        (Ok(a), Ok(b)) => a.is_file() && b.is_file() && a.len() == b.len(),
        _ => false,
    };
    let (Ok(a), Ok(b), true) = (std::fs::File::open(a), std::fs::File::open(b), same_len) else {
        return false;
    };
    let mut a = io::BufReader::with_capacity(1 << 20, a);
    let mut b = io::BufReader::with_capacity(1 << 20, b);
    loop {
        let (Ok(left), Ok(right)) = (a.fill_buf(), b.fill_buf()) else {
            return false;
        };
        let n = left.len().min(right.len());
        if n == 0 {
            return left.is_empty() && right.is_empty();
        }
        if left[..n] != right[..n] {
            return false;
        }
        a.consume(n);
        b.consume(n);
    }
}

#[cfg(test)]
mod tests {
    //! The fallback publish, which only a mount point (or a system
    //! without the exchange) takes: forced here on a plain folder.
    use super::*;

    #[test]
    fn paths_are_quoted_for_a_posix_shell_in_printable_characters() {
        assert_eq!(quoted(Path::new("out/a b.txt")), "'out/a b.txt'");
        assert_eq!(quoted(Path::new("out/it's")), r"'out/it'\''s'");
        assert_eq!(
            quoted(Path::new("out/nl\n16\\x'.txt")),
            r"$'out/nl\x0a16\\x\'.txt'"
        );
    }
    use std::collections::BTreeMap;

    /// A new empty folder, removed when dropped.
    struct Folder(PathBuf);

    impl Folder {
        fn new(name: &str) -> Folder {
            let path =
                std::env::temp_dir().join(format!("vellum-disk-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Folder(path)
        }
    }

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Every file under `dir` but the manifest, with its text.
    fn files(dir: &Path) -> BTreeMap<String, String> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .map(Result::unwrap)
            .filter(|e| e.file_type().is_file())
            .map(|e| crate::input::slash_path(e.path(), dir))
            .filter(|p| p != MANIFEST)
            .map(|p| {
                let text = std::fs::read_to_string(dir.join(&p)).unwrap();
                (p, text)
            })
            .collect()
    }

    fn manifest(out: &Path) -> Vec<String> {
        let text = std::fs::read_to_string(out.join(MANIFEST)).unwrap();
        text.lines().skip(1).map(str::to_owned).collect()
    }

    /// Stages `site` and publishes it, in place when asked.
    fn build(out: &Path, site: &[(&str, &str)], in_place: bool) -> io::Result<WriteStats> {
        let mut sink = DiskSink::new(out);
        sink.begin()?;
        for (path, text) in site {
            sink.put(path, text.as_bytes().to_vec())?;
        }
        if in_place {
            sink.staging.as_mut().unwrap().publish = Publish::InPlace;
        }
        sink.commit()
    }

    const OLD: [(&str, &str); 5] = [
        ("index.html", "home"),
        ("sitemap.xml", "map"),
        ("papers/a/index.html", "a"),
        ("papers/gone/index.html", "gone"),
        ("notes.txt", "a file the site had"),
    ];
    const NEW: [(&str, &str); 5] = [
        ("index.html", "home 2"),
        ("sitemap.xml", "map"),
        ("papers/a/index.html", "a"),
        // A file where a folder was, and a folder where a file was.
        ("papers/gone", "now a file"),
        ("notes.txt/index.html", "now a folder"),
    ];

    fn expected(site: &[(&str, &str)]) -> BTreeMap<String, String> {
        let mut files: BTreeMap<String, String> = site
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        files.insert("CNAME".into(), "example.org".into());
        files.insert(".git/HEAD".into(), "ref".into());
        files
    }

    #[test]
    fn a_folder_and_a_file_of_the_sites_swap_places_in_both_ways_of_publishing() {
        for in_place in [false, true] {
            let folder = Folder::new(if in_place { "swap-in-place" } else { "swap" });
            let out = folder.0.join("public");
            build(&out, &OLD, in_place).unwrap();
            std::fs::write(out.join("CNAME"), "example.org").unwrap();
            std::fs::create_dir(out.join(".git")).unwrap();
            std::fs::write(out.join(".git/HEAD"), "ref").unwrap();
            let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
            std::fs::File::open(out.join(".git"))
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
            let stats = build(&out, &NEW, in_place).unwrap();
            let git = std::fs::metadata(out.join(".git")).unwrap();
            assert_eq!(git.modified().unwrap(), long_ago, "in place: {in_place}");
            assert_eq!((stats.files, stats.written, stats.removed), (5, 3, 2));
            assert_eq!(files(&out), expected(&NEW), "in place: {in_place}");
            assert_eq!(
                manifest(&out),
                [
                    "index.html",
                    "notes.txt/index.html",
                    "papers/a/index.html",
                    "papers/gone",
                    "sitemap.xml"
                ]
            );
            // The spare tree stays beside the output, never inside it.
            let spare = folder.0.join(".public.vellum-staging");
            assert_eq!(spare.join("site").is_dir(), !in_place);
            assert!(!spare.join("next").exists());
            assert!(!out.join(".vellum-staging").exists());
        }
    }

    #[test]
    fn a_folder_holding_a_users_file_is_not_replaced_by_a_file() {
        for in_place in [false, true] {
            let folder = Folder::new(if in_place { "keep-in-place" } else { "keep" });
            let out = folder.0.join("public");
            build(&out, &OLD, in_place).unwrap();
            std::fs::write(out.join("papers/gone/draft.tex"), "mine").unwrap();
            let error = build(&out, &NEW, in_place).unwrap_err().to_string();
            assert!(
                error.ends_with(
                    "public/papers/gone: is a directory where the site now has a file, and it holds \
                     papers/gone/draft.tex, which Vellum did not write; move it away"
                ),
                "{error}"
            );
            let mut kept = expected(&OLD);
            kept.remove("CNAME");
            kept.remove(".git/HEAD");
            kept.insert("papers/gone/draft.tex".into(), "mine".into());
            assert_eq!(files(&out), kept);
        }
    }

    /// Four builds through the spare tree (the build before last): it
    /// never brings back a file the user removed from the output or an old
    /// version of a page, and an unchanged file keeps its inode (so its
    /// modification time) throughout.
    #[test]
    fn the_spare_tree_becomes_each_new_site_exactly() {
        use std::os::unix::fs::MetadataExt;
        let folder = Folder::new("spare");
        let out = folder.0.join("public");
        let inode = |path: &str| std::fs::metadata(out.join(path)).unwrap().ino();
        build(&out, &OLD, false).unwrap();
        let sitemap = inode("sitemap.xml");
        std::fs::write(out.join("CNAME"), "example.org").unwrap();
        build(&out, &NEW, false).unwrap();
        let mut want = expected(&NEW);
        want.remove(".git/HEAD");
        assert_eq!(files(&out), want);
        // The spare now holds the first site and the CNAME; the user
        // removes the CNAME and adds a file.
        std::fs::remove_file(out.join("CNAME")).unwrap();
        std::fs::write(out.join("extra.txt"), "mine").unwrap();
        let third = [
            ("index.html", "home 3"),
            ("sitemap.xml", "map"),
            ("papers/gone", "now a file"),
        ];
        build(&out, &third, false).unwrap();
        let mut want: BTreeMap<String, String> = third
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        want.insert("extra.txt".into(), "mine".into());
        assert_eq!(files(&out), want);
        // Back to the first site's pages: the spare holds the second's.
        build(&out, &OLD, false).unwrap();
        let mut want: BTreeMap<String, String> = OLD
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        want.insert("extra.txt".into(), "mine".into());
        assert_eq!(files(&out), want);
        assert_eq!(inode("sitemap.xml"), sitemap);
        assert_eq!(manifest(&out).len(), OLD.len());
    }

    /// What a user (a deploy script, an editor) writes into the output
    /// while a build publishes: a new file at the top, one in a folder of
    /// the user's and one in a folder of the site's, a new folder, and a
    /// file of the user's replaced by a rename (as editors save).
    fn write_late(out: &Path) {
        std::fs::write(out.join("late.txt"), "late").unwrap();
        std::fs::write(out.join(".git/ORIG_HEAD"), "late ref").unwrap();
        std::fs::write(out.join("papers/a/notes.md"), "late notes").unwrap();
        std::fs::create_dir_all(out.join("drafts/ch1")).unwrap();
        std::fs::write(out.join("drafts/ch1/x.tex"), "late draft").unwrap();
        std::fs::write(out.join("CNAME.new"), "new.example.org").unwrap();
        std::fs::rename(out.join("CNAME.new"), out.join("CNAME")).unwrap();
    }

    /// What [`write_late`] writes, with its text.
    const LATE: [(&str, &str); 5] = [
        (".git/ORIG_HEAD", "late ref"),
        ("CNAME", "new.example.org"),
        ("drafts/ch1/x.tex", "late draft"),
        ("late.txt", "late"),
        ("papers/a/notes.md", "late notes"),
    ];

    /// Stages `site` and publishes it as the sink's commit does, but runs
    /// `late` on the output between the making of the new site (after the
    /// survey) and the exchange.
    fn build_with_late_write(out: &Path, site: &[(&str, &str)], late: fn(&Path)) -> WriteStats {
        let mut sink = DiskSink::new(out);
        sink.begin().unwrap();
        for (path, text) in site {
            sink.put(path, text.as_bytes().to_vec()).unwrap();
        }
        let staging = sink.staging.take().unwrap();
        let Made::Ready(ready) = staging.make_site().unwrap() else {
            panic!("expected an exchange");
        };
        late(out);
        let stats = staging.swap_in(*ready).unwrap();
        staging.clean_up();
        stats
    }

    /// The old site built in a new folder, with the user's `CNAME` and
    /// `.git/HEAD` added; the folder and the output.
    fn old_site_with_users_files(name: &str) -> (Folder, PathBuf) {
        let folder = Folder::new(name);
        let out = folder.0.join("public");
        build(&out, &OLD, false).unwrap();
        std::fs::write(out.join("CNAME"), "example.org").unwrap();
        std::fs::create_dir(out.join(".git")).unwrap();
        std::fs::write(out.join(".git/HEAD"), "ref").unwrap();
        (folder, out)
    }

    fn texts(files: &[(&str, &str)]) -> BTreeMap<String, String> {
        files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect()
    }

    fn warnings(stats: &WriteStats) -> Vec<String> {
        stats.kept.iter().map(ToString::to_string).collect()
    }

    /// The warning for `path`, kept in `kept`, that the output does not
    /// hold again.
    fn kept_warning(out: &Path, kept: &Path, path: &str, folder: bool) -> String {
        let (o, k) = (out.display(), kept.display());
        let slash = if folder { "/" } else { "" };
        format!(
            "{o}/{path}: warning: expected no file written into the output during the build, \
             found {path}{slash}; it is kept at {k}/{path}: move it back with mv '{k}/{path}' \
             '{o}/{path}'"
        )
    }

    /// Issue 57, item 7: what is written into the output between the
    /// survey and the exchange (which only the old site holds) is moved
    /// to `kept/1` in the staging directory and named in a warning with
    /// the command that moves it back; the output is the new site, and no
    /// later build removes or names those files again.
    #[test]
    fn a_file_written_into_the_output_during_the_build_is_kept_and_named() {
        let (folder, out) = old_site_with_users_files("late");
        let stats = build_with_late_write(&out, &NEW, write_late);
        assert_eq!(files(&out), expected(&NEW));
        let kept = folder.0.join(".public.vellum-staging/kept/1");
        assert_eq!(files(&kept), texts(&LATE));
        let (o, k) = (out.display(), kept.display());
        assert_eq!(
            warnings(&stats),
            [
                kept_warning(&out, &kept, ".git/ORIG_HEAD", false),
                format!(
                    "{o}/CNAME: warning: expected no file written into the output during the \
                     build, found CNAME; it is kept at {k}/CNAME, as the output has another CNAME \
                     now: compare the two and keep one"
                ),
                kept_warning(&out, &kept, "drafts", true),
                kept_warning(&out, &kept, "late.txt", false),
                kept_warning(&out, &kept, "papers/a/notes.md", false),
            ]
        );
        for site in [OLD, NEW] {
            let stats = build(&out, &site, false).unwrap();
            assert_eq!(warnings(&stats), Vec::<String>::new());
            assert_eq!(files(&out), expected(&site));
            assert_eq!(files(&kept), texts(&LATE));
        }
    }

    /// A file written during the build where the new site now has one:
    /// kept, and the warning says the output holds another; a second
    /// build's late file goes to `kept/2`.
    #[test]
    fn a_file_written_during_the_build_where_the_site_now_has_one_is_kept_and_named() {
        let folder = Folder::new("late-taken");
        let out = folder.0.join("public");
        build(&out, &OLD, false).unwrap();
        let mut new = OLD.to_vec();
        new.push(("added.html", "the site's"));
        let write = |out: &Path| std::fs::write(out.join("added.html"), "mine").unwrap();
        let stats = build_with_late_write(&out, &new, write);
        assert_eq!(files(&out), texts(&new));
        let kept = folder.0.join(".public.vellum-staging/kept");
        let (o, k) = (out.display(), kept.display());
        assert_eq!(
            warnings(&stats),
            [format!(
                "{o}/added.html: warning: expected no file written into the output during the \
                 build, found added.html; it is kept at {k}/1/added.html, as the output has \
                 another added.html now: compare the two and keep one"
            )]
        );
        let write = |out: &Path| std::fs::write(out.join("notes.md"), "mine too").unwrap();
        let stats = build_with_late_write(&out, &OLD, write);
        assert_eq!(files(&out), texts(&OLD));
        assert_eq!(
            warnings(&stats),
            [kept_warning(&out, &kept.join("2"), "notes.md", false)]
        );
        let mut want = texts(&[("1/added.html", "mine"), ("2/notes.md", "mine too")]);
        assert_eq!(files(&kept), want);
        // Moved back as the warning says, it is the user's file again.
        std::fs::rename(kept.join("2/notes.md"), out.join("notes.md")).unwrap();
        build(&out, &new, false).unwrap();
        want.remove("2/notes.md");
        assert_eq!(files(&kept), want);
        assert_eq!(files(&out)["notes.md"], "mine too");
    }

    /// What reaches the old site after the build looked (a build killed
    /// right after its exchange leaves it so, and a program working inside
    /// the old folder writes it later) is kept by the next build, which
    /// names ten files and counts the rest; a file of the user's removed
    /// from the output between builds still goes from the old site, and
    /// is not kept.
    #[test]
    fn what_reaches_the_old_site_later_is_kept_by_the_next_build() {
        let (folder, out) = old_site_with_users_files("later");
        build(&out, &NEW, false).unwrap();
        let staging = folder.0.join(".public.vellum-staging");
        let old = staging.join("site");
        assert_eq!(files(&old), expected(&OLD));
        std::fs::remove_file(out.join("CNAME")).unwrap();
        let mut late = BTreeMap::new();
        for n in 0..11 {
            late.insert(format!("late-{n:02}.txt"), n.to_string());
        }
        late.insert("papers/gone/notes/a.md".into(), "a".into());
        for (path, text) in &late {
            make_parent(&old.join(path)).unwrap();
            std::fs::write(old.join(path), text).unwrap();
        }
        let stats = build(&out, &OLD, false).unwrap();
        let mut want = expected(&OLD);
        want.remove("CNAME");
        assert_eq!(files(&out), want);
        let kept = staging.join("kept/1");
        assert_eq!(files(&kept), late);
        let mut lines: Vec<String> = (0..10)
            .map(|n| kept_warning(&out, &kept, &format!("late-{n:02}.txt"), false))
            .collect();
        lines.push(format!(
            "{}: warning: expected no file written into the output during the build, found 2 \
             more; each is kept in a folder of {} at its path in the output: move them back as \
             those above",
            out.display(),
            staging.join("kept").display()
        ));
        assert_eq!(warnings(&stats), lines);
        // The old site (the spare) holds the second site, nothing else.
        let mut want = expected(&NEW);
        want.remove("CNAME");
        assert_eq!(files(&old), want);
    }

    /// A fallback publish cut short (here: a staged file gone, so its move
    /// fails, as a kill would stop it) leaves a manifest of both builds'
    /// files: the next build removes the old build's stale ones and keeps
    /// the user's, and the output is the new site.
    #[test]
    fn a_fallback_publish_cut_short_is_finished_by_the_next_build() {
        let folder = Folder::new("cut-short");
        let out = folder.0.join("public");
        build(&out, &OLD, true).unwrap();
        std::fs::write(out.join("CNAME"), "example.org").unwrap();
        std::fs::create_dir(out.join(".git")).unwrap();
        std::fs::write(out.join(".git/HEAD"), "ref").unwrap();
        let mut sink = DiskSink::new(&out);
        sink.begin().unwrap();
        for (path, text) in NEW {
            sink.put(path, text.as_bytes().to_vec()).unwrap();
        }
        let staging = sink.staging.as_mut().unwrap();
        staging.publish = Publish::InPlace;
        std::fs::remove_file(staging.next.join("index.html")).unwrap();
        assert!(sink.commit().is_err());
        let mut both: Vec<&str> = OLD.iter().chain(&NEW).map(|(p, _)| *p).collect();
        both.sort_unstable();
        both.dedup();
        assert_eq!(manifest(&out), both);
        assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"home");

        build(&out, &NEW, true).unwrap();
        assert_eq!(files(&out), expected(&NEW));
        assert_eq!(manifest(&out).len(), NEW.len());
    }
}
