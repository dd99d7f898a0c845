//! What the `cortex` binary shares with its readers: the status of a running instance as one
//! serde type ([`status::Status`]). The supervisor builds it, `cortex status` prints it (JSON or
//! a table), and the system tests and benches parse it with the same type, so that the three
//! cannot drift apart.
//!
//! Everything else of the supervisor is the binary (`src/main.rs`): this library is kept small
//! on purpose (serde only), so that a test or a tool reading `cortex status --json` pulls in
//! nothing else.
//!
//! ```
//! let line = r#"{"instance_pid": 7, "robot": null, "safe_state": null, "stopping": false,
//!     "control": {"open": 0, "requests": 1, "refused_busy": 0, "evicted_idle": 0,
//!                 "refused_oversized": 0, "timed_out": 0, "malformed": 0, "expired": 0},
//!     "processes": []}"#;
//! let status: supervisor::status::Status = serde_json::from_str(line).unwrap();
//! assert!(status.safe_state.is_none());
//! ```

pub mod status;
