//! The text types for titles and abstracts: a title's source as listed,
//! its HTML rendering and its plain-text rendering; an abstract's two
//! renderings. Each is made once (LaTeX converted by [`crate::text::latex`]) so
//! every page, feed, export and index shows the same text.

pub mod latex;
pub mod names;
pub mod packed;
pub mod plain;
pub mod siunitx;

use crate::memo::Memo;
use std::sync::Arc;

/// A title in its three renderings: the source as listed, safe HTML and
/// plain text. Most titles read the same in all three, so the HTML and the
/// source are kept only where they differ from the plain text: one string
/// a title instead of three (measured in 22acd8e).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Text {
    plain: Box<str>,
    /// `None` when the HTML is the plain text.
    html: Option<Box<str>>,
    /// `None` when the source is the plain text.
    source: Option<Box<str>>,
}

impl Text {
    /// An inline text such as a title: HTML without a wrapping element.
    /// Problems (a malformed formula, shown as its source) are pushed to
    /// `problems` as messages without a location.
    pub fn inline(source: &str, problems: &mut Vec<String>) -> Text {
        let rendered = latex::render(source);
        problems.extend(rendered.problems);
        let plain = rendered.plain;
        Text {
            html: (rendered.html != plain).then(|| rendered.html.into_boxed_str()),
            source: (source != plain).then(|| source.into()),
            plain: plain.into_boxed_str(),
        }
    }

    /// The text as listed, LaTeX kept.
    pub fn source(&self) -> &str {
        self.source.as_deref().unwrap_or(&self.plain)
    }

    /// Safe HTML: escaped, inline (no wrapping element).
    pub fn html(&self) -> &str {
        self.html.as_deref().unwrap_or(&self.plain)
    }

    /// Plain text for `<title>`, meta tags, feeds and search: no markup.
    pub fn plain(&self) -> &str {
        &self.plain
    }
}

/// An abstract in the two renderings that pages, feeds, exports and the
/// search index show. Its source is not kept, only its hash: nothing shows
/// it, and every abstract's source would be held for nothing (measured in
/// c04b068).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abstract {
    /// Safe HTML, each paragraph in `<p>…</p>`, joined with `\n`; packed
    /// in a large build ([`Abstract::packed`]). See [`Abstract::html`].
    html: packed::Html,
    /// The plain text, kept only when [`crate::text::plain::plain_of_html`] of
    /// `html` does not give it back (a formula shown as its source): most
    /// abstracts hold their HTML alone, not a second copy of their text
    /// (measured in 804c5aa). See [`Abstract::plain`].
    kept_plain: Option<Box<str>>,
    /// XXH3-64 hash of the listed paragraphs ([`Abstract::source_hash`]),
    /// which alone decide both renderings.
    pub source_hash: u64,
}

impl Abstract {
    /// An abstract from its listed paragraphs (none when absent) and their
    /// [`Abstract::source_hash`], which a record's parse already made.
    /// Problems as for [`Text::inline`].
    pub fn with_hash(
        paragraphs: &[String],
        source_hash: u64,
        problems: &mut Vec<String>,
    ) -> Abstract {
        let mut html = Vec::with_capacity(paragraphs.len());
        let mut plain = Vec::with_capacity(paragraphs.len());
        for (at, paragraph) in paragraphs.iter().enumerate() {
            let rendered = latex::render(paragraph);
            if at == 0 {
                problems.extend(rendered.problems);
            } else {
                let place = format!("in the abstract's paragraph {}: ", at + 1);
                problems.extend(rendered.problems.into_iter().map(|p| format!("{place}{p}")));
            }
            html.push(format!("<p>{}</p>", rendered.html));
            plain.push(rendered.plain);
        }
        let html = html.join("\n");
        let plain = plain.join(" ");
        let kept_plain = (plain::plain_of_html(&html) != plain).then(|| plain.into_boxed_str());
        Abstract {
            html: packed::Html::Plain(html.into_boxed_str()),
            kept_plain,
            source_hash,
        }
    }

    /// The abstract with its HTML compressed with `dictionary`
    /// ([`packed::Html::packed`]): in a large build, where the abstracts'
    /// HTML is most of the corpus's memory (measured in 1dd5710).
    pub fn packed(self, dictionary: &Arc<packed::Dictionary>) -> Abstract {
        let html = match self.html {
            packed::Html::Plain(html) => packed::Html::packed(html, dictionary),
            packed => packed,
        };
        Abstract { html, ..self }
    }

