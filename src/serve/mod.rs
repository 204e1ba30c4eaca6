//! `vellum serve`: build into memory, serve over HTTP on loopback (axum),
//! watch the inputs ([`crate::serve::watch`]) and rebuild on change, then tell
//! open pages to reload over Server-Sent Events. The reload script is
//! injected only into served HTML, never into `build` output. A failed
//! rebuild keeps serving the last good site, prints `file:line: message`
//! and shows the errors as an overlay in open pages; fixing the input
//! recovers. Serving never touches `public/`. Each rebuild is told the
//! paths the watcher saw change ([`crate::build::BuildOptions::changed_paths`])
//! from the second rebuild on (the first one, and one after a watcher
//! rescan, looks at every listing), so it reads only those listings.

pub mod cache;
pub mod changes;
pub mod fingerprint;
pub mod watch;

use crate::build::{build_with, BuildOptions, BuildReport};
use crate::output::{MemorySink, Sink, SiteOutput};
use crate::render::Snapshot;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use cache::RebuildCache;
use notify::RecursiveMode;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;
use tokio_stream::StreamExt;
use watch::{classify, is_ignored, Change};

/// Path under the base path where open pages listen for reloads.
const EVENTS_PATH: &str = "__vellum/events";

/// Input directories watched recursively (the root itself is watched for
/// `site.toml` and for these directories being created).
const WATCHED_DIRS: [&str; 6] = [
    "seeds",
    "content",
    "themes",
    "templates",
    "static",
    "records",
];

type Debouncer = notify_debouncer_full::Debouncer<
    notify::RecommendedWatcher,
    notify_debouncer_full::RecommendedCache,
>;

/// Options of `vellum serve`.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The site root.
    pub root: PathBuf,
    /// Address to listen on (loopback by default).
    pub interface: IpAddr,
    /// Host names answered besides `localhost` and IP addresses
    /// (`--allowed-host`), lowercase or not.
    pub allowed_hosts: Vec<String>,
    /// Port; 0 picks a free one (printed on start).
    pub port: u16,
    /// When given, the site is served under this base URL's path.
    pub base_url: Option<String>,
    /// Include drafts.
    pub drafts: bool,
    /// Open the site in a browser once it is served.
    pub open: bool,
    /// Quiet time after the last file event before rebuilding.
    pub debounce: Duration,
    /// Print stage timings after each build.
    pub verbose: bool,
    /// Also write each good build to this directory, as `build` does
    /// (the same manifest and ownership rules), for the base URL served.
    pub output_dir: Option<PathBuf>,
}

/// What open pages are told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// New pages are in place: reload.
    Reload,
    /// The last rebuild failed; the text lists every error.
    Failed(String),
}

/// The site being served and the channel to open pages.
struct Served {
    site: RwLock<Arc<SiteOutput>>,
    /// What renders the site's pages that it does not keep
    /// ([`MemorySink::on_request`]); changed only under `site`'s write lock.
    snapshot: RwLock<Option<Arc<Snapshot>>>,
    /// False from the swap of a rebuilt site until the data files it left
    /// out ([`crate::build::DeferredExports`]) are in it; a request for a
    /// missing file waits for true.
    exports_ready: tokio::sync::watch::Sender<bool>,
    error: RwLock<Option<String>>,
    base_path: String,
    notices: broadcast::Sender<Notice>,
}

impl Served {
    /// Serves the sink's last committed site from now on. Returns the site
    /// served until now, for the caller to drop when nothing waits:
    /// dropping a map of every file of the site is work a reload need not
    /// wait for (measured in 8b9789a).
    fn show(&self, sink: &MemorySink) -> Arc<SiteOutput> {
        let mut site = self.site.write().unwrap_or_else(|e| e.into_inner());
        std::mem::replace(&mut *site, Arc::clone(&sink.site))
    }

    /// [`Served::show`], with what renders the new site's pages; the last
    /// snapshot is handed back too, for the caller to drop once the reload
    /// is announced (at 100,000 papers it holds 478,000 paths).
    fn show_build(
        &self,
        sink: &MemorySink,
        snapshot: Option<Snapshot>,
    ) -> (Arc<SiteOutput>, Option<Arc<Snapshot>>) {
        let mut site = self.site.write().unwrap_or_else(|e| e.into_inner());
        let mut shown = self.snapshot.write().unwrap_or_else(|e| e.into_inner());
        let last = std::mem::replace(&mut *shown, snapshot.map(Arc::new));
        (std::mem::replace(&mut *site, Arc::clone(&sink.site)), last)
    }

