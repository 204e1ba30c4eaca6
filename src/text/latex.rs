//! LaTeX-ish inline text to HTML and plain text.
//!
//! This stage takes the text of one arXiv title or one abstract paragraph, as
//! found in a listing (plain text sprinkled with LaTeX: `$\times$`,
//! `\textbf{..}`, `\'e`, `~`, `--`, ...), and hands on a [`Rendered`]:
//!
//! * `html`: safe HTML5 phrasing content (text, `<strong>`, `<em>`, `<code>`,
//!   `<u>`, `<sup>`, `<sub>`, `<span>`, `<a>`, and MathML `<math>` made by
//!   `math-core`), ready to be put inside `<p>` or a heading by the caller;
//! * `plain`: the same text without any markup, `$` delimiters, backslashes
//!   or grouping braces, whitespace folded to single spaces (a non-breaking
//!   space from `~` becomes an ordinary space), for `<title>`, feeds, search;
//! * `problems`: one message per malformed formula, in the form
//!   ``expected a valid formula, found `$\frac{a$` (<reason>)``; the caller
//!   prefixes `file:line: warning: `.
//!
//! The input is not strict LaTeX, and the scanner is forgiving: `%` is a
//! percent sign, `<`, `>` and `&` are characters, a `$` that never closes is a
//! dollar sign, unknown macros stay visible as their name, and no word of the
//! source is ever dropped. Rendering never panics and takes linear time.
//!
//! Decisions worth knowing:
//!
//! * Unknown macro `\name` → `<span class="latex-unknown">name</span>` (plain:
//!   `name`). Brace groups directly after it are kept, each after a space:
//!   `\foo{bar}` → `foo bar`, `\modelname{}` → `modelname`. Spaces after an
//!   unknown macro are kept (`\ours is` → `ours is`).
//! * `~` is a range dash `–` when the next character is a digit and the text
//!   before it ends with a digit, a formula, or a short unit (letters, `%`,
//!   `/`, `×`, `°`, at most 6) preceded by a digit and at most one space:
//!   `1.53$\times$~20.57$\times$`, `8 Mbps~10 Gbps`, `10%~20%`. Otherwise it
//!   is a non-breaking space (U+00A0 in `html`, an ordinary space in `plain`).
//! * A formula's plain text is read from its MathML by
//!   [`crate::text::plain`]: `$O(1/\sqrt{T})$` → `O(1/√T)`, `$K^2$` →
//!   `K²`; a display formula is set off by spaces.
//! * So that prices are not formulas, `$…$` is a formula only if the opening
//!   `$` is followed by a non-space and the next `$` is preceded by a
//!   non-space (and, if the formula starts with a digit, not followed by a
//!   digit): `costs $5 and $10` and `$5-$10` are text, `$\sim$10` is math.

use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use crate::text::push_escaped_html as escape;
use math_core::{LatexToMathML, MathCoreConfig, MathDisplay};

use crate::text::plain::{fold_ascii_spaces, fold_whitespace, mathml_text, subscript, superscript};
use crate::text::siunitx;

/// The renderings of one inline text (a title or one abstract paragraph).
///
/// Example: `render(r"\textbf{Fast} $x^2$ models~(LLMs)")` gives
/// * `html`: `<strong>Fast</strong> <math><msup><mi>x</mi><mn>2</mn></msup></math> models\u{a0}(LLMs)`
/// * `plain`: `Fast x2 models (LLMs)`
/// * `problems`: empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    /// Safe HTML5 phrasing content (no enclosing `<p>`); attributes are
    /// double-quoted and escaped, text is escaped, math is MathML `<math>`.
    /// ASCII whitespace runs are folded to one space and the ends trimmed.
    pub html: String,
    /// Text without markup, `$`, backslashes or grouping braces; whitespace
    /// (including U+00A0) folded to single ASCII spaces, ends trimmed.
    pub plain: String,
    /// One message per malformed or unclosed formula:
    /// ``expected a valid formula, found `$\frac{a$` (<reason>)``.
    pub problems: Vec<String>,
}

/// Renders one title or abstract paragraph (newlines are treated as spaces).
///
/// Never fails and never panics: a malformed formula is shown as its source
/// (`<code class="latex-source">$\frac{a$</code>`) and reported in
/// [`Rendered::problems`]. Runs in time linear in `source.len()`; text with
/// none of `\ $ ~ { } `` ` `` ' --` takes a fast path that only escapes it.
pub fn render(source: &str) -> Rendered {
    let source = source.trim_matches(|c: char| c.is_ascii_whitespace());
    if !has_latex(source) {
        let mut html = String::with_capacity(source.len() + 16);
        escape(&mut html, source);
        return Rendered {
            html: fold_ascii_spaces(html),
            plain: fold_whitespace(source.to_string()),
            problems: Vec::new(),
        };
    }
    let mut scanner = Scanner::new(source);
    scanner.text(false);
    Rendered {
        html: fold_ascii_spaces(scanner.html),
        plain: fold_whitespace(scanner.plain),
        problems: scanner.problems,
    }
}

/// Does `text` contain any of the characters `\ { } $ ~ ' `` ` `` or `--`?
/// (Everything else is rendered by escaping alone.)
fn has_latex(text: &str) -> bool {
    let (mut found, mut previous) = (false, 0u8);
    for &b in text.as_bytes() {
        // `|` and `&` rather than `||` and `&&`: no branches in this loop.
        found |= matches!(b, b'\\' | b'{' | b'}' | b'$' | b'~' | b'`' | b'\'')
            | ((b == b'-') & (previous == b'-'));
        previous = b;
    }
    found
}

/// Nesting limit for groups and macro arguments; deeper braces are ignored.
const MAX_DEPTH: usize = 64;
/// Nesting limit for accents inside accent arguments (`\'{\"u}`).
const MAX_ACCENT_DEPTH: usize = 4;
/// Longest argument read whole (a `\url{..}` or `\href{..}` URL, a
/// citation key or note, an `\ensuremath{..}` formula), so an unclosed one
/// costs constant time, not the rest of the text.
const MAX_ARGUMENT_LEN: usize = 1000;

/// Bytes that end a run of ordinary text in the scanner: a set of bits
/// ([`crate::text::ascii_set`]), one test for every byte of every title
/// and abstract, cheaper than a `match` (measured in 74281d6).
fn is_special(b: u8) -> bool {
    const SPECIAL: u128 = crate::text::ascii_set(b"\\{}$~`'-^_");
    crate::text::in_ascii_set(SPECIAL, b)
}

/// The closing delimiters searched for after an opening one.
#[derive(Clone, Copy)]
enum Closer {
    /// `$`: the next `$`, if preceded by a non-space (and not followed by a
    /// digit if the formula starts with one: `$5-$10` is money).
    Dollar,
    /// `$$`
    DoubleDollar,
    /// `\)`
    Paren,
    /// `\]`
    Bracket,
}

struct Scanner<'a> {
    src: &'a str,
    pos: usize,
    html: String,
    plain: String,
    problems: Vec<String>,
    /// Nesting of groups and arguments currently open.
    depth: usize,
    /// Braces opened beyond `MAX_DEPTH`, treated as no-ops until closed.
    flat: usize,
    /// Inside `<a>`: links must not nest.
    in_link: bool,
    /// `plain.len()` right after the last formula (for the `~` rule).
    math_end: usize,
    /// Per `Closer`: a search from any position at or after this one fails
    /// (keeps repeated searches for a missing closer linear).
    no_closer: [usize; 4],
}

