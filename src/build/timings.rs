//! Each stage's wall time and peak memory, for `--verbose` and the
//! benchmarks: [`Timings::time`] runs a stage while a thread samples the
//! resident set size.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Wall time and peak memory of each stage, in order.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    /// The stages: read (config, content, templates, static files, the
    /// list of listings), parse (reading and parsing listings), corpus,
    /// content, templates, plan, render (including staging each file in
    /// the sink), search, write (the sink's commit); `vellum serve` adds
    /// select, `vellum check` links (the link check after the build).
    pub stages: Vec<StageTiming>,
}

/// One stage of a build, measured.
#[derive(Debug, Clone, Copy)]
pub struct StageTiming {
    /// The stage's name (`parse`).
    pub name: &'static str,
    /// Its wall time.
    pub wall: Duration,
    /// The highest resident set size of the process while it ran, in
    /// bytes, sampled every [`RSS_SAMPLE_INTERVAL`] and at its end (so a
    /// shorter spike can be missed); `None` where the platform does not
    /// report it.
    pub peak_rss: Option<u64>,
}

/// How often [`Timings`] samples the resident set size during a stage.
pub const RSS_SAMPLE_INTERVAL: Duration = Duration::from_millis(10);

/// The process's resident set size in bytes, where the platform reports it.
fn resident_set_size() -> Option<u64> {
    memory_stats::memory_stats().map(|m| m.physical_mem as u64)
}

impl Timings {
    /// Runs `run` as the stage `name`, recording its wall time and peak
    /// resident set size; returns what `run` returns.
    pub fn time<T>(&mut self, name: &'static str, run: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let (value, peak_rss) = with_peak_rss(run);
        self.stages.push(StageTiming {
            name,
            wall: start.elapsed(),
            peak_rss,
        });
        value
    }

    /// One line per stage: `name  12.3 ms  45.6%  123 MiB peak`, then
    /// the total with the highest peak.
    pub fn report(&self) -> String {
        let total: Duration = self.stages.iter().map(|s| s.wall).sum();
        let mib = |peak: Option<u64>| {
            peak.map_or(String::new(), |bytes| {
                format!(" {:>8} MiB peak", bytes / (1 << 20))
            })
        };
        let mut out = String::new();
        for stage in &self.stages {
            let share = if total.is_zero() {
                0.0
            } else {
                100.0 * stage.wall.as_secs_f64() / total.as_secs_f64()
            };
            out.push_str(&format!(
                "{:<10} {:>10.1} ms {share:>5.1}%{}\n",
                stage.name,
                stage.wall.as_secs_f64() * 1000.0,
                mib(stage.peak_rss)
            ));
        }
        out.push_str(&format!(
            "{:<10} {:>10.1} ms       {}\n",
            "total",
            total.as_secs_f64() * 1000.0,
            mib(self.stages.iter().filter_map(|s| s.peak_rss).max())
        ));
        out
    }
}

/// Runs `run` on this thread while another samples the resident set size
/// every [`RSS_SAMPLE_INTERVAL`]; returns `run`'s value and the highest
/// sample (`None` where the platform reports none, or no thread could be
/// started).
fn with_peak_rss<T>(run: impl FnOnce() -> T) -> (T, Option<u64>) {
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let sampler = std::thread::Builder::new()
            .name("rss-sampler".into())
            .spawn_scoped(scope, || {
                let mut peak = resident_set_size();
                while !done.load(Ordering::Relaxed) {
                    std::thread::park_timeout(RSS_SAMPLE_INTERVAL);
                    peak = peak.max(resident_set_size());
                }
                peak
            });
        let value = run();
        done.store(true, Ordering::Relaxed);
        let peak = match sampler {
            Ok(sampler) => {
                sampler.thread().unpark();
                sampler.join().ok().flatten()
            }
            Err(_) => None,
        };
        (value, peak.map(|p| p.max(resident_set_size().unwrap_or(0))))
    })
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_peak_includes_what_the_stage_allocated() {
        let before = resident_set_size().expect("Linux reports the resident set size");
        // Returned, so still held at the last sample; every page is written.
        let (held, peak) = with_peak_rss(|| vec![1u8; 64 << 20]);
        assert_eq!(held.len(), 64 << 20);
        let peak = peak.expect("a peak was sampled");
        assert!(peak >= before + (60 << 20), "{before} then {peak}");
    }

    #[test]
    fn the_report_gives_each_stage_its_share_and_peak() {
        let stage = |name, ms, mib: Option<u64>| StageTiming {
            name,
            wall: Duration::from_millis(ms),
            peak_rss: mib.map(|m| m << 20),
        };
        let timings = Timings {
            stages: vec![
                stage("parse", 250, Some(354)),
                stage("render", 750, Some(1_200)),
            ],
        };
        assert_eq!(
            timings.report(),
            "parse           250.0 ms  25.0%      354 MiB peak\n\
             render          750.0 ms  75.0%     1200 MiB peak\n\
             total          1000.0 ms            1200 MiB peak\n"
        );
        let unknown = Timings {
            stages: vec![stage("parse", 1, None)],
        };
        assert_eq!(
            unknown.report(),
            "parse             1.0 ms 100.0%\ntotal             1.0 ms       \n"
        );
    }
}
