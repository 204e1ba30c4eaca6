//! Plain text read back from rendered text: the text of a formula's
//! MathML (radicals, scripts, fractions and accents in Unicode where it has
//! them, readable TeX where it has not), the plain text of rendered HTML,
//! entities decoded and whitespace folded.
//!
//! MathML to text, by element (math-core's output):
//!
//! | MathML | text | example |
//! |---|---|---|
//! | `msup`, `msub`, `msubsup`, and `mover`/`munder`/`munderover` that are not accents | the script in Unicode super- or subscripts when every character has one, else `^x`, `^{xy}` (`_` below) | `K²`, `ε₂²`, `∑ᵢ₌₁ⁿ`, `e^{iπ}`, `x′` |
//! | `msqrt`, `mroot` | `√`, `∛`, `∜`, `ⁿ√` before the radicand, in parentheses unless it is one term | `√n`, `√(x+1)`, `1/√T` |
//! | `mfrac` | `num/den`, each in parentheses unless one term; a binomial (`linethickness="0"`) `n choose k` | `(a+b)/2`, `(n choose k)` |
//! | `mover accent`, `munder accentunder` | a combining mark on a one-letter base (on each letter for over- and underlines), else `\hat{ab}` | `x̂`, `ṽ`, `A̅B̅`, `\widehat{AB}` |
//! | `mtable` | cells joined by `, `, rows by `; ` | `(a, b; c, d)` |
//! | `mspace` at least 0.25 em wide | a space | `a b` |
//! | `mphantom` | nothing | |
//! | anything else | its children in order | |
//!
//! A word operator or text (`\log`, `\text{if}`) is set off from a letter or
//! digit beside it by a space (`n log n`).

/// The Unicode superscript of `c`, where there is one that reads as it.
pub(crate) fn superscript(c: char) -> Option<char> {
    Some(match c {
        '0' => '⁰',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        '4'..='9' => char::from_u32(0x2074 + (c as u32 - '4' as u32))?,
        '+' => '⁺',
        '-' | '−' => '⁻',
        '=' => '⁼',
        '(' => '⁽',
        ')' => '⁾',
        'n' => 'ⁿ',
        'i' => 'ⁱ',
        'T' => 'ᵀ',
        _ => return None,
    })
}

/// The Unicode subscript of `c`, where there is one that reads as it.
pub(crate) fn subscript(c: char) -> Option<char> {
    Some(match c {
        '0'..='9' => char::from_u32(0x2080 + (c as u32 - '0' as u32))?,
        '+' => '₊',
        '-' | '−' => '₋',
        '=' => '₌',
        '(' => '₍',
        ')' => '₎',
        'a' => 'ₐ',
        'e' => 'ₑ',
        'o' => 'ₒ',
        'x' => 'ₓ',
        'h' => 'ₕ',
        'k' => 'ₖ',
        'l' => 'ₗ',
        'm' => 'ₘ',
        'n' => 'ₙ',
        'p' => 'ₚ',
        's' => 'ₛ',
        't' => 'ₜ',
        'i' => 'ᵢ',
        'j' => 'ⱼ',
        'r' => 'ᵣ',
        'u' => 'ᵤ',
        'v' => 'ᵥ',
        _ => return None,
    })
}

/// Folds every run of Unicode whitespace (U+00A0 included) into one ASCII
/// space and trims the ends.
pub(crate) fn fold_whitespace(text: String) -> String {
    fold_spaces(text, true)
}

/// Folds runs of ASCII whitespace into one space and trims the ends
/// (U+00A0 is kept).
pub(crate) fn fold_ascii_spaces(text: String) -> String {
    fold_spaces(text, false)
}

/// Folds whitespace runs (all Unicode whitespace if `unicode`, else ASCII
/// only) into one space and trims the ends; copies only when needed.
fn fold_spaces(text: String, unicode: bool) -> String {
    match needs_folding(&text, unicode) {
        false => text,
        true => fold_runs(&text, unicode),
    }
}

