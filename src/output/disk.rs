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
//!   build published (after its survey) would be lost with that spare: a
//!   note of the exchange, `EXCHANGING`, is left in the staging
//!   directory, and after the exchange each folder of the old site that
//!   changed since the survey began is read and what the build did not
//!   know is moved into the new site (`Rescue`: a folder merged, of two
//!   versions of a file the later kept), and what the user removed from
//!   the old site goes from the new one. The note then says so, and the
//!   next build, at its start, moves what a program working inside the
//!   old folder wrote into it after that; a build finding the note from
//!   before the rescue (the last was killed in between) does the whole
//!   rescue first. Where that is not possible (other systems, a file
//!   system without it, an output directory that is a mount point) the
//!   changed files are moved into the output one by one from a staging
//!   directory inside it (each file replaced atomically, the site as a
//!   whole not), after a manifest listing both builds' files, so a build
//!   killed then leaves nothing the next one takes for the user's. A
//!   symlinked output directory is resolved first: the link stays and its
//!   target is published.

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

/// The file in a staging directory that says what the spare tree may
/// hold of the user's: the old site's inode and the moment from which the
/// build looks for what was written into it ([`Rescue`]), or, once the
/// rescue is done, `rescued` (from then on, by the file's change time).
/// The next build's start finishes it ([`finish_exchange`]).
const EXCHANGING: &str = "EXCHANGING";

/// How much earlier than the clock a folder's change time may read: file
/// systems stamp with a coarse clock, some in whole seconds.
const CLOCK_SLACK_SECS: i64 = 2;

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