    /// The site served, with what renders its pages.
    fn shown(&self) -> (Arc<SiteOutput>, Option<Arc<Snapshot>>) {
        let site = self.site.read().unwrap_or_else(|e| e.into_inner());
        let snapshot = self.snapshot.read().unwrap_or_else(|e| e.into_inner());
        (Arc::clone(&site), snapshot.clone())
    }
}

/// Errors `serve` can end with: a busy or unusable address, or a watcher
/// that cannot start. Both name what to change.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error(
        "expected {address} to be free, found {error}; choose another with --port or --interface"
    )]
    Bind {
        /// The address asked for.
        address: SocketAddr,
        /// Why binding failed.
        error: std::io::Error,
    },
    /// `--output-dir` could not be written at the first build.
    #[error("{0}")]
    Output(String),
    /// The file watcher could not start.
    #[error("expected to watch {path} for changes, found {error}")]
    Watch {
        /// The path.
        path: PathBuf,
        /// The watcher's error.
        error: String,
    },
}

fn failures(report: &BuildReport) -> Option<String> {
    report.failed().then(|| {
        report
            .diagnostics
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// Runs the server until Ctrl-C. Prints `Serving at URL` once listening.
/// Errors: see [`ServeError`].
pub fn serve(options: ServeOptions) -> Result<(), ServeError> {
    let address = SocketAddr::new(options.interface, options.port);
    let listener = std::net::TcpListener::bind(address)
        .map_err(|error| ServeError::Bind { address, error })?;
    let port = listener
        .local_addr()
        .map(|a| a.port())
        .unwrap_or(options.port);
    let path = options
        .base_url
        .as_deref()
        .and_then(|url| url.split_once("://").map(|(_, rest)| rest))
        .and_then(|rest| rest.find('/').map(|at| rest[at..].to_string()))
        .unwrap_or_else(|| "/".to_string());
    let host = match options.interface {
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) => ip.to_string(),
    };
    let local_base = format!("http://{host}:{port}{path}");
    let mut cache = RebuildCache::default();
    // Pages are rendered again when asked for, not kept, unless they are
    // written to --output-dir too.
    let on_request = options.output_dir.is_none();
    let build_options = BuildOptions {
        root: options.root.clone(),
        base_url: Some(local_base.clone()),
        drafts: options.drafts,
        snapshot: on_request,
        ..BuildOptions::default()
    };

    let start = Instant::now();
    let mut sink = match on_request {
        true => MemorySink::on_request(),
        false => MemorySink::default(),
    };
    // The sink keeps the last good site; later builds carry the pages
    // whose fingerprint did not change over from it.
    let mut report = build_with(&build_options, &mut sink, Some(&mut cache));
    let last_good = !sink.site.is_empty();
    print_report(
        &report,
        &cache,
        "Built",
        start.elapsed(),
        options.verbose,
        last_good,
    );
    if !report.failed() {
        write_out(&sink.site, options.output_dir.as_deref()).map_err(ServeError::Output)?;
    }
    let (notices, _) = broadcast::channel(16);
    let served = Arc::new(Served {
        site: RwLock::new(Arc::clone(&sink.site)),
        snapshot: RwLock::new(report.snapshot.take().map(Arc::new)),
        exports_ready: tokio::sync::watch::Sender::new(true),
        error: RwLock::new(failures(&report)),
        base_path: path.clone(),
        notices,
    });
    // Rebuilds announce the reload before making the site's data files.
    let rebuild_options = BuildOptions {
        defer_exports: true,
        ..build_options
    };
    let _watcher = start_watching(&options, rebuild_options, cache, sink, Arc::clone(&served))?;

    let app = Router::new()
        .route(&format!("{path}{EVENTS_PATH}"), get(events))
        .fallback(get(page))
        .with_state(Arc::clone(&served));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| ServeError::Bind { address, error })?;
    if !options.interface.to_canonical().is_loopback() {
        eprintln!(
            "warning: serving on {}, reachable from other machines on the network; the preview \
             is meant for this machine (--interface 127.0.0.1)",
            options.interface
        );
    }
    let allowed: Arc<Vec<String>> = Arc::new(
        options
            .allowed_hosts
            .iter()
            .map(|h| h.to_ascii_lowercase())
            .collect(),
    );
    let app = app.layer(axum::middleware::from_fn(move |request, next| {
        check_host(Arc::clone(&allowed), request, next)
    }));
    runtime.block_on(async move {
        listener
            .set_nonblocking(true)
            .map_err(|error| ServeError::Bind { address, error })?;
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|error| ServeError::Bind { address, error })?;
        println!("Serving at {local_base} (Ctrl-C to stop)");
        if options.open {
            if let Err(e) = opener::open_browser(&local_base) {
                eprintln!("warning: could not open a browser: {e}");
            }
        }
        tokio::select! {
            result = accept_loop(listener, app) => result.map_err(|error| ServeError::Bind { address, error }),
            _ = tokio::signal::ctrl_c() => {
                println!("Stopped.");
                Ok(())
            }
        }
    })
}

