//! Issue 21's findings, one regression test each: script links refused,
//! files Vellum did not write kept, well-formed feeds for any input,
//! bounded time, errors at their `file:line`, no silent guesses.

use crate::common::*;
use vellum::diagnostics::Severity;

/// The paper of [`olumide_site`].
const PAPER: &str = "routing-tokens-in-mixture-of-experts";

fn script_links_in_overrides_and_profiles_are_errors_at_their_line() {
    let dir = olumide_site();
    write(
        dir.path(),
        &format!("content/papers/{PAPER}.md"),
        b"+++\nvenue = \"X\"\nurl = \"javascript:alert(1)\"\npdf = \" JaVaScRiPt:alert(1)\"\ncode = \"java\tscript:alert(1)\"\n+++\n",
    );
    write(
        dir.path(),
        "content/authors/olumide-adeyemi.md",
        b"+++\n\nhomepage = \"data:text/html,<script>alert(1)</script>\"\n+++\n",
    );
    let (report, _) = build_memory(dir.path(), None);
    let file = format!("content/papers/{PAPER}.md");
    let expected = |file: &str, line: usize, key: &str, found: &str, reason: &str| {
        format!(
            "{file}:{line}: error: expected `{key}` to be an http://, https:// or mailto: URL or a \
             relative path, found `{found}` ({reason}); give the address a reader should open"
        )
    };
    let script = "a script URL, which runs code when clicked";
    let hidden =
        "a URL with a space or control character, which browsers drop, so it may hide a scheme";
    assert_eq!(
        messages(&report, Severity::Error),
        [
            expected(
                "content/authors/olumide-adeyemi.md",
                3,
                "homepage",
                "data:text/html,<script>alert(1)</script>",
                script
            ),
            expected(&file, 3, "url", "javascript:alert(1)", script),
            expected(&file, 4, "pdf", " JaVaScRiPt:alert(1)", hidden),
            expected(&file, 5, "code", "java\\tscript:alert(1)", hidden),
        ]
    );
}

fn script_links_in_listing_text_are_text_with_a_warning() {
    let listing = String::from_utf8(olumide_listing()).unwrap().replace(
        "Routing Tokens in Mixture-of-Experts",
        r"Routing Tokens \href{javascript:alert(1)}{here}",
    );
    let dir = temp_site(&[("olumide.txt", listing.as_bytes())], "");
    let (report, site) = build_memory(dir.path(), None);
    let warnings = messages(&report, Severity::Warning);
    assert_eq!(
        warnings,
        ["seeds/olumide.txt:9: warning: expected an http, https or mailto URL in `\\href`, found \
          `javascript:alert(1)` (a script URL, which runs code when clicked), so it is not a link; \
          it is shown as written"]
    );
    let page =
        String::from_utf8_lossy(&site["papers/routing-tokens-here-javascript-alert-1/index.html"]);
    assert!(
        page.contains("Routing Tokens here (javascript:alert(1))"),
        "{page}"
    );
    assert!(!page.contains("href=\"javascript"));
}

pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(safety:
        script_links_in_overrides_and_profiles_are_errors_at_their_line,
        script_links_in_listing_text_are_text_with_a_warning,
    )
}