/// For tests: what writes into the output just before the exchange, what
/// writes just after it and what after the rescue (each given the output
/// and the old site, now the spare), and whether the build is killed
/// right after the exchange.
#[cfg(test)]
#[derive(Debug, Clone, Copy)]
struct LateWrite {
    before: fn(&Path),
    after: fn(&Path, &Path),
    after_rescue: fn(&Path, &Path),
    killed: bool,
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
    /// For tests only.
    #[cfg(test)]
    late_write: Option<LateWrite>,
    /// Late files the start of this build found their path taken for
    /// ([`finish_exchange`]).
    kept: usize,
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
    /// those [`Rescue`] looks in after the exchange.
    all_folders: Vec<String>,
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
/// and, when `keep_spare`, the spare tree `site/` (a folder: a link in its
/// place goes) and the `.gitignore`: what a killed build left goes.
fn clear_staging(dir: &Path, keep_spare: bool) -> io::Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| with_path(dir, e))? {
        let entry = entry.map_err(|e| with_path(dir, e))?;
        let name = entry.file_name();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let kept =
            name == MARKER || (keep_spare && ((name == "site" && is_dir) || name == ".gitignore"));
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

/// The hashes of the folders of the paths in a manifest's `text`.
fn manifest_folders(text: &str) -> FxHashSet<u64> {
    text.lines()
        .flat_map(|path| path.match_indices('/').map(|(at, _)| hash(&path[..at])))
        .collect()
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
                 links, so a rebuild touches only what changed. Remove it only between builds \
                 after the next one: until then it may hold files written into the output while \
                 the last build ran, which the next build moves back.",
                out.display()
            )
            .map_err(|e| with_path(&marker, e))?;
        }
        // Inside the output a spare tree would be published: never kept.
        let keep_spare = publish == Publish::Exchange;
        let kept = match keep_spare {
            true => finish_exchange(&dir, &out)?,
            false => 0,
        };
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
            #[cfg(test)]
            late_write: None,
            kept,
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
            kept: self.kept,
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
        // What is written into the output from here on is looked for after
        // the exchange.
        let since = stamp_now();
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
            return Ok(stats);
        }
        if self.publish == Publish::InPlace {
            return self
                .in_place(&self.next, &paths, &foreign.stale, &manifest)
                .map(|()| stats);
        }
        // A file of the user's removed since the survey is not carried,
        // and so not the user's file the build put in the new site.
        for key in self.make_spare(&paths, &foreign, &folders, spare)? {
            foreign.inodes.remove(&key);
        }
        let staged = self.spare.join(MANIFEST);
        if !(same_manifest && link(&old_manifest, &staged).is_ok()) {
            write_new(&staged, manifest.as_bytes())?;
        }
        self.carry_folders(&foreign, &folders)?;
        if !exists {
            std::fs::rename(&self.spare, &self.out).map_err(|e| with_path(&self.out, e))?;
            return Ok(stats);
        }
        let pending = self.dir.join(EXCHANGING);
        let old_root = std::fs::symlink_metadata(&self.out).map_err(|e| with_path(&self.out, e))?;
        let mut note = format!("{} {} {}\n", inode(&old_root), since.0, since.1);
        for path in &foreign.files {
            if let Some(ino) = foreign.inodes.get(&hash(path)) {
                note.push_str(&format!("{ino}\t{path}\0"));
            }
        }
        write_new(&pending, note.as_bytes())?;
        #[cfg(test)]
        if let Some(late) = self.late_write {
            (late.before)(&self.out);
        }
        match exchange(&self.spare, &self.out) {
            Ok(()) => {
                #[cfg(test)]
                if let Some(late) = self.late_write {
                    if late.killed {
                        return Err(io::Error::other("killed after the exchange"));
                    }
                    (late.after)(&self.out, &self.spare);
                }
                stats.kept += self.rescue_late_writes(&new, &folders, &foreign, since)?;
                // The note stays: the next build looks in the spare again
                // for what a program working inside the old folder did
                // after this rescue.
                #[cfg(test)]
                if let Some(late) = self.late_write {
                    (late.after_rescue)(&self.out, &self.spare);
                }
                Ok(stats)
            }
            Err(e) => {
                remove_if_present(&pending)?;
                match exchange_unsupported(&e) {
                    false => Err(with_path(&self.out, e)),
                    true => self
                        .in_place(&self.spare, &paths, &foreign.stale, &manifest)
                        .map(|()| stats),
                }
            }
        }
    }

    /// After the exchange: moves what was written into the old site (now
    /// the spare tree) after the survey began, which it did not see, into
    /// the new one ([`Rescue`]), and removes from the new site a file of
    /// the user's removed from the old one since (`new` and `folders` are
    /// the hashes of the new site's files and folders). Returns how many
    /// late files were kept under another name.
    fn rescue_late_writes(
        &self,
        new: &FxHashSet<u64>,
        folders: &FxHashSet<u64>,
        foreign: &Foreign,
        since: Stamp,
    ) -> io::Result<usize> {
        let seen: FxHashSet<u64> = foreign.all_folders.iter().map(|f| hash(f)).collect();
        let users = |relative: &str, meta: &std::fs::Metadata| {
            foreign.inodes.get(&hash(relative)) == Some(&inode(meta))
        };
        let known = |relative: &str, meta: &std::fs::Metadata| match meta.is_dir() {
            true => seen.contains(&hash(relative)),
            false => self.owned.contains(&hash(relative)) || users(relative, meta),
        };
        let site = |relative: &str| {
            let key = hash(relative);
            new.contains(&key) || folders.contains(&key)
        };
        let changed = changed_folders(&self.spare, &foreign.all_folders, since);
        let mut rescue = Rescue {
            old: &self.spare,
            new: &self.out,
            known: &known,
            site: &site,
            ours: &users,
            put: &|relative| {
                foreign.inodes.contains_key(&hash(relative)) && !new.contains(&hash(relative))
            },
            kept: Vec::new(),
            stuck: Vec::new(),
        };
        rescue.run(&changed)?;
        // A file of the user's removed (or renamed) since the survey: its
        // link in the new site goes too.
        let files = foreign
            .files
            .iter()
            .filter_map(|path| Some((path.as_str(), *foreign.inodes.get(&hash(path))?)));
        remove_removed(&self.spare, &self.out, &changed, files)?;
        // What could be placed nowhere stays in the spare, with the note:
        // the next build stops at its start, naming it.
        Ok(rescue.kept.len() + rescue.stuck.len())
    }

    /// Makes the spare tree the new site (see the module doc): removes
    /// what it holds that the new site does not (a file whose inode is not
    /// the output's, or that changed; a folder the new site does not
    /// have), moves the changed files in from `next/`, then links in the
    /// output's files it lacks, the user's empty folders, and the user's
    /// folders' owners, permissions and modification times. `folders` are
    /// the hashes of the site's folders; `spare` lists the spare tree
    /// ([`Staging::list_spare`]).
    fn make_spare(
        &self,
        paths: &[(Box<str>, bool)],
        foreign: &Foreign,
        folders: &FxHashSet<u64>,
        spare: Option<Vec<walkdir::DirEntry>>,
    ) -> io::Result<Vec<u64>> {
        let changed: FxHashSet<u64> = paths
            .par_iter()
            .filter(|(_, changed)| *changed)
            .map(|(p, _)| hash(p))
            .collect();
        let users_folders = foreign.folders();
        let users: FxHashSet<u64> = users_folders.iter().map(|f| hash(f)).collect();
        let mut kept = FxHashSet::default();
        if let Some(entries) = spare {
            use walkdir::DirEntryExt;
            // A folder the last build made read-only (the user's, as it is
            // in the output) is opened again while the tree is made.
            let folders_of = entries
                .iter()
                .filter(|e| e.file_type().is_dir())
                .map(|e| e.path());
            for folder in std::iter::once(self.spare.as_path()).chain(folders_of) {
                make_writable(folder)?;
            }
            // Each entry: its path's hash, and whether it stays.
            let fates: Vec<(u64, bool)> = entries
                .par_iter()
                .map(|entry| {
                    let key = hash(&crate::input::slash_path(entry.path(), &self.spare));
                    let stays = if entry.file_type().is_dir() {
                        folders.contains(&key) || users.contains(&key)
                    } else {
                        foreign.inodes.get(&key) == Some(&entry.ino()) && !changed.contains(&key)
                    };
                    (key, stays)
                })
                .collect();
            let mut doomed_files = Vec::new();
            let mut doomed_folders = Vec::new();
            for (entry, (key, stays)) in entries.iter().zip(fates) {
                match (entry.file_type().is_dir(), stays) {
                    (false, true) => {
                        kept.insert(key);
                    }
                    (false, false) => doomed_files.push(entry.path()),
                    (true, false) => doomed_folders.push(entry.path()),
                    (true, true) => {}
                }
            }
            doomed_files
                .par_iter()
                .try_for_each(|file| std::fs::remove_file(file).map_err(|e| with_path(file, e)))?;
            // A kept file is never in a doomed folder (its folders are the
            // site's or the user's): each is empty now.
            for folder in &doomed_folders {
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
                    std::fs::rename(self.next.join(&**path), &target)
                        .map_err(|e| with_path(&target, e))
                })?;
        } else {
            std::fs::rename(&self.next, &self.spare).map_err(|e| with_path(&self.spare, e))?;
        }
        // The rest of the new site: the output's files the spare lacks, as
        // hard links (they keep their modification times). A file of the
        // user's removed from the output since the survey stays removed.
        let missing: Vec<(&str, bool)> = paths
            .iter()
            .filter(|(_, changed)| !changed)
            .map(|(p, _)| (&**p, false))
            .chain(foreign.files.iter().map(|p| (p.as_str(), true)))
            .filter(|(p, _)| !kept.contains(&hash(p)))
            .collect();
        make_folders(&self.spare, missing.iter().map(|(p, _)| *p))?;
        let vanished: Vec<u64> = missing
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
            .collect::<io::Result<_>>()?;
        for folder in &foreign.empty_folders {
            let target = self.spare.join(folder);
            std::fs::create_dir_all(&target).map_err(|e| with_path(&target, e))?;
        }
        Ok(vanished)
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

