//! What the tests of Cortex share (dev-only, never shipped): a hostile LoLA peer that injects
//! faults on a real socket ([`hostile_lola`]), the bridge's plan, configuration and channels for
//! tests that run it in-process ([`bridge`]), process helpers for fault tests ([`processes`]:
//! signals, liveness, leftovers), file helpers ([`files`]: a breakable copy of the shipped
//! configuration) and an sshd on 127.0.0.1 for the tests that copy to a robot over ssh
//! ([`sshd`]). It holds no production code and nothing that asserts; the tests do.
//!
//! ```no_run
//! let (_folder, config) = testkit::files::config_copy(); // removed when `_folder` drops
//! std::fs::write(config.join("default/processes.toml"), "not toml").unwrap();
//! ```
//!
//! The system tests' `Instance` (a running `cortex`) stays in the top-level `tests/support/`:
//! it needs `CARGO_BIN_EXE_cortex`, which cargo sets only for the supervisor package's tests.

pub mod bridge;
pub mod files;
pub mod hostile_lola;
pub mod processes;
pub mod sshd;
