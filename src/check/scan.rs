//! The links and anchors of a rendered page, for the link check: every
//! `href` and `src`, every `id` and the `name` of each `<a>`, found where
//! the HTML standard's tokenizer finds tags. Text is passed over with
//! `memchr` to the next `<`. No tags are found in comments, bogus
//! comments (`<!x>`, `<?x>`), the raw text of `script`, `style`, `title`,
//! `textarea`, `xmp`, `iframe`, `noembed` and `noframes` (a script's
//! `<!--<script>` part, where `</script>` does not end it, too), after
//! `plaintext`, and in CDATA sections inside `<svg>` and `<math>`. The
//! HTML elements the standard lists (`<p>`, `<img>`, `<div>`, `<font
//! color>` and others) end `<svg>` and `<math>` when they start inside
//! them, as in a browser. Attributes are read as the standard reads them
//! (quoted, unquoted, bare, `/` between them, the first of a repeated
//! name kept, names in any case; a carriage return is a space, as the
//! standard's preprocessing makes it); a tag cut off by the end of the
//! page counts for nothing. Values are read as a browser reads them:
//! character references decoded by the standard's rules for attribute
//! values (`htmlize::unescape_attribute`, which borrows a value with none),
//! so `&amp;` in a link is the `&` of the URL it leads to.
//!
//! `<noscript>` is read as markup, as a browser without scripts reads it:
//! its links are the ones such a reader follows. (lol_html, the reference
//! the tests hold this scanner to, reads it as raw text, as a browser with
//! scripts does.)
//!
//! Inside `<svg>` and `<math>`, the integration points where HTML starts
//! again are followed (`<foreignObject>`, `<desc>`, `<title>`; `<mi>`,
//! `<mo>`, `<mn>`, `<ms>`, `<mtext>`), with the elements open inside
//! foreign content; an end tag looks for its element among the 256
//! innermost. Not followed: `<annotation-xml>` of HTML (its `encoding`
//! is not read), and an end tag of an HTML element opened before the
//! `<svg>` (`<div><svg></div>`), which the standard lets end the `<svg>`.

use std::borrow::Cow;

/// The links and anchors of one HTML page, in the order written.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PageLinks<'a> {
    /// Each element's `id`, then its `name` if it is an `<a>`.
    pub ids: Vec<Cow<'a, str>>,
    /// Each element's `href`, then its `src`.
    pub links: Vec<Cow<'a, str>>,
}

/// Elements whose content is text up to their end tag, outside foreign
/// content.
const RAW_TEXT: [&[u8]; 8] = [
    b"script",
    b"style",
    b"title",
    b"textarea",
    b"xmp",
    b"iframe",
    b"noembed",
    b"noframes",
];

/// HTML elements that end foreign content (`<svg>`, `<math>`) when they
/// start inside it; `<font>` does with `color`, `face` or `size`.
const BREAKOUT: [&[u8]; 44] = [
    b"b",
    b"big",
    b"blockquote",
    b"body",
    b"br",
    b"center",
    b"code",
    b"dd",
    b"div",
    b"dl",
    b"dt",
    b"em",
    b"embed",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"head",
    b"hr",
    b"i",
    b"img",
    b"li",
    b"listing",
    b"menu",
    b"meta",
    b"nobr",
    b"ol",
    b"p",
    b"pre",
    b"ruby",
    b"s",
    b"small",
    b"span",
    b"strong",
    b"strike",
    b"sub",
    b"sup",
    b"table",
    b"tt",
    b"u",
    b"ul",
    b"var",
];

fn is_named(name: &[u8], names: &[&[u8]]) -> bool {
    names.iter().any(|n| name.eq_ignore_ascii_case(n))
}

