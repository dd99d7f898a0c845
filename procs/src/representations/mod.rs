//! Representations: one file per topic.
