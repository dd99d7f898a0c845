//! The few V4L2 (and UVC extension-unit) structures and requests the camera uses, written out
//! from `linux/videodev2.h` and `linux/uvcvideo.h` (64-bit layout; the unit test checks sizes
//! and request numbers against the values those headers give), and one `ioctl` wrapper.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

pub const PIXEL_FORMAT_YUYV: u32 = u32::from_le_bytes(*b"YUYV");
pub const BUFFER_TYPE_VIDEO_CAPTURE: u32 = 1;
pub const MEMORY_MMAP: u32 = 1;
pub const FIELD_NONE: u32 = 1;
pub const CAPABILITY_VIDEO_CAPTURE: u32 = 0x1;
pub const CAPABILITY_STREAMING: u32 = 0x0400_0000;
pub const CAPABILITY_DEVICE_CAPS: u32 = 0x8000_0000;
pub const BUFFER_FLAG_TIMESTAMP_MASK: u32 = 0xe000;
pub const BUFFER_FLAG_TIMESTAMP_MONOTONIC: u32 = 0x2000;
pub const BUFFER_FLAG_ERROR: u32 = 0x40;

pub const CONTROL_BRIGHTNESS: u32 = 0x0098_0900;
pub const CONTROL_CONTRAST: u32 = 0x0098_0901;
pub const CONTROL_SATURATION: u32 = 0x0098_0902;
pub const CONTROL_HUE: u32 = 0x0098_0903;
pub const CONTROL_AUTO_WHITE_BALANCE: u32 = 0x0098_090c;
pub const CONTROL_GAIN: u32 = 0x0098_0913;
pub const CONTROL_HORIZONTAL_FLIP: u32 = 0x0098_0914;
pub const CONTROL_VERTICAL_FLIP: u32 = 0x0098_0915;
pub const CONTROL_WHITE_BALANCE_TEMPERATURE: u32 = 0x0098_091a;
pub const CONTROL_SHARPNESS: u32 = 0x0098_091b;
pub const CONTROL_EXPOSURE_AUTO: u32 = 0x009a_0901;
pub const CONTROL_EXPOSURE_ABSOLUTE: u32 = 0x009a_0902;
/// `V4L2_EXPOSURE_AUTO` and `V4L2_EXPOSURE_MANUAL`.
pub const EXPOSURE_AUTO: i32 = 0;
pub const EXPOSURE_MANUAL: i32 = 1;

/// The NAO's cameras flip through selectors of the UVC extension unit 3 (HULKs and B-Human do
/// the same): 0x0c horizontal, 0x0d vertical, a 16-bit value.
pub const NAO_EXTENSION_UNIT: u8 = 3;
pub const NAO_SELECTOR_HORIZONTAL_FLIP: u8 = 0x0c;
pub const NAO_SELECTOR_VERTICAL_FLIP: u8 = 0x0d;
pub const UVC_SET_CURRENT: u8 = 0x01;

const fn request(direction: u64, kind: u8, number: u8, size: usize) -> u64 {
    (direction << 30) | ((size as u64) << 16) | ((kind as u64) << 8) | number as u64
}
const READ: u64 = 2;
const WRITE: u64 = 1;
const READ_WRITE: u64 = 3;

pub const QUERY_CAPABILITY: u64 = request(READ, b'V', 0, size_of::<Capability>());
pub const SET_FORMAT: u64 = request(READ_WRITE, b'V', 5, size_of::<Format>());
pub const REQUEST_BUFFERS: u64 = request(READ_WRITE, b'V', 8, size_of::<RequestBuffers>());
pub const QUERY_BUFFER: u64 = request(READ_WRITE, b'V', 9, size_of::<Buffer>());
pub const QUEUE_BUFFER: u64 = request(READ_WRITE, b'V', 15, size_of::<Buffer>());
pub const DEQUEUE_BUFFER: u64 = request(READ_WRITE, b'V', 17, size_of::<Buffer>());
pub const STREAM_ON: u64 = request(WRITE, b'V', 18, size_of::<i32>());
pub const STREAM_OFF: u64 = request(WRITE, b'V', 19, size_of::<i32>());
pub const SET_PARAMETERS: u64 = request(READ_WRITE, b'V', 22, size_of::<StreamParameters>());
pub const SET_CONTROL: u64 = request(READ_WRITE, b'V', 28, size_of::<Control>());
pub const UVC_EXTENSION_QUERY: u64 =
    request(READ_WRITE, b'u', 0x21, size_of::<ExtensionUnitQuery>());

/// `struct v4l2_capability`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Capability {
    pub driver: [u8; 16],
    pub card: [u8; 32],
    pub bus_info: [u8; 32],
    pub version: u32,
    pub capabilities: u32,
    pub device_caps: u32,
    pub reserved: [u32; 3],
}

/// `struct v4l2_pix_format`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PixelFormat {
    pub width: u32,
    pub height: u32,
    pub pixel_format: u32,
    pub field: u32,
    pub bytes_per_line: u32,
    pub size_image: u32,
    pub colorspace: u32,
    pub private: u32,
    pub flags: u32,
    pub ycbcr_encoding: u32,
    pub quantization: u32,
    pub transfer_function: u32,
}

