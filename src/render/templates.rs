//! The theme's tera templates, overridden file by file by the site's own,
//! with what incremental rebuilds need to know of each: a hash of its
//! text and of every template it uses, and whether it shows the corpus
//! counts. Template errors become `file:line` diagnostics.

use crate::diagnostics::Diagnostic;
use crate::input::content::ContentPage;
use crate::render::items::ItemTemplate;
use rustc_hash::FxHashSet;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use tera::{Context, Tera};

/// Loaded templates: the theme's, overridden file by file by the site's own.
#[derive(Clone)]
pub struct Templates {
    tera: Tera,
    /// Template name → file it came from, for messages.
    files: BTreeMap<String, PathBuf>,
    /// Template name → XXH3-64 hash of its text and the texts of every
    /// template it names, directly or through those (`extends`,
    /// `include`, `import`): it changes exactly when the template's output
    /// can change for the same context.
    hashes: BTreeMap<String, u64>,
    /// Templates that show the corpus counts of the global `site` value
    /// (`site.paper_count`, …), themselves or through templates they use.
    show_counts: std::collections::BTreeSet<String>,
    /// Templates that call `get_url`, themselves or through templates
    /// they use.
    use_get_url: std::collections::BTreeSet<String>,
    /// Each template's names of its page's values, as tera compiled them
    /// ([`read_names`]); `None` where any value may be read.
    reads: BTreeMap<String, Option<FxHashSet<String>>>,
    /// The hash of what `get_url` resolves, given after the plan
    /// ([`Templates::add_get_url`]).
    get_url_hash: u64,
    /// Templates whose lists of rendered items may be spliced in after
    /// the render ([`lists_spliceable`]).
    spliceable: BTreeSet<String>,
    /// `partials/paper_item.html`, when it can be filled in without tera
    /// ([`ItemTemplate::compile`], given the variables tera finds in it).
    paper_item: Option<ItemTemplate>,
    /// Templates that did not load and had no other of their name to
    /// stand in: the theme's, or the site's own with no theme template of
    /// that name (each reported by [`Templates::load`]).
    broken: std::collections::BTreeSet<String>,
}

impl Templates {
    /// Loads the templates: `files` are (template name, path for
    /// messages, text) triples, the theme's first, then the site's own,
    /// which replace theme files of the same name. Returns them with an
    /// error at the file and line of each template that does not load:
    /// a site's broken template is replaced by the theme's of that name
    /// and a broken theme template left out, so that one run reports every
    /// broken template and `check` still renders the pages. `None` when
    /// that cannot be done (an error that names no template).
    pub fn load(files: Vec<(String, PathBuf, String)>) -> (Option<Templates>, Vec<Diagnostic>) {
        let mut by_name: BTreeMap<String, (PathBuf, String)> = BTreeMap::new();
        let mut theme: BTreeMap<String, (PathBuf, String)> = BTreeMap::new();
        for (name, path, text) in files {
            if let Some(replaced) = by_name.insert(name.clone(), (path, text)) {
                theme.insert(name, replaced);
            }
        }
        let mut errors = Vec::new();
        let mut broken = std::collections::BTreeSet::new();
        // At most one attempt per template: each failure takes one away.
        for _ in 0..=by_name.len() {
            let file_names: BTreeMap<String, PathBuf> = by_name
                .iter()
                .map(|(name, (path, _))| (name.clone(), path.clone()))
                .collect();
            let error = match new_tera(&by_name) {
                Ok(tera) => {
                    let uses = uses_of(&by_name);
                    // Components are global and read their callers'
                    // values: with one, no template's uses are known.
                    let components = by_name.values().any(|(_, text)| defines_component(text));
                    let facts = template_hashes(&by_name, &uses);
                    let reads = read_names(&tera, &by_name, components);
                    let spliceable = by_name
                        .keys()
                        .filter(|name| {
                            let texts: Vec<&str> = closure(&uses, name.as_str())
                                .into_iter()
                                .map(|used| by_name[used].1.as_str())
                                .collect();
                            !components
                                && texts.iter().any(|text| prints_items(text))
                                && lists_spliceable(&texts)
                        })
                        .cloned()
                        .collect();
                    let paper_item = by_name.get(PAPER_ITEM).and_then(|(_, text)| {
                        let variables = tera.get_template_variables(PAPER_ITEM).ok()?;
                        ItemTemplate::compile(text, &variables)
                    });
                    let templates = Templates {
                        reads,
                        spliceable,
                        paper_item,
                        tera,
                        files: file_names,
                        hashes: facts.hashes,
                        show_counts: facts.show_counts,
                        use_get_url: facts.use_get_url,
                        get_url_hash: 0,
                        broken,
                    };
                    return (Some(templates), errors);
                }
                Err(error) => error,
            };
            let diagnostic = template_error(&error, &file_names, None);
            let mut diagnostic =
                missing_parent(&diagnostic.message, &by_name).unwrap_or(diagnostic);
            let name = file_names
                .iter()
                .find(|(_, path)| **path == diagnostic.file)
                .map(|(name, _)| name.clone());
            if let Some(found) = name
                .as_ref()
                .and_then(|name| block_problem(&by_name[name].1, &diagnostic.message))
            {
                (diagnostic.line, diagnostic.message) = found;
            }
            errors.push(diagnostic);
            let Some(name) = name else {
                return (None, errors);
            };
            match theme.remove(&name) {
                Some(theirs) => by_name.insert(name, theirs),
                None => {
                    by_name.remove(&name);
                    broken.insert(name);
                    None
                }
            };
        }
        (None, errors)
    }

    /// Whether template `name`, or one it uses, shows the global corpus
    /// counts (`site.paper_count`, `site.author_count`, `site.year_count`,
    /// `site.category_count`).
    pub fn shows_counts(&self, name: &str) -> bool {
        self.show_counts.contains(name)
    }

    /// Whether template `name` reads the value `value` of its page: tera
    /// names it among the variables of the compiled template, of those it
    /// extends or includes, or of [`PAPER_ITEM`] when it prints a list's
    /// items. True where any value may be read (a component anywhere, or
    /// tera's whole context, `__tera_context`) and for a template that
    /// does not exist. A page makes only the values its template reads.
    pub fn reads(&self, name: &str, value: &str) -> bool {
        self.reads_of(name).value(value)
    }