/// The links and anchors of `html`.
pub fn scan(html: &[u8]) -> PageLinks<'_> {
    let mut page = PageLinks::default();
    let mut open = Open::default();
    let mut at = 0;
    while let Some(lt) = memchr::memchr(b'<', &html[at..]) {
        let start = at + lt + 1;
        let rest = &html[start..];
        at = match rest.first() {
            Some(b'!') if rest[1..].starts_with(b"--") => comment_end(html, start + 3),
            Some(b'!') if open.in_foreign() && rest[1..].starts_with(b"[CDATA[") => {
                find(html, start + 8, b"]]>").map_or(html.len(), |end| end + 3)
            }
            Some(b'!' | b'?') => bogus_comment_end(html, start + 1),
            Some(b'/') => match rest.get(1) {
                Some(c) if c.is_ascii_alphabetic() => {
                    let Some(tag) = read_tag(html, start + 1) else {
                        break;
                    };
                    if open.in_foreign() && is_named(tag.name, &[b"p", b"br"]) {
                        open.break_out();
                    } else {
                        open.end(tag.name);
                    }
                    tag.end
                }
                Some(b'>') => start + 2,
                Some(_) => bogus_comment_end(html, start + 1),
                None => break,
            },
            Some(c) if c.is_ascii_alphabetic() => {
                let Some(tag) = read_tag(html, start) else {
                    break;
                };
                tag.report(&mut page);
                let mut end = tag.end;
                let mut is_html = open.is_html(tag.name);
                if !is_html && (is_named(tag.name, &BREAKOUT) || tag.presentational_font()) {
                    open.break_out();
                    is_html = true;
                }
                if !is_html {
                    open.start_foreign(&tag);
                } else if let Some(svg) = foreign_root(tag.name) {
                    if !tag.self_closing {
                        open.push(
                            tag.name,
                            Kind::Foreign {
                                svg,
                                integration: false,
                            },
                        );
                    }
                } else if tag.name.eq_ignore_ascii_case(b"plaintext") {
                    break;
                } else if tag.name.eq_ignore_ascii_case(b"script") {
                    end = script_end(html, end);
                } else if is_named(tag.name, &RAW_TEXT) {
                    end = raw_text_end(html, end, tag.name);
                } else if !open.is_empty() && !is_named(tag.name, &VOID) {
                    open.push(tag.name, Kind::Html);
                }
                end
            }
            Some(_) => start,
            None => break,
        };
    }
    page
}

/// HTML elements that have no end tag.
const VOID: [&[u8]; 13] = [
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta",
    b"source", b"track", b"wbr",
];

/// What an element open inside `<svg>` or `<math>` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An HTML element, inside an integration point.
    Html,
    /// An element of SVG (`svg`) or MathML; `integration` where HTML
    /// starts again inside it.
    Foreign { svg: bool, integration: bool },
}

/// The elements open from the outermost `<svg>` or `<math>` on, innermost
/// last (outside them nothing is kept).
#[derive(Default)]
struct Open<'a> {
    elements: Vec<(&'a [u8], Kind)>,
}

/// How many of the innermost open elements an end tag looks among for its
/// own: pages nest far less deep, and the bound keeps the scan linear in a
/// page of thousands of elements left open.
const END_TAG_REACH: usize = 256;

impl<'a> Open<'a> {
    fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    fn top(&self) -> Option<Kind> {
        self.elements.last().map(|&(_, kind)| kind)
    }

    fn push(&mut self, name: &'a [u8], kind: Kind) {
        self.elements.push((name, kind));
    }

    /// Whether the innermost open element is SVG's or MathML's: where a
    /// CDATA section may start, and `</p>` ends foreign content.
    fn in_foreign(&self) -> bool {
        matches!(self.top(), Some(Kind::Foreign { .. }))
    }

    /// Whether a start tag `name` here is HTML's: outside foreign content,
    /// inside an HTML element, or at an integration point (but for
    /// `<mglyph>` and `<malignmark>` in MathML's).
    fn is_html(&self, name: &[u8]) -> bool {
        match self.top() {
            None | Some(Kind::Html) => true,
            Some(Kind::Foreign { svg, integration }) => {
                integration && (svg || !is_named(name, &[b"mglyph", b"malignmark"]))
            }
        }
    }