/// `text` with its whitespace runs folded and its ends trimmed, as
/// [`fold_spaces`] does, written anew.
fn fold_runs(text: &str, unicode: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut i) = (0, 0);
    let may_start = |b: u8| {
        matches!(b, b'\t'..=b'\r' | b' ') || (unicode && matches!(b, 0xC2 | 0xE1 | 0xE2 | 0xE3))
    };
    while i < text.len() {
        // Straight to the next byte that may start whitespace.
        match text.as_bytes()[i..].iter().position(|&b| may_start(b)) {
            Some(skip) => i += skip,
            None => break,
        }
        let first = whitespace_len(text, i, unicode);
        if first == 0 {
            i += 1;
            continue;
        }
        let mut end = i + first;
        while end < text.len() {
            match whitespace_len(text, end, unicode) {
                0 => break,
                n => end += n,
            }
        }
        let inner = i > 0 && end < text.len();
        // A single inner ' ' stays; any other run is replaced.
        if !(inner && end == i + 1 && text.as_bytes()[i] == b' ') {
            out.push_str(&text[copied..i]);
            if inner {
                out.push(' ');
            }
            copied = end;
        }
        i = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// `text` on one line: every run of Unicode whitespace folded into one
/// ASCII space and the ends trimmed ([`fold_whitespace`]); borrowed when
/// it already is. The test is [`needs_folding`]'s one pass without
/// branches, which compiles to vector instructions, not the byte-by-byte
/// `match` the BibTeX writer had, which weighed on the most prolific
/// author's reload (measured in be590f9).
pub(crate) fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    match needs_folding(text, true) {
        false => std::borrow::Cow::Borrowed(text),
        true => std::borrow::Cow::Owned(fold_runs(text, true)),
    }
}

/// Is there whitespace other than single inner ASCII spaces (non-ASCII
/// whitespace counting only if `unicode`)?
fn needs_folding(text: &str, unicode: bool) -> bool {
    if text.starts_with(' ') || text.ends_with(' ') {
        return true;
    }
    let (mut ascii, mut lead, mut previous) = (false, false, 0u8);
    for &b in text.as_bytes() {
        // (`|` and `&`, not `||` and `&&`: no branches in this loop)
        ascii |= matches!(b, b'\t'..=b'\r') | ((b == b' ') & (previous == b' '));
        lead |= matches!(b, 0xC2 | 0xE1 | 0xE2 | 0xE3);
        previous = b;
    }
    // Lead bytes are common (’, –, ×); decode only where they are.
    ascii
        || (unicode
            && lead
            && text
                .bytes()
                .enumerate()
                .any(|(i, b)| b >= 0xC2 && whitespace_len(text, i, true) > 1))
}

/// The length of the whitespace character starting at byte `i`, or 0.
fn whitespace_len(text: &str, i: usize, unicode: bool) -> usize {
    match text.as_bytes()[i] {
        b'\t'..=b'\r' | b' ' => 1,
        // Lead bytes of U+0085, U+00A0, U+1680, U+2000..U+205F, U+3000.
        0xC2 | 0xE1 | 0xE2 | 0xE3 if unicode => text
            .get(i..)
            .and_then(|rest| rest.chars().next())
            .filter(|c| c.is_whitespace())
            .map_or(0, char::len_utf8),
        _ => 0,
    }
}

/// Elements nested deeper than this are read as their text content (a
/// formula has at most `MAX_FORMULA`, 2,000, `\ { ^ _`; past 512 levels its
/// meaning is lost to any reader anyway).
const MAX_MATH_DEPTH: usize = 512;

/// Appends the plain text of the MathML `mathml` (see the module's table).
pub(crate) fn mathml_text(mathml: &str, out: &mut String) {
    let tree = Tree::parse(mathml);
    let mut writer = Writer {
        tree: &tree,
        space_after: false,
    };
    for &child in &tree.roots {
        writer.node(child, out, 0);
    }
}