/// How long a connection may take to send a request's headers: a client
/// that opens a connection and sends half a request is cut off, so held
/// connections cannot pile up.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves each connection with HTTP/1.1 (hyper), cutting off one whose
/// request headers take longer than [`HEADER_READ_TIMEOUT`].
async fn accept_loop(listener: tokio::net::TcpListener, app: Router) -> std::io::Result<()> {
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors and the like: wait, then go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Refuses a request whose `Host` is neither an IP address, `localhost`
/// (or a name under it) nor one of `allowed`: a page on another site whose
/// name was made to resolve to this machine (DNS rebinding) names its own
/// host, so it cannot read the preview.
async fn check_host(
    allowed: Arc<Vec<String>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if host_allowed(host, &allowed) {
        return next.run(request).await;
    }
    let name = host_name(host);
    let answered = match allowed.as_slice() {
        [] => "localhost and IP addresses".to_string(),
        names => format!("localhost, IP addresses and {}", names.join(", ")),
    };
    let message = if name.is_empty() {
        format!("This preview answers to {answered}, and this request names no host.\n")
    } else {
        format!(
            "This preview answers to {answered} only, not to `{name}`. To allow it, run vellum serve --allowed-host {name}\n"
        )
    };
    (StatusCode::FORBIDDEN, message).into_response()
}

/// `host` without its port (`[::1]:1111` → `[::1]`, `a.local:80` → `a.local`).
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host
            .split_once(']')
            .map_or(host, |(ip, _)| &host[..ip.len() + 1]);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let name = host_name(host).to_ascii_lowercase();
    let bare = name.trim_start_matches('[').trim_end_matches(']');
    bare.parse::<IpAddr>().is_ok()
        || name == "localhost"
        || name.ends_with(".localhost")
        || allowed.contains(&name)
}

/// Prints the diagnostics, then what was built: counts, time, and how
/// many files were rendered rather than carried over; with `verbose`, the
/// stage timings too.
fn print_report(
    report: &BuildReport,
    cache: &RebuildCache,
    verb: &str,
    took: Duration,
    verbose: bool,
    last_good: bool,
) {
    for d in &report.diagnostics {
        eprintln!("{d}");
    }
    if report.failed() && last_good {
        eprintln!("error: the site was not rebuilt; still serving the last good version");
    } else if report.failed() {
        eprintln!(
            "error: the site was not built; the preview shows these errors until a build succeeds (fix them and save)"
        );
    } else {
        use crate::diagnostics::counted;
        let [papers, authors, ..] = report.counts;
        let files = report.written.as_ref().map_or(0, |w| w.files);
        let rendered = cache.rendered_files().len();
        println!(
            "{verb} {}, {} in {} ms ({rendered} of {} rendered)",
            counted(papers, "paper", "papers"),
            counted(authors, "author", "authors"),
            took.as_millis(),
            counted(files, "file", "files")
        );
    }
    if verbose {
        print!("{}", report.timings.report());
    }
}