    /// Opens the element of foreign content `tag` starts: of its parent's
    /// language (SVG inside MathML's `<annotation-xml>` for `<svg>`).
    fn start_foreign(&mut self, tag: &Tag<'a>) {
        let Some(&(parent, Kind::Foreign { svg, .. })) = self.elements.last() else {
            return;
        };
        let svg = svg
            || (tag.name.eq_ignore_ascii_case(b"svg")
                && parent.eq_ignore_ascii_case(b"annotation-xml"));
        let integration = match svg {
            true => is_named(tag.name, &[b"foreignObject", b"desc", b"title"]),
            false => is_named(tag.name, &[b"mi", b"mo", b"mn", b"ms", b"mtext"]),
        };
        if !tag.self_closing {
            self.push(tag.name, Kind::Foreign { svg, integration });
        }
    }

    /// Ends foreign content up to the innermost HTML element or
    /// integration point, as an HTML element starting inside it does.
    fn break_out(&mut self) {
        while let Some(Kind::Foreign {
            integration: false, ..
        }) = self.top()
        {
            self.elements.pop();
        }
    }

    /// Ends the innermost open element named `name`, and all inside it;
    /// an end tag of no open element is passed over.
    fn end(&mut self, name: &[u8]) {
        let reach = self.elements.len().saturating_sub(END_TAG_REACH);
        let found = self.elements[reach..]
            .iter()
            .rposition(|(open, _)| open.eq_ignore_ascii_case(name));
        if let Some(at) = found {
            self.elements.truncate(reach + at);
        }
    }
}

/// Whether `name` is `svg` (`Some(true)`) or `math` (`Some(false)`).
fn foreign_root(name: &[u8]) -> Option<bool> {
    match name {
        _ if name.eq_ignore_ascii_case(b"svg") => Some(true),
        _ if name.eq_ignore_ascii_case(b"math") => Some(false),
        _ => None,
    }
}

/// Where `needle` starts in `html` at or after `from`.
fn find(html: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(&html[from.min(html.len())..], needle).map(|i| from + i)
}

/// Just past the comment whose text starts at `from` (after `<!--`):
/// `<!-->` and `<!--->` end at once; else the first `-->` or `--!>`.
fn comment_end(html: &[u8], from: usize) -> usize {
    let rest = &html[from.min(html.len())..];
    if rest.starts_with(b">") {
        return from + 1;
    }
    if rest.starts_with(b"->") {
        return from + 2;
    }
    let mut at = from;
    while let Some(dashes) = find(html, at, b"--") {
        let after = &html[dashes + 2..];
        if after.starts_with(b">") {
            return dashes + 3;
        }
        if after.starts_with(b"!>") {
            return dashes + 4;
        }
        at = dashes + 1;
    }
    html.len()
}

/// Just past the `>` that ends a bogus comment whose text starts at `from`.
fn bogus_comment_end(html: &[u8], from: usize) -> usize {
    memchr::memchr(b'>', &html[from..]).map_or(html.len(), |i| from + i + 1)
}

/// Where the end tag of the raw text element `name`, whose text starts at
/// `from`, starts: the first `</name` followed by a space, `/` or `>`.
fn raw_text_end(html: &[u8], from: usize, name: &[u8]) -> usize {
    let mut at = from;
    while let Some(i) = find(html, at, b"</") {
        if opens(html, i + 2, name) {
            return i;
        }
        at = i + 2;
    }
    html.len()
}

/// Whether the tag name `name` (in any case) starts at `at`, followed by a
/// space, `/` or `>`.
fn opens(html: &[u8], at: usize, name: &[u8]) -> bool {
    let after = &html[at.min(html.len())..];
    after.len() > name.len()
        && after[..name.len()].eq_ignore_ascii_case(name)
        && (is_space(after[name.len()]) || matches!(after[name.len()], b'/' | b'>'))
}

