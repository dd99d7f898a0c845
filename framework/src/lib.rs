//! The module framework of Cortex: B-Human's modules and representations and rUNSWift's
//! safelyRun, done across processes. It knows how modules are declared, wired and run; it holds
//! no module of its own (those are in the process kinds' crates: `motion`, `cognition`, ...) and
//! no representation type (those are in `types`).
//!
//! - [`Representation`] (from `types`): a named, serde-encoded result; [`RepresentationRegistry`]
//!   knows them all, [`registry()`] is the program's.
//! - [`module!`](crate::module): a module declares in one place what it requires, uses and
//!   provides and its parameters; it implements one [`Update`] per provided representation.
//! - [`graph::build`]: from the process table and the declarations, each process's provider order
//!   and the channels between processes (B-Human's `ModuleGraphCreator`).
//! - [`wiring`]: every input and output of a process's modules resolved once to a typed slot;
//!   a tick goes through those pointers (no lookup, hash, downcast or allocation).
//! - [`plain`]: plain-data channels for images and audio buffers: a `Pod` header and raw
//!   bytes, borrowed in place by readers and validated afterwards, never encoded.
//! - [`Blackboard`]: values by name, for tests and tools that run a module by hand.
//! - [`check::check_parameters`]: every module's parameters loaded and checked as the processes
//!   will, before anything starts (`cortex check`, the supervisor).
//! - [`runtime`]: the loop every process runs: trigger, read channels, run providers under
//!   stopwatches, publish, heartbeat; panics caught at the tick boundary.
//! - [`live_parameters`]: parameters changed while a process runs (`cortex set`): the
//!   supervisor's overrides, read at the start of a tick and handed to the modules they change.
//! - [`debug_output`]: plots and drawings a module fills only while someone subscribes
//!   (B-Human's debug requests and drawings), published for the debug link.
//! - [`clock`]: "now" for module code (the monotonic clock, or a replayed tick's recorded time);
//!   [`lockstep`]: a replayed process ticks once per step its replayer gives (`cortex replay`).
//! - [`module_timing`]: each module's update time (last, mean, max over a window), published
//!   with the heartbeat for `cortex status --modules`.

mod blackboard;
pub mod check;
pub mod clock;
pub mod debug_output;
pub mod faults;
pub mod graph;
pub mod live_parameters;
pub mod lockstep;
mod module;
pub mod module_timing;
pub mod plain;
mod registry;
mod representation;
pub mod runtime;
pub mod wiring;

pub use blackboard::{Blackboard, BlackboardError};
pub use check::{check_parameters, ParameterError, ParameterSet};
pub use graph::{build as build_graph, ChannelPlan, Graph, GraphError, ProcessPlan};
#[doc(hidden)]
pub use module::loaders as module_loaders;
pub use module::{
    construct, Declaration, DynModule, HasInputs, InputPort, LoadParameters, Module, ModuleEntry,
    ModuleRegistry, NoParameters, OutputPort, ParametersRefused, QualifiedInput, Update,
};
pub use registry::registry;
pub use representation::{CodecError, RepresentationInfo, RepresentationRegistry};
pub use types::Representation;
