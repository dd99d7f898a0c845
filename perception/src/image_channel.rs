//! A camera's newest image as a plain-data channel (`framework::plain`): a [`ImageHeader`]
//! and the YUYV bytes after it, never encoded.
//!
//! The perception process makes the channel itself when its `CameraProvider` starts (a sealed
//! `memfd` named `cortex:<camera>.CameraImage.pixels`) and publishes into it only while
//! someone watches it (`cortex image`, the debug link), so an unwatched camera costs nothing
//! here. Another process finds it through the perception process's descriptors:
//! [`open_of_process`] looks for the memfd's name among `/proc/<pid>/fd` and opens it again
//! (the same user, as every process of an instance is). Why not a segment the supervisor makes:
//! `docs/decisions.md`, "Camera images: a channel of the perception process".
//!
//! ```text
//!  perception.upper: CameraProvider ──publish while watched──► memfd "cortex:upper.CameraImage.pixels"
//!                                                                   ▲ /proc/<pid>/fd/N, opened again
//!  cortex image upper / the debug link ── watch, wait, read_in_place ┘
//! ```

use framework::plain::{PlainData, PlainError};
use ipc::PodChannel;
use types::CameraName;

/// The largest frame a camera delivers: 1280 × 960 YUYV (the upper camera's full resolution).
pub const MAX_IMAGE_BYTES: usize = 1280 * 960 * 2;

/// The header of a camera's image channel; `2 × width × height` YUYV bytes follow it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct ImageHeader {
    pub width: u32,
    pub height: u32,
    /// The camera's frame count (`CameraImage::sequence`).
    pub sequence: u64,
    /// When it was taken, monotonic ns.
    pub captured_ns: u64,
    /// 0 upper, 1 lower.
    pub camera: u32,
    pub reserved: u32,
}

impl PlainData for ImageHeader {
    const NAME: &'static str = "CameraImage.pixels";
    const PAYLOAD_CAPACITY: usize = MAX_IMAGE_BYTES;
}

impl ImageHeader {
    /// The payload's length this header announces, if it is a camera's size.
    pub fn payload_bytes(&self) -> Option<usize> {
        let (width, height) = (self.width as usize, self.height as usize);
        cortex_image::Resolution::from_size(width, height).map(|resolution| resolution.yuyv_bytes())
    }
}

/// The channel's name (and its memfd's, after `cortex:`).
pub fn channel_name(camera: CameraName) -> String {
    format!("{}.{}", camera.as_str(), ImageHeader::NAME)
}

/// Makes a camera's image channel (the `CameraProvider`'s job).
pub fn create(camera: CameraName) -> Result<PodChannel<ImageHeader>, PlainError> {
    framework::plain::create::<ImageHeader>(&channel_name(camera))
}

/// Why a camera's image channel could not be opened from another process.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(
        "process {pid} has no image channel `{name}` (its camera is not running, or it is not a perception process)"
    )]
    Absent { pid: u32, name: String },
    #[error(transparent)]
    Find(ipc::fd::SegmentOfProcessError),
    #[error(transparent)]
    Channel(#[from] PlainError),
}

/// Opens the image channel of `camera` that process `pid` holds.
pub fn open_of_process(pid: u32, camera: CameraName) -> Result<PodChannel<ImageHeader>, OpenError> {
    let fd =
        ipc::fd::open_segment_of_process(pid, &channel_name(camera)).map_err(
            |error| match error {
                ipc::fd::SegmentOfProcessError::Absent { pid, name } => {
                    OpenError::Absent { pid, name }
                }
                other => OpenError::Find(other),
            },
        )?;
    Ok(framework::plain::open::<ImageHeader>(fd)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use framework::plain::{PlainReader, PlainWriter};

    #[test]
    fn a_channel_made_here_is_found_through_proc_and_read() {
        let channel = create(CameraName::Lower).unwrap();
        let mut writer = PlainWriter::new(&channel).unwrap();
        let header = ImageHeader {
            width: 320,
            height: 240,
            sequence: 4,
            captured_ns: 9,
            camera: 1,
            reserved: 0,
        };
        let pixels = vec![77u8; header.payload_bytes().unwrap()];
        writer.publish(&header, &pixels).unwrap();

        let opened = open_of_process(std::process::id(), CameraName::Lower).unwrap();
        let mut reader = PlainReader::new(&opened);
        let (_, (read, sum)) = reader
            .read_in_place(|header, payload| {
                let mut row = vec![0u8; 640];
                payload.copy_to(0, &mut row);
                (*header, row.iter().map(|&b| u64::from(b)).sum::<u64>())
            })
            .unwrap()
            .unwrap();
        assert_eq!(read, header);
        assert_eq!(sum, 77 * 640);
        // The other camera has no channel in this process.
        let error = open_of_process(std::process::id(), CameraName::Upper).unwrap_err();
        assert!(
            error.to_string().contains("upper.CameraImage.pixels"),
            "{error}"
        );
    }
}
