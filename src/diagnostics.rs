//! The diagnostics collector: every problem a build finds, with its
//! severity, `file:line` and message, gathered from all stages and reported
//! together at the end, sorted by file and line. A strict mode turns
//! warnings into errors ([`crate::build::BuildOptions::strict`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How bad a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The site is still built; strict mode makes it an error.
    Warning,
    /// The build fails with exit status 1 and writes nothing.
    Error,
}

/// One problem, pointing at a place in an input file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Diagnostic {
    /// The input file, relative to the site root where possible.
    pub file: PathBuf,
    /// 1-based line; 0 when the problem concerns the whole file.
    pub line: usize,
    /// Warning or error.
    pub severity: Severity,
    /// What was expected and what was found, in plain words.
    pub message: String,
}

impl Diagnostic {
    /// An error at `file:line`.
    pub fn error(file: impl AsRef<Path>, line: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            file: file.as_ref().to_path_buf(),
            line,
            severity: Severity::Error,
            message: message.into(),
        }
    }

    /// A warning at `file:line`.
    pub fn warning(file: impl AsRef<Path>, line: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, line, message)
        }
    }
}

impl fmt::Display for Diagnostic {
    /// `file:line: error: message` (the line is left out when it is 0).
    /// Control characters in the file name or message (from a user's
    /// text: an alias holding a NUL, a title holding an escape) are shown
    /// escaped, `\u{0}`, never sent to the terminal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        let file = self.file.display().to_string();
        write_escaped(f, &file)?;
        if self.line != 0 {
            write!(f, ":{}", self.line)?;
        }
        write!(f, ": {level}: ")?;
        write_escaped(f, &self.message)
    }
}

fn write_escaped(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    for c in text.chars() {
        if c.is_control() {
            write!(f, "{}", c.escape_unicode())?;
        } else {
            fmt::Write::write_char(f, c)?;
        }
    }
    Ok(())
}

/// Collects diagnostics from any thread; [`Diagnostics::into_sorted`] hands
/// them back sorted by file, line and message, so reports are deterministic.
#[derive(Debug, Default)]
pub struct Diagnostics {
    items: Mutex<Vec<Diagnostic>>,
}

impl Diagnostics {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one diagnostic.
    pub fn push(&self, diagnostic: Diagnostic) {
        self.lock().push(diagnostic);
    }

    /// Whether an error (or, when `strict`, any warning) was recorded.
    pub fn has_errors(&self, strict: bool) -> bool {
        self.lock()
            .iter()
            .any(|d| strict || d.severity == Severity::Error)
    }

    /// All diagnostics, sorted by file, line, severity and message; with
    /// `strict`, warnings are returned as errors.
    pub fn into_sorted(self, strict: bool) -> Vec<Diagnostic> {
        let mut items = self.items.into_inner().unwrap_or_else(|e| e.into_inner());
        if strict {
            for d in &mut items {
                d.severity = Severity::Error;
            }
        }
        items.sort();
        items.dedup();
        items
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Diagnostic>> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `n` and the noun for it: `1 paper`, `2 papers`, `0 papers`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `; did you mean `title`?` when one of `candidates` is within a small
/// edit distance of `word` (Damerau–Levenshtein, ignoring case: at most
/// one edit for short words, a third of the word's length for longer
/// ones), the closest first; else empty. Appended to a message about a
/// mistyped key, field, variable, argument or slug.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let word_lower = word.to_lowercase();
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| {
            (
                strsim::damerau_levenshtein(&word_lower, &c.to_lowercase()),
                c,
            )
        })
        .filter(|(distance, _)| *distance <= limit)
        .min()
        .map_or(String::new(), |(_, c)| format!("; did you mean `{c}`?"))
}

/// How many "did you mean" suggestions a loop over many names makes
/// against a whole corpus (each compares one name with every paper or
/// author): past this the messages go without, so the time stays linear.
pub const SUGGESTIONS: usize = 20;

/// serde's `unknown field `titel`, expected one of `title`, `date``
/// (or `expected `a` or `b``) as `expected one of `title`, `date`, found
/// unknown field `titel`; did you mean `title`?`; `None` for any other
/// message.
pub fn unknown_field(message: &str) -> Option<String> {
    let rest = message.trim().strip_prefix("unknown field `")?;
    let (field, rest) = rest.split_once('`')?;
    // serde writes the names in backticks, serde-saphyr without.
    let expected = rest.trim_start_matches(',').trim();
    let names: Vec<&str> = match expected.strip_prefix("expected ") {
        Some(list) => list
            .trim_start_matches("one of ")
            .split(", ")
            .flat_map(|part| part.split(" or "))
            .map(|name| name.trim().trim_matches('`'))
            .filter(|name| !name.is_empty())
            .collect(),
        None => Vec::new(),
    };
    let expected = match names.len() {
        0 => "no fields here".to_string(),
        1 => format!("`{}`", names[0]),
        _ => format!(
            "one of {}",
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Some(format!(
        "expected {expected}, found unknown field `{field}`{}",
        did_you_mean(field, names)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped() {
        let d = Diagnostic::error("content/a\u{1b}.md", 2, "found `x\u{0}y\r\n`");
        assert_eq!(
            d.to_string(),
            "content/a\\u{1b}.md:2: error: found `x\\u{0}y\\u{d}\\u{a}`"
        );
    }

    #[test]
    fn sorted_by_file_then_line_and_strict_promotes() {
        let d = Diagnostics::new();
        d.push(Diagnostic::warning("seeds/b.txt", 3, "w"));
        d.push(Diagnostic::error("seeds/a.txt", 10, "e2"));
        d.push(Diagnostic::error("seeds/a.txt", 9, "e1"));
        assert!(d.has_errors(false));
        let lines: Vec<String> = d.into_sorted(true).iter().map(|d| d.to_string()).collect();
        assert_eq!(
            lines,
            [
                "seeds/a.txt:9: error: e1",
                "seeds/a.txt:10: error: e2",
                "seeds/b.txt:3: error: w"
            ]
        );
    }

    #[test]
    fn suggestions_are_close_or_absent() {
        let keys = ["title", "base_url", "paginate_by", "description"];
        assert_eq!(did_you_mean("titel", keys), "; did you mean `title`?");
        assert_eq!(did_you_mean("baseurl", keys), "; did you mean `base_url`?");
        assert_eq!(did_you_mean("paginate", keys), "");
        assert_eq!(did_you_mean("xyz", keys), "");
        assert_eq!(did_you_mean("Title", keys), "; did you mean `title`?");
        assert_eq!(
            unknown_field("unknown field `titel`, expected one of `title`, `date`").as_deref(),
            Some("expected one of `title`, `date`, found unknown field `titel`; did you mean `title`?")
        );
        assert_eq!(
            unknown_field("unknown field `dat`, expected `date` or `draft`").as_deref(),
            Some(
                "expected one of `date`, `draft`, found unknown field `dat`; did you mean `date`?"
            )
        );
        assert_eq!(
            unknown_field("unknown field `dat`, expected one of date, draft").as_deref(),
            Some(
                "expected one of `date`, `draft`, found unknown field `dat`; did you mean `date`?"
            )
        );
        assert_eq!(unknown_field("invalid type: string"), None);
    }
}
