//! Perception (work in progress).
