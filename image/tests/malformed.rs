//! Broken files give errors that name the file and say what is wrong; nothing panics, and a
//! file camera goes on with the next frame after a bad one.

use cortex_image::{
    read_image_file, read_png, write_png, Camera, ColorRange, FileCamera, ImageFileError, Pacing,
    RgbImage,
};
use std::path::Path;
use std::time::{Duration, Instant};

fn valid_png_bytes(folder: &Path, width: usize, height: usize) -> Vec<u8> {
    let path = folder.join("valid.png");
    let mut image = RgbImage::filled(width, height, [40, 160, 60]);
    image.set(1, 1, [255, 255, 255]);
    write_png(&path, &image).unwrap();
    std::fs::read(path).unwrap()
}

fn read_error(path: &Path) -> String {
    let error = read_image_file(path, ColorRange::Full).expect_err("a broken file must not decode");
    let message = error.to_string();
    assert!(
        message.contains(&path.display().to_string()),
        "the message names the file: {message}"
    );
    message
}

#[test]
fn every_kind_of_broken_png_is_an_error_naming_the_file() {
    let folder = tempfile::tempdir().unwrap();
    let valid = valid_png_bytes(folder.path(), 640, 480);

    // Cut in the middle of the image data.
    let truncated = folder.path().join("truncated.png");
    std::fs::write(&truncated, &valid[..valid.len() / 2]).unwrap();
    read_error(&truncated);

    // Only the signature.
    let signature_only = folder.path().join("signature_only.png");
    std::fs::write(&signature_only, &valid[..8]).unwrap();
    read_error(&signature_only);

    // A flipped byte in the header chunk (its CRC no longer matches).
    let mut corrupt_header = valid.clone();
    corrupt_header[18] ^= 0xff;
    let corrupt = folder.path().join("corrupt_header.png");
    std::fs::write(&corrupt, &corrupt_header).unwrap();
    read_error(&corrupt);

    // Every byte of the compressed data flipped.
    let mut garbage_data = valid.clone();
    let data_start = 8 + 25 + 8;
    for byte in &mut garbage_data[data_start..valid.len() - 12] {
        *byte ^= 0x5a;
    }
    let garbage = folder.path().join("garbage_data.png");
    std::fs::write(&garbage, &garbage_data).unwrap();
    read_error(&garbage);

    // A header claiming 100000 x 100000 pixels: refused before allocating.
    let mut huge = valid.clone();
    huge[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    huge[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let crc = crc32(&huge[12..29]);
    huge[29..33].copy_from_slice(&crc.to_be_bytes());
    let huge_path = folder.path().join("huge.png");
    std::fs::write(&huge_path, &huge).unwrap();
    let message = read_error(&huge_path);
    assert!(message.contains("100000x100000"), "{message}");
}

#[test]
fn hundreds_of_random_corruptions_never_panic() {
    let folder = tempfile::tempdir().unwrap();
    let valid = valid_png_bytes(folder.path(), 320, 240);
    let path = folder.path().join("mutated.png");
    let mut state = 0x9e37_79b9_u32;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as usize
    };
    let mut failures = 0;
    for round in 0..300 {
        let mut bytes = valid.clone();
        for _ in 0..1 + round % 8 {
            let index = random() % bytes.len();
            bytes[index] = random() as u8;
        }
        if round % 5 == 0 {
            bytes.truncate(random() % bytes.len());
        }
        std::fs::write(&path, &bytes).unwrap();
        match read_image_file(&path, ColorRange::Full) {
            Ok(image) => assert_eq!(image.width(), 320),
            Err(error) => {
                failures += 1;
                assert!(error.to_string().contains("mutated.png"), "{error}");
            }
        }
    }
    // Most mutations hit the compressed data or a checksum: they must be detected.
    assert!(
        failures > 100,
        "only {failures} of 300 corruptions were noticed"
    );
}

#[test]
fn sizes_that_no_camera_has_are_rejected_with_the_size() {
    let folder = tempfile::tempdir().unwrap();
    let odd = folder.path().join("odd_size.png");
    std::fs::write(&odd, valid_png_bytes(folder.path(), 641, 480)).unwrap();
    let message = read_error(&odd);
    assert!(message.contains("641x480"), "{message}");
    // The PNG itself is fine: only the conversion to a camera frame refuses it.
    assert_eq!(read_png(&odd).unwrap().width(), 641);
}

#[test]
fn raw_frames_of_the_wrong_length_and_missing_files_are_errors() {
    let folder = tempfile::tempdir().unwrap();
    let short = folder.path().join("short.yuyv");
    std::fs::write(&short, vec![128u8; 614_399]).unwrap();
    let message = read_error(&short);
    assert!(message.contains("614399 bytes"), "{message}");

    let empty = folder.path().join("empty.yuyv");
    std::fs::write(&empty, b"").unwrap();
    assert!(read_error(&empty).contains("0 bytes"));

    let missing = folder.path().join("missing.png");
    let error = read_image_file(&missing, ColorRange::Full).unwrap_err();
    assert!(matches!(error, ImageFileError::Read { .. }), "{error:?}");
    assert!(error.to_string().contains("missing.png"));

    let directory = folder.path().join("a_folder.png");
    std::fs::create_dir(&directory).unwrap();
    assert!(read_image_file(&directory, ColorRange::Full).is_err());
}

#[test]
fn file_camera_reports_a_bad_frame_and_goes_on() {
    let folder = tempfile::tempdir().unwrap();
    write_png(
        &folder.path().join("0001.png"),
        &RgbImage::filled(320, 240, [10, 200, 10]),
    )
    .unwrap();
    std::fs::write(
        folder.path().join("0002.png"),
        b"\x89PNG\r\n\x1a\nnot really",
    )
    .unwrap();
    std::fs::write(folder.path().join("0003.yuyv"), vec![128u8; 640 * 480 * 2]).unwrap();
    std::fs::write(folder.path().join("notes.txt"), b"ignored").unwrap();

    let mut camera =
        FileCamera::open(folder.path(), Pacing::AsFastAsAsked, ColorRange::Full).unwrap();
    assert_eq!(camera.files().len(), 3);
    let first = camera.next_frame().unwrap().unwrap();
    assert_eq!((first.image.width(), first.sequence), (320, 0));
    let error = camera.next_frame().unwrap_err().to_string();
    assert!(
        error.contains("0002.png") && error.contains("frame 1"),
        "{error}"
    );
    let third = camera.next_frame().unwrap().unwrap();
    assert_eq!((third.image.width(), third.sequence), (640, 2));
    assert!(
        camera.next_frame().unwrap().is_none(),
        "the folder has ended"
    );
}

#[test]
fn file_camera_paces_frames_and_loops() {
    let folder = tempfile::tempdir().unwrap();
    for name in ["b.yuyv", "a.yuyv"] {
        std::fs::write(folder.path().join(name), vec![16u8; 320 * 240 * 2]).unwrap();
    }
    let period = Duration::from_millis(20);
    let mut camera = FileCamera::open(folder.path(), Pacing::Period(period), ColorRange::Full)
        .unwrap()
        .looping(true);
    assert!(camera.files()[0].ends_with("a.yuyv"), "name order");
    let start = Instant::now();
    let sources: Vec<String> = (0..4)
        .map(|_| camera.next_frame().unwrap().unwrap().source)
        .collect();
    // Four frames at one per period take at least three periods (only a lower bound: a loaded
    // machine may take longer).
    assert!(start.elapsed() >= 3 * period);
    assert!(sources[0].ends_with("a.yuyv") && sources[2].ends_with("a.yuyv"));
    assert!(sources[1].ends_with("b.yuyv") && sources[3].ends_with("b.yuyv"));
}

#[test]
fn opening_a_folder_without_frames_says_so() {
    let folder = tempfile::tempdir().unwrap();
    let error = FileCamera::open(folder.path(), Pacing::AsFastAsAsked, ColorRange::Full)
        .unwrap_err()
        .to_string();
    assert!(error.contains("no frames"), "{error}");
    let missing = folder.path().join("nowhere");
    let error = FileCamera::open(&missing, Pacing::AsFastAsAsked, ColorRange::Full)
        .unwrap_err()
        .to_string();
    assert!(error.contains("nowhere"), "{error}");
}

/// CRC-32 (PNG, ISO-HDLC) of a byte string, to forge a consistent header.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
