//! ptxas test helper (to be written).