/// A parsed MathML fragment: elements in an arena, text as slices.
struct Tree<'a> {
    elements: Vec<Element<'a>>,
    roots: Vec<Node<'a>>,
}

struct Element<'a> {
    name: &'a str,
    /// The source of the attributes (` accent="true"`, ...).
    attributes: &'a str,
    children: Vec<Node<'a>>,
}

#[derive(Clone, Copy)]
enum Node<'a> {
    Element(usize),
    Text(&'a str),
}

impl<'a> Tree<'a> {
    /// Parses `mathml`; a stray end tag is ignored and unclosed elements
    /// end with the input, so any input gives a tree.
    fn parse(mathml: &'a str) -> Tree<'a> {
        let mut tree = Tree {
            elements: Vec::new(),
            roots: Vec::new(),
        };
        let mut open: Vec<usize> = Vec::new();
        let mut rest = mathml;
        while !rest.is_empty() {
            let node = if rest.starts_with('<') {
                let end = tag_end(rest);
                let tag = rest[1..end].trim_end_matches('>');
                rest = &rest[end..];
                if let Some(name) = tag.strip_prefix('/') {
                    if let Some(at) = open.iter().rposition(|&e| tree.elements[e].name == name) {
                        open.truncate(at);
                    }
                    continue;
                }
                let empty = tag.ends_with('/');
                let tag = tag.trim_end_matches('/');
                let name_end = tag.find([' ', '\t', '\n']).unwrap_or(tag.len());
                tree.elements.push(Element {
                    name: &tag[..name_end],
                    attributes: &tag[name_end..],
                    children: Vec::new(),
                });
                let id = tree.elements.len() - 1;
                tree.add(open.last().copied(), Node::Element(id));
                if !empty {
                    open.push(id);
                }
                continue;
            } else {
                let text_end = rest.find('<').unwrap_or(rest.len());
                let text = &rest[..text_end];
                rest = &rest[text_end..];
                Node::Text(text)
            };
            tree.add(open.last().copied(), node);
        }
        tree
    }

    fn add(&mut self, parent: Option<usize>, node: Node<'a>) {
        match parent {
            Some(parent) => self.elements[parent].children.push(node),
            None => self.roots.push(node),
        }
    }
}

/// The value of the attribute `name` in `attributes`, if it is there.
fn attribute<'a>(attributes: &'a str, name: &str) -> Option<&'a str> {
    let at = attributes.find(&format!(" {name}=\""))? + name.len() + 3;
    let value = &attributes[at..];
    Some(&value[..value.find('"')?])
}

#[derive(Clone, Copy, PartialEq)]
enum Script {
    Super,
    Sub,
}

struct Writer<'t, 'a> {
    tree: &'t Tree<'a>,
    /// The last token was a word operator or text (`log`, `if`).
    space_after: bool,
}

impl Writer<'_, '_> {
    fn node(&mut self, node: Node, out: &mut String, depth: usize) {
        match node {
            Node::Text(text) => decode_text(text, out),
            Node::Element(id) => self.element(id, out, depth),
        }
    }

    /// The text of `id`'s children in order.
    fn children(&mut self, id: usize, out: &mut String, depth: usize) {
        for &child in &self.tree.elements[id].children {
            self.node(child, out, depth + 1);
        }
    }

    /// The text of `id`'s `i`th child (nothing if it has none).
    fn child(&mut self, id: usize, i: usize, out: &mut String, depth: usize) {
        if let Some(&child) = self.tree.elements[id].children.get(i) {
            self.node(child, out, depth + 1);
        }
    }

    /// The text of `id`'s `i`th child, on its own.
    fn child_text(&mut self, id: usize, i: usize, depth: usize) -> String {
        let mut text = String::new();
        self.child(id, i, &mut text, depth);
        text.trim().to_string()
    }

