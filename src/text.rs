//! The text type for titles and abstracts: the source text as listed, its
//! HTML rendering and its plain-text rendering, made once so every page,
//! feed and index escapes the same way. LaTeX is kept verbatim for now: the
//! HTML rendering is the escaped source (paragraphs in `<p>`), the plain
//! rendering is the source with whitespace folded.

use serde::Serialize;

/// A title or an abstract in its three renderings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
    pub fn inline(source: &str) -> Text {
        Text {
            source: source.to_string(),
            html: escape_html(source),
            plain: fold_whitespace(source),
        }
    }

    /// A block text such as an abstract: each paragraph in `<p>…</p>`.
    pub fn paragraphs(paragraphs: &[String]) -> Text {
        let html = paragraphs
            .iter()
            .map(|p| format!("<p>{}</p>", escape_html(p)))
            .collect::<Vec<_>>()
            .join("\n");
        let plain = paragraphs
            .iter()
            .map(|p| fold_whitespace(p))
            .collect::<Vec<_>>()
            .join(" ");
        Text {
            source: paragraphs.join("\n\n"),
            html,
            plain,
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

/// Trims and turns every run of whitespace into one space. Listing text
/// is usually folded already (the parser joins trimmed lines with single
/// spaces), so that case is a plain copy.
fn fold_whitespace(text: &str) -> String {
    let folded = !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.contains("  ")
        && !text.contains(|c: char| c.is_whitespace() && c != ' ');
    if folded {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_with_markup_is_shown_literally() {
        let t = Text::inline("A <script> & B");
        assert_eq!(t.html, "A &lt;script&gt; &amp; B");
        assert_eq!(t.plain, "A <script> & B");
    }

    #[test]
    fn paragraphs_and_summary() {
        let t = Text::paragraphs(&["One two.".into(), "Three \"four\".".into()]);
        assert_eq!(t.html, "<p>One two.</p>\n<p>Three &quot;four&quot;.</p>");
        assert_eq!(t.plain, "One two. Three \"four\".");
        assert_eq!(t.source, "One two.\n\nThree \"four\".");
        assert_eq!(t.summary(10), "One two.…");
        assert_eq!(fold_whitespace(" a \t b\n\nc  "), "a b c");
        assert_eq!(fold_whitespace("a b c"), "a b c");
        assert!(Text::paragraphs(&[]).is_empty());
    }
}