    /// What template `name` reads ([`Templates::reads`]), found once for
    /// the several values a page asks about.
    pub fn reads_of(&self, name: &str) -> Reads<'_> {
        Reads(self.reads.get(name).and_then(Option::as_ref))
    }

    /// Whether template `name`'s lists of rendered items (`papers_html`,
    /// `recent_html`, each group's `papers_html`) may be printed as a
    /// mark and spliced in after the render ([`splice_lists`]).
    pub fn splices_lists(&self, name: &str) -> bool {
        self.spliceable.contains(name)
    }

    /// `partials/paper_item.html`, when it can be filled in without tera
    /// ([`ItemTemplate::compile`]).
    pub fn paper_item(&self) -> Option<&ItemTemplate> {
        self.paper_item.as_ref()
    }

    /// The file template `name` came from.
    pub fn file(&self, name: &str) -> Option<&std::path::Path> {
        self.files.get(name).map(PathBuf::as_path)
    }

    /// The hash of template `name` and of every template it uses; 0 for
    /// a template that does not exist.
    pub fn hash(&self, name: &str) -> u64 {
        let hash = self.hashes.get(name).copied().unwrap_or(0);
        match self.use_get_url.contains(name) {
            // What `get_url` resolves counts too.
            true => hash ^ self.get_url_hash,
            false => hash,
        }
    }

    /// Gives Zola's `get_url(path=..., cachebust=false)` what it
    /// resolves: the absolute URL of a site path (`style.css`, `/authors/`)
    /// under `base_url`, or of a content page written `@/group/members.md`
    /// (`pages`: content file → permalink); `cachebust=true` appends `?h=`
    /// and the hash of the static file (`statics`: output file → hash), so
    /// a changed file gets a new URL. The hashes count in the templates
    /// that call it.
    pub fn add_get_url(
        &mut self,
        base_url: &str,
        pages: BTreeMap<String, String>,
        statics: BTreeMap<String, u64>,
    ) {
        self.get_url_hash = xxhash_rust::xxh3::xxh3_64(format!("{pages:?}{statics:?}").as_bytes());
        let site = GetUrl {
            base_url: base_url.to_string(),
            pages,
            statics,
        };
        self.tera.register_function(
            "get_url",
            move |kwargs: tera::Kwargs, _: &tera::State| -> tera::TeraResult<String> {
                site.url(
                    kwargs.must_get("path")?,
                    kwargs.get("cachebust")?.unwrap_or(false),
                )
            },
        );
    }

    /// Sets the global value `name` that every template sees.
    pub fn set_global(&mut self, name: &'static str, value: &impl serde::Serialize) {
        self.tera.global_context().insert(name, value);
    }

    /// Renders template `name` with `context`. Errors: a template error at
    /// the template's file and line.
    pub fn render(&self, name: &str, context: &Context) -> Result<String, Diagnostic> {
        self.tera
            .render(name, context)
            .map_err(|e| template_error(&e, &self.files, Some(name)))
    }

    /// Renders template `name` as bytes: as [`Templates::render`], without
    /// checking again that tera's output is UTF-8 (it writes only `str`s;
    /// [`splice_lists`] checks a page that holds list marks, whose lists
    /// it writes in). `inserted` is the
    /// length of the rendered lists in `context`: room is made for them
    /// and 16 KB more at the start, so that a page rarely grows (each
    /// growth copies it). The spare capacity is left: every sink writes,
    /// compresses or copies the bytes and drops them (a trim copied each
    /// page once more).
    pub fn render_bytes(
        &self,
        name: &str,
        context: &Context,
        inserted: usize,
    ) -> Result<Vec<u8>, Diagnostic> {
        let mut out = Vec::with_capacity(16 * 1024 + inserted);
        self.tera
            .render_to(name, context, &mut out)
            .map_err(|e| template_error(&e, &self.files, Some(name)))?;
        Ok(out)
    }

    /// Whether a template of that name is loaded.
    pub fn contains(&self, name: &str) -> bool {
        self.files.contains_key(name)
    }

    /// Whether template `name` failed to load with none to stand in (its
    /// error is reported already).
    pub fn is_broken(&self, name: &str) -> bool {
        self.broken.contains(name)
    }

    /// The names of the loaded templates.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }
}

/// A tera instance holding the templates `by_name`, autoescaping HTML and
/// XML. Zola's `get_url` is registered, so that templates calling it load;
/// what it resolves is known once the site is planned, and
/// [`Templates::add_get_url`] registers the function that resolves it
/// before any page is rendered.
fn new_tera(by_name: &BTreeMap<String, (PathBuf, String)>) -> Result<Tera, tera::Error> {
    let mut tera = Tera::new();
    tera.autoescape_on(vec![".html", ".xml"]);
    tera.register_function(
        "get_url",
        |_: tera::Kwargs, _: &tera::State| -> tera::TeraResult<String> {
            Err(tera::Error::message(
                "get_url: the site's URLs are not known yet",
            ))
        },
    );
    tera.add_raw_templates(
        by_name
            .iter()
            .map(|(name, (_, text))| (name.as_str(), text.as_str())),
    )?;
    Ok(tera)
}

/// What Zola's `get_url` resolves ([`Templates::add_get_url`]).
struct GetUrl {
    base_url: String,
    pages: BTreeMap<String, String>,
    statics: BTreeMap<String, u64>,
}

impl GetUrl {
    fn url(&self, path: &str, cachebust: bool) -> tera::TeraResult<String> {
        if let Some(page) = path.strip_prefix("@/") {
            return self.pages.get(page).cloned().ok_or_else(|| {
                tera::Error::message(format!(
                    "get_url: expected `{path}` to name a Markdown file under content/, found no content/{page}"
                ))
            });
        }
        let site_path = path.trim_start_matches('/');
        let mut url = format!("{}{site_path}", self.base_url);
        if cachebust {
            let Some(hash) = self.statics.get(site_path) else {
                return Err(tera::Error::message(format!(
                    "get_url: expected `{path}` with cachebust=true to be a file of static/ or the theme's, found none"
                )));
            };
            url.push_str(&format!("?h={hash:016x}"));
        }
        Ok(url)
    }
}

/// Each template's hash over its own text and the texts of the templates
/// it names, and the templates that show the global corpus counts: a
/// quoted string equal to another template's name counts as a use, which
/// covers `extends`, `include` and `import` (and errs towards more uses,
/// never fewer).
fn template_hashes(
    by_name: &BTreeMap<String, (PathBuf, String)>,
    uses: &BTreeMap<&str, Vec<&str>>,
) -> Facts {
    // `config` is Zola's name for `site`.
    const COUNTS: [&str; 8] = [
        "site.paper_count",
        "site.author_count",
        "site.year_count",
        "site.category_count",
        "config.paper_count",
        "config.author_count",
        "config.year_count",
        "config.category_count",
    ];
    let mut show_counts = std::collections::BTreeSet::new();
    let mut use_get_url = std::collections::BTreeSet::new();
    let hashes = uses
        .keys()
        .map(|&name| {
            let closure = closure(uses, name);
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            for used in closure {
                let text = &by_name[used].1;
                if COUNTS.iter().any(|count| text.contains(count)) {
                    show_counts.insert(name.to_string());
                }
                if text.contains("get_url") {
                    use_get_url.insert(name.to_string());
                }
                hasher.update(used.as_bytes());
                hasher.update(&[0]);
                hasher.update(text.as_bytes());
                hasher.update(&[0]);
            }
            (name.to_string(), hasher.digest())
        })
        .collect();
    Facts {
        hashes,
        show_counts,
        use_get_url,
    }
}