    fn element(&mut self, id: usize, out: &mut String, depth: usize) {
        let element = &self.tree.elements[id];
        let (name, attributes) = (element.name, element.attributes);
        if depth >= MAX_MATH_DEPTH {
            return self.children(id, out, depth);
        }
        let is = |attr: &str| attribute(attributes, attr) == Some("true");
        match name {
            "mi" | "mn" | "mo" | "mtext" | "ms" => self.token(id, name, out, depth),
            "mspace" => {
                let width = attribute(attributes, "width")
                    .and_then(|w| w.strip_suffix("em"))
                    .and_then(|w| w.parse::<f32>().ok());
                if width.is_some_and(|w| w >= 0.25) && !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            "mphantom" => {}
            "msup" | "msub" => {
                self.child(id, 0, out, depth);
                let script = if name == "msup" {
                    Script::Super
                } else {
                    Script::Sub
                };
                self.script(id, 1, script, out, depth);
            }
            "msubsup" | "munderover" => {
                self.child(id, 0, out, depth);
                self.script(id, 1, Script::Sub, out, depth);
                self.script(id, 2, Script::Super, out, depth);
            }
            "mover" if is("accent") => self.accent(id, out, depth),
            "munder" if is("accentunder") => self.accent(id, out, depth),
            "mover" | "munder" => {
                self.child(id, 0, out, depth);
                let script = if name == "mover" {
                    Script::Super
                } else {
                    Script::Sub
                };
                self.script(id, 1, script, out, depth);
            }
            "msqrt" => {
                let mut radicand = String::new();
                self.children(id, &mut radicand, depth);
                out.push('√');
                grouped(radicand.trim(), out);
                // `√x y` is not `√(xy)`.
                self.space_after = true;
            }
            "mroot" => {
                let radicand = self.child_text(id, 0, depth);
                match self.child_text(id, 1, depth).as_str() {
                    "3" => out.push('∛'),
                    "4" => out.push('∜'),
                    index => {
                        script_text(index, Script::Super, out);
                        out.push('√');
                    }
                }
                grouped(&radicand, out);
                self.space_after = true;
            }
            "mfrac" => {
                let numerator = self.child_text(id, 0, depth);
                let denominator = self.child_text(id, 1, depth);
                if attribute(attributes, "linethickness") == Some("0") {
                    out.push_str(&numerator);
                    out.push_str(" choose ");
                    out.push_str(&denominator);
                } else {
                    grouped(&numerator, out);
                    out.push('/');
                    grouped(&denominator, out);
                    // `a/b c` is not `a/(bc)`.
                    self.space_after = true;
                }
            }
            "mtable" => {
                let rows = &self.tree.elements[id].children;
                for (r, &row) in rows
                    .iter()
                    .filter(|n| matches!(n, Node::Element(_)))
                    .enumerate()
                {
                    if r > 0 {
                        out.push_str("; ");
                    }
                    let Node::Element(row) = row else { continue };
                    let cells = &self.tree.elements[row].children;
                    for (c, &cell) in cells
                        .iter()
                        .filter(|n| matches!(n, Node::Element(_)))
                        .enumerate()
                    {
                        // A cell aligned onto the one before (`aligned`'s
                        // `a &= b`) joins it with a space.
                        let glued = match cell {
                            Node::Element(cell) => {
                                attribute(self.tree.elements[cell].attributes, "style")
                                    .is_some_and(|s| s.contains("padding-left: 0"))
                            }
                            Node::Text(_) => false,
                        };
                        if c > 0 {
                            out.push_str(if glued { " " } else { ", " });
                        }
                        let mut text = String::new();
                        self.node(cell, &mut text, depth + 2);
                        out.push_str(text.trim());
                    }
                }
            }
            _ => self.children(id, out, depth),
        }
    }

    /// A token element's text, set off by a space when it or the token
    /// before is a word (`n log n`).
    fn token(&mut self, id: usize, name: &str, out: &mut String, depth: usize) {
        let mut text = String::new();
        self.children(id, &mut text, depth);
        // Invisible operators (function application, times, separator,
        // plus) are not text.
        text.retain(|c| !('\u{2061}'..='\u{2064}').contains(&c));
        let wordy = matches!(name, "mo" | "mtext")
            && text.chars().filter(|c| c.is_alphabetic()).count() > 1;
        let touching = out.chars().next_back().is_some_and(char::is_alphanumeric)
            && text.chars().next().is_some_and(char::is_alphanumeric);
        if (wordy || self.space_after) && touching {
            out.push(' ');
        }
        out.push_str(&text);
        self.space_after = wordy;
    }

    /// `id`'s `i`th child as a script.
    fn script(&mut self, id: usize, i: usize, script: Script, out: &mut String, depth: usize) {
        // A scripted word operator (`\max_x f`) stays a word.
        let word = self.space_after;
        let text = self.child_text(id, i, depth);
        script_text(&text, script, out);
        self.space_after = word;
    }

    /// An accented base (`mover accent="true"` or `munder accentunder`).
    fn accent(&mut self, id: usize, out: &mut String, depth: usize) {
        let base = self.child_text(id, 0, depth);
        let accent = self.child_text(id, 1, depth);
        let Some(&Node::Element(accent_id)) = self.tree.elements[id].children.get(1) else {
            return out.push_str(&base);
        };
        let stretchy =
            attribute(self.tree.elements[accent_id].attributes, "stretchy") == Some("true");
        // One letter, with any marks it has (`x̂` under another hat).
        let mut letters = base.chars().filter(|&c| !is_combining(c));
        let one_letter = letters.next().is_some() && letters.next().is_none();
        match combining_accent(&accent) {
            Some((mark, _)) if one_letter => {
                out.push_str(&base);
                out.push(mark);
            }
            // Over- and underlines are drawn under each letter.
            Some((mark @ ('\u{305}' | '\u{332}'), _)) => {
                for c in base.chars() {
                    out.push(c);
                    out.push(mark);
                }
            }
            Some((_, name)) => {
                out.push('\\');
                if stretchy && matches!(name, "hat" | "tilde" | "check") {
                    out.push_str("wide");
                }
                out.push_str(name);
                out.push('{');
                out.push_str(&base);
                out.push('}');
            }
            None => {
                out.push_str(&base);
                out.push_str(&accent);
            }
        }
    }
}

/// Whether `c` is a combining mark (diacritics, and those for symbols).
fn is_combining(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36f}' | '\u{20d0}'..='\u{20ff}')
}

