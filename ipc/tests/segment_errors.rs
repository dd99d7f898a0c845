//! Bad segments are refused with an error naming what differs: wrong magic, layout version,
//! kind, schema hash, size, no seals, too small. Each case builds the bad memfd for real.

use ipc::segment::{segment_size, Header, HEADER_SIZE, LAYOUT_VERSION, MAGIC, NAME_BYTES};
use ipc::{Error, HealthBoard, TripleBuffer};
use rustix::fs::{MemfdFlags, SealFlags};
use std::os::fd::OwnedFd;

fn header(capacity: usize) -> Header {
    let mut name = [0u8; NAME_BYTES];
    name[..6].copy_from_slice(b"forged");
    Header {
        magic: MAGIC,
        layout_version: LAYOUT_VERSION,
        kind: 1,
        schema_hash: 0,
        slot_capacity: capacity as u64,
        regions: 1,
        total_size: segment_size(capacity, 1) as u64,
        name,
    }
}

/// A memfd of `size` bytes holding `header`, sealed or not.
fn forge(header: Header, size: usize, sealed: bool) -> OwnedFd {
    let fd = rustix::fs::memfd_create("forged", MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)
        .unwrap();
    rustix::fs::ftruncate(&fd, size as u64).unwrap();
    let bytes = bytemuck::bytes_of(&header);
    let len = bytes.len().min(size);
    rustix::io::pwrite(&fd, &bytes[..len], 0).unwrap();
    if sealed {
        rustix::fs::fcntl_add_seals(&fd, SealFlags::GROW | SealFlags::SHRINK).unwrap();
    }
    fd
}

fn message(error: Error) -> String {
    error.to_string()
}

#[test]
fn a_well_formed_forgery_opens() {
    let size = segment_size(64, 1);
    let buffer = TripleBuffer::from_fd(forge(header(64), size, true)).unwrap();
    assert_eq!(buffer.name(), "forged");
    assert_eq!(buffer.slot_capacity(), 64);
}

#[test]
fn wrong_magic() {
    let mut bad = header(64);
    bad.magic = u64::from_le_bytes(*b"NOTCORTX");
    let error = TripleBuffer::from_fd(forge(bad, segment_size(64, 1), true)).unwrap_err();
    assert!(matches!(error, Error::BadMagic { found, .. } if found == bad.magic));
    assert!(message(error).contains("not a Cortex segment"));
}

#[test]
fn wrong_layout_version() {
    let mut bad = header(64);
    bad.layout_version = LAYOUT_VERSION + 1;
    let text = message(TripleBuffer::from_fd(forge(bad, segment_size(64, 1), true)).unwrap_err());
    assert!(
        text.contains(&format!("layout version {}", LAYOUT_VERSION + 1)),
        "{text}"
    );
    assert!(
        text.contains(&format!("reads version {LAYOUT_VERSION}")),
        "{text}"
    );
}

#[test]
fn wrong_schema_hash() {
    let channel = TripleBuffer::create_with_schema("BallPercept", 64, 0x1234).unwrap();
    let fd = ipc::fd::duplicate(std::os::fd::AsFd::as_fd(&channel)).unwrap();
    let text = message(TripleBuffer::from_fd_with_schema(fd, 0x5678).unwrap_err());
    assert!(
        text.contains("BallPercept") && text.contains("0x0000000000001234"),
        "{text}"
    );
    assert!(text.contains("0x0000000000005678"), "{text}");
}

#[test]
fn wrong_kind() {
    let board = HealthBoard::create("health", 4).unwrap();
    let fd = ipc::fd::duplicate(std::os::fd::AsFd::as_fd(&board)).unwrap();
    let text = message(TripleBuffer::from_fd(fd).unwrap_err());
    assert!(
        text.contains("health-board segment, expected a triple-buffer"),
        "{text}"
    );
}

#[test]
fn wrong_size() {
    let right = segment_size(64, 1);
    for size in [right + 4096, right - 64] {
        let error = TripleBuffer::from_fd(forge(header(64), size, true)).unwrap_err();
        assert!(
            matches!(error, Error::SizeMismatch { found, expected, .. } if found == size as u64 && expected == right as u64),
            "{error}"
        );
        assert!(message(error).contains(&format!("is {size} bytes")));
    }
    // A header that lies about the capacity.
    let mut bad = header(64);
    bad.slot_capacity = 128;
    let text = message(TripleBuffer::from_fd(forge(bad, right, true)).unwrap_err());
    assert!(
        text.contains(&format!("layout needs {}", segment_size(128, 1))),
        "{text}"
    );
}

#[test]
fn smaller_than_a_header() {
    let error = TripleBuffer::from_fd(forge(header(64), 40, true)).unwrap_err();
    assert!(
        matches!(error, Error::TooSmall { found: 40, .. }),
        "{error}"
    );
    assert!(message(error).contains(&format!("{HEADER_SIZE}-byte")));
}

#[test]
fn not_sealed() {
    let error = TripleBuffer::from_fd(forge(header(64), segment_size(64, 1), false)).unwrap_err();
    assert!(matches!(error, Error::NotSealed { .. }), "{error}");
    assert!(message(error).contains("forged"));
}

#[test]
fn created_segments_cannot_grow_or_shrink() {
    let buffer = TripleBuffer::create("sealed", 64).unwrap();
    let fd = std::os::fd::AsFd::as_fd(&buffer);
    assert!(rustix::fs::ftruncate(fd, 1 << 20).is_err());
    assert!(rustix::fs::ftruncate(fd, 0).is_err());
}

#[test]
fn oversize_publish_is_refused_and_nothing_is_written() {
    let buffer = TripleBuffer::create("small", 100).unwrap();
    let mut writer = buffer.writer().unwrap();
    writer.publish(&[7u8; 100]).unwrap();
    let text = message(writer.publish(&[9u8; 101]).unwrap_err());
    assert!(
        text.contains("101 bytes") && text.contains("100-byte"),
        "{text}"
    );
    let mut out = Vec::new();
    assert_eq!(buffer.reader().read_latest(&mut out).unwrap(), Some(1));
    assert_eq!(out, vec![7u8; 100]);
    assert_eq!(
        writer.publish(b"next").unwrap(),
        2,
        "the refused value took no count"
    );
}

#[test]
fn invalid_capacities_are_refused_at_creation() {
    assert!(TripleBuffer::create("zero", 0).is_err());
    assert!(TripleBuffer::create("huge", usize::MAX / 4).is_err());
}

#[test]
fn nothing_appears_in_dev_shm() {
    let before: Vec<_> = std::fs::read_dir("/dev/shm")
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    let _buffer = TripleBuffer::create("invisible-segment", 4096).unwrap();
    let after: Vec<_> = std::fs::read_dir("/dev/shm")
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(after
        .iter()
        .all(|name| before.contains(name) || !name.to_string_lossy().contains("invisible")));
}

#[test]
fn a_second_writer_is_refused_while_the_first_lives() {
    let buffer = TripleBuffer::create("roles", 8).unwrap();
    let first = buffer.writer().unwrap();
    let text = message(buffer.writer().unwrap_err());
    assert!(
        text.contains(&format!("live process {}", std::process::id())),
        "{text}"
    );
    assert_eq!(buffer.writer_pid(), Some(std::process::id()));
    drop(first);
    assert!(buffer.writer().is_ok());
}