/// Writes the site being served to `dir` (`serve --output-dir`) through
/// a [`crate::output::DiskSink`], as `build` writes: only files Vellum
/// wrote are replaced or removed, and the new site takes the old one's
/// place at once. Prints what was written. Errors: the write's, as a
/// message (after the first build, the preview goes on and a later
/// rebuild tries again).
fn write_out(site: &SiteOutput, dir: Option<&Path>) -> Result<(), String> {
    let Some(dir) = dir else {
        return Ok(());
    };
    let mut disk = crate::output::DiskSink::new(dir);
    let written = disk.begin().and_then(|()| {
        let files: Vec<_> = site.iter().collect();
        files
            .par_iter()
            .try_for_each(|(path, file)| match file.bytes() {
                Some(bytes) => disk.put(path, bytes),
                // Only a sink that keeps every page is written out.
                None => Err(std::io::Error::other(format!("{path} was not kept"))),
            })?;
        disk.commit()
    });
    match written {
        Ok(stats) => {
            for warning in &stats.kept {
                eprintln!("{warning}");
            }
            println!(
                "Wrote {} ({} written, {} removed) to {}",
                crate::diagnostics::counted(stats.files, "file", "files"),
                stats.written,
                stats.removed,
                dir.display()
            );
            Ok(())
        }
        Err(e) => {
            disk.abort();
            Err(format!(
                "expected to write the site to {}, found {e}",
                dir.display()
            ))
        }
    }
}

/// Watches the inputs; each debounced batch of relevant events rebuilds the
/// site, swaps it in, then notifies open pages ([`Rebuilder`]).
fn start_watching(
    options: &ServeOptions,
    build_options: BuildOptions,
    cache: RebuildCache,
    sink: MemorySink,
    served: Arc<Served>,
) -> Result<impl Drop, ServeError> {
    let root = std::fs::canonicalize(&options.root).unwrap_or_else(|_| options.root.clone());
    let handler_root = root.clone();
    // The handler adds watches for input directories created after start;
    // it reaches the debouncer that owns it through a weak reference.
    let debouncer_slot: Arc<OnceLock<Weak<Mutex<Debouncer>>>> = Arc::default();
    let handler_slot = Arc::clone(&debouncer_slot);
    let mut rebuilder = Rebuilder {
        build_options,
        cache,
        sink,
        served,
        verbose: options.verbose,
        output_dir: options.output_dir.clone(),
        watched_since_last_build: false,
    };
    let debouncer = notify_debouncer_full::new_debouncer(
        options.debounce,
        None,
        move |result: notify_debouncer_full::DebounceEventResult| {
            let Ok(events) = result else {
                return;
            };
            let changes = changes_of(&handler_root, &events, &handler_slot);
            if changes.is_empty() {
                return;
            }
            let changed = changed_paths(&handler_root, &events);
            let rescan = events.iter().any(|e| e.need_rescan());
            rebuilder.rebuild(&changes, changed, rescan);
        },
    )
    .map_err(|e| ServeError::Watch {
        path: root.clone(),
        error: e.to_string(),
    })?;
    let debouncer = Arc::new(Mutex::new(debouncer));
    let _ = debouncer_slot.set(Arc::downgrade(&debouncer));
    {
        let mut guard = debouncer.lock().unwrap_or_else(|e| e.into_inner());
        let mut watch = |path: &Path, mode| {
            guard.watch(path, mode).map_err(|e| ServeError::Watch {
                path: path.to_path_buf(),
                error: e.to_string(),
            })
        };
        watch(&root, RecursiveMode::NonRecursive)?;
        for dir in WATCHED_DIRS {
            let path = root.join(dir);
            if path.is_dir() {
                watch(&path, RecursiveMode::Recursive)?;
            }
        }
    }
    Ok(debouncer)
}

/// The kinds of input that `events` changed under `root`. An input
/// directory created is watched at once, through the debouncer in `slot`,
/// before the rebuild reads it, so nothing written into it afterwards is
/// missed.
fn changes_of(
    root: &Path,
    events: &[notify_debouncer_full::DebouncedEvent],
    slot: &OnceLock<Weak<Mutex<Debouncer>>>,
) -> BTreeSet<Change> {
    // Reading files (our own rebuild included) raises access events:
    // only creations, modifications, renames and removals count.
    let mut changes: BTreeSet<Change> = events
        .iter()
        .filter(|e| is_change(&e.kind))
        .flat_map(|e| e.paths.iter())
        .filter_map(|p| classify(root, p))
        .collect();
    let created = events
        .iter()
        .filter(|e| e.kind.is_create())
        .flat_map(|e| e.paths.iter())
        .filter_map(|p| Some((p, input_dir_change(root, p)?)));
    for (dir, change) in created {
        if let Some(debouncer) = slot.get().and_then(Weak::upgrade) {
            if let Ok(mut debouncer) = debouncer.lock() {
                let _ = debouncer.watch(dir, RecursiveMode::Recursive);
            }
        }
        changes.insert(change);
    }
    changes
}

