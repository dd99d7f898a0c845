//! The walking engine core of the NAO (work in progress).
