//! Values that `vellum serve` keeps from one build to the next, keyed by
//! an XXH3-64 hash of what they are made from, so a rebuild makes only the
//! values it has not made before: converted titles and abstracts
//! ([`crate::text::TextMemo`]). A value a build does not use is
//! forgotten when the build finishes ([`Memo::finish_build`]).

use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Values by key, each with the number of the last build that used it, in
/// shards by key so that threads looking values up at once rarely wait for
/// each other. A value stays in place from build to build: a lookup only
/// marks it used.
#[derive(Debug)]
pub struct Memo<V> {
    shards: [Mutex<Shard<V>>; SHARDS],
    /// The number of the build in progress.
    build: AtomicU64,
}

/// One shard's values, with the last build that used each.
type Shard<V> = FxHashMap<u64, (V, u64)>;

/// Shards of a [`Memo`]; keys are XXH3 hashes, so their low bits spread.
const SHARDS: usize = 16;

impl<V> Default for Memo<V> {
    fn default() -> Self {
        Memo {
            shards: std::array::from_fn(|_| Mutex::default()),
            build: AtomicU64::new(0),
        }
    }
}

impl<V: Clone> Memo<V> {
    /// The value for `key` made in this build or the previous one, else
    /// `make()`, kept for the next build. `make` runs without the lock, so
    /// callers may make values in parallel.
    pub fn get_or_make(&self, key: u64, make: impl FnOnce() -> V) -> V {
        let build = self.build.load(Ordering::Relaxed);
        let found = self.lock(key).get_mut(&key).map(|(value, used)| {
            *used = build;
            value.clone()
        });
        found.unwrap_or_else(|| {
            let value = make();
            self.lock(key).insert(key, (value.clone(), build));
            value
        })
    }

    /// Ends a build: the values it did not use are forgotten.
    pub fn finish_build(&self) {
        let build = self.build.fetch_add(1, Ordering::Relaxed);
        for shard in &self.shards {
            let mut entries = shard.lock().unwrap_or_else(|e| e.into_inner());
            entries.retain(|_, (_, used)| *used == build);
        }
    }

    fn lock(&self, key: u64) -> MutexGuard<'_, Shard<V>> {
        self.shards[key as usize % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_made_once_kept_a_build_and_forgotten_when_unused() {
        let memo: Memo<String> = Memo::default();
        let mut made = 0;
        let mut get = |memo: &Memo<String>| {
            memo.get_or_make(7, || {
                made += 1;
                "value".to_string()
            })
        };
        assert_eq!(get(&memo), "value");
        assert_eq!(get(&memo), "value");
        memo.finish_build();
        assert_eq!(get(&memo), "value", "from the previous build");
        memo.finish_build();
        memo.finish_build();
        get(&memo);
        assert_eq!(
            made, 2,
            "made once, then again after a build that did not use it"
        );
    }
}