/// Where the end tag of a `<script>` whose text starts at `from` starts,
/// by the standard's script data states: after `<!--`, a `<script>` opens
/// a part where `</script>` does not end the element, up to that
/// `</script>` or `-->`.
fn script_end(html: &[u8], from: usize) -> usize {
    #[derive(PartialEq)]
    enum State {
        Data,
        Escaped,
        DoubleEscaped,
    }
    let mut state = State::Data;
    // `-` just before, in a row, inside `<!--`.
    let mut dashes = 0;
    let mut at = from;
    while at < html.len() {
        if state == State::Data {
            let Some(lt) = memchr::memchr(b'<', &html[at..]) else {
                break;
            };
            at += lt;
            if html[at + 1..].starts_with(b"/") && opens(html, at + 2, b"script") {
                return at;
            }
            if html[at + 1..].starts_with(b"!--") {
                (state, dashes) = (State::Escaped, 2);
                at += 4;
            } else {
                at += 1;
            }
            continue;
        }
        match html[at] {
            b'-' => dashes += 1,
            b'>' if dashes >= 2 => (state, dashes) = (State::Data, 0),
            b'<' => {
                dashes = 0;
                let end_tag = html[at + 1..].starts_with(b"/") && opens(html, at + 2, b"script");
                if state == State::Escaped && end_tag {
                    return at;
                }
                if state == State::Escaped && opens(html, at + 1, b"script") {
                    state = State::DoubleEscaped;
                } else if state == State::DoubleEscaped && end_tag {
                    state = State::Escaped;
                }
            }
            _ => dashes = 0,
        }
        at += 1;
    }
    html.len()
}

/// A start or end tag as read.
struct Tag<'a> {
    name: &'a [u8],
    self_closing: bool,
    /// Just past its `>`.
    end: usize,
    href: Option<&'a [u8]>,
    src: Option<&'a [u8]>,
    id: Option<&'a [u8]>,
    name_attribute: Option<&'a [u8]>,
    /// Whether it has a `color`, `face` or `size` attribute.
    presentational: bool,
}

impl<'a> Tag<'a> {
    fn presentational_font(&self) -> bool {
        self.presentational && self.name.eq_ignore_ascii_case(b"font")
    }

    /// Adds what this start tag holds to `page`.
    fn report(&self, page: &mut PageLinks<'a>) {
        let text = |value: &'a [u8]| htmlize::unescape_attribute(String::from_utf8_lossy(value));
        page.links.extend(self.href.map(text));
        page.links.extend(self.src.map(text));
        page.ids.extend(self.id.map(text));
        if self.name.eq_ignore_ascii_case(b"a") {
            page.ids.extend(self.name_attribute.map(text));
        }
    }
}

/// Whether `c` is a space between a tag's name and attributes: the
/// standard's, and a carriage return (made a line feed before it reads).
fn is_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The tag whose name starts at `from` (after `<` or `</`), or `None`
/// when the page ends inside it.
fn read_tag(html: &[u8], from: usize) -> Option<Tag<'_>> {
    let len = html.len();
    let mut at = from;
    while at < len && !is_space(html[at]) && !matches!(html[at], b'/' | b'>') {
        at += 1;
    }
    let mut tag = Tag {
        name: &html[from..at],
        self_closing: false,
        end: 0,
        href: None,
        src: None,
        id: None,
        name_attribute: None,
        presentational: false,
    };
    loop {
        // Before an attribute's name.
        while at < len && is_space(html[at]) {
            at += 1;
        }
        match *html.get(at)? {
            b'>' => {
                tag.end = at + 1;
                return Some(tag);
            }
            b'/' => {
                at += 1;
                if html.get(at) == Some(&b'>') {
                    tag.self_closing = true;
                    tag.end = at + 1;
                    return Some(tag);
                }
                continue;
            }
            _ => {}
        }
        // The name: its first character may be `=`.
        let start = at;
        at += 1;
        while at < len && !is_space(html[at]) && !matches!(html[at], b'/' | b'>' | b'=') {
            at += 1;
        }
        let name = &html[start..at];
        while at < len && is_space(html[at]) {
            at += 1;
        }
        let mut value: &[u8] = b"";
        if html.get(at) == Some(&b'=') {
            at += 1;
            while at < len && is_space(html[at]) {
                at += 1;
            }
            match *html.get(at)? {
                quote @ (b'"' | b'\'') => {
                    let close = memchr::memchr(quote, &html[at + 1..])?;
                    value = &html[at + 1..at + 1 + close];
                    at += close + 2;
                }
                b'>' => {}
                _ => {
                    let start = at;
                    while at < len && !is_space(html[at]) && html[at] != b'>' {
                        at += 1;
                    }
                    value = &html[start..at];
                }
            }
        }
        // The first of a repeated name is kept.
        let slot = match name.len() {
            2 if name.eq_ignore_ascii_case(b"id") => &mut tag.id,
            3 if name.eq_ignore_ascii_case(b"src") => &mut tag.src,
            4 if name.eq_ignore_ascii_case(b"href") => &mut tag.href,
            4 if name.eq_ignore_ascii_case(b"name") => &mut tag.name_attribute,
            _ => {
                tag.presentational |= is_named(name, &[b"color", b"face", b"size"]);
                continue;
            }
        };
        slot.get_or_insert(value);
    }
}