/// A moment as a file's change time reads it: seconds and nanoseconds
/// since 1970.
type Stamp = (i64, i64);

/// When `meta`'s entry last changed: on Unix its status change time,
/// which no tool sets back (`rsync -a` and `cp -a` set a folder's
/// modification time back after writing into it).
fn changed_at(meta: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.ctime(), meta.ctime_nsec())
    }
    #[cfg(not(unix))]
    {
        let since = meta
            .modified()
            .ok()
            .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok());
        since.map_or((0, 0), |d| {
            (d.as_secs() as i64, i64::from(d.subsec_nanos()))
        })
    }
}

/// Now, less [`CLOCK_SLACK_SECS`]: a folder changed after this moment
/// reads a later change time.
fn stamp_now() -> Stamp {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
    (secs - CLOCK_SLACK_SECS, i64::from(now.subsec_nanos()))
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

/// Removes from the new site `new` each of the user's `files` (relative
/// path, inode as the survey saw it) that is gone from the old site `old`
/// and in one of its `changed` folders, where the new site still holds
/// the build's link of it: the user removed or renamed it during the
/// build.
fn remove_removed<'p>(
    old: &Path,
    new: &Path,
    changed: &[&String],
    files: impl Iterator<Item = (&'p str, u64)>,
) -> io::Result<()> {
    let changed: FxHashSet<u64> = changed.iter().map(|f| hash(f)).collect();
    for (path, ino) in files {
        let folder = path.rfind('/').map_or("", |at| &path[..at]);
        if !changed.contains(&hash(folder)) || std::fs::symlink_metadata(old.join(path)).is_ok() {
            continue;
        }
        let target = new.join(path);
        if std::fs::symlink_metadata(&target).is_ok_and(|m| inode(&m) == ino) {
            std::fs::remove_file(&target).map_err(|e| with_path(&target, e))?;
        }
    }
    Ok(())
}

/// The folders of `folders` (relative, `""` for the top) under `old`
/// whose change time is `since` or later: those something was written
/// into, or removed from, since.
fn changed_folders<'f>(old: &Path, folders: &'f [String], since: Stamp) -> Vec<&'f String> {
    folders
        .par_iter()
        .filter(|folder| {
            std::fs::symlink_metadata(old.join(folder))
                .is_ok_and(|m| m.is_dir() && changed_at(&m) >= since)
        })
        .collect()
}

