//! The text type for titles and abstracts: the source text as listed, its
//! HTML rendering and its plain-text rendering, made once (LaTeX converted
//! by [`crate::latex`]) so every page, feed, export and index shows the
//! same text.

use crate::latex;
use crate::memo::Memo;
use serde::Serialize;
use std::sync::Arc;

/// A title or an abstract in its three renderings.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Text {
    /// The text as listed; paragraphs separated by a blank line (`\n\n`).
    pub source: String,
    /// Safe HTML: escaped; an abstract's paragraphs each in `<p>…</p>`,
    /// a title inline (no wrapping element).
    pub html: String,
    /// Plain text for `<title>`, meta tags, feeds and search: no markup,
    /// paragraphs joined with a space.
    pub plain: String,
}

impl Text {
    /// An inline text such as a title: HTML without a wrapping element.
    /// Problems (a malformed formula, shown as its source) are pushed to
    /// `problems` as messages without a location.
    pub fn inline(source: &str, problems: &mut Vec<String>) -> Text {
        let rendered = latex::render(source);
        problems.extend(rendered.problems);
        Text {
            source: source.to_string(),
            html: rendered.html,
            plain: rendered.plain,
        }
    }

    /// A block text such as an abstract: each paragraph in `<p>…</p>`.
    /// Problems as for [`Text::inline`].
    pub fn paragraphs(paragraphs: &[String], problems: &mut Vec<String>) -> Text {
        let mut html = Vec::with_capacity(paragraphs.len());
        let mut plain = Vec::with_capacity(paragraphs.len());
        for paragraph in paragraphs {
            let rendered = latex::render(paragraph);
            problems.extend(rendered.problems);
            html.push(format!("<p>{}</p>", rendered.html));
            plain.push(rendered.plain);
        }
        Text {
            source: paragraphs.join("\n\n"),
            html: html.join("\n"),
            plain: plain.join(" "),
        }
    }

    /// Whether the text is empty (an absent abstract).
    pub fn is_empty(&self) -> bool {
        self.source.is_empty()
    }

    /// The plain text cut to at most `max_chars` characters at a word
    /// boundary, with `…` appended when cut: for meta descriptions.
    pub fn summary(&self, max_chars: usize) -> String {
        if self.plain.chars().count() <= max_chars {
            return self.plain.clone();
        }
        let cut: String = self.plain.chars().take(max_chars).collect();
        let at_word = cut.rfind(' ').unwrap_or(cut.len());
        format!("{}…", cut[..at_word].trim_end())
    }
}

/// Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    // Writing to a String cannot fail.
    let _ = pulldown_cmark_escape::escape_html(&mut out, text);
    out
}

/// Converted titles and abstracts that `vellum serve` keeps between
/// builds ([`Memo`]), by the hash of their source (with its kind), with
/// the problems their conversion reported, which are reported again; and
/// the paper identities ([`crate::corpus::paper_identity`]) and sort keys
/// of titles.
#[derive(Debug, Default)]
pub struct TextMemo {
    /// Converted texts and their problems.
    texts: Memo<(Arc<Text>, Vec<String>)>,
    /// Paper identities and sort keys of titles, by the hash of the title
    /// (with its kind).
    keys: Memo<Arc<str>>,
}

impl TextMemo {
    /// [`Text::inline`], or its result from this or the previous build.
    pub fn inline(&self, source: &str, problems: &mut Vec<String>) -> Arc<Text> {
        let key = xxhash_rust::xxh3::xxh3_64_with_seed(source.as_bytes(), 1);
        self.get_or_make(key, problems, |found| Text::inline(source, found))
    }

    /// [`crate::corpus::paper_identity`] of `title`, or its result from
    /// this or the previous build.
    pub fn identity(&self, title: &str) -> Arc<str> {
        let key = xxhash_rust::xxh3::xxh3_64_with_seed(title.as_bytes(), 3);
        self.keys
            .get_or_make(key, || crate::corpus::paper_identity(title).into())
    }

    /// [`crate::names::fold`] of a title's plain text, or its result from
    /// this or the previous build.
    pub fn sort_key(&self, plain: &str) -> Arc<str> {
        let key = xxhash_rust::xxh3::xxh3_64_with_seed(plain.as_bytes(), 4);
        self.keys
            .get_or_make(key, || crate::names::fold(plain).into())
    }

    /// [`Text::paragraphs`], or its result from this or the previous build.
    pub fn paragraphs(&self, paragraphs: &[String], problems: &mut Vec<String>) -> Arc<Text> {
        let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(2);
        for paragraph in paragraphs {
            hasher.update(paragraph.as_bytes());
            hasher.update(&[0]);
        }
        let key = hasher.digest();
        self.get_or_make(key, problems, |found| Text::paragraphs(paragraphs, found))
    }

    fn get_or_make(
        &self,
        key: u64,
        problems: &mut Vec<String>,
        make: impl FnOnce(&mut Vec<String>) -> Text,
    ) -> Arc<Text> {
        let (text, found) = self.texts.get_or_make(key, || {
            let mut found = Vec::new();
            let text = make(&mut found);
            (Arc::new(text), found)
        });
        problems.extend(found);
        text
    }

    /// Ends a build: the texts it did not use are forgotten.
    pub fn finish_build(&self) {
        self.texts.finish_build();
        self.keys.finish_build();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memoised_texts_equal_fresh_ones_and_replay_their_problems() {
        let memo = TextMemo::default();
        let broken = "Bad $\\frac{a$ formula";
        let (mut fresh, mut first, mut again) = (Vec::new(), Vec::new(), Vec::new());
        let expected = Text::inline(broken, &mut fresh);
        assert_eq!(*memo.inline(broken, &mut first), expected);
        memo.finish_build();
        assert_eq!(
            *memo.inline(broken, &mut again),
            expected,
            "from the last build"
        );
        assert_eq!((first.len(), &again), (1, &fresh));
        let paragraphs = ["One.".to_string(), "Two.".to_string()];
        assert_eq!(
            *memo.paragraphs(&paragraphs, &mut Vec::new()),
            Text::paragraphs(&paragraphs, &mut Vec::new())
        );
        let title = "\\textbf{Fast} Graphs";
        assert_eq!(&*memo.identity(title), crate::corpus::paper_identity(title));
    }

    #[test]
    fn title_with_markup_is_shown_literally() {
        let mut problems = Vec::new();
        let t = Text::inline("A <script> & B", &mut problems);
        assert_eq!(t.html, "A &lt;script&gt; &amp; B");
        assert_eq!(t.plain, "A <script> & B");
        assert!(problems.is_empty());
    }

    #[test]
    fn paragraphs_and_summary() {
        let mut problems = Vec::new();
        let t = Text::paragraphs(
            &["One  two.".into(), "Three \"four\" $\\frac{a$.".into()],
            &mut problems,
        );
        assert_eq!(
            t.html,
            "<p>One two.</p>\n<p>Three &quot;four&quot; <code class=\"latex-source\">$\\frac{a$</code>.</p>"
        );
        assert_eq!(problems.len(), 1);
        assert_eq!(t.source, "One  two.\n\nThree \"four\" $\\frac{a$.");
        assert_eq!(t.summary(10), "One two.…");
        assert!(Text::paragraphs(&[], &mut problems).is_empty());
    }
}
