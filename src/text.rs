//! The text type for titles and abstracts: the source text as listed, its
//! HTML rendering and its plain-text rendering, made once (LaTeX converted
//! by [`crate::latex`]) so every page, feed, export and index shows the
//! same text.

use crate::latex;
use serde::Serialize;

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

#[cfg(test)]
mod tests {
    use super::*;

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
