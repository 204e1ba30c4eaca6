//! The one test of every URL a user's file can set: a paper override's
//! `url`, `pdf` and `code`, an author profile's `homepage`, and `\url` /
//! `\href` in listing text. Only `http:`, `https:` and `mailto:` URLs and
//! relative ones (`papers/x.pdf`, `/cv.pdf`, `#top`) pass: anything else
//! (`javascript:`, `data:`, `vbscript:`, `file:`) could run a script or
//! leave the site when a reader clicks it.
//!
//! The threat model: Markdown bodies are the site author's own writing and
//! may hold raw HTML, as in Zola and Hugo; every other field is data, which
//! may come from a co-author, a listing service or a record file, and is
//! never trusted to be a safe link.

/// Why `url` cannot be a link, or `None` when it is safe: an allowed
/// scheme or none, and no whitespace or control character anywhere (a
/// browser drops tabs and newlines inside a URL, so `java\tscript:` is
/// `javascript:` to it, and strips leading spaces, so ` javascript:` is too).
pub fn unsafe_reason(url: &str) -> Option<&'static str> {
    if url.is_empty() {
        return Some("an empty URL");
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some(
            "a URL with a space or control character, which browsers drop, so it may hide a scheme",
        );
    }
    match url.find([':', '/', '?', '#']) {
        Some(i) if url[i..].starts_with(':') => {
            let scheme = url[..i].to_ascii_lowercase();
            match scheme.as_str() {
                "http" | "https" | "mailto" => None,
                "javascript" | "vbscript" | "data" => {
                    Some("a script URL, which runs code when clicked")
                }
                _ => Some("a URL with a scheme other than http, https or mailto"),
            }
        }
        _ => None,
    }
}

/// Whether `url` may be a link: [`unsafe_reason`] finds nothing.
pub fn is_safe(url: &str) -> bool {
    unsafe_reason(url).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_schemes_and_relative_urls_pass() {
        for url in [
            "https://arxiv.org/abs/2405.01234",
            "HTTP://example.org/",
            "mailto:a@b.org",
            "papers/x.pdf",
            "/cv.pdf",
            "#top",
            "?q=1",
            "//cdn.example.org/x.pdf",
            "a/b:c",
        ] {
            assert_eq!(unsafe_reason(url), None, "{url}");
        }
    }

    #[test]
    fn script_and_other_schemes_are_refused() {
        let script = Some("a script URL, which runs code when clicked");
        assert_eq!(unsafe_reason("javascript:alert(1)"), script);
        assert_eq!(unsafe_reason("JaVaScRiPt:alert(1)"), script);
        assert_eq!(unsafe_reason("data:text/html,<script>1</script>"), script);
        assert_eq!(unsafe_reason("vbscript:x"), script);
        assert_eq!(
            unsafe_reason("file:///etc/passwd"),
            Some("a URL with a scheme other than http, https or mailto")
        );
        for hidden in [
            " javascript:x",
            "java\tscript:x",
            "java\nscript:x",
            "\u{0}javascript:x",
        ] {
            assert!(
                unsafe_reason(hidden).unwrap().contains("space or control"),
                "{hidden:?}"
            );
        }
        assert_eq!(unsafe_reason(""), Some("an empty URL"));
    }
}
