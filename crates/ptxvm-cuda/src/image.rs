//! Module images (PTX text, fatbins, fatbin wrappers): placeholder.
