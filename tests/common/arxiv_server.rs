//! A loopback stand-in for the arXiv API, answering from the real answers
//! recorded in `tests/fixtures/arxiv-api/`: an `id_list` request that was
//! recorded gets the recorded body, any other the recorded entries of its
//! identifiers; a `search_query` of `ti:"..."` (and `au:NAME`) is a small
//! emulation over the same entries (titles holding the phrase once folded,
//! by an author whose folded name holds the name). Faults can be scripted
//! for the first requests: an answer's status, or a connection dropped.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use vellum::enrich::matching::title_key;
use vellum::enrich::record::{from_atom, ArxivRecord};
use vellum::text::names::fold;

/// What the server does with one request instead of answering it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Answers with this status and an empty body.
    Status(u16),
    /// Reads the request and closes the connection without a word.
    Drop,
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The path and query, decoded.
    pub target: String,
    pub user_agent: String,
    pub at: Instant,
}

/// The server's state, shared with its thread.
#[derive(Default)]
struct State {
    faults: Vec<Fault>,
    seen: Vec<Seen>,
    /// After this many requests, every further one fails (status 503).
    fail_after: Option<usize>,
}

pub struct ArxivServer {
    pub url: String,
    state: Arc<Mutex<State>>,
}

/// A recorded entry: its Atom text and its record.
struct Entry {
    xml: String,
    record: ArxivRecord,
}

fn fixtures() -> std::path::PathBuf {
    crate::common::project().join("tests/fixtures/arxiv-api")
}

const FEED_START: &str = "<?xml version='1.0' encoding='UTF-8'?>\n<feed xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\" xmlns:arxiv=\"http://arxiv.org/schemas/atom\" xmlns=\"http://www.w3.org/2005/Atom\">\n  <id>https://arxiv.org/api/loopback</id>\n  <title>arXiv Query</title>\n";

/// Every recorded answer (its `id_list`, when it is a look-up, and body),
/// and every distinct entry.
fn recorded() -> (Vec<(Option<String>, String)>, Vec<Entry>) {
    let mut answers = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    for path in files {
        let answer: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let body = answer["body"].as_str().unwrap().to_string();
        let url = answer["url"].as_str().unwrap();
        let ids = url
            .split(['?', '&'])
            .find_map(|p| p.strip_prefix("id_list="))
            .map(str::to_string);
        for piece in body.split("<entry>").skip(1) {
            let xml = format!("<entry>{}</entry>", piece.split("</entry>").next().unwrap());
            let feed = format!("{FEED_START}{xml}\n</feed>\n");
            for record in from_atom(&feed).unwrap() {
                if !entries.iter().any(|e| e.record.id == record.id) {
                    entries.push(Entry {
                        xml: xml.clone(),
                        record,
                    });
                }
            }
        }
        answers.push((ids, body));
    }
    (answers, entries)
}

fn decode(text: &str) -> String {
    percent_encoding::percent_decode_str(&text.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

/// The body answering `query` (the request's query string).
fn answer(query: &str, answers: &[(Option<String>, String)], entries: &[Entry]) -> String {
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|p| p.strip_prefix(&format!("{name}=")))
            .map(decode)
    };
    let chosen: Vec<&Entry> = if let Some(ids) = param("id_list").filter(|i| !i.is_empty()) {
        if let Some((_, body)) = answers.iter().find(|(i, _)| i.as_deref() == Some(&ids)) {
            return body.clone();
        }
        ids.split(',')
            .filter_map(|id| entries.iter().find(|e| e.record.id == id))
            .collect()
    } else {
        let search = param("search_query").unwrap_or_default();
        let phrase = search
            .split("ti:\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .map(fold)
            .unwrap_or_default();
        let author = search
            .split("au:")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .map(|name| fold(&name.replace('_', " ")));
        entries
            .iter()
            .filter(|e| title_key(&e.record.title).contains(&phrase))
            .filter(|e| {
                author.as_ref().is_none_or(|au| {
                    e.record
                        .authors
                        .iter()
                        .any(|a| fold(&a.name).contains(au.as_str()))
                })
            })
            .collect()
    };
    let mut body = FEED_START.to_string();
    body.push_str(&format!(
        "  <opensearch:totalResults>{}</opensearch:totalResults>\n",
        chosen.len()
    ));
    for entry in chosen {
        body.push_str(&entry.xml);
        body.push('\n');
    }
    body.push_str("</feed>\n");
    body
}

fn serve(
    mut stream: TcpStream,
    state: &Mutex<State>,
    answers: &[(Option<String>, String)],
    entries: &[Entry],
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    let mut user_agent = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("user-agent") {
                user_agent = value.trim().to_string();
            }
        }
    }
    let target = first.split(' ').nth(1).unwrap_or_default().to_string();
    let fault = {
        let mut state = state.lock().unwrap();
        state.seen.push(Seen {
            target: decode(&target),
            user_agent,
            at: Instant::now(),
        });
        let n = state.seen.len();
        match state.fail_after {
            Some(limit) if n > limit => Some(Fault::Status(503)),
            _ if !state.faults.is_empty() => Some(state.faults.remove(0)),
            _ => None,
        }
    };
    let (status, body) = match fault {
        Some(Fault::Drop) => return,
        Some(Fault::Status(status)) => (status, String::new()),
        None => {
            let query = target.split_once('?').map_or("", |(_, q)| q);
            (200, answer(query, answers, entries))
        }
    };
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/atom+xml; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

impl ArxivServer {
    /// Starts the server on a free loopback port; it runs until the test
    /// process ends. The first requests meet `faults`, in order.
    pub fn start(faults: &[Fault]) -> ArxivServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/api/query", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State {
            faults: faults.to_vec(),
            ..State::default()
        }));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            let (answers, entries) = recorded();
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                serve(stream, &shared, &answers, &entries);
            }
        });
        ArxivServer { url, state }
    }

    /// The requests seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    /// Makes every request after the `n`th so far answered 503.
    pub fn fail_after(&self, n: usize) {
        self.state.lock().unwrap().fail_after = Some(n);
    }

    /// Answers every request again.
    pub fn recover(&self) {
        self.state.lock().unwrap().fail_after = None;
    }
}
