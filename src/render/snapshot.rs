//! What renders a committed build's pages again, one at a time, when they
//! are asked for: `vellum serve` keeps this instead of the pages
//! ([`crate::output::MemorySink::on_request`]).

use crate::corpus::Corpus;
use crate::diagnostics::Diagnostic;
use crate::input::config::Config;
use crate::input::content::Content;
use crate::permalink::UrlMap;
use crate::render::jobs::Job;
use crate::render::site::Site;
use crate::render::templates::Templates;
use crate::render::views::Views;
use crate::render::Renderer;
use std::sync::{Arc, OnceLock};

/// A build's inputs as its pages were rendered from them: the corpus,
/// configuration, content (links resolved), templates and plan. Rendering
/// one of its jobs again gives the bytes the build gave, so a page need
/// not be kept.
pub struct Snapshot {
    pub(crate) config: Config,
    pub(crate) urls: UrlMap,
    pub(crate) corpus: Arc<Corpus>,
    pub(crate) content: Content,
    pub(crate) templates: Templates,
    /// Every job of the plan, and `files[i]`, the output file of `jobs[i]`.
    pub(crate) jobs: Vec<Job>,
    pub(crate) files: Vec<String>,
    /// Output file → its job, made when first asked for (not by every
    /// rebuild: at 100,000 papers, 478,000 files).
    by_file: OnceLock<rustc_hash::FxHashMap<Box<str>, u32>>,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Snapshot({} jobs)", self.jobs.len())
    }
}

impl Snapshot {
    /// The snapshot of a build that rendered `jobs` (writing `files`) from
    /// these inputs.
    pub(crate) fn new(
        site: &Site,
        corpus: Arc<Corpus>,
        templates: Templates,
        jobs: Vec<Job>,
        files: Vec<String>,
    ) -> Snapshot {
        Snapshot {
            config: site.config.clone(),
            urls: site.urls.clone(),
            corpus,
            content: site.content.clone(),
            templates,
            jobs,
            files,
            by_file: OnceLock::new(),
        }
    }

    /// Renders the output file `file` again: `None` when no job writes
    /// it. Errors: a template error, which the build met too.
    pub fn render(&self, file: &str) -> Option<Result<Vec<u8>, Diagnostic>> {
        let by_file = self.by_file.get_or_init(|| {
            let files = self.files.iter().enumerate();
            files.map(|(i, f)| (f.as_str().into(), i as u32)).collect()
        });
        let job = &self.jobs[*by_file.get(file)? as usize];
        let site = Site {
            config: &self.config,
            urls: &self.urls,
            corpus: &self.corpus,
            content: &self.content,
        };
        let renderer = Renderer::new(site, self.templates.clone(), Views::new(&site));
        let files = renderer.render(job, &self.jobs);
        let found = files.map(|files| files.into_iter().find(|(path, _)| path == file));
        // A job writes its planned file: `None` only if it did not.
        found.map(|made| made.map(|(_, bytes)| bytes)).transpose()
    }
}
