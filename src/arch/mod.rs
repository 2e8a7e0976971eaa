//! Architecture tags (to be written).