/// Each template's [`Templates::reads`]: the names tera finds among the
/// variables of the compiled template and of those it extends or includes
/// (`Tera::get_template_variables`), with [`PAPER_ITEM`]'s when it
/// prints a list's items, which that template renders in the page's
/// context; `None` (any value) with a component anywhere (its body reads
/// its callers' values) or a text naming tera's whole context.
fn read_names(
    tera: &Tera,
    by_name: &BTreeMap<String, (PathBuf, String)>,
    components: bool,
) -> BTreeMap<String, Option<FxHashSet<String>>> {
    let any_value = components
        || by_name
            .values()
            .any(|(_, text)| text.contains("__tera_context"));
    let names = |name: &str| -> Option<FxHashSet<String>> {
        let variables = tera.get_template_variables(name).ok()?;
        Some(variables.into_iter().map(String::from).collect())
    };
    let item = names(PAPER_ITEM);
    by_name
        .keys()
        .map(|name| {
            let mut read = names(name).filter(|_| !any_value);
            if let Some(read) = read.as_mut().filter(|read| prints_items_of(read)) {
                read.extend(item.iter().flatten().cloned());
            }
            (name.clone(), read)
        })
        .collect()
}

/// The values one template reads ([`Templates::reads_of`]); every value
/// when it may read any.
#[derive(Clone, Copy)]
pub struct Reads<'t>(Option<&'t FxHashSet<String>>);

impl Reads<'_> {
    /// Whether the template reads `value`.
    pub fn value(&self, value: &str) -> bool {
        self.0.is_none_or(|names| names.contains(value))
    }
}

/// Whether a template reading `names` prints a list's items rendered.
fn prints_items_of(names: &FxHashSet<String>) -> bool {
    ["recent_html", "papers_html", "groups"]
        .iter()
        .any(|name| names.contains(*name))
}

/// The template of one paper in a list.
pub const PAPER_ITEM: &str = "partials/paper_item.html";

/// The fields of a loop's value (an author page's group) that a
/// template reads: all, or those named after its name in its code and
/// that of the templates it uses ([`fields_read`]).
#[derive(Clone, Debug, PartialEq, Eq)]
enum FieldsRead {
    /// Every field: the template uses the value otherwise than by a
    /// field's name (`{{ paper }}`, `paper[k]`, `set p = paper`, a filter
    /// or a component's argument, `__tera_context`).
    All,
    /// Only these.
    Only(std::collections::BTreeSet<String>),
}

/// The fields of `var` that the code of `texts` reads: each use of the
/// word `var` must be followed by `.field`, or all count as read.
fn fields_read(texts: &[&str], var: &str) -> FieldsRead {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut fields = std::collections::BTreeSet::new();
    for code in texts.iter().flat_map(|text| tag_code(text)) {
        if code.contains("__tera_context") {
            return FieldsRead::All;
        }
        for (at, word) in code.match_indices(var) {
            let before = code[..at].chars().next_back();
            let after = &code[at + word.len()..];
            // The loop that binds it: `for group in groups`.
            let binding = code[..at].trim_start_matches(['-', '~']).trim() == "for"
                && after.starts_with(" in ");
            if binding {
                continue;
            }
            // `papers`, `paper_item`, `group.paper`: not the value itself.
            if before.is_some_and(|c| is_word(c) || c == '.') || after.starts_with(is_word) {
                continue;
            }
            let field: &str = match after.strip_prefix('.') {
                Some(rest) => &rest[..rest.find(|c: char| !is_word(c)).unwrap_or(rest.len())],
                None => "",
            };
            if field.is_empty() {
                return FieldsRead::All;
            }
            fields.insert(field.to_string());
        }
    }
    FieldsRead::Only(fields)
}

/// The noncharacter around the mark of a list's rendered items
/// ([`list_mark`]); no input can hold it (every input has its
/// noncharacters replaced, [`crate::input::chars`], and so has the HTML
/// of Markdown, where a character reference could name one), and a
/// template holding it has its lists left in the context.
const LIST_MARK: char = '\u{fdd0}';

/// The mark printed in place of the `n`th rendered list of a page.
pub fn list_mark(n: usize) -> String {
    format!("{LIST_MARK}{n}{LIST_MARK}")
}

/// `page` with each [`list_mark`] of the `lists` of its page replaced by
/// what `write` appends for that list: the lists written straight into
/// the page, not copied from a string of their own.
pub fn splice_lists(
    page: Vec<u8>,
    lists: usize,
    write: &mut dyn FnMut(usize, &mut String),
) -> Vec<u8> {
    // Tera writes only `str`s; a page that were not UTF-8 is left as it is.
    let page = match String::from_utf8(page) {
        Ok(page) => page,
        Err(not) => return not.into_bytes(),
    };
    let mut mark = [0; 3];
    let mark = LIST_MARK.encode_utf8(&mut mark).as_bytes();
    let mut out: Option<String> = None;
    let (mut from, mut kept) = (0, 0);
    while let Some(at) = memchr::memmem::find(&page.as_bytes()[from..], mark).map(|at| from + at) {
        let digits = page.as_bytes()[at + mark.len()..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = at + mark.len() + digits;
        let n = page[at + mark.len()..end]
            .parse::<usize>()
            .ok()
            .filter(|&n| n < lists && page.as_bytes()[end..].starts_with(mark));
        let Some(n) = n else {
            from = at + mark.len();
            continue;
        };
        // Room for the page and, at a guess, lists three times its length.
        let out = out.get_or_insert_with(|| String::with_capacity(page.len() * 4));
        out.push_str(&page[kept..at]);
        write(n, out);
        kept = end + mark.len();
        from = kept;
    }
    match out {
        Some(mut out) => {
            out.push_str(&page[kept..]);
            out.into_bytes()
        }
        None => page.into_bytes(),
    }
}

/// Whether `code` holds `word` as a word of its own (`papers`, not
/// `papers_html` or `my_papers`).
fn names_word(code: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word).any(|(at, found)| {
        !code[..at].ends_with(is_word) && !code[at + found.len()..].starts_with(is_word)
    })
}