impl<'a> Scanner<'a> {
    fn new(src: &'a str) -> Self {
        Scanner {
            src,
            pos: 0,
            html: String::with_capacity(src.len() + src.len() / 2),
            plain: String::with_capacity(src.len()),
            problems: Vec::new(),
            depth: 0,
            flat: 0,
            in_link: false,
            math_end: usize::MAX,
            no_closer: [usize::MAX; 4],
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// Emits text: escaped into `html`, as is into `plain`.
    fn emit(&mut self, text: &str) {
        escape(&mut self.html, text);
        self.plain.push_str(text);
    }

    fn emit_char(&mut self, c: char) {
        self.emit(c.encode_utf8(&mut [0; 4]));
    }

    /// Renders text up to the `}` closing the group (`in_group`) or the
    /// end; returns whether a `}` closed it. A `}` that closes nothing is
    /// kept as a character, with a problem. Closing tags of declarations
    /// (`{\bf ..}`) are emitted at the end.
    fn text(&mut self, in_group: bool) -> bool {
        let mut closers: Vec<&'static str> = Vec::new();
        let mut closed = false;
        while let Some(b) = self.peek() {
            if b == b'}' {
                self.pos += 1;
                if self.flat > 0 {
                    self.flat -= 1;
                } else if in_group {
                    closed = true;
                    break;
                } else {
                    self.emit_char('}');
                    let before = self.snippet_before(self.pos - 1);
                    self.problems.push(format!(
                        "expected a `{{` before the `}}` after `{before}`, found none (write `\\}}` for a brace)"
                    ));
                }
                continue;
            }
            if let Some(closer) = self.step() {
                closers.push(closer);
            }
        }
        for closer in closers.iter().rev() {
            self.html.push_str(closer);
        }
        closed
    }

    /// Up to 30 characters of the source before byte `end`, for a message.
    fn snippet_before(&self, end: usize) -> String {
        let before = &self.src[..end];
        let start = before.char_indices().rev().nth(29).map_or(0, |(i, _)| i);
        fold_whitespace(before[start..].to_string())
    }

    /// Up to 30 characters of the source from byte `start`, for a message.
    fn snippet_after(&self, start: usize) -> String {
        let after = &self.src[start..];
        let end = after.char_indices().nth(30).map_or(after.len(), |(i, _)| i);
        fold_whitespace(after[..end].to_string())
    }

    /// Renders one token at `pos` (never `}`); returns the closing tag of a
    /// declaration such as `\bf`.
    fn step(&mut self) -> Option<&'static str> {
        match self.peek()? {
            b'\\' => return self.command(),
            b'{' => {
                self.pos += 1;
                self.group();
            }
            b'}' => self.pos += 1,
            b'$' => self.dollar(),
            b'~' => self.tilde(),
            b @ (b'`' | b'\'') => self.quote(b),
            b'-' => self.dashes(),
            b @ (b'^' | b'_') => self.script(b),
            _ => {
                let rest = &self.src[self.pos..];
                let len = rest.bytes().position(is_special).unwrap_or(rest.len());
                self.emit(&rest[..len]);
                self.pos += len;
            }
        }
        None
    }

    /// `^{…}` and `_{…}` outside a formula (`|U_{e3}|`, `1^{+1.39}`):
    /// `<sup>`/`<sub>` in HTML; in plain text the Unicode scripts when every
    /// character has one (`Uₑ₃`), else the source kept readable
    /// (`1^{+1.39}`). A `^` or `_` before anything but `{` is a character.
    fn script(&mut self, mark: u8) {
        self.pos += 1;
        if self.peek() != Some(b'{') || self.depth >= MAX_DEPTH {
            self.emit_char(mark as char);
            return;
        }
        self.pos += 1;
        let (tag, map): (&str, fn(char) -> Option<char>) = match mark {
            b'^' => ("sup", superscript),
            _ => ("sub", subscript),
        };
        let plain_len = self.plain.len();
        self.html.push_str(&format!("<{tag}>"));
        self.group();
        self.html.push_str(&format!("</{tag}>"));
        let written = self.plain.split_off(plain_len);
        match written.chars().map(map).collect::<Option<String>>() {
            Some(scripts) if !written.is_empty() => self.plain.push_str(&scripts),
            _ => {
                self.plain.push(mark as char);
                self.plain.push('{');
                self.plain.push_str(&written);
                self.plain.push('}');
            }
        }
    }

    /// Renders a group whose `{` was just consumed.
    /// A `{` never closed is kept as a character where it was, with a
    /// problem (at most `MAX_DEPTH` of them nest, so the insertions cost
    /// linear time).
    fn group(&mut self) {
        if self.depth >= MAX_DEPTH {
            self.flat += 1;
            return;
        }
        let (open, html_at, plain_at) = (self.pos - 1, self.html.len(), self.plain.len());
        self.depth += 1;
        let closed = self.text(true);
        self.depth -= 1;
        if !closed {
            self.html.insert(html_at, '{');
            self.plain.insert(plain_at, '{');
            let after = self.snippet_after(open + 1);
            self.problems.push(format!(
                "expected a `}}` to close the `{{` before `{after}`, found the end of the text (write `\\{{` for a brace)"
            ));
        }
    }

    /// Renders a macro argument (a group, or else one token) between tags.
    fn argument(&mut self, open: &str, close: &str) {
        self.skip_spaces();
        self.html.push_str(open);
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                self.group();
            }
            None | Some(b'}') => {}
            Some(b) if !is_special(b) => {
                // `\textbf x`: the argument is one character.
                let c = self.src[self.pos..].chars().next().unwrap_or(' ');
                self.pos += c.len_utf8();
                self.emit_char(c);
            }
            Some(_) if self.depth < MAX_DEPTH => {
                self.depth += 1;
                if let Some(closer) = self.step() {
                    self.html.push_str(closer);
                }
                self.depth -= 1;
            }
            Some(_) => {}
        }
        self.html.push_str(close);
    }

    /// Handles `\` at `pos`.
    fn command(&mut self) -> Option<&'static str> {
        let start = self.pos;
        self.pos += 1;
        let rest = &self.src[self.pos..];
        let name_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        if name_len == 0 {
            // A control symbol; a trailing lone backslash is dropped.
            let c = rest.chars().next()?;
            self.pos += c.len_utf8();
            match c {
                '(' | '[' => {
                    let (closer, display, name) = if c == '(' {
                        (Closer::Paren, MathDisplay::Inline, "\\)")
                    } else {
                        (Closer::Bracket, MathDisplay::Block, "\\]")
                    };
                    if !self.formula_at(start, closer, display) {
                        self.report_unclosed(start, name);
                        self.emit_char(c);
                    }
                }
                '\'' | '`' | '^' | '"' | '~' | '=' | '.' => self.accent(c),
                '\\' | ',' | ';' | ':' | ' ' | '\t' | '\n' | '\r' => self.emit(" "),
                '!' | '-' | '/' | '@' => {}
                _ => self.emit_char(c), // \& \% \$ \_ \# \{ \} and the like
            }
            return None;
        }
        let name = &rest[..name_len];
        self.pos += name_len;
        let (open, close) = match name {
            "textbf" => ("<strong>", "</strong>"),
            "textit" | "emph" | "textsl" => ("<em>", "</em>"),
            "texttt" => ("<code>", "</code>"),
            "textsc" => ("<span class=\"smallcaps\">", "</span>"),
            "underline" => ("<u>", "</u>"),
            "textsuperscript" => ("<sup>", "</sup>"),
            "textsubscript" => ("<sub>", "</sub>"),
            "textrm" | "textsf" | "textup" | "textnormal" | "textmd" | "text" | "mbox" | "hbox"
            | "makebox" | "fbox" => ("", ""),
            "bf" | "bfseries" => return Some(self.declaration("<strong>", "</strong>")),
            "it" | "itshape" | "em" | "sl" | "slshape" => {
                return Some(self.declaration("<em>", "</em>"));
            }
            "tt" | "ttfamily" => return Some(self.declaration("<code>", "</code>")),
            "sc" | "scshape" => {
                return Some(self.declaration("<span class=\"smallcaps\">", "</span>"));
            }
            "rm" | "sf" | "rmfamily" | "sffamily" | "normalfont" | "upshape" | "mdseries"
            | "tiny" | "scriptsize" | "footnotesize" | "small" | "normalsize" | "large"
            | "Large" | "LARGE" | "huge" | "Huge" | "noindent" => {
                self.skip_spaces();
                return None;
            }
            "url" => {
                self.url();
                return None;
            }
            "ensuremath" => {
                self.ensuremath(start);
                return None;
            }
            "cite" | "citep" | "citet" | "citealp" | "citealt" | "parencite" | "textcite"
            | "autocite" | "footcite" => {
                self.citation(name);
                return None;
            }
            "num" | "si" | "unit" | "SI" | "qty" | "numrange" | "SIrange" | "qtyrange" => {
                self.siunitx(name);
                return None;
            }
            "ref" | "eqref" | "autoref" | "cref" | "Cref" | "pageref" | "nameref" => {
                self.reference(name);
                return None;
            }
            "footnote" if self.next_is_group() => {
                self.emit(" (");
                self.argument("", "");
                self.emit(")");
                return None;
            }
            // Invisible in LaTeX's output too.
            "label" if self.next_is_group() => {
                let _ = self.raw_argument();
                return None;
            }
            "href" => {
                self.href();
                return None;
            }
            "u" | "v" | "H" | "c" | "k" | "r" | "d" | "b" | "t" => {
                self.accent(name.chars().next().unwrap_or('u'));
                return None;
            }
            _ => {
                if let Some(c) = letter(name) {
                    // `\ss e` is "ße": spaces after a letter macro are eaten.
                    self.skip_spaces();
                    self.emit_char(c);
                } else if let Some(s) = symbol(name) {
                    self.emit(s);
                } else {
                    self.unknown(name);
                }
                return None;
            }
        };
        self.argument(open, close);
        None
    }

    /// Whether a `{` group follows, after spaces.
    fn next_is_group(&self) -> bool {
        self.src[self.pos..].trim_start().starts_with('{')
    }

    /// `\cite[note]{a,b}` (and `\citep`, `\parencite`, …) → `[a, b, note]`:
    /// the keys as written, for lack of the bibliography.
    fn citation(&mut self, name: &str) {
        let mut notes = Vec::new();
        while let Some(note) = self.optional_argument() {
            if !note.is_empty() {
                notes.push(note.replace('~', " "));
            }
        }
        let Some(keys) = self.raw_argument() else {
            self.unknown(name);
            return;
        };
        let mut shown: Vec<String> = keys
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::to_string)
            .collect();
        shown.extend(notes.into_iter().rev());
        self.emit(&format!("[{}]", shown.join(", ")));
    }

    /// `\ref{fig:a}` (and `\cref`, …) → `fig:a`; `\eqref{e}` → `(e)`: the
    /// label as written, for lack of the document it points into.
    fn reference(&mut self, name: &str) {
        let Some(label) = self.raw_argument() else {
            self.unknown(name);
            return;
        };
        if name == "eqref" {
            self.emit(&format!("({label})"));
        } else {
            self.emit(&label);
        }
    }

    /// siunitx's `\num`, `\si`/`\unit`, `\SI`/`\qty` and the ranges
    /// ([`crate::text::siunitx`]); without all its arguments, an unknown
    /// macro.
    fn siunitx(&mut self, name: &str) {
        let start = self.pos;
        let _options = self.optional_argument();
        let count = match name {
            "num" | "si" | "unit" => 1,
            "SI" | "qty" | "numrange" => 2,
            _ => 3,
        };
        let mut arguments = Vec::with_capacity(count);
        for _ in 0..count {
            let Some(body) = self.group_source() else {
                self.pos = start;
                self.unknown(name);
                return;
            };
            arguments.push(self.src[body].to_string());
        }
        match (name, arguments.as_slice()) {
            ("num", [n]) => self.pieces(&siunitx::number(n)),
            ("si" | "unit", [u]) => self.pieces(&siunitx::unit(u)),
            ("SI" | "qty", [n, u]) => self.quantity(n, u),
            ("numrange", [a, b]) => {
                self.pieces(&siunitx::number(a));
                self.emit(" to ");
                self.pieces(&siunitx::number(b));
            }
            (_, [a, b, u]) => {
                self.quantity(a, u);
                self.emit(" to ");
                self.quantity(b, u);
            }
            _ => {}
        }
    }

    /// A number and its unit, apart by a no-break space (`5 kg`) unless the
    /// unit follows a number closely (`10%`, `45°`).
    fn quantity(&mut self, number: &str, unit: &str) {
        self.pieces(&siunitx::number(number));
        let unit = siunitx::unit(unit);
        if !siunitx::hugs_number(&unit) {
            self.emit("\u{a0}");
        }
        self.pieces(&unit);
    }

    /// Number and unit pieces: text, and powers as `<sup>` (in plain text
    /// Unicode superscripts where every character has one, else `^{…}`).
    fn pieces(&mut self, pieces: &[siunitx::Piece]) {
        for piece in pieces {
            match piece {
                siunitx::Piece::Text(text) => self.emit(text),
                siunitx::Piece::Super(power) => {
                    self.html.push_str("<sup>");
                    escape(&mut self.html, power);
                    self.html.push_str("</sup>");
                    match power.chars().map(superscript).collect::<Option<String>>() {
                        Some(raised) if !power.is_empty() => self.plain.push_str(&raised),
                        _ => {
                            self.plain.push_str("^{");
                            self.plain.push_str(power);
                            self.plain.push('}');
                        }
                    }
                }
            }
        }
    }

    /// An optional argument `[…]` after spaces, without nesting; none
    /// (and nothing read) when there is none.
    fn optional_argument(&mut self) -> Option<String> {
        let rest = &self.src[self.pos..];
        let skipped = rest.len() - rest.trim_start().len();
        let body = rest[skipped..].strip_prefix('[')?;
        let end = body
            .bytes()
            .take(MAX_ARGUMENT_LEN + 1)
            .position(|b| b == b']')?;
        let note = body[..end].trim().to_string();
        self.pos += skipped + 1 + end + 1;
        Some(note)
    }

    /// `\ensuremath{…}` (its `\` at `start`): the group is an inline
    /// formula; without a closed group, the macro is dropped and the text
    /// after it read on.
    fn ensuremath(&mut self, start: usize) {
        self.skip_spaces();
        if self.peek() != Some(b'{') {
            return;
        }
        if let Some(end) = self.group_end(self.pos) {
            self.formula(start, self.pos + 1..end, end + 1, MathDisplay::Inline);
        }
    }

    /// The index of the `}` closing the group whose `{` is at `open`,
    /// looked for within [`MAX_ARGUMENT_LEN`] bytes; escaped characters
    /// (`\}`) skipped.
    fn group_end(&self, open: usize) -> Option<usize> {
        let bytes = self.src.as_bytes();
        let limit = bytes.len().min(open + MAX_ARGUMENT_LEN + 2);
        let mut depth = 0usize;
        let mut at = open;
        while at < limit {
            match bytes[at] {
                b'\\' => at += 1,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(at);
                    }
                }
                _ => {}
            }
            at += 1;
        }
        None
    }

    /// Opens a declaration (`\bf`) and returns its closing tag.
    fn declaration(&mut self, open: &str, close: &'static str) -> &'static str {
        self.skip_spaces();
        self.html.push_str(open);
        close
    }

    /// An unknown macro: shown as its name, brace groups after it kept.
    fn unknown(&mut self, name: &str) {
        self.html.push_str("<span class=\"latex-unknown\">");
        escape(&mut self.html, name);
        self.html.push_str("</span>");
        self.plain.push_str(name);
        while self.peek() == Some(b'{') && self.depth < MAX_DEPTH {
            let (html_len, plain_len) = (self.html.len(), self.plain.len());
            self.emit(" ");
            self.pos += 1;
            self.group();
            if self.plain.len() == plain_len + 1 {
                // An empty group (`\modelname{}`): no space either.
                self.html.truncate(html_len);
                self.plain.truncate(plain_len);
            }
        }
    }

    /// An accent: `\'e`, `\'{e}`, `\'{\i}`, `\c c`, `\v{c}`, ...
    fn accent(&mut self, accent: char) {
        let (mark, spacing) = accent_mark(accent);
        let start = self.pos;
        if let Some(base) = self.accent_base(0) {
            self.emit_composed(base, mark);
            return;
        }
        self.pos = start;
        self.skip_spaces();
        if self.peek() == Some(b'{') && self.depth < MAX_DEPTH {
            // `\'{ab}`: render the group, put the mark on its last letter.
            let plain_len = self.plain.len();
            self.pos += 1;
            self.group();
            if self.plain.len() > plain_len {
                self.emit_char(mark);
                return;
            }
        }
        self.emit(spacing);
    }

    /// Reads a single letter as an accent argument (`e`, `{e}`, `\i`,
    /// `{\"u}`); `None` (with `pos` anywhere) if it is something else.
    fn accent_base(&mut self, level: usize) -> Option<char> {
        if level > MAX_ACCENT_DEPTH {
            return None;
        }
        self.skip_spaces();
        match self.peek()? {
            b'{' => {
                self.pos += 1;
                let c = self.accent_base(level + 1)?;
                self.skip_spaces();
                (self.peek()? == b'}').then(|| {
                    self.pos += 1;
                    c
                })
            }
            b'\\' => {
                self.pos += 1;
                let rest = &self.src[self.pos..];
                let name_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
                let name = if name_len == 0 {
                    rest.get(..1)?
                } else {
                    &rest[..name_len]
                };
                self.pos += name.len();
                if let Some(c) = letter(name) {
                    return Some(c);
                }
                let inner = match name {
                    "'" | "`" | "^" | "\"" | "~" | "=" | "." | "u" | "v" | "H" | "c" | "k"
                    | "r" | "d" | "b" => name.chars().next()?,
                    _ => return None,
                };
                let base = self.accent_base(level + 1)?;
                compose(base, accent_mark(inner).0)
            }
            _ => {
                let c = self.src[self.pos..].chars().next()?;
                c.is_alphabetic().then(|| {
                    self.pos += c.len_utf8();
                    c
                })
            }
        }
    }

    fn emit_composed(&mut self, base: char, mark: char) {
        match compose(base, mark) {
            Some(c) => self.emit_char(c),
            None => {
                self.emit_char(base);
                self.emit_char(mark);
            }
        }
    }

    /// `~`: a range dash between quantities, else a non-breaking space.
    fn tilde(&mut self) {
        self.pos += 1;
        let digit_next = self.peek().is_some_and(|b| b.is_ascii_digit());
        if digit_next && self.ends_with_quantity() {
            self.emit("–");
        } else {
            self.emit("\u{a0}");
        }
    }

    /// Does the text so far end with a number, a formula, or a number and a
    /// short unit (`8 Mbps`, `10%`)?
    fn ends_with_quantity(&self) -> bool {
        let text = self.plain.as_str();
        if self.math_end == text.len() {
            return true;
        }
        let is_unit = |c: char| c.is_ascii_alphabetic() || matches!(c, '%' | '/' | '×' | '°');
        let before_unit = text.trim_end_matches(is_unit);
        let unit_chars = text[before_unit.len()..].chars().count();
        if unit_chars > 6 {
            return false;
        }
        let number = if unit_chars > 0 {
            before_unit.strip_suffix(' ').unwrap_or(before_unit)
        } else {
            text
        };
        number.ends_with(|c: char| c.is_ascii_digit())
    }

    /// `` ` `` `` `` `` `'` `''` → typographic quotes.
    fn quote(&mut self, b: u8) {
        let double = self.src.as_bytes().get(self.pos + 1) == Some(&b);
        self.pos += if double { 2 } else { 1 };
        self.emit(match (b, double) {
            (b'`', true) => "“",
            (b'`', false) => "‘",
            (_, true) => "”",
            (_, false) => "’",
        });
    }

    /// `-`, `--` (en dash), `---` (em dash).
    fn dashes(&mut self) {
        let n = self.src[self.pos..]
            .bytes()
            .take_while(|&b| b == b'-')
            .count();
        self.pos += n;
        for _ in 0..n / 3 {
            self.emit("—");
        }
        match n % 3 {
            2 => self.emit("–"),
            1 => self.emit("-"),
            _ => {}
        }
    }

    /// `$` at `pos`: a formula `$..$` / `$$..$$`, or a literal dollar.
    fn dollar(&mut self) {
        let start = self.pos;
        if self.src.as_bytes().get(start + 1) == Some(&b'$') {
            self.pos = start + 2;
            if self.formula_at(start, Closer::DoubleDollar, MathDisplay::Block) {
                return;
            }
            // No closing `$$`: this `$` is a dollar sign; the next one gets
            // its own chance.
            self.pos = start + 1;
            self.emit("$");
            return;
        }
        self.pos = start + 1;
        let opens = self.peek().is_some_and(|b| !b.is_ascii_whitespace());
        if opens && self.formula_at(start, Closer::Dollar, MathDisplay::Inline) {
            return;
        }
        if opens {
            self.report_unclosed(start, "$");
        }
        self.emit("$");
    }

    /// Reports an unclosed opener if the word after it looks like a formula.
    fn report_unclosed(&mut self, start: usize, closer: &str) {
        // Only the word after the opener is looked at (at most 100 bytes).
        let rest = &self.src[self.pos..];
        let word_len = rest
            .char_indices()
            .take_while(|&(i, c)| i < 100 && !c.is_ascii_whitespace())
            .last()
            .map_or(0, |(i, c)| i + c.len_utf8());
        let word = &rest[..word_len];
        if word.contains(['\\', '^', '_', '{']) {
            let found = &self.src[start..self.pos + word_len];
            self.problem(found, &format!("no closing `{closer}`"));
        }
    }

    fn problem(&mut self, found: &str, reason: &str) {
        let mut shown = fold_whitespace(found.to_string());
        if shown.chars().count() > 80 {
            shown = shown.chars().take(79).collect();
            shown.push('…');
        }
        self.problems.push(format!(
            "expected a valid formula, found `{shown}` ({reason})"
        ));
    }

    /// Whether `url`, the argument of `\\macro`, may be a link
    /// ([`crate::safe_url`]); a problem when it may not, and it is shown as text.
    fn safe_link(&mut self, macro_name: &str, url: &str) -> bool {
        let Some(reason) = crate::safe_url::unsafe_reason(url) else {
            return true;
        };
        let mut shown = fold_whitespace(url.to_string());
        if shown.chars().count() > 80 {
            shown = shown.chars().take(79).collect();
            shown.push('…');
        }
        self.problems.push(format!(
            "expected an http, https or mailto URL in `\\{macro_name}`, found `{shown}` ({reason}), so it is not a link"
        ));
        false
    }

    /// Finds the start of the closing delimiter at or after `from`,
    /// skipping `\x` pairs.
    fn find_closer(&mut self, from: usize, closer: Closer) -> Option<usize> {
        let memo = closer as usize;
        if from >= self.no_closer[memo] {
            return None;
        }
        let bytes = self.src.as_bytes();
        let mut i = from;
        while i < bytes.len() {
            let next = bytes.get(i + 1).copied();
            match (bytes[i], closer) {
                (b'\\', Closer::Paren) if next == Some(b')') => return Some(i),
                (b'\\', Closer::Bracket) if next == Some(b']') => return Some(i),
                (b'\\', _) => {
                    i += 2;
                    continue;
                }
                (b'$', Closer::DoubleDollar) if next == Some(b'$') => return Some(i),
                (b'$', Closer::Dollar) => {
                    // The next `$` closes the formula or there is none.
                    let money =
                        bytes[from].is_ascii_digit() && next.is_some_and(|b| b.is_ascii_digit());
                    let closes = i > from && !bytes[i - 1].is_ascii_whitespace() && !money;
                    return closes.then_some(i);
                }
                _ => {}
            }
            i += 1;
        }
        self.no_closer[memo] = self.no_closer[memo].min(from);
        None
    }

    /// Renders the formula whose opener spans `start..pos` and returns
    /// `true`, or returns `false` (leaving `pos`) if it has no closer.
    fn formula_at(&mut self, start: usize, closer: Closer, display: MathDisplay) -> bool {
        let close_len = match closer {
            Closer::Dollar => 1,
            Closer::DoubleDollar | Closer::Paren | Closer::Bracket => 2,
        };
        match self.find_closer(self.pos, closer) {
            Some(close) => {
                self.formula(start, self.pos..close, close + close_len, display);
                true
            }
            None => false,
        }
    }

    /// Converts the formula `src[body]`, whose source with delimiters is
    /// `src[start..end]`, and moves past it.
    fn formula(&mut self, start: usize, body: Range<usize>, end: usize, display: MathDisplay) {
        self.pos = end;
        let latex = &self.src[body];
        match to_mathml(latex, display) {
            Ok(mathml) => {
                let block = display == MathDisplay::Block;
                self.html.push_str(&mathml);
                if block {
                    self.plain.push(' ');
                }
                mathml_text(&mathml, &mut self.plain);
                if block {
                    self.plain.push(' ');
                }
            }
            Err(reason) => {
                let source = &self.src[start..end];
                self.html.push_str("<code class=\"latex-source\">");
                escape(&mut self.html, source);
                self.html.push_str("</code>");
                let letters = latex.replace(['\\', '{', '}', '$'], " ");
                self.plain.push_str(letters.trim());
                self.problem(source, &reason);
            }
        }
        self.math_end = self.plain.len();
    }

    /// `\url{u}` → `<a href="u">u</a>` for safe URLs, else the URL as text.
    fn url(&mut self) {
        let Some(url) = self.raw_argument() else {
            self.unknown("url");
            return;
        };
        if self.in_link || !self.safe_link("url", &url) {
            self.emit(&url);
            return;
        }
        self.html.push_str("<a href=\"");
        escape(&mut self.html, &url);
        self.html.push_str("\">");
        self.emit(&url);
        self.html.push_str("</a>");
    }

    /// `\href{u}{text}` → `<a href="u">text</a>` for safe URLs, else
    /// `text (u)`.
    fn href(&mut self) {
        let Some(url) = self.raw_argument() else {
            self.unknown("href");
            return;
        };
        let link = !self.in_link && self.safe_link("href", &url);
        if link {
            self.html.push_str("<a href=\"");
            escape(&mut self.html, &url);
            self.html.push_str("\">");
            self.in_link = true;
        }
        let plain_len = self.plain.len();
        self.argument("", "");
        let empty = self.plain.len() == plain_len;
        if link {
            if empty {
                self.emit(&url);
            }
            self.in_link = false;
            self.html.push_str("</a>");
        } else if empty {
            self.emit(&url);
        } else {
            self.emit(" (");
            self.emit(&url);
            self.emit(")");
        }
    }

    /// Reads a brace-delimited URL argument verbatim: `\%` → `%`, inner
    /// braces dropped, surrounding whitespace trimmed. `None` (and `pos`
    /// unchanged) if there is none or it is unclosed or too long.
    fn raw_argument(&mut self) -> Option<String> {
        let body = self.group_source()?;
        let mut text = String::new();
        let mut chars = self.src[body].chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('\\') | None => {} // `\\` (a line break) is dropped
                    Some(escaped) => text.push(escaped),
                },
                '{' | '}' => {}
                _ => text.push(c),
            }
        }
        Some(text.trim().to_string())
    }

    /// The source inside the `{…}` group after spaces at `pos` (closed
    /// within [`MAX_ARGUMENT_LEN`]), moving past it; `None`, and `pos`
    /// unchanged, when there is none.
    fn group_source(&mut self) -> Option<Range<usize>> {
        let start = self.pos;
        self.skip_spaces();
        let end = match self.peek() {
            Some(b'{') => self.group_end(self.pos),
            _ => None,
        };
        let Some(end) = end else {
            self.pos = start;
            return None;
        };
        let body = self.pos + 1..end;
        self.pos = end + 1;
        Some(body)
    }
}