/// Puts the file `from` at `to` in place of what `there` describes, by
/// swapping the two, so that a version the user saved at `to` after it
/// was looked at is not lost: when what comes out is not `there`, the two
/// are swapped back (that version is the later) and `from` goes. Where
/// the system cannot swap, `from` is renamed over `to`.
fn replace_checked(from: &Path, to: &Path, there: &std::fs::Metadata) -> io::Result<()> {
    if exchange(from, to).is_err() {
        return std::fs::rename(from, to);
    }
    let out = std::fs::symlink_metadata(from)?;
    if inode(&out) != inode(there) {
        exchange(from, to)?;
    }
    std::fs::remove_file(from)
}

/// Whether the folder of `path` changed after `late` did: something was
/// removed from it (or added) since that version was written.
fn removed_since(path: &Path, late: &std::fs::Metadata) -> bool {
    path.parent()
        .and_then(|folder| std::fs::symlink_metadata(folder).ok())
        .is_some_and(|folder| changed_at(&folder) >= changed_at(late))
}

/// Whether `a` was last written after `b` (by modification time: saving a
/// file sets it, linking or removing another name of it does not).
fn later(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    matches!((a.modified(), b.modified()), (Ok(a), Ok(b)) if a > b)
}

/// Moves what was written into the old site `old` (the spare tree after
/// an exchange) while a build ran into the new site `new`, which would
/// otherwise be lost with the spare, as if the two were one folder.
struct Rescue<'a> {
    old: &'a Path,
    new: &'a Path,
    /// Whether an entry of the old site (by relative path) is one the
    /// build saw, and so not a late write.
    known: &'a (dyn Fn(&str, &std::fs::Metadata) -> bool + Sync),
    /// Whether the new site has a file or folder at a relative path.
    site: &'a dyn Fn(&str) -> bool,
    /// Whether the new site's entry at a relative path is the one the
    /// build put there (a link of the file it saw), which a late version
    /// replaces.
    ours: &'a dyn Fn(&str, &std::fs::Metadata) -> bool,
    /// Whether the build put a file of the user's at a relative path of
    /// the new site (one the survey saw).
    put: &'a dyn Fn(&str) -> bool,
    /// The names under which late files that found their path taken were
    /// kept (`<path>.vellum-kept`).
    kept: Vec<String>,
    /// Late entries that could be placed nowhere (their folder is a file
    /// of the new site, their kept name taken too): left in the old site,
    /// each with why.
    stuck: Vec<String>,
}

