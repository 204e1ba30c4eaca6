//! Stage 3, render: plans the site as a list of jobs over the frozen
//! corpus and content ([`plan`]), then renders each job in parallel with
//! rayon: pages through the theme's tera templates ([`pages`], with the
//! template values of [`views`] and list items filled in without tera
//! where the item template allows, [`items`]), feeds, the sitemap and robots.txt
//! ([`feeds`]), citation files and `corpus.json` ([`exports`], formats in
//! [`cite`], metadata tags in [`scholar`]); [`search`] makes the search
//! index. Every renderer reads the same [`site::Site`] and none imports
//! this module. Hands each rendered file (output path, bytes) to a
//! [`crate::output::Sink`] as soon as it is done.
//!
//! Years and categories are serialised to template values once
//! ([`views::Views`]), and a term page's context holds cheap shared clones
//! of them; an author's and a paper's values are made each time a page
//! shows them.

pub mod cite;
pub mod exports;
pub mod feeds;
pub mod items;
pub mod jobs;
pub mod links;
pub mod metadata;
pub mod pages;
pub mod plan;
pub mod scholar;
pub mod search;
pub mod site;
pub mod snapshot;
pub mod templates;
pub mod views;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::output::Sink;
use crate::permalink::Route;
use jobs::Job;
use pages::Pages;
use rayon::prelude::*;
use site::Abstract;
use site::Site;
pub use snapshot::Snapshot;
use std::collections::{BTreeMap, BTreeSet};
use templates::Templates;
use views::Views;

/// Where one render error happened: the kinds of page, and their output
/// files.
type Failed = (BTreeSet<&'static str>, BTreeSet<String>);

/// What [`Renderer::render_all`] could not do.
pub struct RenderFailure {
    /// Every template or output error, sorted.
    pub errors: Vec<Diagnostic>,
    /// The output files of the jobs that failed, sorted.
    pub files: Vec<String>,
}

/// Renders jobs: template-less ones itself, pages through [`Pages`].
pub struct Renderer<'a> {
    site: Site<'a>,
    pages: Pages<'a>,
}

impl<'a> Renderer<'a> {
    /// Prepares a renderer: sets the global `site` value of every template.
    pub fn new(site: Site<'a>, templates: Templates, views: Views<'a>) -> Renderer<'a> {
        Renderer {
            site,
            pages: Pages::new(site, templates, views),
        }
    }

    /// Renders `jobs` (of the whole `plan`) in parallel, handing each page
    /// to `sink` as soon as it is rendered and advancing `progress` per
    /// job. Errors: every template or output error, sorted, and the
    /// output files of the jobs that failed.
    pub fn render_all(
        &self,
        jobs: &[&Job],
        plan: &[Job],
        sink: &dyn Sink,
        progress: Option<&indicatif::ProgressBar>,
    ) -> Result<(), RenderFailure> {
        let errors = Diagnostics::new();
        // Each error met while rendering, with the kinds of page it stops.
        let failed: std::sync::Mutex<BTreeMap<Diagnostic, Failed>> = Default::default();
        jobs.par_iter().for_each(|job| {
            // `corpus.json` goes to the sink as it is made, the sitemap
            // a part at a time; every other job's files are made whole,
            // then put.
            let staged = match job {
                Job::CorpusJson => {
                    let path = self.site.urls.output_file(&Route::CorpusJson);
                    let result = sink.put_streamed(&path, &mut |out| {
                        exports::write_corpus_json(&self.site, out)
                    });
                    Ok(vec![(path, result)])
                }
                // The sitemap's parts are more files than its job's own,
                // so they are kept (`put`), not made again; each goes as
                // it is made.
                Job::Sitemap => Ok(feeds::sitemaps(&self.site, plan, &|route, bytes| {
                    let path = self.site.urls.output_file(&route);
                    let result = sink.put(&path, bytes);
                    (path, result)
                })),
                _ => self.render(job, plan).map(|files| {
                    files
                        .into_iter()
                        .map(|(path, bytes)| {
                            let result = sink.put_page(&path, bytes);
                            (path, result)
                        })
                        .collect()
                }),
            };
            match staged {
                Ok(results) => {
                    if let Some(bar) = progress {
                        bar.inc(1);
                    }
                    for (path, result) in results {
                        if let Err(e) = result {
                            errors.push(Diagnostic::error(
                                "output",
                                0,
                                format!("expected to stage {path}, found {e}"),
                            ));
                        }
                    }
                }
                Err(e) => {
                    let file = self.site.urls.output_file(&self.site.route(job));
                    let mut failed = failed.lock().unwrap_or_else(|e| e.into_inner());
                    let (kinds, files) = failed.entry(e).or_default();
                    kinds.insert(job.kind_name());
                    files.insert(file);
                }
            }
        });
        // An error is reported once, with the page kinds it affects and
        // the first page it failed on.
        let mut failed_files = Vec::new();
        for (mut error, (kinds, files)) in failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
            let kinds: Vec<&str> = kinds.into_iter().collect();
            let named = match kinds.as_slice() {
                [one] => one.to_string(),
                [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
                [] => continue,
            };
            let label = if kinds.len() == 1 {
                "page kind"
            } else {
                "page kinds"
            };
            let first = files.first().map_or("", String::as_str);
            let pages = crate::diagnostics::counted(files.len(), "page", "pages");
            error
                .message
                .push_str(&format!(" ({label}: {named}; {pages}, first {first})"));
            errors.push(error);
            failed_files.extend(files);
        }
        let errors = errors.into_sorted(false);
        if errors.is_empty() {
            Ok(())
        } else {
            failed_files.sort_unstable();
            Err(RenderFailure {
                errors,
                files: failed_files,
            })
        }
    }

    /// Renders one job to its output files and bytes (one file, or the
    /// parts of a split sitemap, then its index); `plan` is the whole
    /// plan, which the sitemap lists. Errors: a template error at the
    /// template's file and line, or a content page naming a template that
    /// does not exist.
    pub fn render(&self, job: &Job, plan: &[Job]) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
        let site = &self.site;
        let route = site.route(job);
        let file = |route: &Route, bytes| (site.urls.output_file(route), bytes);
        match job {
            Job::Feed(kind) => return Ok(vec![file(&route, feeds::atom(site, *kind))]),
            Job::Robots => {
                let robots = match self.pages.robots() {
                    Some(rendered) => rendered?,
                    None => feeds::robots(site),
                };
                return Ok(vec![file(&route, robots)]);
            }
            Job::PaperExport(id, export) => {
                return Ok(vec![file(
                    &route,
                    exports::paper_export(
                        site,
                        self.pages.author_parts(),
                        *id,
                        *export,
                        Abstract::Included,
                    )
                    .into_bytes(),
                )])
            }
            Job::AuthorBib(id) => {
                let bib = exports::author_bib(site, self.pages.author_parts(), *id);
                return Ok(vec![file(&route, bib.into_bytes())]);
            }
            Job::CorpusJson => {
                let json = exports::corpus_json(site);
                return Ok(vec![file(&route, json)]);
            }
            Job::Sitemap => {
                return Ok(feeds::sitemaps(site, plan, &|route, bytes| {
                    file(&route, bytes)
                }));
            }
            _ => {}
        }
        Ok(vec![file(&route, self.pages.render(job, &route)?)])
    }
}
