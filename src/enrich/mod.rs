//! `vellum enrich`: finds the arXiv record of each paper of the site and
//! keeps what it found in a file of the site, which builds read (they stay
//! offline and deterministic).
//!
//! - [`record`]: an arXiv record, from an API answer (Atom) or a line of
//!   arXiv's metadata snapshot (JSON lines).
//! - [`matching`]: which record is a listed paper's, with no guess.

pub mod matching;
pub mod record;