/// Formulas with at most this many `\ { ^ _` are converted on the calling
/// thread: `math-core` parses recursively, and this depth is safe on a 2 MiB
/// stack even in a debug build (about 45 KiB per level there).
const SMALL_FORMULA: usize = 24;
/// Formulas with more `\ { ^ _` than this are not converted at all.
const MAX_FORMULA: usize = 2000;
/// Stack for converting a formula bigger than `SMALL_FORMULA`.
const BIG_STACK: usize = 256 << 20;

/// LaTeX → MathML via `math-core`; `Err` holds the reason for a problem.
fn to_mathml(latex: &str, display: MathDisplay) -> Result<String, String> {
    let nesting = latex
        .bytes()
        .filter(|b| matches!(b, b'\\' | b'{' | b'^' | b'_'))
        .count();
    if nesting <= SMALL_FORMULA {
        return convert(latex, display);
    }
    if nesting > MAX_FORMULA {
        return Err("formula too large to convert".to_string());
    }
    // Each level of nesting needs a bounded amount of stack, and `nesting`
    // bounds the depth: give a big formula a thread with a big stack.
    let latex = latex.to_string();
    std::thread::Builder::new()
        .stack_size(BIG_STACK)
        .spawn(move || convert(&latex, display))
        .map_err(|_| "formula too large to convert".to_string())?
        .join()
        .unwrap_or_else(|_| Err("the formula converter failed".to_string()))
}