/// Whether a tag's code may read a value's field by a name given as data
/// or all of them: a subscript by a variable (`group[k]`), a loop over a
/// map's keys and values (`for k, v in`), tera's whole context
/// (`__tera_context`), or a filter that reads fields by a name given as
/// data (`get`, `group_by`, `sort`, `unique`) or all of them (`values`,
/// `pairs`).
fn reads_any_field(code: &str) -> bool {
    const FILTERS: [&str; 6] = ["get", "values", "pairs", "group_by", "sort", "unique"];
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let subscript_by_variable = code.match_indices('[').any(|(at, _)| {
        !code[..at].trim_end().is_empty()
            && !code[..at].trim_end().ends_with(['=', '(', ',', '['])
            && !code[at + 1..]
                .trim_start()
                .starts_with(['"', '\'', '`', ']'])
            && !code[at + 1..]
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit())
    });
    let key_value_loop = code.trim_start().starts_with("for ")
        && code
            .split(" in ")
            .next()
            .is_some_and(|head| head.contains(','));
    let filter = code.match_indices('|').any(|(at, _)| {
        let rest = code[at + 1..].trim_start();
        FILTERS
            .iter()
            .any(|f| rest.starts_with(f) && !rest[f.len()..].starts_with(is_word))
    });
    subscript_by_variable || key_value_loop || filter || code.contains("__tera_context")
}

/// The code of each `{{ }}` and `{% %}` tag of a template's text.
fn tag_code(text: &str) -> impl Iterator<Item = &str> {
    tags(text).map(|(_, code)| code)
}

/// Each `{{ }}` (true) and `{% %}` (false) tag of a template's text,
/// with its code, as tera reads them: a tag ends at its closing
/// delimiter outside string literals (`"%}"` is a string), and the body
/// of a `{% raw %}` block is text.
fn tags(text: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut rest = text;
    std::iter::from_fn(move || loop {
        let at = rest.find('{')?;
        let close = match rest.as_bytes().get(at + 1) {
            Some(b'{') => "}}",
            Some(b'%') => "%}",
            Some(b'#') => "#}",
            _ => {
                rest = &rest[at + 1..];
                continue;
            }
        };
        let inner = &rest[at + 2..];
        let end = match close {
            "#}" => inner.find(close).unwrap_or(inner.len()),
            _ => code_end(inner, close),
        };
        let code = &inner[..end];
        rest = &inner[(end + close.len()).min(inner.len())..];
        if close == "#}" {
            continue;
        }
        if close == "%}" && code.trim_matches(['-', '~', ' ', '\t', '\n', '\r']) == "raw" {
            // Up to the end of `{% endraw %}`.
            let body_end = rest.find("endraw").unwrap_or(rest.len());
            let after = &rest[body_end..];
            rest = &after[after.find("%}").map_or(after.len(), |e| e + 2)..];
        }
        return Some((close == "}}", code));
    })
}

/// Where a tag's code ends in `inner` (the text after its opening
/// delimiter): at the first `close` outside a string literal (`"…"`,
/// `'…'`, `` `…` ``, with `\` escapes), or at the end.
fn code_end(inner: &str, close: &str) -> usize {
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'"' | b'\'' | b'`') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            // An ASCII byte: `i` is a character's boundary.
            _ if bytes[i..].starts_with(close.as_bytes()) => return i,
            _ => i += 1,
        }
    }
    inner.len()
}

/// The string literals of a tag's code, their escapes (`\"`, `\/`, …)
/// read as tera reads them.
fn string_literals(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        if !matches!(c, '"' | '\'' | '`') {
            continue;
        }
        let mut literal = String::new();
        while let Some(next) = chars.next() {
            match next {
                _ if next == c => break,
                '\\' => match chars.next() {
                    Some('n') => literal.push('\n'),
                    Some('t') => literal.push('\t'),
                    Some('r') => literal.push('\r'),
                    Some(other) => literal.push(other),
                    None => {}
                },
                _ => literal.push(next),
            }
        }
        found.push(literal);
    }
    found
}

/// Whether a page whose templates' texts are `texts` may have its rendered
/// lists spliced in after the render ([`Templates::splices_lists`]): the items
/// are reached only by their name and printed alone, marked safe
/// (`{{ papers_html | safe }}`, `{{ group.papers_html | safe }}`), so
/// that a mark in their place prints as itself and nothing reads it.
/// Not when a text holds [`LIST_MARK`], a `filter` block or a block
/// `set` (which capture what is printed), a component (whose body is a
/// value), a read of any field ([`reads_any_field`]), a use of `groups`
/// other than a loop `{% for group in groups %}`, or a use of that
/// loop's variable other than by a field's name. Read from the texts,
/// as [`ItemTemplate::compile`] reads the item template: tera 2 keeps
/// its parsed templates private. `tests/build.rs` checks that the pages
/// of every page template in the repo are the same spliced as rendered
/// whole by tera.
fn lists_spliceable(texts: &[&str]) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let is_path = |code: &str| {
        code.split('.')
            .all(|part| !part.is_empty() && part.chars().all(is_word))
    };
    let mut loop_names = Vec::new();
    for text in texts {
        if text.contains(LIST_MARK) {
            return false;
        }
        for (print, code) in tags(text) {
            let code = code.trim_matches(['-', '~']).trim();
            let word = code.split_whitespace().next().unwrap_or("");
            // `{% set x %}` and `{% set x | upper %}` capture what their
            // body prints; `{% set x = … %}` does not.
            let block_set = matches!(word, "set" | "set_global") && {
                let after_word = code[word.len()..].trim_start();
                let name_end = after_word.find(|c: char| !(c.is_alphanumeric() || c == '_'));
                let after_name = after_word[name_end.unwrap_or(after_word.len())..].trim_start();
                after_name.is_empty() || after_name.starts_with('|')
            };
            let component = word == "component" || code.starts_with(['<', '/']);
            if (!print && (word == "filter" || block_set || component)) || reads_any_field(code) {
                return false;
            }
            if names_word(code, "groups") {
                match code.split_whitespace().collect::<Vec<_>>()[..] {
                    ["for", name, "in", "groups"] if !print => loop_names.push(name),
                    _ => return false,
                }
            }
            if prints_items(code) {
                let mut parts = code.splitn(2, '|').map(str::trim);
                let (path, filter) = (parts.next().unwrap_or(""), parts.next());
                let alone = print
                    && is_path(path)
                    && (path.ends_with("papers_html") || path.ends_with("recent_html"))
                    && filter == Some("safe");
                if !alone {
                    return false;
                }
            }
        }
    }
    loop_names
        .iter()
        .all(|name| fields_read(texts, name) != FieldsRead::All)
}

