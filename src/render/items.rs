//! A list item's template filled in without tera: the theme's
//! `partials/paper_item.html`, when all it does is print fields of
//! `paper` and test them with `{% if %}`, is read once into text and
//! fields ([`ItemTemplate::compile`]) and each list item filled from the
//! paper's values directly ([`ItemTemplate::fill`]), byte for byte what
//! tera writes, without making the paper's tera value: a list item is
//! made for every paper on every page that lists it, the most repeated
//! work of a build. Any other template is left to tera.

use crate::render::views::{Field, FieldValue, PAPER_FIELDS};

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Text(Box<str>),
    /// `{{ paper.field }}`, escaped unless `| safe`; the field by its
    /// place in [`PAPER_FIELDS`].
    Print {
        field: usize,
        escape: bool,
    },
    /// `{% if paper.field %}` … `{% else %}` … `{% endif %}`.
    If {
        field: usize,
        then: Vec<Part>,
        otherwise: Vec<Part>,
    },
}

/// A list item's template as text and fields.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemTemplate {
    parts: Vec<Part>,
}

impl ItemTemplate {
    /// Reads the source of an autoescaped (`.html`) item template; `None`
    /// unless it consists only of text, comments, `{{ paper.F }}`,
    /// `{{ paper.F | safe }}` and `{% if paper.F %}`, `{% else %}`,
    /// `{% endif %}`, F a field of [`PAPER_FIELDS`] that is not a list,
    /// without whitespace control (`{%-`). Anything else (another
    /// variable, a filter, a loop, a test, a comparison) leaves the
    /// template to tera.
    ///
    /// The template is read from its text, not from tera's parsed
    /// template: tera 2 keeps its AST private (its public API gives only
    /// a template's top-level variable names and what it extends and
    /// includes), so reading the AST exactly would mean forking tera. What
    /// tera's public API
    /// does report is checked against the reading: `variables` are the
    /// top-level variables tera found in the compiled template
    /// (`Tera::get_template_variables`), and the template is compiled
    /// only when they are exactly those the reading found (`paper`, or
    /// none for a template of text alone), so that a tag the reading
    /// took for text or misread cannot have a template that reads
    /// another value filled in without it. A property test of generated
    /// templates checks the rest against tera's render
    /// (`tests/build.rs`).
    pub fn compile(
        source: &str,
        variables: &std::collections::HashSet<&str>,
    ) -> Option<ItemTemplate> {
        let mut open: Open = Vec::new();
        let mut top = Vec::new();
        let mut rest = source;
        loop {
            let text_end = find_tag(rest).unwrap_or(rest.len());
            let parts = branch(&mut open, &mut top);
            if text_end > 0 {
                parts.push(Part::Text(rest[..text_end].into()));
            }
            rest = &rest[text_end..];
            if rest.is_empty() {
                break;
            }
            let (kind, close) = match &rest[..2] {
                "{{" => (Tag::Print, "}}"),
                "{%" => (Tag::Statement, "%}"),
                _ => (Tag::Comment, "#}"),
            };
            let end = rest[2..].find(close)? + 2;
            let inner = &rest[2..end];
            rest = &rest[end + 2..];
            if inner.starts_with('-') || inner.ends_with('-') {
                return None;
            }
            match kind {
                Tag::Comment => continue,
                Tag::Print => {
                    let mut pieces = inner.split('|').map(|piece| piece.trim_ascii());
                    let field = paper_field(pieces.next()?)?;
                    let escape = match (pieces.next(), pieces.next()) {
                        (None, _) => true,
                        (Some("safe"), None) => false,
                        _ => return None,
                    };
                    branch(&mut open, &mut top).push(Part::Print { field, escape });
                    continue;
                }
                Tag::Statement => {}
            }
            let words: Vec<&str> = inner.split_ascii_whitespace().collect();
            match words[..] {
                ["if", var] => open.push((paper_field(var)?, Vec::new(), Vec::new(), false)),
                ["else"] => match open.last_mut() {
                    Some((_, _, _, in_else)) if !*in_else => *in_else = true,
                    _ => return None,
                },
                ["endif"] => {
                    let (field, then, otherwise, _) = open.pop()?;
                    branch(&mut open, &mut top).push(Part::If {
                        field,
                        then,
                        otherwise,
                    });
                }
                _ => return None,
            }
        }
        let template = ItemTemplate { parts: top };
        let read: &[&str] = match template.reads_paper() {
            true => &["paper"],
            false => &[],
        };
        let agrees = variables.len() == read.len() && read.iter().all(|v| variables.contains(v));
        (open.is_empty() && agrees).then_some(template)
    }

    /// Whether any part prints or tests a field of `paper`.
    fn reads_paper(&self) -> bool {
        self.parts.iter().any(|part| !matches!(part, Part::Text(_)))
    }

    /// Appends the item of the paper whose fields `get` gives
    /// ([`Field::value`]).
    pub fn fill<'v>(&self, out: &mut String, get: &impl Fn(&'static Field) -> FieldValue<'v>) {
        fill_parts(&self.parts, out, get);
    }
}

