//! The processes of Cortex: the module framework (declarations, the graph builder, the
//! blackboard, the runtime loop), the representations every process shares, and one folder per
//! process kind holding its modules.

pub mod cognition;
pub mod framework;
pub mod lola;
pub mod motion;
pub mod representations;