/// Whether a template's text names a list's items rendered
/// (`papers_html`, `recent_html`).
fn prints_items(text: &str) -> bool {
    text.contains("papers_html") || text.contains("recent_html")
}

/// Whether a template's text defines a tera component (`{% component
/// Name(...) %}`).
fn defines_component(text: &str) -> bool {
    tags(text).any(|(print, code)| {
        !print && code.trim_matches(['-', '~']).split_whitespace().next() == Some("component")
    })
}

/// The templates each template names: a string literal of its code (in
/// `"`, `'` or `` ` ``, its escapes read) equal to another template's
/// name counts as a use, which covers `extends` and `include` (which
/// take only a literal); a template printing a list's items rendered
/// (`papers_html`, `recent_html`) uses [`PAPER_ITEM`], which renders them.
fn uses_of(by_name: &BTreeMap<String, (PathBuf, String)>) -> BTreeMap<&str, Vec<&str>> {
    by_name
        .iter()
        .map(|(name, (_, text))| {
            let prints_items = prints_items(text);
            let literals: std::collections::BTreeSet<String> =
                tag_code(text).flat_map(string_literals).collect();
            let named = by_name
                .keys()
                .filter(|other| {
                    literals.contains(other.as_str()) || (prints_items && *other == PAPER_ITEM)
                })
                .map(String::as_str)
                .collect();
            (name.as_str(), named)
        })
        .collect()
}

/// Template `name` and every template it uses, directly or through others.
fn closure<'n>(
    uses: &BTreeMap<&'n str, Vec<&'n str>>,
    name: &'n str,
) -> std::collections::BTreeSet<&'n str> {
    let mut closure = std::collections::BTreeSet::from([name]);
    let mut todo = vec![name];
    while let Some(next) = todo.pop() {
        for &used in uses.get(next).into_iter().flatten() {
            if closure.insert(used) {
                todo.push(used);
            }
        }
    }
    closure
}

/// What [`template_hashes`] finds of each template.
struct Facts {
    hashes: BTreeMap<String, u64>,
    show_counts: std::collections::BTreeSet<String>,
    use_get_url: std::collections::BTreeSet<String>,
}

/// Turns a tera error into `file:line: message`, naming the template file.
fn template_error(
    error: &tera::Error,
    files: &BTreeMap<String, PathBuf>,
    rendering: Option<&str>,
) -> Diagnostic {
    let file_of = |name: &str| {
        files
            .get(name)
            .cloned()
            .unwrap_or_else(|| PathBuf::from(name))
    };
    match error.kind() {
        tera::ErrorKind::SyntaxError(report) | tera::ErrorKind::RenderingError(report) => {
            let name = if report.filename().is_empty() {
                rendering.unwrap_or("")
            } else {
                report.filename()
            };
            let message = report.message();
            Diagnostic::error(
                file_of(name),
                report.span().start_line,
                format!(
                    "expected a valid template, found {message}{}",
                    undefined_name_hint(message)
                ),
            )
        }
        other => {
            // Unknown filters, functions and tests come as a message holding
            // reports that point at ` --> name:line:column`.
            let text = other.to_string();
            let (name, line) = text
                .lines()
                .find_map(|l| l.trim_start().strip_prefix("--> "))
                .and_then(|at| {
                    let mut parts = at.rsplitn(3, ':');
                    let _column = parts.next()?;
                    let line = parts.next()?.parse().ok()?;
                    Some((parts.next()?.to_string(), line))
                })
                .unwrap_or_else(|| (rendering.unwrap_or("templates").to_string(), 0));
            let text = match other {
                tera::ErrorKind::TemplateNotFound(missing) => format!(
                    "the template `{missing}` is missing from the theme's templates/ and the site's templates/"
                ),
                _ => text,
            };
            let message = text
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ");
            // `Unknown template `partials/paper_itme.html``: the closest.
            let hint = match message.strip_prefix("Unknown template `") {
                Some(rest) => crate::diagnostics::did_you_mean(
                    rest.trim_end_matches('`'),
                    files.keys().map(String::as_str),
                ),
                None => String::new(),
            };
            Diagnostic::error(
                file_of(&name),
                line,
                format!("expected a valid template, found {message}{hint}"),
            )
        }
    }
}

/// Tera's tags: those that open a block with the tag that closes it,
/// then those that stand alone or continue a block.
const BLOCK_TAGS: [(&str, &str); 6] = [
    ("if", "endif"),
    ("for", "endfor"),
    ("block", "endblock"),
    ("filter", "endfilter"),
    ("component", "endcomponent"),
    ("set", "endset"),
];
const OTHER_TAGS: [&str; 9] = [
    "elif",
    "else",
    "set_global",
    "include",
    "extends",
    "raw",
    "endraw",
    "break",
    "continue",
];