/// One `math-core` conversion (the converter is built once per process).
fn convert(latex: &str, display: MathDisplay) -> Result<String, String> {
    static CONVERTER: OnceLock<LatexToMathML> = OnceLock::new();
    let converter = CONVERTER.get_or_init(|| {
        LatexToMathML::new(MathCoreConfig {
            // `\widetilde` (a stretchy tilde, drawn by the shipped math font).
            allow_unreliable_rendering: true,
            ..MathCoreConfig::default()
        })
        .unwrap_or_default()
    });
    // math-core is not expected to panic; if it does, this text must not die.
    let result = catch_unwind(AssertUnwindSafe(|| {
        converter.convert_with_local_state(latex, display)
    }));
    match result {
        // `\eqref` and `\label` make links and ids, which could nest in an
        // `<a>` or clash across abstracts; a listing has nothing to refer to.
        Ok(Ok(converted))
            if converted.mathml.contains("<a ") || converted.mathml.contains(" id=") =>
        {
            Err("cross-references are not supported".to_string())
        }
        Ok(Ok(converted)) => Ok(converted.mathml),
        Ok(Err(error)) => Err(error.error_message().trim_end_matches('.').to_string()),
        Err(_) => Err("the formula converter failed".to_string()),
    }
}

/// Letter macros: `\o` → ø, `\ss` → ß, `\i` → ı, ...
fn letter(name: &str) -> Option<char> {
    Some(match name {
        "o" => 'ø',
        "O" => 'Ø',
        "ss" => 'ß',
        "aa" => 'å',
        "AA" => 'Å',
        "ae" => 'æ',
        "AE" => 'Æ',
        "oe" => 'œ',
        "OE" => 'Œ',
        "l" => 'ł',
        "L" => 'Ł',
        "i" => 'ı',
        "j" => 'ȷ',
        "dh" => 'ð',
        "DH" => 'Ð',
        "th" => 'þ',
        "TH" => 'Þ',
        "dj" => 'đ',
        "DJ" => 'Đ',
        "ng" => 'ŋ',
        "NG" => 'Ŋ',
        _ => return None,
    })
}