/// What the watcher's rebuilds share from one to the next: the options,
/// the rebuild cache, the sink that keeps the last good site, and what is
/// served.
struct Rebuilder {
    build_options: BuildOptions,
    cache: RebuildCache,
    sink: MemorySink,
    served: Arc<Served>,
    verbose: bool,
    output_dir: Option<PathBuf>,
    /// Whether a build has seen every change since the watcher started;
    /// only then do the events alone say what changed since the last
    /// build.
    watched_since_last_build: bool,
}

impl Rebuilder {
    /// Rebuilds the site after `changes` (the paths `changed`, relative to
    /// the root; all of them unless the watcher had to `rescan`), prints
    /// what was built, and shows the new site or the build's errors.
    fn rebuild(&mut self, changes: &BTreeSet<Change>, changed: Vec<PathBuf>, rescan: bool) {
        let start = Instant::now();
        let options = BuildOptions {
            changed_paths: (self.watched_since_last_build && !rescan).then_some(changed),
            ..self.build_options.clone()
        };
        self.watched_since_last_build = true;
        // The sink keeps the last good site; later builds carry the pages
        // whose fingerprint did not change over from it.
        let mut report = build_with(&options, &mut self.sink, Some(&mut self.cache));
        let what = changes
            .iter()
            .map(|c| format!("{c:?}").to_lowercase())
            .collect::<Vec<_>>()
            .join(", ");
        let verb = format!("Rebuilt ({what}):");
        let last_good = !self.sink.site.is_empty();
        let took = start.elapsed();
        print_report(&report, &self.cache, &verb, took, self.verbose, last_good);
        let served = &self.served;
        match failures(&report) {
            None => self.show(&mut report),
            Some(text) => {
                *served.error.write().unwrap_or_else(|e| e.into_inner()) = Some(text.clone());
                let _ = served.notices.send(Notice::Failed(text));
            }
        }
    }

    /// Shows the site of the successful build `report`: its pages first,
    /// with a reload, then its deferred exports (requests for them wait),
    /// then writes it out with `--output-dir`.
    fn show(&mut self, report: &mut BuildReport) {
        let served = &self.served;
        served.exports_ready.send_replace(report.exports.is_none());
        let previous = served.show_build(&self.sink, report.snapshot.take());
        *served.error.write().unwrap_or_else(|e| e.into_inner()) = None;
        let _ = served.notices.send(Notice::Reload);
        drop(previous);
        if let Some(exports) = &report.exports {
            let start = Instant::now();
            self.sink.add(exports.make(Some(&mut self.cache)));
            drop(served.show(&self.sink));
            served.exports_ready.send_replace(true);
            if self.verbose {
                println!(
                    "Made the search index and corpus.json in {} ms",
                    start.elapsed().as_millis()
                );
            }
        }
        if let Err(message) = write_out(&self.sink.site, self.output_dir.as_deref()) {
            eprintln!("error: {message}; the preview goes on, and the next rebuild tries again");
        }
    }
}

/// The paths, relative to `root`, that `events` created, changed, renamed
/// or removed, leaving out those no build reads ([`is_ignored`]).
fn changed_paths(root: &Path, events: &[notify_debouncer_full::DebouncedEvent]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = events
        .iter()
        .filter(|e| is_change(&e.kind))
        .flat_map(|e| e.paths.iter())
        .filter_map(|p| p.strip_prefix(root).ok())
        .filter(|p| !is_ignored(p))
        .map(Path::to_path_buf)
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// When `path` is one of the input directories, directly in the root: the
/// kind of change its files make.
fn input_dir_change(root: &Path, path: &Path) -> Option<Change> {
    if path.parent() != Some(root) || !path.is_dir() {
        return None;
    }
    match path.file_name()?.to_str()? {
        "seeds" => Some(Change::Listing),
        "content" => Some(Change::Content),
        "themes" | "templates" => Some(Change::Template),
        "static" => Some(Change::Static),
        "records" => Some(Change::Config),
        _ => None,
    }
}

/// Whether an event kind changes a file's content or existence (not an
/// access, and not a metadata change such as an access time).
fn is_change(kind: &notify::EventKind) -> bool {
    use notify::event::{EventKind, ModifyKind};
    !matches!(
        kind,
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) | EventKind::Other
    )
}

