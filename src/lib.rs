//! Vellum: a static site generator for publication listings.
//!
//! The pipeline, one module per stage, data flowing one way:
//!
//! 1. [`config`]: `site.toml` → [`config::Config`];
//! 2. [`listing`]: each `seeds/**/*.txt` → [`listing::Listing`];
//! 3. [`corpus`]: all listings → one frozen [`corpus::Corpus`] (papers,
//!    authors, years, categories; [`categories`] names the arXiv codes);
//! 4. [`content`]: `content/**/*.md` → [`content::Content`], read before
//!    the corpus is merged (author profiles name variants to merge);
//! 5. [`overrides`]: per-paper overrides applied, citation keys assigned;
//! 6. [`render`]: a plan of [`render::Job`]s rendered through tera
//!    templates in parallel;
//! 7. [`output`]: the finished site to a [`output::Sink`] (disk, memory, nothing).
//!
//! [`site::build`] drives them; [`permalink`] owns every URL and output
//! path; [`text`] holds titles and abstracts in their renderings, made by
//! [`latex`]; [`cite`] writes BibTeX, RIS and CSL-JSON; [`scholar`] the
//! citation meta tags and JSON-LD; [`stats`] the term pages' statistics;
//! [`diagnostics`] collects every problem with its `file:line`; [`names`]
//! is the author name model and ordering rule. Beside the pipeline:
//! [`feeds`] (Atom, sitemap, robots.txt), [`check`] (link checker),
//! [`init`] (new sites), [`serve`] with [`watch`] (local preview), whose
//! incremental rebuilds patch the last corpus ([`corpus::Merge`]) and use
//! [`fingerprint`] (which pages to render again) and [`memo`] (values kept
//! from the previous build).
#![warn(missing_docs)]

pub mod categories;
pub mod check;
pub mod cite;
pub mod config;
pub mod content;
pub mod corpus;
pub mod diagnostics;
pub mod exports;
pub mod feeds;
pub mod fingerprint;
pub mod init;
pub mod latex;
pub mod listing;
pub mod memo;
pub mod names;
pub mod output;
pub mod overrides;
pub mod permalink;
pub mod render;
pub mod scholar;
pub mod search;
pub mod serve;
pub mod site;
pub mod stats;
pub mod text;
pub mod watch;
