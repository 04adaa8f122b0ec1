//! cuGetExportTable private tables: placeholder.
