//! The debug link: the server that runs inside the `debug` process, on one TCP port, and the
//! web view it serves. Teams live in their debug tools (B-Human's SimRobot console, HULKs'
//! twix); this is Cortex's, reachable with a browser, `websocat` or ten lines of Python.
//!
//! ```text
//!  browser / script ──HTTP GET /──────────▶ the web view (index.html, app.js, style.css,
//!        │                                  compiled into the binary: no build step)
//!        └──WebSocket /ws──▶ session thread ─┬─ list, subscribe, image, timings
//!                                            │    └─ seqlock readers on the channels in shared
//!                                            │       memory; a subscription renews the channel's
//!                                            │       watch lease, so its producer publishes it
//!                                            └─ status, params, set
//!                                                 └─ the supervisor's control socket (`Control`)
//! ```
//!
//! The processes' debug outputs (plots and drawings their modules fill only while someone
//! subscribes, `framework::debug_output`) and provider switches go through [`outputs`]: it
//! counts the subscribers over every session and writes each process's request channel.
//!
//! The recorder ([`recorder`]: MCAP files, run by `cortex record`) reads the same channels the
//! same way. The link is never a participant in the real-time path. It only reads shared memory
//! (a reader never blocks a writer) and asks the supervisor for what only the supervisor may do
//! (parameters are checked and written to the parameter channel by the supervisor, exactly as
//! `cortex set` does). Every client has a bounded queue (oldest dropped), a message-size cap and
//! timeouts; at most [`Limits::connections`] are served at once, more get `503`.
//!
//! The protocol is in [`protocol`]; the host (the `cortex proc debug` entry in `supervisor`)
//! builds the [`Sources`] and hands [`Server::start`] a bound listener.

pub mod http;
pub mod jpeg;
pub mod mcap_reader;
pub mod outputs;
pub mod protocol;
pub mod recorder;
pub mod server;
mod session;
mod snapshot;
pub mod sources;
pub mod value;

pub use server::{Limits, Server, StartError};
pub use sources::{
    ChannelBuffer, ChannelKind, ChannelSource, Control, ImageLayout, ImageSource, ModuleEntry,
    Sources, YuyvView,
};