fn fill_parts<'v>(
    parts: &[Part],
    out: &mut String,
    get: &impl Fn(&'static Field) -> FieldValue<'v>,
) {
    for part in parts {
        match part {
            Part::Text(text) => out.push_str(text),
            Part::Print { field, escape } => match get(&PAPER_FIELDS[*field]) {
                FieldValue::Str(s) if *escape => crate::text::push_escaped_html(out, s),
                FieldValue::Str(s) => out.push_str(s),
                FieldValue::Num(n) => {
                    use std::fmt::Write;
                    // Writing to a String cannot fail.
                    let _ = write!(out, "{n}");
                }
                FieldValue::Bool(b) => out.push_str(if b { "true" } else { "false" }),
                // A list is never compiled to a print ([`paper_field`]).
                FieldValue::None | FieldValue::List(_) => {}
            },
            Part::If {
                field,
                then,
                otherwise,
            } => {
                let branch = if get(&PAPER_FIELDS[*field]).is_truthy() {
                    then
                } else {
                    otherwise
                };
                fill_parts(branch, out, get);
            }
        }
    }
}

/// What a tag is, by its opening delimiter.
enum Tag {
    Print,
    Statement,
    Comment,
}

/// The `if` branches being read: its field, then, otherwise, and
/// whether the `else` was read.
type Open = Vec<(usize, Vec<Part>, Vec<Part>, bool)>;

/// The parts the next one goes to: the innermost open branch, else the
/// template's own.
fn branch<'p>(open: &'p mut Open, top: &'p mut Vec<Part>) -> &'p mut Vec<Part> {
    match open.last_mut() {
        Some((_, _, otherwise, true)) => otherwise,
        Some((_, then, _, false)) => then,
        None => top,
    }
}

/// Where the next tag (`{{`, `{%`, `{#`) starts in `s`.
fn find_tag(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    memchr::memchr_iter(b'{', bytes).find(|&i| matches!(bytes.get(i + 1), Some(b'{' | b'%' | b'#')))
}

