//! The arXiv API (`https://export.arxiv.org/api/query`) as a source of
//! records, asked as its terms of use ask: one request at a time, at most
//! one every 3 s, with a User-Agent naming Vellum. A request that fails
//! for a reason that may pass (a 5xx or 429 answer, a timeout, a dropped
//! connection) is tried again after a growing pause.
//!
//! Two questions: the records of a title by an author (`search_query`,
//! the title as a phrase and the author's family name), and the records
//! of known identifiers (`id_list`).

use crate::enrich::matching::title_key;
use crate::enrich::record::{from_atom, ArxivRecord};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use std::time::{Duration, Instant};

/// The endpoint asked unless `--arxiv-api` names another.
pub const ENDPOINT: &str = "https://export.arxiv.org/api/query";

/// The shortest pause between two requests to arXiv's own endpoint, as
/// its terms of use ask.
pub const ARXIV_INTERVAL: Duration = Duration::from_secs(3);

/// How often one request is tried before the run stops.
const TRIES: u32 = 4;

/// Records asked for by title: a title is rarely shared by more.
const SEARCH_RESULTS: usize = 10;

/// Identifiers asked for in one `id_list` request.
pub const IDS_PER_REQUEST: usize = 50;

/// Names Vellum, its version and where its users are told about it.
const USER_AGENT: &str = concat!(
    "Vellum/",
    env!("CARGO_PKG_VERSION"),
    " (static site generator for publication lists; `vellum enrich`)"
);

/// What a query may hold unescaped: letters and digits, and the
/// characters of identifiers.
const QUERY: &AsciiSet = &NON_ALPHANUMERIC.remove(b'.').remove(b'-').remove(b'_');

/// A client of the API: its endpoint, pause and what it has done.
pub struct ArxivApi {
    endpoint: String,
    interval: Duration,
    agent: ureq::Agent,
    last: Option<Instant>,
    /// Requests sent, tries again included.
    pub requests: usize,
}

impl ArxivApi {
    /// A client of `endpoint` that leaves `interval` between requests
    /// (tries again wait twice as long each time).
    pub fn new(endpoint: &str, interval: Duration) -> ArxivApi {
        let config = ureq::Agent::config_builder()
            .user_agent(USER_AGENT)
            .timeout_global(Some(Duration::from_secs(60)))
            .timeout_connect(Some(Duration::from_secs(20)))
            .http_status_as_error(false)
            .build();
        ArxivApi {
            endpoint: endpoint.to_string(),
            interval,
            agent: config.into(),
            last: None,
            requests: 0,
        }
    }

    /// The records whose title is `title` (as listed, LaTeX kept), by an
    /// author of family name `family`: the API's answer to the title's
    /// folded words as a phrase and the name, then only the records whose
    /// folded title is the same ([`title_key`]).
    pub fn search(&mut self, title: &str, family: &str) -> Result<Vec<ArxivRecord>, String> {
        let key = title_key(title);
        let mut query = format!("ti:\"{key}\"");
        let family = crate::text::names::fold(family);
        if !family.is_empty() {
            query.push_str(&format!(" AND au:{}", family.replace(' ', "_")));
        }
        let url = format!(
            "{}?search_query={}&start=0&max_results={SEARCH_RESULTS}",
            self.endpoint,
            utf8_percent_encode(&query, QUERY)
        );
        let records = self.get(&url)?;
        Ok(records
            .into_iter()
            .filter(|r| title_key(&r.title) == key)
            .collect())
    }

    /// The records of the identifiers `ids` (at most
    /// [`IDS_PER_REQUEST`]), those arXiv knows.
    pub fn lookup(&mut self, ids: &[&str]) -> Result<Vec<ArxivRecord>, String> {
        let list: Vec<String> = ids
            .iter()
            .map(|id| utf8_percent_encode(id, QUERY).to_string())
            .collect();
        let url = format!(
            "{}?id_list={}&start=0&max_results={}",
            self.endpoint,
            list.join(","),
            ids.len()
        );
        self.get(&url)
    }

    /// One answer: waits out the pause since the last request, then asks,
    /// trying again on an answer or failure that may pass.
    fn get(&mut self, url: &str) -> Result<Vec<ArxivRecord>, String> {
        let mut pause = self.interval;
        let mut last_error = String::new();
        for _ in 0..TRIES {
            if let Some(last) = self.last {
                std::thread::sleep(pause.saturating_sub(last.elapsed()));
            }
            self.last = Some(Instant::now());
            self.requests += 1;
            match self.agent.get(url).call() {
                Ok(mut answer) => {
                    let status = answer.status().as_u16();
                    let body = answer.body_mut().read_to_string();
                    match (status, body) {
                        (200, Ok(body)) => {
                            return from_atom(&body).map_err(|e| {
                                format!("{url}: expected an Atom feed, found an error {e}")
                            })
                        }
                        (500..=599 | 429, _) => last_error = format!("answered {status}"),
                        (200, Err(e)) => last_error = e.to_string(),
                        (_, body) => {
                            let said = body.ok().and_then(|b| error_summary(&b));
                            let said = said.map(|s| format!(": {s}")).unwrap_or_default();
                            return Err(format!("{url}: expected an answer, found {status}{said}"));
                        }
                    }
                }
                Err(e) => last_error = e.to_string(),
            }
            pause *= 2;
        }
        Err(format!(
            "{url}: expected an answer, found none in {TRIES} tries (the last: {last_error})"
        ))
    }
}

/// What an error entry of the API says (its `<summary>`).
fn error_summary(body: &str) -> Option<String> {
    let start = body.find("<summary>")? + "<summary>".len();
    let end = body[start..].find("</summary>")? + start;
    Some(body[start..end].trim().to_string())
}
