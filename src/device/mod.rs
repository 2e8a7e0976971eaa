//! The driver runtime and device adapters (to be written).
