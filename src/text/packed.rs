//! Abstracts' HTML kept compressed in a large build: a zstd dictionary
//! trained on a sample of the corpus's own abstracts, and each abstract's
//! HTML a frame made with it. An abstract of a page or two shares most of
//! its words with the others, which a frame alone cannot refer back to;
//! the dictionary holds them once (measured with `zstd --train` and
//! `zstd -3 -D` in 1b67fb9).

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;

/// The most abstracts a [`Dictionary`] is trained on, evenly spaced
/// through the corpus: about 2.8 MB (849 `gen-corpus` abstracts average
/// 1,414 bytes of listed text).
pub const SAMPLE: usize = 2000;

/// A dictionary's greatest size. zstd suggests a sample of about a
/// hundred times the dictionary (zdict.h); 2,000 abstracts are about 85
/// times this. A sample under ten times it gets a dictionary a tenth of
/// its size.
const DICTIONARY_BYTES: usize = 32 * 1024;

/// The zstd level abstracts are compressed at. With the dictionary,
/// level 3 keeps fewer bytes than level 1 (measured in 1b67fb9); an
/// abstract is compressed once and read several times, and reading costs
/// about the same.
const LEVEL: i32 = 3;

/// A zstd dictionary trained on one corpus's abstracts, prepared for
/// compressing and for decompressing.
pub struct Dictionary {
    compress: zstd::dict::EncoderDictionary<'static>,
    decompress: zstd::dict::DecoderDictionary<'static>,
}

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Dictionary")
    }
}

impl Dictionary {
    /// A dictionary trained on `sample` (abstracts' HTML), or `None` when
    /// zstd cannot train on it (too few or too short abstracts: they are
    /// then kept as they are).
    pub fn train(sample: &[String]) -> Option<Arc<Dictionary>> {
        let sample_bytes: usize = sample.iter().map(String::len).sum();
        let size = DICTIONARY_BYTES.min(sample_bytes / 10);
        let bytes = zstd::dict::from_samples(sample, size).ok()?;
        Some(Arc::new(Dictionary {
            compress: zstd::dict::EncoderDictionary::try_copy(&bytes, LEVEL).ok()?,
            decompress: zstd::dict::DecoderDictionary::try_copy(&bytes).ok()?,
        }))
    }
}

/// HTML as an abstract holds it: as it is, or as a zstd frame made with a
/// [`Dictionary`] when that is smaller.
#[derive(Debug, Clone)]
pub(crate) enum Html {
    /// As it is.
    Plain(Box<str>),
    /// A zstd frame made with the dictionary.
    Packed(Box<[u8]>, Arc<Dictionary>),
}

/// One thread's zstd contexts and the buffer frames are made in, reused
/// from abstract to abstract (a context costs more to make than an
/// abstract to compress).
#[derive(Default)]
struct Contexts {
    compress: Option<zstd::zstd_safe::CCtx<'static>>,
    decompress: Option<zstd::zstd_safe::DCtx<'static>>,
    frame: Vec<u8>,
}

thread_local! {
    static CONTEXTS: RefCell<Contexts> = RefCell::default();
}

impl Html {
    /// `html` compressed with `dictionary` when that makes it smaller, else
    /// as it is.
    pub fn packed(html: Box<str>, dictionary: &Arc<Dictionary>) -> Html {
        let frame = CONTEXTS.with_borrow_mut(|contexts| {
            let Contexts {
                compress, frame, ..
            } = contexts;
            if compress.is_none() {
                *compress = zstd::zstd_safe::CCtx::try_create();
            }
            frame.clear();
            frame.reserve(zstd::zstd_safe::compress_bound(html.len()));
            let made = compress.as_mut()?.compress_using_cdict(
                frame,
                html.as_bytes(),
                dictionary.compress.as_cdict(),
            );
            (made.is_ok() && frame.len() < html.len()).then(|| Box::<[u8]>::from(&frame[..]))
        });
        match frame {
            Some(frame) => Html::Packed(frame, Arc::clone(dictionary)),
            None => Html::Plain(html),
        }
    }

    /// The HTML: borrowed when kept as it is, decompressed when packed.
    pub fn text(&self) -> Cow<'_, str> {
        let (frame, dictionary) = match self {
            Html::Plain(text) => return Cow::Borrowed(text),
            Html::Packed(frame, dictionary) => (frame, dictionary),
        };
        // A frame this process made from a string, with this dictionary:
        // it decompresses to that string.
        let len = zstd::zstd_safe::get_frame_content_size(frame)
            .ok()
            .flatten()
            .unwrap_or(0);
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        let read = CONTEXTS.with_borrow_mut(|contexts| {
            if contexts.decompress.is_none() {
                contexts.decompress = zstd::zstd_safe::DCtx::try_create();
            }
            let context = contexts.decompress.as_mut()?;
            let ddict = dictionary.decompress.as_ddict();
            context
                .decompress_using_ddict(&mut bytes, frame, ddict)
                .ok()
        });
        // Only a context that could not be allocated fails here.
        debug_assert!(read.is_some(), "a frame made by this process decompresses");
        Cow::Owned(String::from_utf8(bytes).unwrap_or_default())
    }

    /// Whether the HTML is empty (an empty text is never packed).
    pub fn is_empty(&self) -> bool {
        matches!(self, Html::Plain(text) if text.is_empty())
    }
}

impl PartialEq for Html {
    fn eq(&self, other: &Html) -> bool {
        self.text() == other.text()
    }
}

impl Eq for Html {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::Abstract;

    /// The HTML of the abstracts of a recorded arXiv answer (100 records
    /// of a search for `testing`), in its order.
    fn real_abstracts() -> Vec<String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/arxiv-api/q_testing_s0_m100_cfe7536492ca.json");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let records = crate::enrich::record::from_atom(json["body"].as_str().unwrap()).unwrap();
        records
            .iter()
            .map(|record| {
                let paragraphs = [record.abstract_text.clone()];
                let hash = Abstract::source_hash(&paragraphs);
                Abstract::with_hash(&paragraphs, hash, &mut Vec::new())
                    .html()
                    .into_owned()
            })
            .collect()
    }

    #[test]
    fn packed_abstracts_read_back_in_a_fraction_of_the_bytes() {
        let abstracts = real_abstracts();
        assert_eq!(abstracts.len(), 100);
        let (sample, rest) = abstracts.split_at(60);
        let dictionary = Dictionary::train(sample).expect("a dictionary");
        let (mut plain_bytes, mut packed_bytes) = (0, 0);
        for html in rest {
            let packed = Html::packed(html.as_str().into(), &dictionary);
            assert_eq!(packed.text(), html.as_str());
            assert_eq!(packed, Html::Plain(html.as_str().into()));
            let Html::Packed(frame, _) = &packed else {
                panic!("not packed: {html}");
            };
            plain_bytes += html.len();
            packed_bytes += frame.len();
        }
        // A bound, not zstd's exact bytes, which change with its version
        // (measured in 06abdb5).
        assert_eq!(plain_bytes, 51_759);
        assert!(packed_bytes * 100 < plain_bytes * 45, "{packed_bytes}");
    }

    #[test]
    fn what_would_not_shrink_is_kept_as_it_is() {
        let dictionary = Dictionary::train(&real_abstracts()).expect("a dictionary");
        let short = Html::packed("<p>a</p>".into(), &dictionary);
        assert!(matches!(short, Html::Plain(text) if &*text == "<p>a</p>"));
        assert!(Html::packed("".into(), &dictionary).is_empty());
        // Too little to train on.
        assert!(Dictionary::train(&["<p>One.</p>".to_string()]).is_none());
    }
}