/// The combining mark for an accent as math-core writes it, and its TeX name.
fn combining_accent(accent: &str) -> Option<(char, &'static str)> {
    let mut chars = accent.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    Some(match c {
        'ˆ' | '^' | '\u{302}' => ('\u{302}', "hat"),
        '˜' | '~' | '\u{303}' => ('\u{303}', "tilde"),
        '¯' | '\u{304}' => ('\u{304}', "bar"),
        '\u{305}' | '\u{332}' | '_' | '‾' => ('\u{305}', "overline"),
        '˙' | '\u{307}' => ('\u{307}', "dot"),
        '¨' | '\u{308}' => ('\u{308}', "ddot"),
        'ˇ' | '\u{30c}' => ('\u{30c}', "check"),
        '´' | '\u{301}' => ('\u{301}', "acute"),
        '`' | '\u{300}' => ('\u{300}', "grave"),
        '˘' | '\u{306}' => ('\u{306}', "breve"),
        '˚' | '\u{30a}' => ('\u{30a}', "mathring"),
        '\u{20d7}' | '→' => ('\u{20d7}', "vec"),
        _ => return None,
    })
}

/// Appends `text` as a script: Unicode super- or subscripts when every
/// character has one, primes as they are, else `^x` or `^{xy}`.
fn script_text(text: &str, script: Script, out: &mut String) {
    if text.is_empty() {
        return;
    }
    if script == Script::Super && text.chars().all(|c| matches!(c, '′' | '″' | '‴' | '⁗')) {
        return out.push_str(text);
    }
    let map = match script {
        Script::Super => superscript,
        Script::Sub => subscript,
    };
    if let Some(scripts) = text.chars().map(map).collect::<Option<String>>() {
        return out.push_str(&scripts);
    }
    out.push(if script == Script::Super { '^' } else { '_' });
    if text.chars().nth(1).is_none() {
        out.push_str(text);
    } else {
        out.push('{');
        out.push_str(text);
        out.push('}');
    }
}

