//! What renders a committed build's pages again, one at a time, when they
//! are asked for: `vellum serve` keeps this instead of the pages
//! ([`crate::output::MemorySink::on_request`]).

use crate::corpus::Corpus;
use crate::diagnostics::Diagnostic;
use crate::input::config::Config;
use crate::input::content::Content;
use crate::permalink::UrlMap;
use crate::render::plan::Plan;
use crate::render::site::Site;
use crate::render::templates::Templates;
use crate::render::views::Views;
use crate::render::Renderer;
use std::sync::Arc;

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
    /// Every job of the build, with its output file's hash.
    pub(crate) plan: Arc<Plan>,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Snapshot({} jobs)", self.plan.jobs.len())
    }
}

impl Snapshot {
    /// The snapshot of a build that rendered the jobs of `plan` from
    /// these inputs.
    pub(crate) fn new(
        site: &Site,
        corpus: Arc<Corpus>,
        templates: Templates,
        plan: Arc<Plan>,
    ) -> Snapshot {
        Snapshot {
            config: site.config.clone(),
            urls: site.urls.clone(),
            corpus,
            content: site.content.clone(),
            templates,
            plan,
        }
    }

    /// The build's inputs as every renderer reads them.
    pub fn site(&self) -> Site<'_> {
        Site {
            config: &self.config,
            urls: &self.urls,
            corpus: &self.corpus,
            content: &self.content,
        }
    }

    /// Renders the output file `file` again: `None` when no job writes
    /// it. Errors: a template error, which the build met too.
    pub fn render(&self, file: &str) -> Option<Result<Vec<u8>, Diagnostic>> {
        let site = self.site();
        let job = &self.plan.jobs[self.plan.job_of(&site, file)?];
        let renderer = Renderer::new(site, self.templates.clone(), Views::new(&site));
        let files = renderer.render(job, &self.plan.jobs);
        let found = files.map(|files| files.into_iter().find(|(path, _)| path == file));
        // A job writes its planned file: `None` only if it did not.
        found.map(|made| made.map(|(_, bytes)| bytes)).transpose()
    }
}