/// A better place and wording for tera's syntax errors about tags, found
/// by matching the template's `{% … %}` tags: a block left open is
/// reported at its opening line, naming the tag that closes it and what
/// came instead (tera reports it where it gave up: the next closing tag
/// or the end of the file); an unknown tag is named with the closest
/// known one. `None` when the tags pair up and are all known, or the
/// error is about something else.
fn block_problem(text: &str, message: &str) -> Option<(usize, String)> {
    if !message.contains("Unknown tag") && !message.contains("Unexpected end of input") {
        return None;
    }
    // Open blocks: the tag, its line, and the line of its `else`.
    let mut open: Vec<(&str, usize, Option<usize>)> = Vec::new();
    let mut line = 1;
    let mut rest = text;
    let mut in_raw = false;
    // The next `{%` or `{#`, found in one pass over the text.
    let next_tag = |rest: &str| {
        rest.match_indices('{')
            .map(|(at, _)| at)
            .find(|&at| matches!(rest.as_bytes().get(at + 1), Some(b'%' | b'#')))
    };
    while let Some(at) = next_tag(rest) {
        line += rest[..at].matches('\n').count();
        let comment = rest[at..].starts_with("{#");
        let close = if comment { "#}" } else { "%}" };
        // The closing delimiter after the opening one: in `{%}` the `%`
        // opens the tag and does not close it.
        let Some(end) = rest[at + 2..].find(close).map(|end| at + 2 + end) else {
            break;
        };
        let tag = rest[at + 2..end].trim_matches(|c: char| c == '-' || c.is_whitespace());
        let tag_line = line;
        line += rest[at..end].matches('\n').count();
        rest = &rest[end + 2..];
        if comment {
            continue;
        }
        let name = tag
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        if in_raw {
            in_raw = name != "endraw";
            continue;
        }
        if name == "raw" {
            in_raw = true;
        } else if let Some((opener, _)) = BLOCK_TAGS.iter().find(|(opener, _)| *opener == name) {
            // `{% set x = 1 %}` stands alone; `{% set x %}` opens a block.
            if name != "set" || !tag.contains('=') {
                open.push((opener, tag_line, None));
            }
        } else if let Some((opener, _)) = BLOCK_TAGS.iter().find(|(_, closer)| *closer == name) {
            // A closing tag whose block is not open at all is stray; one
            // whose block is open further out closes past an open block.
            if !open.iter().any(|(top, ..)| top == opener) {
                return Some((
                    tag_line,
                    format!("expected a `{{% {opener} %}}` before this `{{% {name} %}}`, found none open; remove it or open the block"),
                ));
            }
            match open.pop() {
                Some((top, ..)) if top == *opener => {}
                Some((top, top_line, _)) => {
                    return Some((
                        top_line,
                        unclosed(
                            top,
                            top_line,
                            &format!("`{{% {name} %}}` at line {tag_line}"),
                        ),
                    ));
                }
                None => return None,
            }
        } else if name == "else" || name == "elif" {
            let within = if name == "else" {
                "`{% if %}` or `{% for %}`"
            } else {
                "`{% if %}`"
            };
            match open.last_mut() {
                Some((top, _, Some(else_line))) if *top == "if" || *top == "for" => {
                    return Some((
                        tag_line,
                        format!("expected no `{{% {name} %}}` after the `{{% else %}}` of line {else_line}, found one; use `{{% elif %}}` before the `{{% else %}}`"),
                    ));
                }
                Some((top, _, else_seen)) if *top == "if" || (*top == "for" && name == "else") => {
                    if name == "else" {
                        *else_seen = Some(tag_line);
                    }
                }
                _ => {
                    return Some((
                        tag_line,
                        format!("expected `{{% {name} %}}` inside an open {within}, found none open; remove it or open the block"),
                    ));
                }
            }
        } else if name == "macro" || name == "import" {
            return Some((
                tag_line,
                format!("expected a tag Tera 2 has, found `{name}`: Tera 2 has no macros; use `{{% include %}}` or a `{{% component %}}`"),
            ));
        } else if !OTHER_TAGS.contains(&name) {
            let known = BLOCK_TAGS
                .iter()
                .flat_map(|(opener, closer)| [*opener, *closer])
                .chain(OTHER_TAGS);
            return Some((
                tag_line,
                format!(
                    "expected a tag such as `if`, `for`, `block`, `set` or `include`, found unknown tag `{name}`{}",
                    crate::diagnostics::did_you_mean(name, known)
                ),
            ));
        }
    }
    let (top, top_line, _) = open.pop()?;
    Some((top_line, unclosed(top, top_line, "the end of the file")))
}

/// `; did you mean `title`?` for tera's `Field `titel` is not defined.
/// Available fields: description, title` (and the same of variables),
/// else empty.
fn undefined_name_hint(message: &str) -> String {
    let Some((undefined, available)) = message.split_once(" is not defined. Available ") else {
        return String::new();
    };
    let Some(name) = undefined.split('`').nth(1) else {
        return String::new();
    };
    let names = available
        .split_once(": ")
        .map_or("", |(_, names)| names)
        .split(", ")
        .map(str::trim);
    crate::diagnostics::did_you_mean(name, names)
}

/// Tera's `Template 'page.html' is inheriting from 'layout.html', which
/// doesn't exist or isn't loaded` as an error at the `extends` line of
/// the child's file, naming the closest template or the theme's layout.
fn missing_parent(
    message: &str,
    by_name: &BTreeMap<String, (PathBuf, String)>,
) -> Option<Diagnostic> {
    let rest = message.split("Template '").nth(1)?;
    let (child, rest) = rest.split_once("' is inheriting from '")?;
    let (parent, _) = rest.split_once('\'')?;
    let (file, text) = by_name.get(child)?;
    let line = text
        .lines()
        .position(|line| line.contains("extends"))
        .map_or(0, |i| i + 1);
    let mut hint = crate::diagnostics::did_you_mean(parent, by_name.keys().map(String::as_str));
    if hint.is_empty() && by_name.contains_key("base.html") {
        hint = "; the theme's layout, which pages extend, is `base.html`".to_string();
    }
    Some(Diagnostic::error(
        file,
        line,
        format!(
            "expected the template `{parent}` that `{{% extends %}}` names in the site's templates/ or the theme's, found no such file{hint}"
        ),
    ))
}

/// The message for block `tag` opened at `line` and not closed before
/// `found`.
fn unclosed(tag: &str, line: usize, found: &str) -> String {
    let closer = BLOCK_TAGS
        .iter()
        .find(|(opener, _)| *opener == tag)
        .map_or("end", |(_, closer)| closer);
    format!(
        "expected `{{% {closer} %}}` to close the `{{% {tag} %}}` of line {line}, found {found}; add `{{% {closer} %}}` where the block ends"
    )
}