/// Appends `text`, in parentheses unless it is one term: one letter (with
/// its marks), a number, a radical of one, or already in brackets (`√n`,
/// `√10`, `√(xy)`, `1/√T`, `√(x+1)`).
fn grouped(text: &str, out: &mut String) {
    let term = text.trim_start_matches(['√', '∛', '∜']);
    let mut letters = term.chars().filter(|&c| !is_combining(c));
    let one_term = (letters.next().is_some() && letters.next().is_none())
        || term.chars().all(|c| c.is_ascii_digit() || c == '.')
        || bracketed(term);
    if one_term {
        out.push_str(text);
    } else {
        out.push('(');
        out.push_str(text);
        out.push(')');
    }
}

/// Whether `text` is one bracketed group: `(…)`, `[…]`, `{…}`, `|…|`.
fn bracketed(text: &str) -> bool {
    let (Some(first), Some(last)) = (text.chars().next(), text.chars().next_back()) else {
        return false;
    };
    let close = match first {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '⟨' => '⟩',
        '|' | '‖' => first,
        _ => return false,
    };
    if last != close || text.len() < 2 {
        return false;
    }
    if first == close {
        return !text[first.len_utf8()..text.len() - close.len_utf8()].contains(first);
    }
    // The opening bracket closes only at the end.
    let mut depth = 0usize;
    let inner_end = text.len() - close.len_utf8();
    for (i, c) in text.char_indices() {
        if c == first {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return i == inner_end;
            }
        }
    }
    false
}

/// The text content of HTML as earlier versions read a formula, for the
/// slugs they made ([`crate::permalink::former_title_slug`]): tags dropped,
/// entities decoded, a word operator or text (`mo`, `mtext`) set off from
/// a letter or digit beside it by a space, whitespace folded.
pub(crate) fn flat_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut element = "";
    let mut space_after = false;
    let mut text = String::new();
    while !rest.is_empty() {
        if rest.starts_with('<') {
            let end = tag_end(rest);
            let tag = rest[1..end].trim_end_matches('>');
            element = tag.split([' ', '/']).next().unwrap_or("");
            rest = &rest[end..];
            continue;
        }
        let text_end = rest.find('<').unwrap_or(rest.len());
        text.clear();
        decode_text(&rest[..text_end], &mut text);
        rest = &rest[text_end..];
        let wordy = matches!(element, "mo" | "mtext")
            && text.chars().filter(|c| c.is_alphabetic()).count() > 1;
        let touching = out.chars().next_back().is_some_and(char::is_alphanumeric)
            && text.chars().next().is_some_and(char::is_alphanumeric);
        if (wordy || space_after) && touching {
            out.push(' ');
        }
        out.push_str(&text);
        space_after = wordy;
    }
    fold_whitespace(out)
}

/// The plain text that [`crate::text::latex::render`] gives beside `html`, read back from
/// the HTML (of one text, or of paragraphs each in `<p>`): tags dropped,
/// entities decoded, each formula's text as [`crate::text::latex::render`] writes it
/// (`mathml_text`, a space each side of a display formula), a space
/// after each paragraph, whitespace folded. It equals the rendered plain
/// text for most texts but not for all (a formula shown as its source, a
/// variation selector in running text), so a caller compares the two
/// before relying on it ([`crate::text::Abstract`]).
pub fn plain_of_html(html: &str) -> String {
    plain_of_html_upto(html, usize::MAX)
}