/// The place in [`PAPER_FIELDS`] of `paper.name`, a field that is not
/// a list.
fn paper_field(var: &str) -> Option<usize> {
    let name = var.strip_prefix("paper.")?;
    PAPER_FIELDS
        .iter()
        .position(|field| field.name == name && !field.is_list())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields of one test paper: (name, value). Tera fails on a
    /// field the value lacks; a paper's value has every field.
    type Paper = Vec<(&'static str, FieldValue<'static>)>;

    /// What tera writes for `source` with `paper` (autoescaped, as an
    /// `.html` template).
    fn tera(source: &str, paper: &Paper) -> String {
        let mut map = tera::Map::new();
        for (name, value) in paper {
            let value = match *value {
                FieldValue::Str(s) => tera::Value::from(s),
                FieldValue::Num(n) => tera::Value::from(n),
                FieldValue::Bool(b) => tera::Value::from(b),
                FieldValue::None | FieldValue::List(_) => tera::Value::none(),
            };
            map.insert((*name).into(), value);
        }
        let mut context = tera::Context::new();
        context.insert_value("paper", tera::Value::from(map));
        tera::Tera::one_off(source, &context, true).unwrap()
    }

    /// [`ItemTemplate::compile`] with the variables tera finds in
    /// `source`; a source tera refuses is read with `paper` as its one
    /// variable, so that the text reading alone must refuse it.
    fn compile(source: &str) -> Option<ItemTemplate> {
        let mut tera = tera::Tera::new();
        match tera.add_raw_template("item.html", source) {
            Ok(()) => {
                let variables = tera.get_template_variables("item.html").unwrap();
                ItemTemplate::compile(source, &variables)
            }
            Err(_) => ItemTemplate::compile(source, &["paper"].into()),
        }
    }

    fn filled(template: &ItemTemplate, paper: &Paper) -> String {
        let mut out = String::new();
        template.fill(&mut out, &|field| {
            paper.iter().find(|(name, _)| *name == field.name).map_or(
                FieldValue::None,
                |(_, value)| match *value {
                    FieldValue::Str(s) => FieldValue::Str(s),
                    FieldValue::Num(n) => FieldValue::Num(n),
                    FieldValue::Bool(b) => FieldValue::Bool(b),
                    FieldValue::None | FieldValue::List(_) => FieldValue::None,
                },
            )
        });
        out
    }

    fn papers() -> Vec<Paper> {
        vec![
            vec![
                ("url", FieldValue::Str("/papers/echo/")),
                ("title_html", FieldValue::Str("Echo: <i>at</i> scale")),
                (
                    "byline_html",
                    FieldValue::Str("<strong>Chuan Wu</strong>, <a href=\"/a/\">Yi</a>"),
                ),
                (
                    "meta_html",
                    FieldValue::Str("<span class=\"venue\">Systems &amp; ML</span>"),
                ),
                (
                    "links_html",
                    FieldValue::Str("<a href=\"https://arxiv.org/abs/2412.12487\">arXiv</a>"),
                ),
                ("bib_url", FieldValue::Str("/papers/echo/echo.bib")),
                (
                    "abstract_html",
                    FieldValue::Str("<p>Less than 5% &lt; 10%.</p>"),
                ),
                ("title", FieldValue::Str("Tom's \"A<B\" & more")),
                ("year", FieldValue::Num(2024)),
                ("more_authors", FieldValue::Num(0)),
                ("selected", FieldValue::Bool(true)),
                ("venue", FieldValue::Str("")),
            ],
            vec![
                ("url", FieldValue::Str("/papers/x/")),
                ("title_html", FieldValue::Str("X")),
                ("byline_html", FieldValue::Str("")),
                ("meta_html", FieldValue::Str("")),
                ("links_html", FieldValue::Str("")),
                ("bib_url", FieldValue::None),
                ("abstract_html", FieldValue::None),
                ("title", FieldValue::Str("X")),
                ("year", FieldValue::None),
                ("more_authors", FieldValue::Num(3)),
                ("selected", FieldValue::Bool(false)),
                ("venue", FieldValue::None),
            ],
        ]
    }

    #[test]
    fn the_default_item_is_filled_in_as_tera_renders_it() {
        let source = include_str!("../../themes/default/templates/partials/paper_item.html");
        let template = compile(source).expect("the default item compiles");
        for paper in papers() {
            assert_eq!(filled(&template, &paper), tera(source, &paper));
        }
        let first = filled(&template, &papers()[0]);
        assert!(first.contains(
            "<a href=\"/papers/echo/echo.bib\" download>BibTeX</a>\n    <details><summary>Abstract</summary><div class=\"abstract\"><p>Less than 5% &lt; 10%.</p></div></details>"
        ));
        let second = filled(&template, &papers()[1]);
        assert!(!second.contains("BibTeX") && !second.contains("<details>"));
    }

    #[test]
    fn prints_escapes_tests_and_comments_as_tera_does() {
        let sources = [
            "{{ paper.title }}|{{paper.title|safe}}|{{ paper.title | safe }}",
            "{{ paper.year }} {{ paper.more_authors }} {{ paper.selected }} [{{ paper.bib_url }}]",
            "{# a comment {{ paper.url }} #}{% if paper.venue %}v{% else %}no venue{% endif %}",
            "{% if paper.more_authors %}+{{ paper.more_authors }}{% else %}{% if paper.selected %}S{% endif %}none{% endif %}",
            "{% if paper.abstract_html %}{% if paper.bib_url %}both{% else %}abstract{% endif %}{% endif %} { } {{",
        ];
        for source in sources.iter().take(4) {
            let template = compile(source).expect(source);
            for paper in papers() {
                assert_eq!(filled(&template, &paper), tera(source, &paper), "{source}");
            }
        }
        // An unclosed `{{` is left to tera (which reports it).
        assert_eq!(compile(sources[4]), None);
        let escaped = compile(sources[0]).unwrap();
        assert_eq!(
            filled(&escaped, &papers()[0]),
            "Tom&#39;s &quot;A&lt;B&quot; &amp; more|Tom's \"A<B\" & more|Tom's \"A<B\" & more"
        );
    }

    #[test]
    fn anything_else_is_left_to_tera() {
        for source in [
            "{{ paper.byline }}",
            "{{ paper.authors }}",
            "{{ paper.nope }}",
            "{{ author.name }}",
            "{{ paper.title | upper }}",
            "{{ paper.title | safe | upper }}",
            "{{ paper.title ~ \"x\" }}",
            "{%- if paper.url %}x{% endif %}",
            "{{- paper.url }}",
            "{{ paper.url -}}",
            "{#- c #}",
            "{% for name in paper.byline %}{{ name.name }}{% endfor %}",
            "{% if paper.year > 2000 %}x{% endif %}",
            "{% if not paper.bib_url %}x{% endif %}",
            "{% if paper.url %}x{% elif paper.key %}y{% endif %}",
            "{% if paper.url %}x",
            "{% else %}x",
            "{% endif %}",
            "{% if paper.url %}a{% else %}b{% else %}c{% endif %}",
            "{% include \"partials/other.html\" %}",
            "{% set x = paper.url %}",
            "{% raw %}{{ x }}{% endraw %}",
        ] {
            assert_eq!(compile(source), None, "{source}");
        }
    }

    #[test]
    fn only_the_variables_tera_finds_as_read_compile() {
        let paper: std::collections::HashSet<&str> = ["paper"].into();
        let more: std::collections::HashSet<&str> = ["paper", "author"].into();
        let none = std::collections::HashSet::new();
        assert!(ItemTemplate::compile("{{ paper.title }}", &paper).is_some());
        assert_eq!(ItemTemplate::compile("{{ paper.title }}", &more), None);
        assert_eq!(ItemTemplate::compile("{{ paper.title }}", &none), None);
        assert!(ItemTemplate::compile("<li>text</li>{# c #}", &none).is_some());
        assert_eq!(ItemTemplate::compile("<li>text</li>", &paper), None);
        assert!(compile("<li>{{ paper.url }}</li>\n").is_some());
        assert!(compile("<li></li>").is_some());
    }
}