/// The template a content page names in its front matter, else
/// `section.html` for a section and `page.html` for a page.
pub fn content_template_name(page: &ContentPage) -> &str {
    match &page.front.template {
        Some(name) => name.as_str(),
        None if page.is_section => "section.html",
        None => "page.html",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Those of `values` that template `name` reads.
    fn read<'v>(templates: &Templates, name: &str, values: &[&'v str]) -> Vec<&'v str> {
        let read = values.iter().filter(|value| templates.reads(name, value));
        read.copied().collect()
    }

    /// The values a page makes only when its template reads them.
    const PAGE_VALUES: [&str; 20] = [
        "recent",
        "recent_html",
        "papers",
        "papers_html",
        "groups",
        "scholarly_meta_html",
        "citation_tags",
        "og_tags",
        "json_ld",
        "authors_html",
        "complete_authors",
        "coauthors",
        "coauthors_html",
        "year_counts",
        "year_counts_html",
        "category_counts",
        "category_counts_html",
        "top_authors",
        "top_authors_html",
        "initials",
    ];

    fn load(files: &[(&str, &str)]) -> Templates {
        let files = files
            .iter()
            .map(|(name, text)| (name.to_string(), PathBuf::from(name), text.to_string()))
            .collect();
        let (templates, errors) = Templates::load(files);
        assert!(errors.is_empty(), "{errors:?}");
        templates.unwrap()
    }

    #[test]
    fn the_default_theme_prints_rendered_lists_and_needs_no_values() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let files = crate::input::read_templates(
            &crate::input::Walk::new(root),
            &root.join("themes/default/templates"),
        )
        .unwrap();
        let (templates, errors) = Templates::load(files);
        assert!(errors.is_empty(), "{errors:?}");
        let templates = templates.unwrap();
        assert!(templates.paper_item().is_some());
        // The lists are printed as HTML: their values are not made.
        for (page, html) in [
            ("index.html", &["recent_html"][..]),
            (
                "author.html",
                &[
                    "groups",
                    "coauthors_html",
                    "year_counts_html",
                    "category_counts_html",
                ],
            ),
            ("year.html", &["papers_html", "category_counts_html"]),
            ("category.html", &["papers_html", "top_authors_html"]),
            ("paper.html", &["scholarly_meta_html", "authors_html"]),
            ("authors.html", &["initials"]),
        ] {
            assert_eq!(read(&templates, page, &PAGE_VALUES), html, "{page}");
            // The home page tests `recent_html` (`{% if %}`): not spliced.
            let splice = ["author.html", "year.html", "category.html"].contains(&page);
            assert_eq!(templates.splices_lists(page), splice, "{page}");
        }
    }

    #[test]
    fn a_page_reads_the_values_tera_finds_in_its_templates() {
        let templates = load(&[
            ("base.html", "<main class=\"papers\">{% block content %}{% endblock content %}</main>"),
            (PAPER_ITEM, "<li>{{ paper.title }}{{ coauthors | length }}</li>"),
            ("year.html", "{% extends \"base.html\" %}{% block content %}{{ papers_html | safe }}{% endblock content %}"),
            ("category.html", "{% for paper in papers %}{% include \"partials/paper_item.html\" %}{% endfor %}"),
            ("author.html", "{% for group in groups %}{{ group.papers_html | safe }}{% endfor %}{% for y in year_counts %}{% endfor %}"),
            ("index.html", "{% if recent_html %}{{ recent_html | safe }}{% endif %}{% include \"list.html\" %}"),
            ("list.html", "{{ recent | length }}"),
            // HTML text, comments, other names and fields name nothing.
            ("page.html", "<h2 id=\"coauthors\">papers</h2>{# top_authors #}{{ my_papers }}{{ g.papers }}{{ coauthors_htmlx }}"),
        ]);
        let values = |name| read(&templates, name, &PAGE_VALUES);
        // The item template, which renders the items in the page's
        // context, reads `coauthors`.
        assert_eq!(values("year.html"), ["papers_html", "coauthors"]);
        assert_eq!(values("category.html"), ["papers", "coauthors"]);
        assert_eq!(
            values("author.html"),
            ["groups", "coauthors", "year_counts"]
        );
        assert_eq!(values("index.html"), ["recent", "recent_html", "coauthors"]);
        assert_eq!(values("page.html"), [] as [&str; 0]);
        assert_eq!(values("missing.html"), PAGE_VALUES);
        assert!(templates.splices_lists("year.html"));
        assert!(templates.splices_lists("author.html"));
        // `{% if recent_html %}` tests the items: a mark would not do.
        assert!(!templates.splices_lists("index.html"));

        // A page printing rendered items changes with the item template,
        // so that `serve` renders it again.
        let year = templates.hash("year.html");
        let edited = load(&[
            ("base.html", "<main class=\"papers\">{% block content %}{% endblock content %}</main>"),
            (PAPER_ITEM, "<li>{{ paper.url }}</li>"),
            ("year.html", "{% extends \"base.html\" %}{% block content %}{{ papers_html | safe }}{% endblock content %}"),
        ]);
        assert_ne!(edited.hash("year.html"), year);
        assert_eq!(edited.hash("base.html"), templates.hash("base.html"));

        // Tera's whole context reads every value.
        let whole = load(&[
            ("index.html", "{{ __tera_context }}"),
            ("year.html", "{{ x }}"),
        ]);
        assert_eq!(read(&whole, "year.html", &PAGE_VALUES), PAGE_VALUES);
    }

    #[test]
    fn only_items_printed_alone_and_safe_are_spliced() {
        let cases = [
            ("{{ papers_html | safe }}", true),
            ("{{- group.papers_html|safe -}}", true),
            ("{% for g in groups %}<h2>{{ g.heading }}</h2>{{ g.papers_html | safe }}{% endfor %}", true),
            ("{%- for group in groups -%}{{ group.papers_html | safe }}{%- endfor -%}", true),
            ("{{ papers_html | safe | upper }}", false),
            ("{{ papers_html | upper | safe }}", false),
            ("{{ papers_html }}", false),
            ("{{ papers_html ~ \"x\" | safe }}", false),
            ("{% if papers_html %}{{ papers_html | safe }}{% endif %}", false),
            ("{% set items = papers_html %}{{ items | safe }}", false),
            ("{% set items %}{{ papers_html | safe }}{% endset %}{{ items | length }}", false),
            ("{% set_global items %}{{ papers_html | safe }}{% endset_global %}", false),
            ("{% filter upper %}{{ papers_html | safe }}{% endfilter %}", false),
            ("{%- filter upper -%}{{ papers_html | safe }}{%- endfilter -%}", false),
            ("{% <Card> %}{{ papers_html | safe }}{% </Card> %}", false),
            ("{% component Card(body) %}{{ body | upper }}{% endcomponent %}{{ papers_html | safe }}", false),
            ("{% for g in groups %}{% for k, v in g %}{{ v | length }}{% endfor %}{% endfor %}", false),
            ("{% for g in groups %}{{ g | json_encode }}{{ g.papers_html | safe }}{% endfor %}", false),
            ("{% for g in groups %}{{ g[\"papers_html\"] | length }}{% endfor %}", false),
            ("{{ groups | json_encode }}", false),
            ("{{ groups | first | get(key=\"papers_html\") }}", false),
            ("{{ __tera_context }}{{ papers_html | safe }}", false),
            ("<p>\u{fdd0}0\u{fdd0}</p>{{ papers_html | safe }}", false),
            // Found by the attack helper: a block `set` with a filter; a
            // string holding a closing delimiter.
            ("{% set x | replace(from=\"<li\", to=\"<li data-x\") %}{{ papers_html | safe }}{% endset %}{{ x | safe }}", false),
            ("{{ \"}}\" ~ papers_html | length }}{{ papers_html | safe }}", false),
            ("{% set n = papers_html | length %}{{ papers_html | safe }}", false),
            ("{% set title = \"Papers\" %}{{ papers_html | safe }}", true),
        ];
        for (text, splice) in cases {
            assert_eq!(lists_spliceable(&[text]), splice, "{text}");
        }
        // What a template it uses does counts.
        assert!(!lists_spliceable(&[
            "{{ papers_html | safe }}",
            "{{ groups }}"
        ]));
    }

    #[test]
    fn lists_are_spliced_at_their_marks() {
        let lists = ["<li>a</li>", "<li>b</li>"];
        let splice_lists = |page: Vec<u8>, lists: &[&str]| {
            splice_lists(page, lists.len(), &mut |n, out| out.push_str(lists[n]))
        };
        let page = format!(
            "<ul>{}</ul><ul>{}</ul><ul>{}</ul>",
            list_mark(1),
            list_mark(0),
            list_mark(1)
        );
        assert_eq!(
            splice_lists(page.into_bytes(), &lists),
            b"<ul><li>b</li></ul><ul><li>a</li></ul><ul><li>b</li></ul>"
        );
        // What is not a whole mark of a list stays as it is.
        for kept in [
            "\u{fdd0}2\u{fdd0}",
            "\u{fdd0}1",
            "\u{fdd0}\u{fdd0}",
            "\u{fdd0}x\u{fdd0}",
        ] {
            let page = format!("<p>{kept}</p>");
            assert_eq!(
                splice_lists(page.clone().into_bytes(), &lists),
                page.as_bytes(),
                "{kept}"
            );
        }
        assert_eq!(
            splice_lists(format!("\u{fdd0}{}", list_mark(0)).into_bytes(), &lists),
            "\u{fdd0}<li>a</li>".as_bytes()
        );
    }

    #[test]
    fn a_paper_page_reads_the_metadata_of_the_templates_it_extends_and_includes() {
        let templates = load(&[
            ("base.html", "<head>{% for tag in og_tags %}{{ tag.name }}{% endfor %}{% block head %}{% endblock head %}</head>"),
            ("paper.html", "{% extends \"base.html\" %}{% block head %}{{ scholarly_meta_html | safe }}{% endblock head %}"),
            ("page.html", "{% include \"ld.html\" %}"),
            ("ld.html", "{{ json_ld | safe }}"),
        ]);
        let read = |name| read(&templates, name, &PAGE_VALUES);
        assert_eq!(read("paper.html"), ["scholarly_meta_html", "og_tags"]);
        assert_eq!(read("base.html"), ["og_tags"]);
        assert_eq!(read("page.html"), ["json_ld"]);
    }

    #[test]
    fn the_fields_of_paper_a_template_reads() {
        let only =
            |fields: &[&str]| FieldsRead::Only(fields.iter().map(|f| f.to_string()).collect());
        let cases = [
            ("{{ paper.title_html | safe }}{% for a in paper.authors %}{{ a.name }}{% endfor %}", only(&["authors", "title_html"])),
            ("{% if paper.venue %}{{ paper.venue }}{% endif %}{{- paper.url -}}", only(&["url", "venue"])),
            ("<p>paper</p>{# {{ paper }} #}{{ papers | length }}{% include \"partials/paper_item.html\" %}", only(&[])),
            ("{{ group.paper.title }}{{ my_paper }}", only(&[])),
            ("{{ paper }}", FieldsRead::All),
            ("{% set p = paper %}{{ p.key }}", FieldsRead::All),
            ("{{ paper[\"title\"] }}", FieldsRead::All),
            ("{{ paper | json_encode }}", FieldsRead::All),
            ("{{ __tera_context }}", FieldsRead::All),
        ];
        for (text, fields) in cases {
            assert_eq!(fields_read(&[text], "paper"), fields, "{text}");
        }
        // The texts of the templates a template uses count; a loop that
        // binds the name reads nothing by binding it.
        assert_eq!(
            fields_read(&["{{ paper.key }}", "{{ paper.slug }}"], "paper"),
            only(&["key", "slug"])
        );
        let bound = "{% for paper in papers %}{{ paper.key }}{% endfor %}";
        assert_eq!(fields_read(&[bound], "paper"), only(&["key"]));
    }

    #[test]
    fn a_component_anywhere_makes_every_value_of_every_page() {
        let plain = [
            ("base.html", "{% block head %}{% endblock head %}{% block content %}{% endblock content %}"),
            (PAPER_ITEM, "<li>{{ paper.title }}</li>"),
            ("year.html", "{% extends \"base.html\" %}{% block content %}{{ papers_html | safe }}{% endblock content %}"),
            ("paper.html", "{% extends \"base.html\" %}{% block content %}{% include `partials/year.html` %}{% endblock content %}"),
            ("partials/year.html", "{{ paper.year }}"),
        ];
        let templates = load(&plain);
        assert!(templates.splices_lists("year.html"));
        assert_eq!(
            read(&templates, "paper.html", &PAGE_VALUES),
            [] as [&str; 0]
        );

        let mut with_component = plain.to_vec();
        with_component.push(("partials/og.html", "{% component Og(@og_tags) %}{% for t in og_tags %}{{ t.name }}{% endfor %}{% endcomponent %}"));
        let templates = load(&with_component);
        assert!(!templates.splices_lists("year.html"));
        assert_eq!(read(&templates, "paper.html", &PAGE_VALUES), PAGE_VALUES);
    }

    /// Found by the item templates' property test: a tag's opening
    /// delimiter read as part of its closing one (`{%}`) panicked.
    #[test]
    fn a_tag_whose_delimiters_overlap_is_an_error_at_its_line() {
        for text in ["{% if x %}{% endif %}\n{%}", "a\n{#}", "{% if x %}\n{%}"] {
            let files = vec![(
                "page.html".to_string(),
                PathBuf::from("page.html"),
                text.to_string(),
            )];
            let (_, errors) = Templates::load(files);
            assert_eq!(errors.len(), 1, "{text}: {errors:?}");
            assert!(errors[0].line >= 1, "{text}: {errors:?}");
        }
    }

    #[test]
    fn tags_are_read_as_tera_reads_them() {
        let text = "a {{ \"}}\" ~ x }} b {% if y == '%}' %}{# {{ z }} #}{% raw %}{{ papers_html | length }}{%- endraw -%}{{ `}}` }}é{{ w }}";
        let found: Vec<(bool, &str)> = tags(text).collect();
        assert_eq!(
            found,
            [
                (true, " \"}}\" ~ x "),
                (false, " if y == '%}' "),
                (false, " raw "),
                (true, " `}}` "),
                (true, " w "),
            ]
        );
        assert_eq!(
            string_literals(r#" include "partials\/a.html" ~ 'b\'c' ~ `d` "#),
            ["partials/a.html", "b'c", "d"]
        );
        // A template named with an escaped slash is used.
        let templates = load(&[
            (
                "year.html",
                "{{ papers_html | safe }}{% include \"partials\\/count.html\" %}",
            ),
            ("partials/count.html", "{{ papers_html | length }}"),
            (PAPER_ITEM, "<li>{{ paper.title }}</li>"),
        ]);
        assert!(!templates.splices_lists("year.html"));
    }
}
