//! Element types (to be written).