/// Other text-mode symbol macros.
fn symbol(name: &str) -> Option<&'static str> {
    Some(match name {
        "LaTeX" => "LaTeX",
        "TeX" => "TeX",
        "ldots" | "dots" | "textellipsis" => "…",
        "textendash" => "–",
        "textemdash" => "—",
        "dag" | "textdagger" => "†",
        "ddag" | "textdaggerdbl" => "‡",
        "textbackslash" => "\\",
        "textmu" => "µ",
        "textpm" => "±",
        "texttimes" => "×",
        "textdiv" => "÷",
        "textminus" => "−",
        "textperthousand" => "‰",
        "textsection" => "§",
        "textparagraph" => "¶",
        "textperiodcentered" => "·",
        "textonehalf" => "½",
        "textonequarter" => "¼",
        "textthreequarters" => "¾",
        "textexclamdown" => "¡",
        "textquestiondown" => "¿",
        "textquotesingle" => "'",
        "textquotedbl" => "\"",
        "textasteriskcentered" => "*",
        "textbraceleft" => "{",
        "textbraceright" => "}",
        "textdollar" => "$",
        "textcent" => "¢",
        "textyen" => "¥",
        "textlangle" => "⟨",
        "textrangle" => "⟩",
        "textleftarrow" => "←",
        "textrightarrow" => "→",
        "checkmark" => "✓",
        "S" => "§",
        "P" => "¶",
        "copyright" | "textcopyright" => "©",
        "textregistered" => "®",
        "texttrademark" => "™",
        "pounds" | "textsterling" => "£",
        "euro" | "texteuro" => "€",
        "textdegree" => "°",
        "textasciitilde" => "~",
        "textasciicircum" => "^",
        "textless" => "<",
        "textgreater" => ">",
        "textbar" => "|",
        "textbullet" => "•",
        "textunderscore" => "_",
        "textquotedblleft" => "“",
        "textquotedblright" => "”",
        "textquoteleft" => "‘",
        "textquoteright" => "’",
        "quad" | "qquad" | "newline" | "linebreak" | "par" | "enspace" | "enskip" => " ",
        _ => return None,
    })
}

/// The combining mark of an accent command, and what to show when the accent
/// has no argument.
fn accent_mark(accent: char) -> (char, &'static str) {
    match accent {
        '\'' => ('\u{301}', "´"),
        '`' => ('\u{300}', "`"),
        '^' => ('\u{302}', "^"),
        '"' => ('\u{308}', "¨"),
        '~' => ('\u{303}', "~"),
        '=' => ('\u{304}', "¯"),
        '.' => ('\u{307}', "˙"),
        'u' => ('\u{306}', "˘"),
        'v' => ('\u{30C}', "ˇ"),
        'H' => ('\u{30B}', "˝"),
        'c' => ('\u{327}', "¸"),
        'k' => ('\u{328}', "˛"),
        'r' => ('\u{30A}', "˚"),
        'd' => ('\u{323}', "."),
        'b' => ('\u{331}', "_"),
        _ => ('\u{361}', "͡"), // `\t` (tie)
    }
}

/// NFC composition of a letter and a combining mark, if Unicode has one.
/// The dotless `ı`/`ȷ` compose as `i`/`j` (`\'{\i}` → í).
fn compose(base: char, mark: char) -> Option<char> {
    let base = match base {
        'ı' => 'i',
        'ȷ' => 'j',
        other => other,
    };
    let (_, pairs) = COMPOSITIONS.iter().find(|(m, _)| *m == mark)?;
    let mut chars = pairs.chars();
    while let (Some(b), Some(composed)) = (chars.next(), chars.next()) {
        if b == base {
            return Some(composed);
        }
    }
    None
}