impl Rescue<'_> {
    /// Looks in each of `changed` (folders of the old site, relative) and
    /// places each entry `known` does not know.
    fn run(&mut self, changed: &[&String]) -> io::Result<()> {
        let mut late = Vec::new();
        for folder in changed {
            let dir = self.old.join(folder);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries {
                let entry = entry.map_err(|e| with_path(&dir, e))?;
                let name = entry.file_name();
                let relative = match folder.is_empty() {
                    true => name.to_string_lossy().into_owned(),
                    false => format!("{folder}/{}", name.to_string_lossy()),
                };
                let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
                    continue;
                };
                if relative != MANIFEST && !(self.known)(&relative, &meta) {
                    late.push((relative, folder.as_str(), name));
                }
            }
        }
        late.sort_unstable();
        let mut moved: FxHashSet<String> = FxHashSet::default();
        for (relative, folder, name) in late {
            // Inside a folder placed already.
            let mut folders = relative.match_indices('/').map(|(at, _)| &relative[..at]);
            if folders.any(|f| moved.contains(f)) {
                continue;
            }
            let from = self.old.join(folder).join(&name);
            let to = self.new.join(folder).join(&name);
            self.place(&from, &to, &relative)?;
            moved.insert(relative);
        }
        self.kept.sort_unstable();
        Ok(())
    }

    /// Places the late entry `from` at `to` in the new site: moved there
    /// when the path is free or holds the build's own link of an older
    /// version; a folder merged into a folder of the user's there; of two
    /// versions of a file of the user's, the later kept (as one folder
    /// would have it); anything else kept beside as `<path>.vellum-kept`.
    fn place(&mut self, from: &Path, to: &Path, relative: &str) -> io::Result<()> {
        let Ok(late) = std::fs::symlink_metadata(from) else {
            return Ok(());
        };
        let placed = match std::fs::symlink_metadata(to) {
            // The user removed the file the build carried there after this
            // version was saved (its folder changed since): as in one
            // folder, it is gone.
            Err(_) if !late.is_dir() && (self.put)(relative) && removed_since(to, &late) => {
                std::fs::remove_file(from)
            }
            Err(_) => make_parent(to).and_then(|()| std::fs::rename(from, to)),
            Ok(there) if there.is_dir() && late.is_dir() => {
                let entries = std::fs::read_dir(from).map_err(|e| with_path(from, e))?;
                for entry in entries {
                    let entry = entry.map_err(|e| with_path(from, e))?;
                    let name = entry.file_name();
                    let child = format!("{relative}/{}", name.to_string_lossy());
                    self.place(&entry.path(), &to.join(&name), &child)?;
                }
                // Emptied, the folder goes, or the next build would take
                // it for a late one.
                let _ = std::fs::remove_dir(from);
                Ok(())
            }
            Ok(_) if (self.site)(relative) => return self.keep(from, to, relative),
            Ok(there) if there.is_dir() || late.is_dir() => return self.keep(from, to, relative),
            Ok(there) if (self.ours)(relative, &there) || later(&late, &there) => {
                replace_checked(from, to, &there)
            }
            // The user wrote a later version into the new site: this one
            // is what that write replaced.
            Ok(_) => std::fs::remove_file(from),
        };
        if placed.is_err() {
            self.stuck.push(format!(
                "{}: was written into the output while Vellum built, as {relative}, where the site \
                 now has a file in place of a folder; Vellum kept it here: move it out",
                from.display()
            ));
        }
        Ok(())
    }

    /// Moves `from` beside `to` as `<to>.vellum-kept`.
    fn keep(&mut self, from: &Path, to: &Path, relative: &str) -> io::Result<()> {
        let mut name = to.as_os_str().to_os_string();
        name.push(".vellum-kept");
        let target = PathBuf::from(name);
        if std::fs::symlink_metadata(&target).is_ok() {
            self.stuck.push(format!(
                "{}: was written into the output while Vellum built, as {relative}, which is taken, \
                 and so is {relative}.vellum-kept; Vellum kept it here: move it into the output yourself",
                from.display()
            ));
            return Ok(());
        }
        std::fs::rename(from, &target).map_err(|e| with_path(&target, e))?;
        self.kept.push(format!("{relative}.vellum-kept"));
        Ok(())
    }
}

