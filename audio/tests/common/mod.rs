//! What the audio integration tests share: where the real NAO recordings are.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `$CORTEX_DATA_DIR/whistle`, else `<workspace root>/../shared/data/whistle`, if it exists.
pub fn whistle_data() -> Option<PathBuf> {
    let data = match std::env::var_os("CORTEX_DATA_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("../shared/data"),
    };
    let whistle = data.join("whistle");
    whistle.is_dir().then_some(whistle)
}

/// The `.wav` files in `folder`, sorted.
pub fn wav_files(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|path| path.extension().is_some_and(|ext| ext == "wav"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
