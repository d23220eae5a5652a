//! (placeholder: implemented on its own branch)