/// The Server-Sent Events stream: `reload` after each successful rebuild,
/// `build-error` (with every error) after a failed one, and the current
/// error at once to pages opened while the site is broken.
async fn events(
    State(served): State<Arc<Served>>,
) -> Sse<impl tokio_stream::Stream<Item = Result<Event, Infallible>>> {
    let current = served
        .error
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .map(Notice::Failed);
    let updates = tokio_stream::wrappers::BroadcastStream::new(served.notices.subscribe())
        .filter_map(|notice| notice.ok());
    let stream = tokio_stream::iter(current).chain(updates).map(|notice| {
        Ok(match notice {
            Notice::Reload => Event::default().event("reload").data("reload"),
            Notice::Failed(text) => Event::default().event("build-error").data(text),
        })
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// The live-reload client: reloads on `reload`, shows an overlay on `build-error`.
fn reload_script(base_path: &str) -> String {
    format!(
        r#"<script>(()=>{{const s=new EventSource("{base_path}{EVENTS_PATH}");s.addEventListener("reload",()=>location.reload());s.addEventListener("build-error",e=>{{let d=document.getElementById("vellum-build-error");if(!d){{d=document.createElement("pre");d.id="vellum-build-error";d.setAttribute("role","alert");d.style.cssText="position:fixed;left:0;right:0;bottom:0;max-height:50vh;overflow:auto;margin:0;padding:1em;background:#5c0011;color:#fff;font:14px/1.4 monospace;white-space:pre-wrap;z-index:2147483647";document.body.appendChild(d)}}d.textContent="Vellum build failed:\n"+e.data}})}})();</script>"#
    )
}

/// The request path decoded and checked: `None` when it cannot be a site
/// path (invalid percent-encoding, `..`, `\`, NUL).
pub fn safe_path(raw: &str) -> Option<String> {
    let decoded = percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .ok()?;
    let bad = decoded.contains(['\\', '\0'])
        || decoded
            .split('/')
            .any(|segment| segment == ".." || segment == ".");
    (!bad && decoded.starts_with('/')).then(|| decoded.into_owned())
}

/// Serves a file of the site from memory, with the reload script injected
/// into HTML; a directory path without its slash is redirected; anything
/// else gets the site's 404 page with status 404.
async fn page(State(served): State<Arc<Served>>, uri: Uri, headers: HeaderMap) -> Response {
    let Some(path) = safe_path(uri.path()) else {
        return (StatusCode::BAD_REQUEST, "bad request path").into_response();
    };
    let (mut site, mut snapshot) = served.shown();
    let Some(relative) = path.strip_prefix(&served.base_path) else {
        if format!("{path}/") == served.base_path {
            let location = served.base_path.clone();
            return (
                StatusCode::MOVED_PERMANENTLY,
                [(header::LOCATION, location)],
            )
                .into_response();
        }
        return not_found(&served, &site, snapshot.as_deref());
    };
    let file = if relative.is_empty() || relative.ends_with('/') {
        format!("{relative}index.html")
    } else {
        relative.to_string()
    };
    if !site.contains_key(file.as_str()) {
        // It may be one of the data files a rebuild is still making.
        let mut ready = served.exports_ready.subscribe();
        if ready.wait_for(|ready| *ready).await.is_ok() {
            (site, snapshot) = served.shown();
        }
    }
    let stored = site.get(file.as_str()).cloned();
    let bytes = match stored {
        Some(stored) => match stored.bytes() {
            Some(bytes) => Some(bytes),
            None => {
                // On rayon's threads, as many as the cores: a thread of its
                // own for each request (tokio's blocking pool) kept the
                // memory of its renders, so many clients at once held it
                // many times over (measured in 3d12b89).
                let (file, snapshot) = (file.clone(), snapshot.clone());
                let (made, take) = tokio::sync::oneshot::channel();
                rayon::spawn(move || {
                    let _ = made.send(render_again(snapshot.as_deref(), &file));
                });
                match take.await {
                    Ok(Ok(bytes)) => Some(bytes),
                    Ok(Err(message)) => {
                        return (StatusCode::INTERNAL_SERVER_ERROR, message).into_response()
                    }
                    Err(e) => {
                        return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response()
                    }
                }
            }
        },
        None => None,
    };
    match bytes {
        Some(bytes) if !file.ends_with(".html") && headers.contains_key(header::RANGE) => {
            let range = headers[header::RANGE].to_str().unwrap_or_default();
            respond_range(&served, &file, &bytes, range)
        }
        Some(bytes) => respond(&served, &file, &bytes, StatusCode::OK),
        None if site.contains_key(format!("{relative}/index.html").as_str()) => {
            let location = format!("{path}/");
            (
                StatusCode::MOVED_PERMANENTLY,
                [(header::LOCATION, location)],
            )
                .into_response()
        }
        None => not_found(&served, &site, snapshot.as_deref()),
    }
}

/// The bytes of `file`, a page of the site served that it does not keep,
/// rendered again by `snapshot`. Errors: the message to answer with (the
/// build rendered the page from the same inputs, so none is expected).
fn render_again(snapshot: Option<&Snapshot>, file: &str) -> Result<Vec<u8>, String> {
    match snapshot.and_then(|s| s.render(file)) {
        Some(Ok(bytes)) => Ok(bytes),
        Some(Err(error)) => Err(error.to_string()),
        None => Err(format!("expected a job that renders {file}, found none")),
    }
}

/// The site's 404 page; while no build has succeeded (there is no 404
/// page yet), a minimal page that still carries the reload script, so an
/// open tab shows the errors and reloads once they are fixed.
fn not_found(served: &Served, site: &SiteOutput, snapshot: Option<&Snapshot>) -> Response {
    const BARE: &[u8] = b"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Not found</title></head><body><p>Not found.</p></body></html>";
    let page = site
        .get("404.html")
        .and_then(|stored| match stored.bytes() {
            Some(bytes) => Some(bytes),
            None => render_again(snapshot, "404.html").ok(),
        });
    respond(
        served,
        "404.html",
        page.as_deref().unwrap_or(BARE),
        StatusCode::NOT_FOUND,
    )
}

fn respond(served: &Served, file: &str, bytes: &[u8], status: StatusCode) -> Response {
    let mime = mime_guess::from_path(file).first_or_octet_stream();
    let content_type = if file.ends_with("atom.xml") {
        "application/atom+xml; charset=utf-8".to_string()
    } else if mime.type_() == mime_guess::mime::TEXT {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_string()
    };
    let body = if file.ends_with(".html") {
        inject(bytes, &reload_script(&served.base_path))
    } else {
        bytes.to_vec()
    };
    let mut response = (status, body).into_response();
    if let Ok(value) = HeaderValue::from_str(&content_type) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if !file.ends_with(".html") {
        response
            .headers_mut()
            .insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    }
    response
}

/// A `Range` request for a file other than HTML (the search index's
/// packs are read so, postings and records): one satisfiable range
/// gets 206 with that part, an unsatisfiable one 416, and anything else
/// (several ranges, a malformed header) the whole file, as RFC 9110 allows.
fn respond_range(served: &Served, file: &str, bytes: &[u8], range: &str) -> Response {
    let length = bytes.len() as u64;
    let ranges = http_range_header::parse_range_header(range).and_then(|r| r.validate(length));
    match ranges.as_deref() {
        Ok([one]) => {
            let (start, end) = (*one.start(), *one.end());
            let part = &bytes[start as usize..=end as usize];
            let mut response = respond(served, file, part, StatusCode::PARTIAL_CONTENT);
            if let Ok(value) = HeaderValue::from_str(&format!("bytes {start}-{end}/{length}")) {
                response.headers_mut().insert(header::CONTENT_RANGE, value);
            }
            response
        }
        Err(http_range_header::RangeUnsatisfiableError::Unsatisfiable) => {
            let mut response = (StatusCode::RANGE_NOT_SATISFIABLE, "").into_response();
            if let Ok(value) = HeaderValue::from_str(&format!("bytes */{length}")) {
                response.headers_mut().insert(header::CONTENT_RANGE, value);
            }
            response
        }
        _ => respond(served, file, bytes, StatusCode::OK),
    }
}

/// Inserts `script` before the last `</body>`, or at the end.
fn inject(html: &[u8], script: &str) -> Vec<u8> {
    let at = html
        .windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
        .unwrap_or(html.len());
    let mut out = Vec::with_capacity(html.len() + script.len());
    out.extend_from_slice(&html[..at]);
    out.extend_from_slice(script.as_bytes());
    out.extend_from_slice(&html[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::StoredFile;

    #[test]
    fn hosts_answered() {
        let allowed = vec!["laptop.local".to_string()];
        for host in [
            "127.0.0.1:1111",
            "[::1]:1111",
            "192.168.1.5",
            "localhost:1111",
            "LocalHost",
            "app.localhost:80",
            "laptop.local:1111",
            "Laptop.Local",
        ] {
            assert!(host_allowed(host, &allowed), "{host}");
        }
        for host in [
            "evil.example:1111",
            "",
            "127.0.0.1.evil.example",
            "localhost.evil.example",
            "laptop.local.evil",
        ] {
            assert!(!host_allowed(host, &allowed), "{host}");
        }
    }

    #[test]
    fn request_paths_never_escape_the_site() {
        assert_eq!(safe_path("/papers/x/"), Some("/papers/x/".into()));
        assert_eq!(safe_path("/caf%C3%A9/"), Some("/café/".into()));
        for bad in [
            "/../../etc/passwd",
            "/%2e%2e/%2e%2e/etc/passwd",
            "/a/%2E%2E/b",
            "/a/..%2fb/../",
            "/a%5c..%5cb",
            "/a%00",
            "/%ff",
        ] {
            assert_eq!(safe_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_missing_file_waits_for_the_data_files_of_a_rebuild() {
        let page_at = |ready: bool| {
            Arc::new(Served {
                site: RwLock::new(Arc::new(
                    [(Arc::from("404.html"), StoredFile::new(b"gone"))]
                        .into_iter()
                        .collect(),
                )),
                snapshot: RwLock::new(None),
                exports_ready: tokio::sync::watch::Sender::new(ready),
                error: RwLock::new(None),
                base_path: "/".to_string(),
                notices: broadcast::channel(1).0,
            })
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let request = |served: &Arc<Served>| {
                let uri: Uri = "/corpus.json".parse().unwrap();
                page(State(Arc::clone(served)), uri, HeaderMap::new())
            };
            let idle = page_at(true);
            assert_eq!(request(&idle).await.status(), StatusCode::NOT_FOUND);

            let pending = page_at(false);
            let making = Arc::clone(&pending);
            let finish = async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                let mut site = SiteOutput::clone(&making.site.read().unwrap());
                site.insert(Arc::from("corpus.json"), StoredFile::new(b"{}"));
                *making.site.write().unwrap() = Arc::new(site);
                making.exports_ready.send_replace(true);
            };
            let (response, ()) = tokio::join!(request(&pending), finish);
            assert_eq!(response.status(), StatusCode::OK, "served once made");
        });
    }

    #[test]
    fn only_content_changes_count() {
        use notify::event::{
            AccessKind, CreateKind, EventKind, MetadataKind, ModifyKind, RemoveKind, RenameMode,
        };
        assert!(!is_change(&EventKind::Access(AccessKind::Any)));
        assert!(!is_change(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::AccessTime
        ))));
        assert!(is_change(&EventKind::Create(CreateKind::File)));
        assert!(is_change(&EventKind::Modify(ModifyKind::Name(
            RenameMode::Both
        ))));
        assert!(is_change(&EventKind::Remove(RemoveKind::File)));
    }

    #[test]
    fn script_goes_before_the_closing_body() {
        assert_eq!(
            inject(b"<p>x</p></body></html>", "<s>"),
            b"<p>x</p><s></body></html>"
        );
        assert_eq!(inject(b"<p>x</p>", "<s>"), b"<p>x</p><s>");
    }
}