/// A prefix of [`plain_of_html`] of `html` holding at least `chars`
/// characters, or all of it when it is shorter: what a summary of
/// `chars - 1` characters needs ([`crate::text::Abstract::summary`]).
/// Reads only as much of the HTML as that takes. Whitespace folded over
/// a prefix is a prefix of it folded over the whole, so the cut is the
/// same.
pub fn plain_of_html_upto(html: &str, chars: usize) -> String {
    let mut out = String::with_capacity(html.len().min(chars.saturating_mul(2)));
    let mut rest = html;
    // The folded prefix is counted when the raw one doubles in bytes, at
    // least `chars` of them (a character is at least a byte).
    let mut count_at = chars;
    loop {
        // The memchr crate's search (vectorised): `str::find` read each
        // paragraph to its end, on every paper page's summary (measured in
        // ad6202e).
        let open = memchr::memchr(b'<', rest.as_bytes()).unwrap_or(rest.len());
        // The text before the next tag, a piece at a time: a piece ends at
        // a space past `count_at` (no entity holds a space).
        let mut text = &rest[..open];
        while !text.is_empty() {
            let want = count_at.saturating_sub(out.len());
            let cut = match text.as_bytes().get(want..) {
                Some(after) => after
                    .iter()
                    .position(|&b| b == b' ')
                    .map_or(text.len(), |k| want + k + 1),
                None => text.len(),
            };
            decode_text(&text[..cut], &mut out);
            text = &text[cut..];
            if out.len() >= count_at {
                let folded = fold_whitespace(out.clone());
                if folded.chars().count() >= chars {
                    return folded;
                }
                count_at = out.len() * 2;
            }
        }
        rest = &rest[open..];
        if rest.is_empty() {
            return fold_whitespace(out);
        }
        if rest.starts_with("<math") {
            let end = rest
                .find("</math>")
                .map_or(rest.len(), |e| e + "</math>".len());
            let block = rest[..tag_end(rest)].contains("display=\"block\"");
            if block {
                out.push(' ');
            }
            mathml_text(&rest[..end], &mut out);
            if block {
                out.push(' ');
            }
            rest = &rest[end..];
        } else if let Some(next) = rest.strip_prefix("</p>") {
            // Paragraphs (joined with `\n`) are joined with a space.
            rest = next.trim_start_matches('\n');
            if !rest.is_empty() {
                out.push(' ');
            }
        } else {
            rest = &rest[tag_end(rest)..];
        }
    }
}

/// Decodes the entities of HTML text (`&lt;`, `&#x2212;`, ...) and drops
/// variation selectors (U+FE00..U+FE0F, e.g. after `\mathcal` letters).
pub(crate) fn decode_text(html: &str, out: &mut String) {
    let mut rest = html;
    loop {
        // Runs without an entity or a variation selector (lead byte 0xEF)
        // are copied whole.
        let run = rest
            .bytes()
            .position(|b| b == b'&' || b == 0xEF)
            .unwrap_or(rest.len());
        out.push_str(&rest[..run]);
        rest = &rest[run..];
        let Some(c) = rest.chars().next() else {
            return;
        };
        let entity = (c == '&')
            .then(|| rest.bytes().take(12).position(|b| b == b';'))
            .flatten()
            .and_then(|e| Some((decode_entity(&rest[1..e])?, e + 1)));
        let (decoded, len) = entity.unwrap_or((c, c.len_utf8()));
        if !('\u{fe00}'..='\u{fe0f}').contains(&decoded) {
            out.push(decoded);
        }
        rest = &rest[len..];
    }
}

/// Length of the tag at the start of `s` (through its `>`), quotes honoured.
pub(crate) fn tag_end(s: &str) -> usize {
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match (c, quote) {
            ('"' | '\'', None) => quote = Some(c),
            (c, Some(q)) if c == q => quote = None,
            ('>', None) => return i + 1,
            _ => {}
        }
    }
    s.len()
}

fn decode_entity(name: &str) -> Option<char> {
    match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}