/// The union of `struct v4l2_format` (200 bytes, 8-aligned: some members hold pointers).
#[repr(C)]
#[derive(Clone, Copy)]
pub union FormatUnion {
    pub pixel: PixelFormat,
    pub raw: [u64; 25],
}

/// `struct v4l2_format`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Format {
    pub buffer_type: u32,
    pub format: FormatUnion,
}

/// `struct v4l2_requestbuffers`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestBuffers {
    pub count: u32,
    pub buffer_type: u32,
    pub memory: u32,
    pub capabilities: u32,
    pub flags: u8,
    pub reserved: [u8; 3],
}

/// `struct timeval` (64-bit).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct TimeValue {
    pub seconds: i64,
    pub microseconds: i64,
}

/// `struct v4l2_buffer` (the memory union holds the mmap offset in its low 32 bits).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Buffer {
    pub index: u32,
    pub buffer_type: u32,
    pub bytes_used: u32,
    pub flags: u32,
    pub field: u32,
    pub timestamp: TimeValue,
    pub timecode: [u32; 4],
    pub sequence: u32,
    pub memory: u32,
    pub offset: u64,
    pub length: u32,
    pub reserved2: u32,
    pub request_fd: i32,
}

/// `struct v4l2_captureparm` inside `struct v4l2_streamparm` (204 bytes, 4-aligned).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StreamParameters {
    pub buffer_type: u32,
    pub capability: u32,
    pub capture_mode: u32,
    /// `timeperframe`: seconds per frame as a fraction.
    pub numerator: u32,
    pub denominator: u32,
    pub extended_mode: u32,
    pub read_buffers: u32,
    pub reserved: [u32; 4],
    pub rest: [u8; 160],
}

/// `struct v4l2_control`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Control {
    pub id: u32,
    pub value: i32,
}

/// `struct uvc_xu_control_query`.
#[repr(C)]
#[derive(Debug)]
pub struct ExtensionUnitQuery {
    pub unit: u8,
    pub selector: u8,
    pub query: u8,
    pub size: u16,
    pub data: *mut u8,
}

/// `ioctl(fd, request, argument)`, retried on EINTR.
///
/// # Safety
/// `argument` must be the structure `request` reads and writes (its size is encoded in the
/// request, and the kernel accesses exactly that many bytes through the pointer).
pub unsafe fn ioctl<T>(fd: BorrowedFd<'_>, request: u64, argument: &mut T) -> io::Result<()> {
    loop {
        // SAFETY: the caller guarantees that `argument` is the structure `request` expects; the
        // pointer is valid for the call's duration (a live `&mut`). `request as _` adapts to
        // the libc's type for the request (c_ulong on glibc, c_int on musl).
        let result = unsafe {
            libc::ioctl(
                fd.as_raw_fd(),
                request as _,
                argument as *mut T as *mut libc::c_void,
            )
        };
        if result != -1 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes and request numbers `linux/videodev2.h` and `linux/uvcvideo.h` give on a
    /// 64-bit machine (printed by a C program against the headers when this was written).
    #[test]
    fn layouts_and_requests_match_the_kernel_headers() {
        assert_eq!(size_of::<Capability>(), 104);
        assert_eq!(size_of::<PixelFormat>(), 48);
        assert_eq!(size_of::<Format>(), 208);
        assert_eq!(std::mem::offset_of!(Format, format), 8);
        assert_eq!(size_of::<RequestBuffers>(), 20);
        assert_eq!(size_of::<Buffer>(), 88);
        assert_eq!(std::mem::offset_of!(Buffer, timestamp), 24);
        assert_eq!(std::mem::offset_of!(Buffer, sequence), 56);
        assert_eq!(std::mem::offset_of!(Buffer, offset), 64);
        assert_eq!(std::mem::offset_of!(Buffer, length), 72);
        assert_eq!(size_of::<StreamParameters>(), 204);
        assert_eq!(size_of::<Control>(), 8);
        assert_eq!(size_of::<ExtensionUnitQuery>(), 16);
        assert_eq!(std::mem::offset_of!(ExtensionUnitQuery, size), 4);
        assert_eq!(QUERY_CAPABILITY, 0x8068_5600);
        assert_eq!(SET_FORMAT, 0xc0d0_5605);
        assert_eq!(REQUEST_BUFFERS, 0xc014_5608);
        assert_eq!(QUERY_BUFFER, 0xc058_5609);
        assert_eq!(QUEUE_BUFFER, 0xc058_560f);
        assert_eq!(DEQUEUE_BUFFER, 0xc058_5611);
        assert_eq!(STREAM_ON, 0x4004_5612);
        assert_eq!(STREAM_OFF, 0x4004_5613);
        assert_eq!(SET_PARAMETERS, 0xc0cc_5616);
        assert_eq!(SET_CONTROL, 0xc008_561c);
        assert_eq!(UVC_EXTENSION_QUERY, 0xc010_7521);
        assert_eq!(PIXEL_FORMAT_YUYV, 0x5659_5559);
    }
}
