//! The module framework (work in progress in this session).