#[cfg(test)]
mod tests {
    use crate::check::scan_reference::{lol_html_scan, scanned};
    use proptest::prelude::*;

    /// `cases` (a page, its links, its anchors), as [`scan`] finds them,
    /// and as lol_html does (`lol_html_agrees`) or not.
    fn assert_cases(cases: &[(&str, &[&str], &[&str])], lol_html_agrees: bool) {
        let owned = |strings: &[&str]| strings.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for &(html, links, ids) in cases {
            let want = (owned(links), owned(ids));
            assert_eq!(scanned(html.as_bytes()), want, "{html}");
            let lol_html = lol_html_scan(html.as_bytes());
            assert_eq!(
                lol_html == want,
                lol_html_agrees,
                "lol_html found {lol_html:?}: {html}"
            );
        }
    }

    #[test]
    fn finds_links_and_anchors_where_a_browser_finds_tags() {
        let cases: [(&str, &[&str], &[&str]); 22] = [
            (
                r#"<a href="/x/" id="top">x</a><img src="i.png"><a name="old"></a>"#,
                &["/x/", "i.png"],
                &["top", "old"],
            ),
            (
                r#"<script>var s = '<a href="/in/">';</script><a href="/after/">"#,
                &["/after/"],
                &[],
            ),
            (
                r#"<style>a[href="/css/"]{}</style><title><a href="/t/"></title ><textarea><a href="/ta/"></textarea id=x><xmp><a href="/x/"></xmp><a href="/z/">"#,
                &["/z/"],
                &[],
            ),
            (
                r#"<!-- <a href="/c/"> --><a href="/1/"><!--><a href="/2/"><!---><a href="/3/"><!-- x --!><a href="/4/">"#,
                &["/1/", "/2/", "/3/", "/4/"],
                &[],
            ),
            (
                r#"<a title="x>y" href="/q/"><a href='/sq/' id=un-q><a href=/uq/><a href = "/sp/" id = sp>"#,
                &["/q/", "/sq/", "/uq/", "/sp/"],
                &["un-q", "sp"],
            ),
            (
                r#"<a href="/d1/" href="/d2/" id="i1" id="i2"><a href=""><a href>"#,
                &["/d1/", "", ""],
                &["i1"],
            ),
            (
                r#"<A HREF="/UP/" ID="UPID"><A NAME="nm"><div name="nn"><a id="x" name="y"><input id=s name=q>"#,
                &["/UP/"],
                &["UPID", "nm", "x", "y", "s"],
            ),
            (
                r#"<svg><script><a href="/s/"></a></script><title><a href="/t/"></a></title></svg><script><a href="/no/"></script>"#,
                &["/s/", "/t/"],
                &[],
            ),
            (
                r#"<math><mi><![CDATA[<a href="/cdata/">]]></mi></math><![CDATA[<a href="/html/">]]><a href="/after/">"#,
                &["/after/"],
                &[],
            ),
            (
                r#"</p href="/end/"><a href="/x" /><img src="/i.png"/><! <a href="/bang/">><? <a href="/pi/"> ?></>"#,
                &["/x", "/i.png"],
                &[],
            ),
            (
                r#"<a/href="/slash/"><a	href="/tab/"><script src="/s.js"></script><img src="/i" srcset="/x 2x">"#,
                &["/slash/", "/tab/", "/s.js", "/i"],
                &[],
            ),
            (
                r#"<a href="/a&amp;b/#f&amp;g" id="&lt;"><p =id="x">"#,
                &["/a&b/#f&g"],
                &["<"],
            ),
            (
                // Decoded as an attribute value: a legacy reference without
                // its `;` before `=` or a letter is left as written.
                r#"<a href="/o&#39;brien&amp;co/?x=1&copy=2&amp&notit;&lt" id="&#x27;q&#0;">"#,
                &["/o'brien&co/?x=1&copy=2&&notit;<"],
                &["'q\u{FFFD}"],
            ),
            (r#"<plaintext><a href="/pt/">"#, &[], &[]),
            (r#"<b<a name=n id=i>"#, &[], &["i"]),
            (
                r#"<svg><foreignObject><script><a href="/in/"></script><p>x</p></foreignObject><script href="/s.js"/><a href="/svg/"></svg><a href="/out/">"#,
                &["/s.js", "/svg/", "/out/"],
                &[],
            ),
            (
                r#"<math><mi><textarea><a href="/in/"></textarea></mi><mglyph/><mtext><style><a href="/in/"></style></mtext></math><a href="/out/">"#,
                &["/out/"],
                &[],
            ),
            (
                r#"<script><!--<script> -> </script><a href="/in/"></script><a href="/out/">"#,
                &["/out/"],
                &[],
            ),
            (
                "<a\r\nhref=\"/crlf/\"\r\nid=crlf\r\n><script>x</script\r\n><a href=/after/\r>",
                &["/crlf/", "/after/"],
                &["crlf"],
            ),
            (r#"<a href="/cut/" id="cut""#, &[], &[]),
            (
                r#"<script><!--<script></script><a href="/in/"></script><a href="/after/">"#,
                &["/after/"],
                &[],
            ),
            (
                r#"<svg><p><script><a href="/in/"></script><svg><font color=red><style><a href="/in/"></style>"#,
                &[],
                &[],
            ),
        ];
        assert_cases(&cases, true);
    }

    #[test]
    fn follows_the_standard_where_lol_html_does_not() {
        let cases: [(&str, &[&str], &[&str]); 6] = [
            // A self-closed `<svg/>` holds nothing: the script is HTML's.
            (r#"<svg/><script><a href="/in/"></script>"#, &[], &[]),
            // `<img>` ends both `<svg>`s.
            (
                r#"<svg><svg><img><script><a href="/in/"></script>"#,
                &[],
                &[],
            ),
            // `</svg>` ends the `<math>` inside it too.
            (r#"<svg><math></svg><textarea><a href="/in/">"#, &[], &[]),
            // lol_html stops at a `<style>` in a `<select>` (and its
            // `end` would panic after).
            (
                r#"<select><style><a href="/in/"></style><a href="/out/">"#,
                &["/out/"],
                &[],
            ),
            // `</foreignObject>`, an HTML element's end inside `<svg>`'s
            // `<title>`, leaves that `<title>` open, where HTML starts
            // again: the second `<title>` is HTML's, its text raw.
            (
                r#"<svg><title><foreignObject></foreignObject><title><a href="/in/">"#,
                &[],
                &[],
            ),
            // A reader without scripts follows the links of `<noscript>`.
            (
                r#"<noscript><a href="/ns/" id=n></noscript>"#,
                &["/ns/"],
                &["n"],
            ),
        ];
        assert_cases(&cases, false);
    }

    #[test]
    fn reads_a_deeply_nested_page_to_its_end() {
        // 100,000 open `<svg>`s, then as many `</math>`s, each of which
        // looks for a `<math>` among the 256 innermost only
        // (`END_TAG_REACH`), not among all of them (10^10 steps). `</svg>`
        // ends only the innermost, so the `<textarea>` is still inside
        // `<svg>`: markup.
        let html = format!(
            "{}{}<a href=/x/><math></svg><textarea><a href=/in/>",
            "<svg>".repeat(100_000),
            "</math>".repeat(100_000)
        );
        assert_eq!(scanned(html.as_bytes()).0, ["/x/", "/in/"]);
    }

    /// Pieces of pages: tags, comments, raw text elements, foreign
    /// content, and a few random characters. Not `<noscript>`, read as
    /// markup where lol_html reads raw text.
    const PIECES: [&str; 46] = [
        "<a href=\"/a/\">",
        "<a name=n id='i'>",
        "<A\r\nHREF=/b/ ID=j\r>",
        "<input id=s name=q>",
        "<img src=/i.png alt=\"a > b\"/>",
        "<p id=x class=y>",
        "<div>",
        "<font color=red>",
        "</p>",
        "</a>",
        "<!-- ",
        " -->",
        "<!",
        "<?",
        "<script>",
        "</script>",
        "</SCRIPT\n>",
        "<title>",
        "</title >",
        "<svg>",
        "</svg>",
        "<math>",
        "</math>",
        "<![CDATA[",
        "]]>",
        "<textarea>",
        "</textarea>",
        "<style>",
        "</style>",
        "<xmp>",
        "</xmp>",
        "<iframe>",
        "</iframe>",
        "<noembed>",
        "<noframes>",
        "<plaintext>",
        "<a",
        "<img",
        "<foreignObject><script><a href=/fo/></script></foreignObject>",
        "<mi><style><a href=/mi/></style></mi>",
        " href=/h/",
        "\x0Cid=k",
        "\x0C",
        "<!--",
        "-",
        ">",
    ];

    /// Tag soup of [`PIECES`] but `leave_out`.
    fn tag_soup(leave_out: &'static [&'static str]) -> impl Strategy<Value = String> {
        let pieces: Vec<&str> = PIECES
            .into_iter()
            .filter(|p| !leave_out.contains(p))
            .collect();
        let piece = prop_oneof![
            prop::sample::select(pieces).prop_map(str::to_string),
            "[a-dA-D<>/=\"' !?\t\n\r\x0C\\[\\]-]{1,4}",
        ];
        prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
    }

    /// What lol_html reads other than the standard, left out of a soup
    /// with `<svg>` and `<math>`: lol_html ends only the innermost of
    /// them (`<p>` in `<svg><svg>`, `</svg>` in `<svg><math>`), where the
    /// standard ends all up to the one it closes; and the integration
    /// points (`<title>`, `<foreignObject>`, `<mi>`), where lol_html
    /// leaves HTML again at the first end tag of one (`</foreignObject>`
    /// inside `<title>`).
    const NOT_IN_FOREIGN: [&str; 9] = [
        "<title>",
        "<foreignObject><script><a href=/fo/></script></foreignObject>",
        "<mi><style><a href=/mi/></style></mi>",
        "<img src=/i.png alt=\"a > b\"/>",
        "<p id=x class=y>",
        "<div>",
        "<font color=red>",
        "</p>",
        "<math>",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn finds_what_lol_html_finds(html in tag_soup(&["<svg>", "<math>"])) {
            prop_assert_eq!(scanned(html.as_bytes()), lol_html_scan(html.as_bytes()), "{:?}", html);
        }

        #[test]
        fn finds_what_lol_html_finds_in_foreign_content(html in tag_soup(&NOT_IN_FOREIGN)) {
            prop_assert_eq!(scanned(html.as_bytes()), lol_html_scan(html.as_bytes()), "{:?}", html);
        }

        /// Inside one `<svg>`, the HTML elements that end it.
        #[test]
        fn finds_what_lol_html_finds_after_foreign_content_ends(
            soup in tag_soup(&[
                "<svg>",
                "<math>",
                "<title>",
                "<foreignObject><script><a href=/fo/></script></foreignObject>",
                "<mi><style><a href=/mi/></style></mi>",
            ])
        ) {
            let html = format!("<svg>{soup}");
            prop_assert_eq!(scanned(html.as_bytes()), lol_html_scan(html.as_bytes()), "{:?}", html);
        }
    }
}
