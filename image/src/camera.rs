//! The [`Camera`] trait: anything that delivers YUYV frames one after another.

use crate::yuyv::YuyvImage;
use std::time::Instant;

/// One frame from a camera.
#[derive(Debug, Clone)]
pub struct Frame {
    pub image: YuyvImage,
    /// Counts the frames this camera delivered, from 0 (including the ones that failed).
    pub sequence: u64,
    /// When the frame was taken (the file camera: when it was handed out).
    pub captured_at: Instant,
    /// Where the frame came from, for messages (a device or a file path).
    pub source: String,
}

/// A source of frames: the V4L2 cameras on the robot, a simulated camera, a folder of files.
///
/// `next_frame` blocks until the next frame is due. `Ok(None)` means the source has ended
/// (a folder played to its end); a camera on the robot never ends. An error is about one frame:
/// the next call goes on with the frame after it.
pub trait Camera {
    type Error: std::error::Error + Send + Sync + 'static;

    fn next_frame(&mut self) -> Result<Option<Frame>, Self::Error>;
}
