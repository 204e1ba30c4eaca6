//! Vellum: a static site generator for publication listings.
//!
//! The pipeline, one folder per stage, data flowing one way (the folder's
//! `mod.rs` says what it takes and hands on):
//!
//! 1. [`input`]: the site's files → [`input::Inputs`]: `site.toml`
//!    ([`input::config`]), the paths of the listings, the Markdown pages
//!    ([`input::content`]), templates and static files;
//! 2. [`corpus`]: the listings, read and parsed ([`corpus::listings`],
//!    [`input::listing`]), merged into one frozen [`corpus::Corpus`]
//!    ([`corpus::merge`]), corrected by the per-paper overrides
//!    ([`corpus::overrides`]), with citation keys ([`corpus::keys`]);
//! 3. [`render`]: a plan of [`render::jobs::Job`]s ([`render::plan`])
//!    rendered in parallel: pages through tera templates, feeds, the
//!    sitemap, citation exports and the search index;
//! 4. [`output`]: each file to a [`output::Sink`] (disk, memory, nothing),
//!    made visible at once by its commit.
//!
//! The commands drive it: [`build`] (the driver, read → parse → merge →
//! plan → render → write), [`check`] (build into a link checker),
//! [`serve`] (build into memory, serve, watch, rebuild incrementally
//! through [`build::Incremental`]), [`enrich`] (the arXiv record of each
//! paper, matched and kept in the site) and [`init`] (a new site). Shared by
//! every stage: [`text`] (titles and abstracts in their renderings, LaTeX,
//! names), [`permalink`] (every URL and output path, slugs),
//! [`diagnostics`] (every problem with its `file:line`) and [`memo`]
//! (values `vellum serve` keeps from one build to the next).
#![warn(missing_docs)]

pub mod build;
pub mod check;
pub mod corpus;
pub mod diagnostics;
pub mod enrich;
pub mod init;
pub mod input;
pub mod memo;
pub mod output;
pub mod permalink;
pub mod render;
pub mod safe_url;
pub mod serve;
pub mod text;