    /// Whether the HTML is held packed.
    #[cfg(test)]
    pub fn is_packed(&self) -> bool {
        matches!(self.html, packed::Html::Packed(..))
    }

    /// Safe HTML, each paragraph in `<p>…</p>`, joined with `\n`.
    pub fn html(&self) -> std::borrow::Cow<'_, str> {
        self.html.text()
    }

    /// Plain text, paragraphs joined with a space: for meta tags, feeds,
    /// exports and search. Read back from the HTML when it was not kept
    /// (one pass over the HTML; a packed HTML is decompressed first).
    pub fn plain(&self) -> std::borrow::Cow<'_, str> {
        match &self.kept_plain {
            Some(plain) => std::borrow::Cow::Borrowed(plain),
            None => std::borrow::Cow::Owned(plain::plain_of_html(&self.html.text())),
        }
    }

    /// XXH3-64 of the paragraphs, each followed by a zero byte.
    pub fn source_hash(paragraphs: &[String]) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(2);
        for paragraph in paragraphs {
            hasher.update(paragraph.as_bytes());
            hasher.update(&[0]);
        }
        hasher.digest()
    }

    /// Whether the abstract is absent.
    pub fn is_empty(&self) -> bool {
        self.html.is_empty()
    }

    /// The plain text cut to at most `max_chars` characters at a word
    /// boundary, with `…` appended when cut: for meta descriptions.
    /// Reads back from the HTML only the part the cut needs (a packed
    /// HTML is decompressed whole).
    pub fn summary(&self, max_chars: usize) -> String {
        self.html_and_summary(max_chars).1
    }

    /// [`Abstract::html`] and [`Abstract::summary`] at once: a packed
    /// abstract is decompressed once.
    pub fn html_and_summary(&self, max_chars: usize) -> (std::borrow::Cow<'_, str>, String) {
        let html = self.html();
        let summary = match &self.kept_plain {
            Some(plain) => summarise(plain, max_chars),
            None => summarise(
                &plain::plain_of_html_upto(&html, max_chars.saturating_add(1)),
                max_chars,
            ),
        };
        (html, summary)
    }
}

/// The ASCII `bytes` as a set, one bit of a `u128` each: testing a byte
/// ([`in_ascii_set`]) is a shift, where a `match` on many bytes can
/// compile to a jump table per byte.
pub const fn ascii_set(bytes: &[u8]) -> u128 {
    let mut set = 0;
    let mut i = 0;
    while i < bytes.len() {
        set |= 1 << bytes[i];
        i += 1;
    }
    set
}

/// Whether `b` is in `set` ([`ascii_set`]).
pub fn in_ascii_set(set: u128, b: u8) -> bool {
    b < 128 && (set >> b) & 1 == 1
}

/// `plain` cut to at most `max_chars` characters at a word boundary, with
/// `…` appended when cut ([`Abstract::summary`]).
pub fn summarise(plain: &str, max_chars: usize) -> String {
    // Where `max_chars` ASCII characters lead, the cut is found without
    // counting characters one by one.
    let ascii_cut = plain.len() > max_chars && plain.as_bytes()[..max_chars].is_ascii();
    let end = match ascii_cut {
        true => max_chars,
        false => match plain.char_indices().nth(max_chars) {
            Some((end, _)) => end,
            None => return plain.to_string(),
        },
    };
    let cut = &plain[..end];
    let at_word = cut.rfind(' ').unwrap_or(cut.len());
    let kept = cut[..at_word].trim_end();
    let mut summary = String::with_capacity(kept.len() + '…'.len_utf8());
    summary.push_str(kept);
    summary.push('…');
    summary
}

/// Undoes UTF-8 read as Latin-1 (`ClÃ©ment` for `Clément`, `Î\u{98}` for
/// `Θ`, as some recorded arXiv answers hold it). Only a text wholly so
/// read is changed: every character at most U+00FF, the bytes they stand
/// for valid UTF-8, and among them a sequence such a reading typically
/// leaves (`Ã©`, `Â\u{a0}`, `Å\u{82}`, Greek `Î`/`Ï`, Cyrillic `Ð`/`Ñ`,
/// `â\u{80}\u{99}`); any other text, Latin-1 letters before a no-break
/// space or `·` among them, is left as it is. One pass, linear.
pub fn undo_latin1_reading(text: &str) -> std::borrow::Cow<'_, str> {
    let latin1 = text.chars().all(|c| u32::from(c) <= 0xFF);
    if !latin1 || text.is_ascii() {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes: Vec<u8> = text.chars().map(|c| c as u8).collect();
    let typical = bytes.windows(2).any(|pair| {
        matches!(
            pair[0],
            0xC2 | 0xC3 | 0xC5 | 0xCE | 0xCF | 0xD0 | 0xD1 | 0xE2
        ) && (0x80..=0xBF).contains(&pair[1])
    });
    match String::from_utf8(bytes) {
        Ok(decoded) if typical => std::borrow::Cow::Owned(decoded),
        _ => std::borrow::Cow::Borrowed(text),
    }
}

/// Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values
/// (as tera's autoescape does).
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    push_escaped_html(&mut out, text);
    out
}

/// Appends `text` to `out`, escaped as by [`escape_html`].
pub fn push_escaped_html(out: &mut String, text: &str) {
    // Writing to a String cannot fail.
    let _ = pulldown_cmark_escape::escape_html(out, text);
}

/// Converted titles and abstracts that `vellum serve` keeps between
/// builds ([`Memo`]), by the hash of their source (with its kind), with
/// the problems their conversion reported, which are reported again; and
/// the sort keys of titles.
#[derive(Debug, Default)]
pub struct TextMemo {
    /// Converted titles and their problems.
    texts: Memo<(Arc<Text>, Vec<String>)>,
    /// Converted abstracts and their problems.
    abstracts: Memo<(Arc<Abstract>, Vec<String>)>,
    /// Sort keys and slugs of titles, by the hash of the title's plain
    /// text (with its kind).
    keys: Memo<Arc<str>>,
}

impl TextMemo {
    /// [`Text::inline`], or its result from this or the previous build.
    pub fn inline(&self, source: &str, problems: &mut Vec<String>) -> Arc<Text> {
        let key = xxhash_rust::xxh3::xxh3_64_with_seed(source.as_bytes(), 1);
        get_or_make(&self.texts, key, problems, |found| {
            Text::inline(source, found)
        })
    }

    /// [`crate::text::names::fold`] of a title's plain text, or its result from
    /// this or the previous build.
    pub fn sort_key(&self, plain: &str) -> Arc<str> {
        let key = xxhash_rust::xxh3::xxh3_64_with_seed(plain.as_bytes(), 4);
        self.keys
            .get_or_make(key, || crate::text::names::fold(plain).into())
    }

    /// [`crate::permalink::slugify`] of a title's plain text, or its
    /// result from this or the previous build.
    pub fn slug(&self, plain: &str) -> Arc<str> {
        let key = xxhash_rust::xxh3::xxh3_64_with_seed(plain.as_bytes(), 5);
        self.keys
            .get_or_make(key, || crate::permalink::slugify(plain).into())
    }

    /// [`Abstract::with_hash`], or its result from this or the previous build;
    /// `source_hash` is the paragraphs' [`Abstract::source_hash`].
    pub fn abstract_text(
        &self,
        paragraphs: &[String],
        source_hash: u64,
        problems: &mut Vec<String>,
    ) -> Arc<Abstract> {
        get_or_make(&self.abstracts, source_hash, problems, |found| {
            Abstract::with_hash(paragraphs, source_hash, found)
        })
    }

    /// Ends a build: the texts it did not use are forgotten.
    pub fn finish_build(&self) {
        self.texts.finish_build();
        self.abstracts.finish_build();
        self.keys.finish_build();
    }
}