/// Per combining mark, pairs of (base, composed) characters: every canonical
/// composition in Latin-1, Latin Extended-A/B and Latin Extended Additional
/// (generated from the Unicode data, composition exclusions left out).
const COMPOSITIONS: &[(char, &str)] = &[
    // acute
    (
        '\u{0301}',
        concat!(
            "AÁEÉIÍOÓUÚYÝaáeéiíoóuúyýCĆcćLĹlĺNŃnńRŔrŕSŚsśZŹzźÜǗüǘGǴgǵÅǺåǻÆǼæǽ",
            "ØǾøǿÇḈçḉĒḖēḗÏḮïḯKḰkḱMḾmḿÕṌõṍŌṒōṓPṔpṕŨṸũṹWẂwẃÂẤâấĂẮăắÊẾêếÔỐôốƠỚơớ",
            "ƯỨưứ"
        ),
    ),
    // grave
    (
        '\u{0300}',
        concat!(
            "AÀEÈIÌOÒUÙaàeèiìoòuùÜǛüǜNǸnǹĒḔēḕŌṐōṑWẀwẁÂẦâầĂẰăằÊỀêềÔỒôồƠỜơờƯỪưừ",
            "YỲyỳ"
        ),
    ),
    // circumflex
    (
        '\u{0302}',
        "AÂEÊIÎOÔUÛaâeêiîoôuûCĈcĉGĜgĝHĤhĥJĴjĵSŜsŝWŴwŵYŶyŷZẐzẑẠẬạậẸỆẹệỌỘọộ",
    ),
    // diaeresis
    ('\u{0308}', "AÄEËIÏOÖUÜaäeëiïoöuüyÿYŸHḦhḧÕṎõṏŪṺūṻWẄwẅXẌxẍtẗ"),
    // tilde
    (
        '\u{0303}',
        "AÃNÑOÕaãnñoõIĨiĩUŨuũVṼvṽÂẪâẫĂẴăẵEẼeẽÊỄêễÔỖôỗƠỠơỡƯỮưữYỸyỹ",
    ),
    // macron
    (
        '\u{0304}',
        concat!(
            "AĀaāEĒeēIĪiīOŌoōUŪuūÜǕüǖÄǞäǟȦǠȧǡÆǢæǣǪǬǫǭÖȪöȫÕȬõȭȮȰȯȱYȲyȳGḠgḡḶḸḷḹ",
            "ṚṜṛṝ"
        ),
    ),
    // dot above
    (
        '\u{0307}',
        concat!(
            "CĊcċEĖeėGĠgġIİZŻzżAȦaȧOȮoȯBḂbḃDḊdḋFḞfḟHḢhḣMṀmṁNṄnṅPṖpṗRṘrṙSṠsṡŚṤ",
            "śṥŠṦšṧṢṨṣṩTṪtṫWẆwẇXẊxẋYẎyẏſẛ"
        ),
    ),
    // breve
    ('\u{0306}', "AĂaăEĔeĕGĞgğIĬiĭOŎoŏUŬuŭȨḜȩḝẠẶạặ"),
    // caron
    (
        '\u{030C}',
        concat!(
            "CČcčDĎdďEĚeěLĽlľNŇnňRŘrřSŠsšTŤtťZŽzžAǍaǎIǏiǐOǑoǒUǓuǔÜǙüǚGǦgǧKǨkǩ",
            "ƷǮʒǯjǰHȞhȟ"
        ),
    ),
    // double acute
    ('\u{030B}', "OŐoőUŰuű"),
    // cedilla
    ('\u{0327}', "CÇcçGĢgģKĶkķLĻlļNŅnņRŖrŗSŞsşTŢtţEȨeȩDḐdḑHḨhḩ"),
    // ogonek
    ('\u{0328}', "AĄaąEĘeęIĮiįUŲuųOǪoǫ"),
    // ring above
    ('\u{030A}', "AÅaåUŮuůwẘyẙ"),
    // dot below
    (
        '\u{0323}',
        concat!(
            "BḄbḅDḌdḍHḤhḥKḲkḳLḶlḷMṂmṃNṆnṇRṚrṛSṢsṣTṬtṭVṾvṿWẈwẉZẒzẓAẠaạEẸeẹIỊiị",
            "OỌoọƠỢơợUỤuụƯỰưựYỴyỵ"
        ),
    ),
    // macron below
    ('\u{0331}', "BḆbḇDḎdḏKḴkḵLḺlḻNṈnṉRṞrṟTṮtṯZẔzẕhẖ"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::plain::tag_end;

    fn html(source: &str) -> String {
        render(source).html
    }

    fn plain(source: &str) -> String {
        render(source).plain
    }

    /// Checks that `html` is a sequence of text and properly nested tags
    /// with double-quoted attributes (the shapes this module produces).
    fn assert_well_formed(html: &str) {
        let mut open: Vec<&str> = Vec::new();
        let mut rest = html;
        while let Some(i) = rest.find('<') {
            assert!(!rest[..i].contains('>'), "stray > in {html:?}");
            let end = i + tag_end(&rest[i..]);
            let tag = &rest[i + 1..end - 1];
            assert!(
                end - i >= 3 && rest[..end].ends_with('>'),
                "bad tag in {html:?}"
            );
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop(), Some(name), "unbalanced {html:?}");
            } else {
                let name = tag.split(' ').next().unwrap_or("").trim_end_matches('/');
                assert!(
                    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric()),
                    "bad tag name in {html:?}"
                );
                for attribute in tag.split(' ').skip(1) {
                    let attribute = attribute.trim_end_matches('/');
                    if let Some((_, value)) = attribute.split_once('=') {
                        assert!(value.starts_with('"') && value.ends_with('"'), "{html:?}");
                    }
                }
                if !tag.ends_with('/') {
                    open.push(name);
                }
            }
            rest = &rest[end..];
        }
        assert!(!rest.contains('>'), "stray > in {html:?}");
        assert!(open.is_empty(), "unclosed {open:?} in {html:?}");
    }

    /// Text content of HTML (tags dropped, entities decoded).
    fn text_content(html: &str) -> String {
        let mut out = String::new();
        mathml_text(html, &mut out);
        out
    }

    /// Alphanumeric words, sorted, for comparing what survived.
    fn words(text: &str) -> Vec<String> {
        let mut words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        words.sort();
        words
    }

    #[test]
    fn plain_text_takes_the_fast_path() {
        let r = render("  Serving MoE models: 75.67% cost <5% & \"more\"\n");
        assert_eq!(
            r.html,
            "Serving MoE models: 75.67% cost &lt;5% &amp; &quot;more&quot;"
        );
        assert_eq!(r.plain, "Serving MoE models: 75.67% cost <5% & \"more\"");
        assert!(r.problems.is_empty());
    }

    #[test]
    fn whitespace_and_newlines_fold_to_spaces() {
        let r = render("a \n\t b\r\n{c}  d");
        assert_eq!(r.html, "a b c d");
        assert_eq!(r.plain, "a b c d");
        let r = render("no\u{a0}break \n here");
        assert_eq!(r.html, "no\u{a0}break here");
        assert_eq!(r.plain, "no break here");
    }

    #[test]
    fn percent_and_less_than_are_characters() {
        assert_eq!(
            html("by at least 75.67% compared"),
            "by at least 75.67% compared"
        );
        assert_eq!(
            html("with <5% error, 0.27-1.03%"),
            "with &lt;5% error, 0.27-1.03%"
        );
        assert_eq!(plain("with <5% error~(x)"), "with <5% error (x)");
        assert_eq!(html("a > b \\% c"), "a &gt; b % c");
    }

    /// Text symbols and boxes: source, HTML, plain text.
    #[test]
    fn text_symbols_and_boxes() {
        for (source, shown, plain_text) in [
            (r"Smith\dag, Lee\ddag", "Smith†, Lee‡", "Smith†, Lee‡"),
            (r"C:\textbackslash{}dir", "C:\\dir", "C:\\dir"),
            (r"5\,\textmu{}m", "5 µm", "5 µm"),
            (r"3\textpm{}1 \texttimes{} 2", "3±1 × 2", "3±1 × 2"),
            (r"\mbox{x} and \hbox{y}", "x and y", "x and y"),
            (r"\textexclamdown{}Hola!", "¡Hola!", "¡Hola!"),
            (r"\textbraceleft{}a\textbraceright", "{a}", "{a}"),
            (r"costs \textdollar{}5", "costs $5", "costs $5"),
            (
                r"\ensuremath{\alpha}-stable",
                "<math><mi>α</mi></math>-stable",
                "α-stable",
            ),
            (
                r"as in \cite{lee20, kim21}.",
                "as in [lee20, kim21].",
                "as in [lee20, kim21].",
            ),
            (
                r"see \citep[p.~5]{lee20}",
                "see [lee20, p. 5]",
                "see [lee20, p. 5]",
            ),
            (
                r"Fig.~\ref{fig:a} and \eqref{eq:1}",
                "Fig.\u{a0}fig:a and (eq:1)",
                "Fig. fig:a and (eq:1)",
            ),
            (
                r"fast\footnote{On GPUs.} code",
                "fast (On GPUs.) code",
                "fast (On GPUs.) code",
            ),
            (
                r"Results\label{sec:r} follow",
                "Results follow",
                "Results follow",
            ),
            (r"|U_{e3}|^2", "|U<sub>e3</sub>|^2", "|Uₑ₃|^2"),
            (
                r"(1^{+1.39}_{-0.59})",
                "(1<sup>+1.39</sup><sub>-0.59</sub>)",
                "(1^{+1.39}_{-0.59})",
            ),
            (r"O(n^{2})", "O(n<sup>2</sup>)", "O(n²)"),
            (
                r"snake_case and x^y",
                "snake_case and x^y",
                "snake_case and x^y",
            ),
        ] {
            let r = render(source);
            assert_eq!(
                (r.html.as_str(), r.plain.as_str()),
                (shown, plain_text),
                "{source}"
            );
            assert!(r.problems.is_empty(), "{source}: {:?}", r.problems);
        }
    }

    #[test]
    fn text_style_macros() {
        assert_eq!(html(r"\textbf{LPZero}"), "<strong>LPZero</strong>");
        assert_eq!(
            html(r"\textit{Rule-based (RPS),}"),
            "<em>Rule-based (RPS),</em>"
        );
        assert_eq!(html(r"\emph{x}"), "<em>x</em>");
        assert_eq!(html(r"\texttt{a<b}"), "<code>a&lt;b</code>");
        assert_eq!(
            html(r#"\textsc{Sc}"#),
            "<span class=\"smallcaps\">Sc</span>"
        );
        assert_eq!(html(r"\underline{u}"), "<u>u</u>");
        assert_eq!(html(r"x\textsuperscript{2}"), "x<sup>2</sup>");
        assert_eq!(html(r"\textrm{r} \mbox{m}"), "r m");
        assert_eq!(plain(r"\textbf{bold} \emph{em} \texttt{tt}"), "bold em tt");
    }

    #[test]
    fn nested_macros_and_grouping_braces() {
        assert_eq!(html(r"\textbf{\emph{x}}"), "<strong><em>x</em></strong>");
        assert_eq!(
            html(r"\textbf{a \emph{b \texttt{c}} d}"),
            "<strong>a <em>b <code>c</code></em> d</strong>"
        );
        assert_eq!(html(r"{GPU} and {{T}ransformer}s"), "GPU and Transformers");
        assert_eq!(plain(r"\textbf{\emph{x}} {GPU}"), "x GPU");
        assert_eq!(
            html(r"{\bf bold \textit{it}} {\em e}"),
            "<strong>bold <em>it</em></strong> <em>e</em>"
        );
        assert_eq!(html(r"\textbf x y"), "<strong>x</strong> y");
    }

    #[test]
    fn siunitx_numbers_and_units() {
        let r = render(r"a mass of \SI{5}{\kilo\gram} at \SI{1.2e-3}{\metre\per\second\squared}");
        assert_eq!(
            r.html,
            "a mass of 5\u{a0}kg at 1.2×10<sup>−3</sup>\u{a0}m/s<sup>2</sup>"
        );
        assert_eq!(r.plain, "a mass of 5 kg at 1.2×10⁻³ m/s²");
        assert_eq!(plain(r"\si{\giga\bit\per\second} links"), "Gbit/s links");
        assert_eq!(plain(r"\num{12345} and \num{3e8}"), "12345 and 3×10⁸");
        assert_eq!(plain(r"\qty[round-precision=2]{10}{\percent}"), "10%");
        assert_eq!(plain(r"\unit{\degreeCelsius}"), "°C");
        assert_eq!(plain(r"\numrange{1}{5} runs"), "1 to 5 runs");
        assert_eq!(plain(r"\SIrange{1}{5}{\milli\metre}"), "1 mm to 5 mm");
        assert_eq!(plain(r"\SI{2}{\micro\ohm\tothe{-1.5}}"), "2 µΩ^{−1.5}");
        // Without its arguments, an unknown macro: nothing dropped.
        assert_eq!(plain(r"\SI{5} kg"), "SI 5 kg");
        assert!(render(r"\SI{5}{\kilo\gram}").problems.is_empty());
    }

    #[test]
    fn unbalanced_braces_are_kept_and_reported() {
        let r = render(r"a} \textbf{b {c");
        assert_eq!(r.html, "a} <strong>{b {c</strong>");
        assert_eq!(r.plain, "a} {b {c");
        assert_eq!(
            r.problems,
            [
                "expected a `{` before the `}` after `a`, found none (write `\\}` for a brace)",
                "expected a `}` to close the `{` before `c`, found the end of the text (write `\\{` for a brace)",
                "expected a `}` to close the `{` before `b {c`, found the end of the text (write `\\{` for a brace)",
            ]
        );
        let r = render("{Balanced} {groups}");
        assert_eq!(r.plain, "Balanced groups");
        assert!(r.problems.is_empty());
    }

    #[test]
    fn escaped_characters() {
        assert_eq!(html(r"\& \% \$ \_ \# \{ \}"), "&amp; % $ _ # { }");
        assert_eq!(
            plain(r"(standard \& preconditioned) \$5"),
            "(standard & preconditioned) $5"
        );
    }

    #[test]
    fn dashes_and_quotes() {
        assert_eq!(
            html("step -- roughly 3x, a---b, 0.27-1.03"),
            "step – roughly 3x, a—b, 0.27-1.03"
        );
        assert_eq!(html("``quotes'' and `x' don't"), "“quotes” and ‘x’ don’t");
        assert_eq!(plain("``q''"), "“q”");
    }

    #[test]
    fn urls_and_links() {
        assert_eq!(
            html(r"\url{https://x.org/a_b?c=1&d=2}"),
            "<a href=\"https://x.org/a_b?c=1&amp;d=2\">https://x.org/a_b?c=1&amp;d=2</a>"
        );
        assert_eq!(
            html(r#"\href{https://x.org}{the \emph{site}}"#),
            "<a href=\"https://x.org\">the <em>site</em></a>"
        );
        assert_eq!(
            html(r#"\href{mailto:a@b.c}{mail}"#),
            "<a href=\"mailto:a@b.c\">mail</a>"
        );
        assert_eq!(
            html(r#"\url{docs/a\%20b}"#),
            "<a href=\"docs/a%20b\">docs/a%20b</a>"
        );
        assert_eq!(html(r#"\url{x"y}"#), "<a href=\"x&quot;y\">x&quot;y</a>");
        assert_eq!(plain(r"see \href{https://x.org}{here}."), "see here.");
    }

    #[test]
    fn unsafe_urls_are_text() {
        assert_eq!(html(r"\url{javascript:alert(1)}"), "javascript:alert(1)");
        assert_eq!(
            render(r"see \href{JavaScript:alert(1)}{click}").problems,
            [
                "expected an http, https or mailto URL in `\\href`, found `JavaScript:alert(1)` \
                 (a script URL, which runs code when clicked), so it is not a link"
            ]
        );
        assert_eq!(
            html(r"\href{JavaScript:alert(1)}{click}"),
            "click (JavaScript:alert(1))"
        );
        assert_eq!(
            html(r"\href{data:text/html,<b>}{x}"),
            "x (data:text/html,&lt;b&gt;)"
        );
        assert_eq!(
            html(r"\href{https://a.org}{\url{https://b.org}}"),
            "<a href=\"https://a.org\">https://b.org</a>"
        );
        assert_eq!(
            html(r#"\url{unclosed"#),
            "<span class=\"latex-unknown\">url</span> {unclosed"
        );
    }

    #[test]
    fn symbol_accents() {
        assert_eq!(
            plain(r#"\'e \'{e} {\'e} \`a \^o \"o \~n \=a \.z"#),
            "é é é à ô ö ñ ā ż"
        );
        assert_eq!(
            plain(r#"Erd\H{o}s G\"{o}del Schr\"odinger"#),
            "Erdős Gödel Schrödinger"
        );
        assert_eq!(plain(r"\'{\i} \'\i \^{\j} \'{ \i }"), "í í ĵ í");
        assert_eq!(plain(r#"\'{\"u}"#), "ǘ");
        assert_eq!(plain(r"\'x"), "x\u{301}");
    }

    #[test]
    fn letter_accents() {
        assert_eq!(
            plain(r"\u{a} \v{c} \H{o} \c{c} \k{a} \r{a} \d{a} \b{b}"),
            "ă č ő ç ą å ạ ḇ"
        );
        assert_eq!(plain(r"Fran\c cois \v Cech"), "François Čech");
        assert_eq!(html(r"Ko\v{s}ice"), "Košice");
    }

    #[test]
    fn accent_edge_cases() {
        assert_eq!(plain(r"\'{ab}"), "ab\u{301}");
        assert_eq!(plain(r"a\' b"), "ab\u{301}");
        assert_eq!(plain(r"\'"), "´");
        assert_eq!(plain(r"\c{}"), "¸");
    }

    #[test]
    fn letter_macros() {
        assert_eq!(
            plain(r"{\o} \O{} {\ss} \aa{} \AA{} \ae{} \AE{} \oe{} \OE{} \l{} \L{} \i{} \j{}"),
            "ø Ø ß å Å æ Æ œ Œ ł Ł ı ȷ"
        );
        assert_eq!(
            plain(r#"Stra\ss e \AA ngstr\"om S\o ren"#),
            "Straße Ångström Søren"
        );
        assert_eq!(html(r"\LaTeX{} \ldots"), "LaTeX …");
    }

    #[test]
    fn math_snapshots() {
        assert_eq!(
            html("$x^2$"),
            "<math><msup><mi>x</mi><mn>2</mn></msup></math>"
        );
        assert_eq!(
            html(r#"$\times$"#),
            "<math><mo lspace=\"0\" rspace=\"0\">×</mo></math>"
        );
        assert_eq!(
            html(r"${\mathrm{MoS}}_{2}$"),
            "<math><msub><mrow><mspace/><mi>MoS</mi></mrow><mn>2</mn></msub></math>"
        );
        assert_eq!(
            html(r"$$\sum_i a_i$$"),
            "<math display=\"block\"><munder><mo lspace=\"0\">∑</mo><mi>i</mi></munder><msub><mi>a</mi><mi>i</mi></msub></math>"
        );
        assert_eq!(
            html(r"$\widetilde{W}$"),
            "<math><mover accent=\"true\"><mi>W</mi><mo stretchy=\"true\">~</mo></mover></math>"
        );
        assert_eq!(
            html(r"$\sqrt{n}$"),
            "<math><msqrt><mi>n</mi></msqrt></math>"
        );
        assert_eq!(html(r"\(\alpha\)"), "<math><mi>α</mi></math>");
        assert_eq!(
            html(r#"\[x\]"#),
            "<math display=\"block\"><mi>x</mi></math>"
        );
        assert_eq!(
            html("$a<b$"),
            "<math><mi>a</mi><mo>&lt;</mo><mi>b</mi></math>"
        );
    }

    #[test]
    fn math_in_plain_text() {
        assert_eq!(plain(r"$\times$"), "×");
        assert_eq!(plain(r"${\mathrm{MoS}}_{2}$ layers"), "MoS₂ layers");
        assert_eq!(plain("in $O(n^2)$ time"), "in O(n²) time");
        assert_eq!(plain(r"a $$\sum_i a_i$$ b"), "a ∑ᵢaᵢ b");
        assert_eq!(plain(r"$a<b$"), "a<b");
        assert_eq!(plain(r"$\mathcal{O}(n\log n)$"), "𝒪(n log n)");
        assert_eq!(plain(r"$x \text{if} y$, $\sin x$"), "x if y, sin x");
        assert_eq!(plain(r"up to 1.42$\times$ speedup"), "up to 1.42× speedup");
    }

    /// Radicals, scripts, fractions, accents and matrices keep their
    /// meaning in plain text (the module table of `text::plain`).
    #[test]
    fn math_plain_text_keeps_the_structure() {
        let cases = [
            (r"$O(1/\sqrt{T})$", "O(1/√T)"),
            (r"$Θ(\sqrt{n})$", "Θ(√n)"),
            (r"$\Theta(\sqrt{n})$", "Θ(√n)"),
            (r"Rates of $\sqrt{n}$ Growth", "Rates of √n Growth"),
            (r"$\sqrt{x+1}$", "√(x+1)"),
            (r"$\sqrt[3]{x}$, $\sqrt[n]{x}$", "∛x, ⁿ√x"),
            (r"$K^2$", "K²"),
            (r"$\varepsilon_2^2$", "ε₂²"),
            (r"$10^{-3}$", "10⁻³"),
            (r"$e^{i\pi}$", "e^{iπ}"),
            (r"$\mathbb{R}^{n\times m}$", "ℝ^{n×m}"),
            (r"$x'$, $f''(x)$", "x′, f″(x)"),
            (r"$\sum_{i=1}^{n} x_i$", "∑ᵢ₌₁ⁿxᵢ"),
            (r"$\lim_{n\to\infty}$", "lim_{n→∞}"),
            (r"$\frac{a+b}{2}$", "(a+b)/2"),
            (r"$\frac{1}{\sqrt{T}}$", "1/√T"),
            (r"$\tfrac12$", "1/2"),
            (r"$\binom{n}{k}$", "(n choose k)"),
            (
                r"$\hat{x}$, $\tilde{x}$, $\bar{x}$, $\dot{x}$",
                "x\u{302}, x\u{303}, x\u{304}, x\u{307}",
            ),
            (r"$\vec{v}$", "v\u{20d7}"),
            (r"$\overline{AB}$", "A̅B̅"),
            (r"$\widehat{AB}$, $\widetilde{W}$", "\\widehat{AB}, W̃"),
            (r"$\begin{pmatrix}a&b\\c&d\end{pmatrix}$", "(a, b; c, d)"),
            (r"$a \quad b$, $a\,b$", "a b, ab"),
            (r"$\phantom{x}y$", "y"),
            (r"$\operatorname{argmax}_x f$", "argmaxₓ f"),
            // Found by attacking it: each reading is one formula only.
            (r"$\frac{a}{b}c$, $\frac{a}{bc}$", "a/b c, a/(bc)"),
            (r"$\frac{\frac{a}{b}c}{d}$", "(a/b c)/d"),
            (r"$\sqrt{x}y$, $\sqrt{xy}$", "√x y, √(xy)"),
            (
                r"$\begin{aligned}a &= b\\c &= d\end{aligned}$",
                "a =b; c =d",
            ),
            (r"$\begin{cases}a & b\\c & d\end{cases}$", "{a, b; c, d"),
            (r"$\hat{\hat{x}}$", "x\u{302}\u{302}"),
        ];
        for (source, expected) in cases {
            assert_eq!(plain(source), expected, "{source}");
        }
    }

    #[test]
    fn dollar_signs_that_are_not_math() {
        let r = render("costs $5 and $10 or $ 3");
        assert_eq!(r.html, "costs $5 and $10 or $ 3");
        assert!(r.problems.is_empty());
        assert_eq!(plain("US$5"), "US$5");
        assert_eq!(plain("from $5-$10 a day"), "from $5-$10 a day");
        assert_eq!(plain(r"$a $b$"), "$a b");
        assert_eq!(plain(r"$\sim$10\% of $n$"), "∼10% of n");
        assert_eq!(html("$$5"), "$$5");
    }

    #[test]
    fn unclosed_formula_is_reported() {
        let r = render(r"then $\alpha^2 grows");
        assert_eq!(
            r.html,
            "then $<span class=\"latex-unknown\">alpha</span>^2 grows"
        );
        assert_eq!(
            r.problems,
            ["expected a valid formula, found `$\\alpha^2` (no closing `$`)"]
        );
        let r = render(r"a \(x b");
        assert_eq!(r.plain, "a (x b");
        assert!(r.problems.is_empty());
    }

    #[test]
    fn tilde_is_a_space_or_a_range() {
        assert_eq!(html("models~(LLMs)"), "models\u{a0}(LLMs)");
        assert_eq!(plain("models~(LLMs)"), "models (LLMs)");
        assert_eq!(html("Table~1 and Fig.~3"), "Table\u{a0}1 and Fig.\u{a0}3");
        assert_eq!(
            plain(r"1.53$\times$~20.57$\times$ throughput"),
            "1.53×–20.57× throughput"
        );
        assert_eq!(plain("8 Mbps~10 Gbps networks"), "8 Mbps–10 Gbps networks");
        assert_eq!(plain("10%~20%, 3~5 runs"), "10%–20%, 3–5 runs");
        assert_eq!(
            html(r"1.53$\times$~20.57"),
            "1.53<math><mo lspace=\"0\" rspace=\"0\">×</mo></math>–20.57"
        );
    }

    #[test]
    fn unknown_macros_stay_readable() {
        let r = render(r"we introduce \modelname{}, a fast engine. \modelname{} incorporates");
        assert_eq!(
            r.html,
            "we introduce <span class=\"latex-unknown\">modelname</span>, a fast engine. \
             <span class=\"latex-unknown\">modelname</span> incorporates"
        );
        assert_eq!(
            r.plain,
            "we introduce modelname, a fast engine. modelname incorporates"
        );
        assert_eq!(
            plain(r"\foo{bar} \ours is \cite{a}{b}"),
            "foo bar ours is [a]b"
        );
        assert_eq!(
            html(r#"\foo{bar}"#),
            "<span class=\"latex-unknown\">foo</span> bar"
        );
        assert!(r.problems.is_empty());
    }

    #[test]
    fn malformed_formula_falls_back_to_source() {
        let r = render(r"see $\frac{a$ here");
        assert_eq!(
            r.html,
            "see <code class=\"latex-source\">$\\frac{a$</code> here"
        );
        assert_eq!(r.plain, "see frac a here");
        assert_eq!(
            r.problems,
            [
                "expected a valid formula, found `$\\frac{a$` (Expected closing token \"}\", but reached end of input)"
            ]
        );
        let r = render(r"$\eqref{a}$");
        assert_eq!(r.html, "<code class=\"latex-source\">$\\eqref{a}$</code>");
        assert_eq!(
            r.problems,
            ["expected a valid formula, found `$\\eqref{a}$` (cross-references are not supported)"]
        );
        let r = render(r"$\nosuchcommand x$");
        assert_eq!(
            r.html,
            "<code class=\"latex-source\">$\\nosuchcommand x$</code>"
        );
        assert_eq!(
            r.problems,
            [
                "expected a valid formula, found `$\\nosuchcommand x$` (Unknown command \"\\nosuchcommand\")"
            ]
        );
    }

    #[test]
    fn deep_formulas_do_not_overflow_the_stack() {
        let deep = format!("${}x$", r"\frac{".repeat(500));
        let r = render(&deep);
        assert_eq!(r.problems.len(), 1);
        let ok = format!("${}x{}$", "{".repeat(300), "}".repeat(300));
        assert_eq!(render(&ok).html, "<math><mi>x</mi></math>");
        let huge = format!("${}$", r"\sqrt".repeat(5000));
        assert_eq!(render(&huge).problems.len(), 1);
    }

    #[test]
    fn pathological_inputs_take_linear_time() {
        let cases = [
            "$a ".repeat(30_000),
            "{".repeat(100_000),
            "}".repeat(100_000),
            r"\'".repeat(50_000),
            r"\url{".repeat(20_000),
            r"\(".repeat(50_000),
            "$$a ".repeat(30_000),
            "~1".repeat(50_000),
            r"\textbf{".repeat(50_000),
            r"\textbf".repeat(50_000),
            r"\foo{".repeat(50_000),
            "-`'".repeat(50_000),
        ];
        for case in &cases {
            let start = std::time::Instant::now();
            let r = render(case);
            assert_well_formed(&r.html);
            let elapsed = start.elapsed();
            assert!(elapsed.as_secs() < 5, "{:?}… took {elapsed:?}", &case[..20]);
        }
    }

    /// The two real listings: every line renders cleanly and keeps its words.
    #[test]
    fn real_listings() {
        let files = [
            include_str!("../../seeds/000_a6125076a0f68246.txt"),
            include_str!("../../seeds/002_6e23376fd8dff3a4.txt"),
        ];
        let mut all_html = String::new();
        let mut all_plain = String::new();
        for line in files.iter().flat_map(|f| f.lines()) {
            let r = render(line);
            assert!(r.problems.is_empty(), "{line}: {:?}", r.problems);
            assert_well_formed(&r.html);
            for stray in ['\\', '$', '{', '}'] {
                assert!(!r.plain.contains(stray), "{stray} in plain of {line}");
                let mut outside_math = String::new();
                for (i, piece) in r.html.split("<math").enumerate() {
                    let after = if i == 0 {
                        Some(piece)
                    } else {
                        piece.split_once("</math>").map(|p| p.1)
                    };
                    outside_math.push_str(after.unwrap_or(""));
                }
                assert!(!outside_math.contains(stray), "{stray} in html of {line}");
            }
            let source = line
                .replace(r"\textbf", " ")
                .replace(r"\textit", " ")
                .replace(r"\times", " ");
            assert_eq!(words(&r.plain), words(&source), "words of {line}");
            assert_eq!(
                words(&text_content(&r.html)),
                words(&source),
                "words of {line}"
            );
            all_html.push_str(&r.html);
            all_html.push('\n');
            all_plain.push_str(&r.plain);
            all_plain.push('\n');
        }
        for expected in [
            "75.67%",
            "<5%",
            "1.53×–20.57× throughput",
            "8 Mbps–10 Gbps",
            "we introduce modelname, a",
        ] {
            assert!(all_plain.contains(expected), "{expected} not in plain");
        }
        for expected in [
            "75.67%",
            "&lt;5%",
            "Large language models\u{a0}(LLMs)",
            "8 Mbps–10 Gbps",
            "1.53<math><mo lspace=\"0\" rspace=\"0\">×</mo></math>–20.57<math>",
            "<strong>LPZero</strong>",
            "<em>Rule-based Pruning Strategy (RPS),</em>",
            "<span class=\"latex-unknown\">modelname</span>",
            "(standard &amp; preconditioned)",
            "8% error in training step – roughly",
        ] {
            assert!(all_html.contains(expected), "{expected} not in html");
        }
    }

    mod never_panics {
        use super::*;
        use proptest::prelude::*;

        fn latexish() -> impl Strategy<Value = String> {
            let token = prop_oneof![
                Just(r"\textbf{".to_string()),
                Just(r"\emph{".to_string()),
                Just(r"\href{".to_string()),
                Just(r"\url{".to_string()),
                Just(r"\'".to_string()),
                Just(r"\c ".to_string()),
                Just(r"\i".to_string()),
                Just(r"\foo".to_string()),
                Just(r"\bf ".to_string()),
                Just(r"\frac{".to_string()),
                Just(r"\(".to_string()),
                Just(r"\)".to_string()),
                Just(r"\[".to_string()),
                Just(r"\]".to_string()),
                Just(r"\\".to_string()),
                Just("$$".to_string()),
                "[a-zé0-9 .,%<>&\"'`~{}$^_()\\\\-]{1,4}",
            ];
            prop::collection::vec(token, 0..24).prop_map(|tokens| tokens.concat())
        }

        proptest! {
            #[test]
            fn arbitrary_strings(source in any::<String>()) {
                let r = render(&source);
                assert_well_formed(&r.html);
            }

            #[test]
            fn latex_like_strings(source in latexish()) {
                let r = render(&source);
                assert_well_formed(&r.html);
                prop_assert!(!r.plain.contains('\\'), "{:?} -> {:?}", source, r.plain);
                prop_assert!(!r.plain.contains("  "));
                prop_assert_eq!(r.plain.trim(), r.plain.as_str());
            }

            #[test]
            fn folding_matches_split_and_join(text in "[a \t\n\u{a0}\u{2009}\u{3000}’–é]{0,30}") {
                let unicode: Vec<&str> = text.split(char::is_whitespace).filter(|w| !w.is_empty()).collect();
                prop_assert_eq!(fold_whitespace(text.clone()), unicode.join(" "));
                let ascii: Vec<&str> = text
                    .split(|c: char| c.is_ascii_whitespace())
                    .filter(|w| !w.is_empty())
                    .collect();
                prop_assert_eq!(fold_ascii_spaces(text.clone()), ascii.join(" "));
            }

            #[test]
            fn text_without_macros_keeps_every_word(source in "[a-zA-Z0-9 .,%<>&\"'`~{}()-]{0,80}") {
                let r = render(&source);
                // Grouping braces vanish (`A{}a` is one word) and unbalanced
                // ones are kept as characters: words are compared without them.
                let unbraced = |text: &str| words(&text.replace(['{', '}'], ""));
                prop_assert_eq!(unbraced(&r.plain), unbraced(&source));
                prop_assert_eq!(unbraced(&text_content(&r.html)), unbraced(&source));
            }
        }
    }
}
