//! Camera images of the NAO v6: the YUYV 4:2:2 frames its two cameras deliver, conversions to
//! and from RGB (BT.601), PNG and raw-file input/output, and the [`Camera`] trait with a
//! [`FileCamera`] that plays a folder of frames for tests and offline work.
//!
//! What it is not: no image processing beyond colour conversion (that is the `perception`
//! crate). The V4L2 camera of the robot (`V4l2Camera`) is built with the `robot` feature only;
//! its [`CameraSettings`] and format rules are always there (parameter files are checked
//! everywhere).
//!
//! The one picture: a YUYV row stores two pixels in four bytes, sharing their chroma.
//!
//! ```text
//! bytes:   Y0 Cb Y1 Cr | Y2 Cb Y3 Cr | ...
//! pixels:  (x=0) (x=1) | (x=2) (x=3) | ...     luma per pixel, chroma per pair
//! ```
//!
//! ```
//! use cortex_image::{ColorRange, Resolution, RgbImage, YuyvImage};
//! let rgb = RgbImage::filled(640, 480, [255, 255, 255]);
//! let yuyv = YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap();
//! assert_eq!(yuyv.resolution(), Resolution::Vga);
//! assert_eq!(yuyv.luma(10, 10), 255);
//! assert_eq!(yuyv.chroma(10, 10), (128, 128));
//! ```

mod camera;
mod color;
mod file_camera;
mod png_io;
mod rgb;
mod v4l2_camera;
mod yuyv;
mod yuyv_file;

pub use camera::{Camera, Frame};
pub use color::{rgb_to_ycbcr, ycbcr_to_rgb, ColorRange};
pub use file_camera::{FileCamera, FileCameraError, FileCameraOpenError, Pacing};
pub use png_io::{png_size, read_png, write_png, PngReadError, PngWriteError};
pub use rgb::{RgbImage, RgbImageError};
pub use v4l2_camera::{
    check_format, check_frame_interval, CameraSettings, CameraSettingsError, DriverFormat,
    FormatError, NegotiatedFormat, RESOLUTIONS,
};
#[cfg(feature = "robot")]
pub use v4l2_camera::{V4l2Camera, V4l2FrameError, V4l2OpenError};
pub use yuyv::{Resolution, YuyvImage, YuyvImageError};
pub use yuyv_file::{read_image_file, read_yuyv_file, write_yuyv_file, ImageFileError};