/// The value of `memo` at `key`, made when absent; its problems are added
/// to `problems`.
fn get_or_make<T>(
    memo: &Memo<(Arc<T>, Vec<String>)>,
    key: u64,
    problems: &mut Vec<String>,
    make: impl FnOnce(&mut Vec<String>) -> T,
) -> Arc<T> {
    let (value, found) = memo.get_or_make(key, || {
        let mut found = Vec::new();
        let value = make(&mut found);
        (Arc::new(value), found)
    });
    problems.extend(found);
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_folds_every_kind_of_whitespace_and_borrows_folded_text() {
        let spaces = [
            "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{85}", "\u{a0}", "\u{1680}",
        ];
        let more = [
            "\u{2000}", "\u{200a}", "\u{2028}", "\u{2029}", "\u{202f}", "\u{205f}",
        ];
        for space in spaces.iter().chain(&more).chain(&["\u{3000}", "  "]) {
            let text = format!("ℓ©{space}x");
            assert_eq!(plain::one_line(&text), "ℓ© x", "{space:?}");
        }
        // Characters with the same first bytes that are not whitespace.
        for text in ["ℓ − © x", "Zürich 1\u{2010}2 \u{3001}", "a\u{1681}b"] {
            assert!(
                matches!(plain::one_line(text), std::borrow::Cow::Borrowed(_)),
                "{text}"
            );
        }
        assert_eq!(plain::one_line(" a \n b "), "a b");
    }

    #[test]
    fn one_line_knows_every_whitespace_character() {
        // Between two letters; a single space is already one line.
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let text = format!("a{c}b");
            let expected = c.is_whitespace() && c != ' ';
            let folded = matches!(plain::one_line(&text), std::borrow::Cow::Owned(_));
            assert_eq!(folded, expected, "{c:?}");
        }
    }

    #[test]
    fn one_line_is_split_whitespace_joined_at_any_position() {
        // A space doubled, or another whitespace, starting at byte `at`,
        // within or across the runs a vectorised loop reads.
        for space in ["  ", "\t", "\n", "\u{a0}", "\u{2028}", "\u{3000}"] {
            for at in [0, 1, 15, 16, 31, 32, 33, 63, 64, 70] {
                let text = format!("{}{space}{}", "a".repeat(at), "c".repeat(40));
                let expected = text.split_whitespace().collect::<Vec<_>>().join(" ");
                assert_eq!(plain::one_line(&text), expected, "{space:?} at {at}");
            }
        }
        let folded = format!("{} x", "word ".repeat(20).trim_end());
        assert!(matches!(
            plain::one_line(&folded),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn utf8_read_as_latin1_is_read_again() {
        // As the recorded arXiv answers of the PyPI package `arxiv` hold them.
        assert_eq!(
            undo_latin1_reading("ClÃ©ment L. Canonne"),
            "Clément L. Canonne"
        );
        assert_eq!(undo_latin1_reading("Oliver WeiÃ\u{9f}l"), "Oliver Weißl");
        assert_eq!(
            undo_latin1_reading("$\\tilde Î\u{98}(\\sqrt n)$"),
            "$\\tilde Θ(\\sqrt n)$"
        );
        assert_eq!(undo_latin1_reading("itâ\u{80}\u{99}s"), "it’s");
        // Text that is no such reading stays as it is (from a helper's
        // review: Latin-1 letters before a no-break space or a middle dot).
        for kept in [
            "Clément",
            "Ã alone",
            "Â",
            "naïve café",
            "« le café\u{a0}» est prêt",
            "CAFÉ\u{a0}: ouvert",
            "3\u{a0}×\u{a0}10^5",
            "Fuß\u{a0}ball",
            "Maß·stab",
            "Θ(√n) — ClÃ©ment",
        ] {
            assert_eq!(undo_latin1_reading(kept), kept);
        }
        assert!(matches!(
            undo_latin1_reading("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

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
            *memo.abstract_text(
                &paragraphs,
                Abstract::source_hash(&paragraphs),
                &mut Vec::new()
            ),
            Abstract::with_hash(
                &paragraphs,
                Abstract::source_hash(&paragraphs),
                &mut Vec::new()
            )
        );
    }

    #[test]
    fn an_ascii_set_holds_its_bytes_and_no_other() {
        const SET: u128 = ascii_set(b"\\{}$~");
        let members: Vec<u8> = (0..=255).filter(|&b| in_ascii_set(SET, b)).collect();
        assert_eq!(members, b"$\\{}~");
        assert!(!in_ascii_set(ascii_set(b"\x7f"), 0xFF));
    }

    #[test]
    fn title_with_markup_is_shown_literally() {
        let mut problems = Vec::new();
        let t = Text::inline("A <script> & B", &mut problems);
        assert_eq!(t.html(), "A &lt;script&gt; &amp; B");
        assert_eq!(t.plain(), "A <script> & B");
        assert_eq!(t.source(), "A <script> & B");
        assert!(problems.is_empty());
        // Only what differs from the plain text is kept.
        assert_eq!((t.html.is_some(), t.source.is_none()), (true, true));
        let t = Text::inline("Plain words", &mut problems);
        assert_eq!(
            (t.html(), t.plain(), t.source()),
            ("Plain words", "Plain words", "Plain words")
        );
        assert_eq!((t.html.is_none(), t.source.is_none()), (true, true));
        let t = Text::inline("The $\\alpha$ decay", &mut problems);
        assert_eq!(t.source(), "The $\\alpha$ decay");
        assert_eq!(t.plain(), "The α decay");
        assert!(t.html().contains("<math"), "{}", t.html());
        assert!(problems.is_empty());
    }

    #[test]
    fn paragraphs_and_summary() {
        let mut problems = Vec::new();
        let paragraphs = ["One  two.".into(), "Three \"four\" $\\frac{a$.".into()];
        let t = Abstract::with_hash(
            &paragraphs,
            Abstract::source_hash(&paragraphs),
            &mut problems,
        );
        assert_eq!(
            t.html(),
            "<p>One two.</p>\n<p>Three &quot;four&quot; <code class=\"latex-source\">$\\frac{a$</code>.</p>"
        );
        assert_eq!(problems.len(), 1);
        assert_eq!(t.plain(), "One two. Three \"four\" frac a.");
        assert_eq!(t.source_hash, Abstract::source_hash(&paragraphs));
        assert_ne!(t.source_hash, Abstract::source_hash(&paragraphs[..1]));
        assert_eq!(t.summary(10), "One two.…");
        assert!(Abstract::with_hash(&[], Abstract::source_hash(&[]), &mut problems).is_empty());
    }

    /// The renderer's plain text of `paragraphs`, joined as abstracts join it.
    fn rendered_plain(paragraphs: &[String]) -> String {
        let plain: Vec<String> = paragraphs.iter().map(|p| latex::render(p).plain).collect();
        plain.join(" ")
    }

    #[test]
    fn an_abstract_keeps_its_plain_text_only_when_the_html_does_not_give_it_back() {
        let cases: [(&[&str], bool); 7] = [
            (&["Plain words, 75.67% & <5%."], false),
            (&["One.", "Two $x^2$ and $O(n \\log n)$."], false),
            (
                &["Display $$\\sum_i a_i$$ here, ``quoted'' \\emph{em}~text."],
                false,
            ),
            (&["A \\foo{} macro, \\href{https://x.org}{a link}."], false),
            (&["Broken $\\frac{a$ formula."], true),
            (&["", "After an empty paragraph."], true),
            (&["Variation\u{fe0f} selector."], true),
        ];
        for (paragraphs, kept) in cases {
            let paragraphs: Vec<String> = paragraphs.iter().map(|p| p.to_string()).collect();
            let hash = Abstract::source_hash(&paragraphs);
            let made = Abstract::with_hash(&paragraphs, hash, &mut Vec::new());
            assert_eq!(made.plain(), rendered_plain(&paragraphs), "{paragraphs:?}");
            assert_eq!(made.kept_plain.is_some(), kept, "{paragraphs:?}");
            for max in 0..60 {
                let whole = summarise(&made.plain(), max);
                assert_eq!(made.summary(max), whole, "{max}: {paragraphs:?}");
            }
        }
    }

    proptest::proptest! {
        /// A summary read from the start of the HTML is the whole plain
        /// text's, at every cut: entities, no-break spaces, variation
        /// selectors, formulas and paragraphs included.
        #[test]
        fn a_summary_is_cut_from_the_whole_plain_text(
            paragraphs in proptest::collection::vec(
                r#"([a-zé ]{0,12}|&|<|"|\x{a0}|\x{fe0f}|\n|\\emph\{x\}|\$x\^2\$|\$\$\\sum_i\$\$){0,30}"#,
                0..4,
            )
        ) {
            let made = Abstract::with_hash(&paragraphs, Abstract::source_hash(&paragraphs), &mut Vec::new());
            let plain = made.plain();
            for max in 0..=plain.chars().count() + 1 {
                proptest::prop_assert_eq!(made.summary(max), summarise(&plain, max), "{}", max);
            }
        }
    }

    #[test]
    fn every_abstract_of_the_bundled_listings_reads_its_plain_text_back() {
        let (mut abstracts, mut kept) = (0, 0);
        for entry in std::fs::read_dir("seeds").unwrap() {
            let listing =
                crate::input::listing::parse(&std::fs::read(entry.unwrap().path()).unwrap());
            for record in listing.unwrap().records {
                let paragraphs = &record.abstract_paragraphs;
                let hash = Abstract::source_hash(paragraphs);
                let made = Abstract::with_hash(paragraphs, hash, &mut Vec::new());
                assert_eq!(made.plain(), rendered_plain(paragraphs), "{paragraphs:?}");
                for max in [0, 1, 30, 159, 160, 161, 400, 5000] {
                    let whole = summarise(&made.plain(), max);
                    assert_eq!(made.summary(max), whole, "{max}: {paragraphs:?}");
                }
                abstracts += 1;
                kept += usize::from(made.kept_plain.is_some());
            }
        }
        assert!(abstracts > 30, "{abstracts} abstracts");
        assert!(
            kept * 20 < abstracts,
            "{kept} of {abstracts} keep their plain text"
        );
    }
}
