//! Vellum's integration tests, in one test binary (`cargo test --release
//! --test integration`): each `*.rs` file beside this one is a module
//! whose `trials()` lists its tests, and `common/` holds their helpers. The binary is built
//! with `harness = false` and run by libtest-mimic, so that a test whose
//! tool is absent ([`common::tools`]) is reported as skipped, with the
//! reason, in the summary a user sees (`test [skipped: node missing]
//! search::search_engine_under_node ... ignored`); in CI (`CI` set) such a
//! test fails instead (any value of `CI` counts). A test function left out
//! of its file's list is dead code, which `cargo clippy --all-targets --
//! -D warnings` refuses.

use libtest_mimic::{Arguments, Trial};

/// The trials of a test module: `trials!(module: test_a, test_b needs
/// tools::node())`, each named `module::test`, run as a plain function
/// (a panic fails it), and `needs` what `tools` reports missing.
macro_rules! trials {
    ($module:ident: $($test:ident $(needs $tool:expr)?),* $(,)?) => {
        vec![$(crate::trial(
            concat!(stringify!($module), "::", stringify!($test)),
            $test,
            None $(.or($tool))?,
        )),*]
    };
}

mod bibtex;
mod browser;
mod build;
mod common;
mod enrich;
mod listings;
mod output;
mod publishing;
mod safety;
mod scholarly;
mod search;
mod serve;

/// A trial of `test`; with a tool `missing`, skipped with the reason as
/// its kind, or in CI failed without running.
fn trial(name: &'static str, test: fn(), missing: Option<String>) -> Trial {
    let in_ci = std::env::var_os("CI").is_some();
    match missing {
        None => Trial::test(name, move || {
            test();
            Ok(())
        }),
        Some(what) if in_ci => Trial::test(name, move || {
            Err(format!("{what} is missing: run .ci/run, which installs it").into())
        }),
        Some(what) => Trial::test(name, || Ok(()))
            .with_ignored_flag(true)
            .with_kind(format!("skipped: {what} missing")),
    }
}

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let trials = [
        bibtex::trials(),
        browser::trials(),
        build::trials(),
        enrich::trials(),
        listings::trials(),
        output::trials(),
        publishing::trials(),
        safety::trials(),
        scholarly::trials(),
        search::trials(),
        serve::trials(),
    ]
    .into_iter()
    .flatten()
    .collect();
    libtest_mimic::run(&args, trials).exit_code()
}