/// At a build's start, when the staging directory `dir` holds
/// [`EXCHANGING`] and the spare tree is the old site it names: does again
/// what [`Staging::rescue_late_writes`] did after the exchange, for what
/// happened in the spare since (a build killed before its rescue, or a
/// program working inside the old folder after it). The note gives the
/// survey's moment and the user's files it saw, each with its inode: in
/// the spare's folders changed since, what neither the spare's manifest
/// nor the note nor the output knows goes into the output `out`, and a
/// file of the note gone from the spare goes from the output too (where
/// the output still holds the build's link of it). Returns how many were
/// kept under another name; one placed nowhere is an error naming it.
fn finish_exchange(dir: &Path, out: &Path) -> io::Result<usize> {
    let pending = dir.join(EXCHANGING);
    let text = match std::fs::read_to_string(&pending) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(with_path(&pending, e)),
    };
    // `INODE SECONDS NANOSECONDS`, then `INODE<TAB>PATH<NUL>` for each
    // file of the user's.
    let (head, files) = text.split_once('\n').unwrap_or((&text, ""));
    let numbers: Vec<i64> = head.split(' ').filter_map(|n| n.parse().ok()).collect();
    let spare = dir.join("site");
    let exchanged = match (numbers.as_slice(), std::fs::symlink_metadata(&spare)) {
        ([ino, _, _], Ok(meta)) => u64::try_from(*ino).is_ok_and(|ino| ino == inode(&meta)),
        _ => false,
    };
    if !exchanged {
        return remove_if_present(&pending).map(|()| 0);
    }
    let since = (numbers[1], numbers[2]);
    let users: FxHashMap<u64, (u64, &str)> = files
        .split('\0')
        .filter_map(|record| record.split_once('\t'))
        .filter_map(|(ino, path)| Some((hash(path), (ino.parse().ok()?, path))))
        .collect();
    let users_folders = manifest_folders(
        &users
            .values()
            .map(|(_, p)| *p)
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let old_manifest = manifest_text(&spare)?;
    let old_files: FxHashSet<u64> = old_manifest
        .iter()
        .flat_map(|t| t.lines())
        .map(hash)
        .collect();
    let old_folders = manifest_folders(old_manifest.as_deref().unwrap_or_default());
    let new_manifest = manifest_text(out)?.unwrap_or_default();
    let new_files: FxHashSet<u64> = new_manifest.lines().map(hash).collect();
    let new_folders = manifest_folders(&new_manifest);
    let adopted = old_manifest.is_none();
    let noted = |relative: &str, meta: &std::fs::Metadata| {
        users
            .get(&hash(relative))
            .is_some_and(|(ino, _)| *ino == inode(meta))
    };
    let known = |relative: &str, meta: &std::fs::Metadata| {
        let key = hash(relative);
        let there = std::fs::symlink_metadata(out.join(relative)).ok();
        if meta.is_dir() {
            old_folders.contains(&key)
                || users_folders.contains(&key)
                || there.is_some_and(|m| m.is_dir())
        } else {
            old_files.contains(&key)
                || noted(relative, meta)
                || there.is_some_and(|m| inode(&m) == inode(meta))
                || (adopted && new_files.contains(&key))
        }
    };
    let site = |relative: &str| {
        let key = hash(relative);
        new_files.contains(&key) || new_folders.contains(&key)
    };
    let mut folders = Vec::new();
    for entry in walkdir::WalkDir::new(&spare) {
        let entry = entry.map_err(|e| io::Error::other(e.to_string()))?;
        if entry.file_type().is_dir() {
            folders.push(crate::input::slash_path(entry.path(), &spare));
        }
    }
    let changed = changed_folders(&spare, &folders, since);
    let mut rescue = Rescue {
        old: &spare,
        new: out,
        known: &known,
        site: &site,
        ours: &noted,
        put: &|relative| users.contains_key(&hash(relative)),
        kept: Vec::new(),
        stuck: Vec::new(),
    };
    rescue.run(&changed)?;
    if let Some(first) = rescue.stuck.first() {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, first.clone()));
    }
    remove_removed(
        &spare,
        out,
        &changed,
        users.values().map(|(ino, path)| (*path, *ino)),
    )?;
    remove_if_present(&pending)?;
    Ok(rescue.kept.len())
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

    fn late_site() -> BTreeMap<String, String> {
        let mut want = expected(&NEW);
        for (path, text) in [
            ("late.txt", "late"),
            (".git/ORIG_HEAD", "late ref"),
            ("papers/a/notes.md", "late notes"),
            ("drafts/ch1/x.tex", "late draft"),
            ("CNAME", "new.example.org"),
        ] {
            want.insert(path.into(), text.into());
        }
        want
    }

    /// Writes `before` the exchange, and maybe is killed after it.
    fn late(before: fn(&Path), killed: bool) -> LateWrite {
        LateWrite {
            before,
            after: |_, _| {},
            after_rescue: |_, _| {},
            killed,
        }
    }

    /// Stages `site` with a late write, and publishes it.
    fn build_with_late_write(
        out: &Path,
        site: &[(&str, &str)],
        late: LateWrite,
    ) -> io::Result<WriteStats> {
        let mut sink = DiskSink::new(out);
        sink.begin()?;
        for (path, text) in site {
            sink.put(path, text.as_bytes().to_vec())?;
        }
        sink.staging.as_mut().unwrap().late_write = Some(late);
        sink.commit()
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

    #[test]
    fn a_file_written_into_the_output_during_the_build_is_in_the_new_site() {
        let (folder, out) = old_site_with_users_files("late");
        build_with_late_write(&out, &NEW, late(write_late, false)).unwrap();
        assert_eq!(files(&out), late_site());
        let _ = folder;
        // And the next build keeps them all as the user's.
        build(&out, &OLD, false).unwrap();
        let mut want = late_site();
        for (path, _) in NEW {
            want.remove(path);
        }
        want.extend(OLD.iter().map(|(p, t)| (p.to_string(), t.to_string())));
        assert_eq!(files(&out), want);
    }

    #[test]
    fn a_build_killed_between_its_exchange_and_the_rescue_is_finished_by_the_next() {
        let (_folder, out) = old_site_with_users_files("late-killed");
        let error = build_with_late_write(&out, &NEW, late(write_late, true)).unwrap_err();
        assert_eq!(error.to_string(), "killed after the exchange");
        assert!(!out.join("late.txt").exists());
        build(&out, &NEW, false).unwrap();
        assert_eq!(files(&out), late_site());
    }

    #[test]
    fn a_file_written_during_the_build_where_the_site_now_has_one_is_kept_beside_it() {
        let folder = Folder::new("late-taken");
        let out = folder.0.join("public");
        build(&out, &OLD, false).unwrap();
        let mut new = OLD.to_vec();
        new.push(("added.html", "the site's"));
        let write = |out: &Path| std::fs::write(out.join("added.html"), "mine").unwrap();
        let stats = build_with_late_write(&out, &new, late(write, false)).unwrap();
        assert_eq!(stats.kept, 1);
        let files = files(&out);
        assert_eq!(files["added.html"], "the site's");
        assert_eq!(files["added.html.vellum-kept"], "mine");
    }

    /// Attack findings: what a user does to `public/` around the exchange
    /// ends as it would in one folder. A file removed after the survey
    /// stays removed (and a rename leaves only the new name); a file saved
    /// before the exchange and again after it keeps the later version; a
    /// folder made before it and written into after it is one folder; what
    /// a program working inside the old folder (its current directory)
    /// writes after the exchange is moved into the output by the next
    /// build.
    #[test]
    fn what_the_user_does_around_the_exchange_ends_as_in_one_folder() {
        let (_folder, out) = old_site_with_users_files("around");
        std::fs::write(out.join("notes.md"), "mine").unwrap();
        let before = |out: &Path| {
            std::fs::remove_file(out.join("CNAME")).unwrap();
            std::fs::rename(out.join("notes.md"), out.join("notes-renamed.md")).unwrap();
            std::fs::write(out.join(".git/HEAD.new"), "v1").unwrap();
            std::fs::rename(out.join(".git/HEAD.new"), out.join(".git/HEAD")).unwrap();
            std::fs::create_dir(out.join("drafts")).unwrap();
            std::fs::write(out.join("drafts/a.txt"), "a").unwrap();
        };
        let after = |out: &Path, _: &Path| {
            // Saved again, into the new site.
            std::thread::sleep(std::time::Duration::from_millis(20));
            std::fs::write(out.join(".git/HEAD.new"), "v2").unwrap();
            std::fs::rename(out.join(".git/HEAD.new"), out.join(".git/HEAD")).unwrap();
            std::fs::create_dir_all(out.join("drafts")).unwrap();
            std::fs::write(out.join("drafts/b.txt"), "b").unwrap();
        };
        // A program still inside the old folder, right after the rescue,
        // at the top and in a folder of the user's.
        let after_rescue = |_: &Path, old: &Path| {
            std::fs::write(old.join("from-inside.txt"), "inside").unwrap();
            std::fs::write(old.join(".git/FETCH_HEAD"), "inside").unwrap();
        };
        let late = LateWrite {
            before,
            after,
            after_rescue,
            killed: false,
        };
        let stats = build_with_late_write(&out, &NEW, late).unwrap();
        assert_eq!(stats.kept, 0);
        let mut want = expected(&NEW);
        want.remove("CNAME");
        want.insert(".git/HEAD".into(), "v2".into());
        want.insert("notes-renamed.md".into(), "mine".into());
        want.insert("drafts/a.txt".into(), "a".into());
        want.insert("drafts/b.txt".into(), "b".into());
        assert_eq!(files(&out), want);
        // Between builds the user removes a file, renames one and restores
        // one from an old backup: the next build brings the program's
        // files in and undoes none of it.
        std::fs::remove_file(out.join("notes-renamed.md")).unwrap();
        std::fs::rename(out.join("drafts/a.txt"), out.join("drafts/a2.txt")).unwrap();
        std::fs::write(out.join("drafts/b.old"), "b from a backup").unwrap();
        let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
        std::fs::File::options()
            .write(true)
            .open(out.join("drafts/b.old"))
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        std::fs::rename(out.join("drafts/b.old"), out.join("drafts/b.txt")).unwrap();
        build(&out, &NEW, false).unwrap();
        want.remove("notes-renamed.md");
        want.remove("drafts/a.txt");
        want.insert("drafts/a2.txt".into(), "a".into());
        want.insert("drafts/b.txt".into(), "b from a backup".into());
        want.insert("from-inside.txt".into(), "inside".into());
        want.insert(".git/FETCH_HEAD".into(), "inside".into());
        assert_eq!(files(&out), want);
    }

    /// Attack findings: a file saved during the build and then removed
    /// from the new site stays removed; a folder merged from both sides
    /// and then removed by the user is not brought back empty.
    #[test]
    fn a_file_saved_then_removed_and_a_merged_folder_then_removed_stay_removed() {
        let (_folder, out) = old_site_with_users_files("saved-removed");
        let before = |out: &Path| {
            std::fs::write(out.join("CNAME.new"), "v2").unwrap();
            std::fs::rename(out.join("CNAME.new"), out.join("CNAME")).unwrap();
            std::fs::create_dir(out.join("drafts")).unwrap();
            std::fs::write(out.join("drafts/a.txt"), "a").unwrap();
        };
        let after = |out: &Path, _: &Path| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            std::fs::remove_file(out.join("CNAME")).unwrap();
            std::fs::create_dir_all(out.join("drafts")).unwrap();
            std::fs::write(out.join("drafts/b.txt"), "b").unwrap();
        };
        let late = LateWrite {
            before,
            after,
            after_rescue: |_, _| {},
            killed: false,
        };
        build_with_late_write(&out, &NEW, late).unwrap();
        let mut want = expected(&NEW);
        want.remove("CNAME");
        want.insert("drafts/a.txt".into(), "a".into());
        want.insert("drafts/b.txt".into(), "b".into());
        assert_eq!(files(&out), want);
        std::fs::remove_dir_all(out.join("drafts")).unwrap();
        build(&out, &NEW, false).unwrap();
        assert!(!out.join("drafts").exists());
        assert!(!out.join("CNAME").exists());
    }

    /// A build killed between its exchange and its rescue, after the user
    /// removed one file and renamed another: the next build removes them
    /// from the new site too.
    #[test]
    fn what_the_user_removed_before_a_kill_at_the_exchange_stays_removed() {
        let (_folder, out) = old_site_with_users_files("removed-killed");
        std::fs::write(out.join("notes.md"), "mine").unwrap();
        let before = |out: &Path| {
            std::fs::remove_file(out.join("CNAME")).unwrap();
            std::fs::rename(out.join("notes.md"), out.join("notes-renamed.md")).unwrap();
        };
        let error = build_with_late_write(&out, &NEW, late(before, true)).unwrap_err();
        assert_eq!(error.to_string(), "killed after the exchange");
        assert!(out.join("CNAME").exists() && out.join("notes.md").exists());
        build(&out, &NEW, false).unwrap();
        let mut want = expected(&NEW);
        want.remove("CNAME");
        want.insert("notes-renamed.md".into(), "mine".into());
        assert_eq!(files(&out), want);
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
