//! GPU test helpers (to be written).
