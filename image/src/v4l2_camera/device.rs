//! `V4l2Camera`: one NAO camera streaming YUYV frames through three memory-mapped buffers.

use super::ioctl::{self, Buffer, Capability, Control, ExtensionUnitQuery, Format, FormatUnion};
use super::{
    check_format, check_frame_interval, CameraSettings, CameraSettingsError, DriverFormat,
    FormatError, NegotiatedFormat,
};
use crate::camera::{Camera, Frame};
use crate::yuyv::YuyvImage;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::time::{Duration, Instant};

/// Opening, configuring or starting a camera failed.
#[derive(Debug, thiserror::Error)]
pub enum V4l2OpenError {
    #[error("camera {device}: {source}")]
    Settings {
        device: String,
        source: CameraSettingsError,
    },
    #[error("camera {device}: cannot open the device: {source}")]
    Open { device: String, source: io::Error },
    #[error("camera {device}: not a V4L2 device (VIDIOC_QUERYCAP: {source})")]
    NotV4l2 { device: String, source: io::Error },
    #[error("camera {device}: driver {driver:?} cannot stream video capture (capabilities {capabilities:#x})")]
    NotACaptureDevice {
        device: String,
        driver: String,
        capabilities: u32,
    },
    #[error("camera {device}: the driver refused {request}: {source}")]
    Refused {
        device: String,
        request: &'static str,
        source: io::Error,
    },
    #[error("camera {device}: {source}")]
    Format { device: String, source: FormatError },
    #[error("camera {device}: the driver refused control `{key}` = {value}: {source}")]
    Control {
        device: String,
        key: &'static str,
        value: i32,
        source: io::Error,
    },
    #[error("camera {device}: the driver granted {granted} buffers, at least 2 are needed")]
    Buffers { device: String, granted: u32 },
    #[error("camera {device}: cannot map buffer {index}: {source}")]
    Map {
        device: String,
        index: u32,
        source: io::Error,
    },
}

/// Taking one frame failed; the camera goes on with the next call unless it vanished.
#[derive(Debug, thiserror::Error)]
pub enum V4l2FrameError {
    #[error("camera {device}: the device is gone (unplugged or its driver reset)")]
    Vanished { device: String },
    #[error("camera {device}: no frame for {timeout_ms} ms (stalled)")]
    Stalled { device: String, timeout_ms: u64 },
    #[error("camera {device}: {request} failed: {source}")]
    Driver {
        device: String,
        request: &'static str,
        source: io::Error,
    },
    #[error("camera {device}: frame {sequence} is corrupt ({reason})")]
    Corrupt {
        device: String,
        sequence: u64,
        reason: String,
    },
}

struct MappedBuffer {
    pointer: *mut u8,
    length: usize,
}

/// A V4L2 camera streaming YUYV frames. Dropping it stops the stream and unmaps the buffers.
pub struct V4l2Camera {
    file: File,
    device: String,
    format: NegotiatedFormat,
    buffers: Vec<MappedBuffer>,
    timeout: Duration,
    sequence: u64,
}

impl std::fmt::Debug for V4l2Camera {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("V4l2Camera")
            .field("device", &self.device)
            .field("format", &self.format)
            .field("buffers", &self.buffers.len())
            .field("sequence", &self.sequence)
            .finish()
    }
}

// SAFETY: the mapped buffers belong to this camera alone (mapped in `open`, unmapped in `drop`)
// and are only read through `&mut self`; moving the camera to another thread moves that
// exclusive ownership with it.
unsafe impl Send for V4l2Camera {}

fn name_of(bytes: &[u8]) -> String {
    let end = bytes
        .iter()
        .position(|&byte| byte == 0)
        .unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

impl V4l2Camera {
    /// Opens the camera of `settings`, sets its format, frame rate and controls, and starts
    /// streaming.
    pub fn open(settings: &CameraSettings) -> Result<Self, V4l2OpenError> {
        let device = settings.device.display().to_string();
        settings
            .validate()
            .map_err(|source| V4l2OpenError::Settings {
                device: device.clone(),
                source,
            })?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&settings.device)
            .map_err(|source| V4l2OpenError::Open {
                device: device.clone(),
                source,
            })?;
        let refused = |request: &'static str| {
            let device = device.clone();
            move |source| V4l2OpenError::Refused {
                device,
                request,
                source,
            }
        };
        let mut capability = Capability::default();
        // SAFETY: QUERYCAP writes a `struct v4l2_capability`, which `Capability` is.
        unsafe { ioctl::ioctl(file.as_fd(), ioctl::QUERY_CAPABILITY, &mut capability) }.map_err(
            |source| V4l2OpenError::NotV4l2 {
                device: device.clone(),
                source,
            },
        )?;
        let capabilities = if capability.capabilities & ioctl::CAPABILITY_DEVICE_CAPS != 0 {
            capability.device_caps
        } else {
            capability.capabilities
        };
        let wanted = ioctl::CAPABILITY_VIDEO_CAPTURE | ioctl::CAPABILITY_STREAMING;
        let driver = name_of(&capability.driver);
        if capabilities & wanted != wanted {
            return Err(V4l2OpenError::NotACaptureDevice {
                device,
                driver,
                capabilities,
            });
        }
        let format = set_format(&file, settings).map_err(|error| match error {
            Ok(source) => V4l2OpenError::Format {
                device: device.clone(),
                source,
            },
            Err(source) => refused("VIDIOC_S_FMT (YUYV)")(source),
        })?;
        let mut parameters = ioctl::StreamParameters {
            buffer_type: ioctl::BUFFER_TYPE_VIDEO_CAPTURE,
            capability: 0,
            capture_mode: 0,
            numerator: 1,
            denominator: settings.frames_per_second,
            extended_mode: 0,
            read_buffers: 0,
            reserved: [0; 4],
            rest: [0; 160],
        };
        // SAFETY: S_PARM reads and writes a `struct v4l2_streamparm`, which this is.
        unsafe { ioctl::ioctl(file.as_fd(), ioctl::SET_PARAMETERS, &mut parameters) }
            .map_err(refused("VIDIOC_S_PARM (frame rate)"))?;
        check_frame_interval(
            settings.frames_per_second,
            parameters.numerator,
            parameters.denominator,
        )
        .map_err(|source| V4l2OpenError::Format {
            device: device.clone(),
            source,
        })?;
        set_controls(&file, settings, &driver).map_err(|(key, value, source)| {
            V4l2OpenError::Control {
                device: device.clone(),
                key,
                value,
                source,
            }
        })?;
        let mut camera = Self {
            file,
            device,
            format,
            buffers: Vec::new(),
            timeout: Duration::from_millis(settings.frame_timeout_ms.into()),
            sequence: 0,
        };
        camera.start(settings.buffers)?;
        Ok(camera)
    }

    /// The negotiated frame layout.
    pub fn format(&self) -> NegotiatedFormat {
        self.format
    }

    fn start(&mut self, count: u32) -> Result<(), V4l2OpenError> {
        let mut request = ioctl::RequestBuffers {
            count,
            buffer_type: ioctl::BUFFER_TYPE_VIDEO_CAPTURE,
            memory: ioctl::MEMORY_MMAP,
            ..Default::default()
        };
        let refused = |request: &'static str, source| V4l2OpenError::Refused {
            device: self.device.clone(),
            request,
            source,
        };
        // SAFETY: REQBUFS reads and writes a `struct v4l2_requestbuffers`, which this is.
        unsafe { ioctl::ioctl(self.file.as_fd(), ioctl::REQUEST_BUFFERS, &mut request) }
            .map_err(|source| refused("VIDIOC_REQBUFS (mmap)", source))?;
        if request.count < 2 {
            return Err(V4l2OpenError::Buffers {
                device: self.device.clone(),
                granted: request.count,
            });
        }
        for index in 0..request.count {
            let mut buffer = self.empty_buffer(index);
            // SAFETY: QUERYBUF reads and writes a `struct v4l2_buffer`, which `Buffer` is.
            unsafe { ioctl::ioctl(self.file.as_fd(), ioctl::QUERY_BUFFER, &mut buffer) }
                .map_err(|source| refused("VIDIOC_QUERYBUF", source))?;
            // SAFETY: maps `length` bytes of the device at the offset the driver gave for this
            // buffer; the kernel checks both, and a failure is MAP_FAILED (handled below).
            let pointer = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    buffer.length as usize,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    self.file.as_raw_fd(),
                    (buffer.offset & 0xffff_ffff) as libc::off_t,
                )
            };
            if pointer == libc::MAP_FAILED {
                return Err(V4l2OpenError::Map {
                    device: self.device.clone(),
                    index,
                    source: io::Error::last_os_error(),
                });
            }
            self.buffers.push(MappedBuffer {
                pointer: pointer.cast(),
                length: buffer.length as usize,
            });
            // SAFETY: QBUF reads and writes a `struct v4l2_buffer`.
            unsafe { ioctl::ioctl(self.file.as_fd(), ioctl::QUEUE_BUFFER, &mut buffer) }
                .map_err(|source| refused("VIDIOC_QBUF", source))?;
        }
        let mut buffer_type = ioctl::BUFFER_TYPE_VIDEO_CAPTURE as i32;
        // SAFETY: STREAMON reads an `int` buffer type.
        unsafe { ioctl::ioctl(self.file.as_fd(), ioctl::STREAM_ON, &mut buffer_type) }
            .map_err(|source| refused("VIDIOC_STREAMON", source))
    }

    fn empty_buffer(&self, index: u32) -> Buffer {
        Buffer {
            index,
            buffer_type: ioctl::BUFFER_TYPE_VIDEO_CAPTURE,
            memory: ioctl::MEMORY_MMAP,
            ..Default::default()
        }
    }

    fn driver_error(&self, request: &'static str, source: io::Error) -> V4l2FrameError {
        if source.raw_os_error() == Some(libc::ENODEV) {
            V4l2FrameError::Vanished {
                device: self.device.clone(),
            }
        } else {
            V4l2FrameError::Driver {
                device: self.device.clone(),
                request,
                source,
            }
        }
    }

    /// Waits (at most the frame timeout) for a filled buffer and dequeues it.
    fn dequeue(&mut self) -> Result<Buffer, V4l2FrameError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            let mut poll = libc::pollfd {
                fd: self.file.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid `pollfd` for the duration of the call.
            let ready = unsafe { libc::poll(&mut poll, 1, remaining.as_millis() as libc::c_int) };
            if ready == -1 {
                let error = io::Error::last_os_error();
                if error.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(self.driver_error("poll", error));
            }
            if ready == 0 {
                return Err(V4l2FrameError::Stalled {
                    device: self.device.clone(),
                    timeout_ms: self.timeout.as_millis() as u64,
                });
            }
            // Readable or an error condition: DQBUF says which (ENODEV when the device is gone).
            let mut buffer = self.empty_buffer(0);
            // SAFETY: DQBUF reads and writes a `struct v4l2_buffer`.
            match unsafe { ioctl::ioctl(self.file.as_fd(), ioctl::DEQUEUE_BUFFER, &mut buffer) } {
                Ok(()) => return Ok(buffer),
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    if poll.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0 {
                        return Err(V4l2FrameError::Vanished {
                            device: self.device.clone(),
                        });
                    }
                }
                Err(error) => return Err(self.driver_error("VIDIOC_DQBUF", error)),
            }
        }
    }

    /// The frame in a dequeued buffer, copied out (rows without the driver's padding).
    fn copy_frame(&self, buffer: &Buffer) -> Result<YuyvImage, String> {
        let mapped = self
            .buffers
            .get(buffer.index as usize)
            .ok_or_else(|| format!("the driver returned unknown buffer {}", buffer.index))?;
        if buffer.flags & ioctl::BUFFER_FLAG_ERROR != 0 {
            return Err("the driver flagged it as damaged".to_owned());
        }
        let (width, height) = (self.format.width as usize, self.format.height as usize);
        let stride = self.format.bytes_per_line as usize;
        let needed = stride * (height - 1) + 2 * width;
        let used = (buffer.bytes_used as usize).min(mapped.length);
        if used < needed {
            return Err(format!("{used} bytes of the {needed} a frame needs"));
        }
        // SAFETY: the mapping is `mapped.length` bytes long and stays mapped while `self`
        // lives; the driver handed this buffer back (DQBUF), so it does not write it until it
        // is queued again, after this copy.
        let bytes = unsafe { std::slice::from_raw_parts(mapped.pointer, used) };
        let mut data = Vec::with_capacity(2 * width * height);
        for row in 0..height {
            data.extend_from_slice(&bytes[row * stride..row * stride + 2 * width]);
        }
        YuyvImage::new(width, height, data).map_err(|error| error.to_string())
    }
}

/// When the driver took the frame, as an `Instant` (a monotonic driver timestamp is on the
/// same clock as `Instant`); now when the driver gives no monotonic timestamp.
fn capture_instant(buffer: &Buffer) -> Instant {
    let now = Instant::now();
    if buffer.flags & ioctl::BUFFER_FLAG_TIMESTAMP_MASK != ioctl::BUFFER_FLAG_TIMESTAMP_MONOTONIC {
        return now;
    }
    let mut clock = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid `timespec` to write to.
    if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut clock) } != 0 {
        return now;
    }
    let monotonic_ns = i128::from(clock.tv_sec) * 1_000_000_000 + i128::from(clock.tv_nsec);
    let taken_ns = i128::from(buffer.timestamp.seconds) * 1_000_000_000
        + i128::from(buffer.timestamp.microseconds) * 1000;
    let age_ns = (monotonic_ns - taken_ns).clamp(0, 10_000_000_000);
    now.checked_sub(Duration::from_nanos(age_ns as u64))
        .unwrap_or(now)
}

impl Camera for V4l2Camera {
    type Error = V4l2FrameError;

    fn next_frame(&mut self) -> Result<Option<Frame>, V4l2FrameError> {
        let mut buffer = self.dequeue()?;
        let sequence = self.sequence;
        self.sequence += 1;
        let captured_at = capture_instant(&buffer);
        let image = self.copy_frame(&buffer);
        // SAFETY: QBUF reads and writes a `struct v4l2_buffer` (the one just dequeued).
        unsafe { ioctl::ioctl(self.file.as_fd(), ioctl::QUEUE_BUFFER, &mut buffer) }
            .map_err(|error| self.driver_error("VIDIOC_QBUF", error))?;
        let image = image.map_err(|reason| V4l2FrameError::Corrupt {
            device: self.device.clone(),
            sequence,
            reason,
        })?;
        Ok(Some(Frame {
            image,
            sequence,
            captured_at,
            source: self.device.clone(),
        }))
    }
}

impl Drop for V4l2Camera {
    fn drop(&mut self) {
        let mut buffer_type = ioctl::BUFFER_TYPE_VIDEO_CAPTURE as i32;
        // SAFETY: STREAMOFF reads an `int` buffer type. A failure (device gone) changes
        // nothing: closing the file releases the stream too.
        let _ = unsafe { ioctl::ioctl(self.file.as_fd(), ioctl::STREAM_OFF, &mut buffer_type) };
        for buffer in &self.buffers {
            // SAFETY: each mapping was made in `start` with this pointer and length, and no
            // slice of it outlives `copy_frame`.
            unsafe { libc::munmap(buffer.pointer.cast(), buffer.length) };
        }
    }
}

/// Asks for YUYV at the configured size: Err(Ok(..)) when the answer differs, Err(Err(..)) when
/// the ioctl fails.
fn set_format(
    file: &File,
    settings: &CameraSettings,
) -> Result<NegotiatedFormat, Result<FormatError, io::Error>> {
    let mut format = Format {
        buffer_type: ioctl::BUFFER_TYPE_VIDEO_CAPTURE,
        format: FormatUnion { raw: [0; 25] },
    };
    format.format.pixel = ioctl::PixelFormat {
        width: settings.width,
        height: settings.height,
        pixel_format: ioctl::PIXEL_FORMAT_YUYV,
        field: ioctl::FIELD_NONE,
        ..Default::default()
    };
    // SAFETY: S_FMT reads and writes a `struct v4l2_format`, which `Format` is.
    unsafe { ioctl::ioctl(file.as_fd(), ioctl::SET_FORMAT, &mut format) }.map_err(Err)?;
    // SAFETY: the driver answers a video-capture format in the `pix` member.
    let answered = unsafe { format.format.pixel };
    check_format(
        settings,
        &DriverFormat {
            width: answered.width,
            height: answered.height,
            pixel_format: answered.pixel_format,
            field: answered.field,
            bytes_per_line: answered.bytes_per_line,
            size_image: answered.size_image,
        },
    )
    .map_err(Ok)
}

/// Sets every control the settings give, in order; the first refusal names its key.
fn set_controls(
    file: &File,
    settings: &CameraSettings,
    driver: &str,
) -> Result<(), (&'static str, i32, io::Error)> {
    let flag = |value: Option<bool>| value.map(i32::from);
    let exposure_mode = settings.exposure_auto.map(|automatic| {
        if automatic {
            ioctl::EXPOSURE_AUTO
        } else {
            ioctl::EXPOSURE_MANUAL
        }
    });
    let controls = [
        ("exposure_auto", ioctl::CONTROL_EXPOSURE_AUTO, exposure_mode),
        (
            "exposure",
            ioctl::CONTROL_EXPOSURE_ABSOLUTE,
            settings.exposure,
        ),
        ("gain", ioctl::CONTROL_GAIN, settings.gain),
        (
            "white_balance_auto",
            ioctl::CONTROL_AUTO_WHITE_BALANCE,
            flag(settings.white_balance_auto),
        ),
        (
            "white_balance_temperature",
            ioctl::CONTROL_WHITE_BALANCE_TEMPERATURE,
            settings.white_balance_temperature,
        ),
        ("brightness", ioctl::CONTROL_BRIGHTNESS, settings.brightness),
        ("contrast", ioctl::CONTROL_CONTRAST, settings.contrast),
        ("saturation", ioctl::CONTROL_SATURATION, settings.saturation),
        ("hue", ioctl::CONTROL_HUE, settings.hue),
        ("sharpness", ioctl::CONTROL_SHARPNESS, settings.sharpness),
    ];
    for (key, id, value) in controls {
        if let Some(value) = value {
            let mut control = Control { id, value };
            // SAFETY: S_CTRL reads and writes a `struct v4l2_control`.
            unsafe { ioctl::ioctl(file.as_fd(), ioctl::SET_CONTROL, &mut control) }
                .map_err(|error| (key, value, error))?;
        }
    }
    let flips = [
        (
            "horizontal_flip",
            settings.horizontal_flip,
            ioctl::NAO_SELECTOR_HORIZONTAL_FLIP,
            ioctl::CONTROL_HORIZONTAL_FLIP,
        ),
        (
            "vertical_flip",
            settings.vertical_flip,
            ioctl::NAO_SELECTOR_VERTICAL_FLIP,
            ioctl::CONTROL_VERTICAL_FLIP,
        ),
    ];
    for (key, flipped, selector, control_id) in flips {
        let value = i32::from(flipped);
        if driver == "uvcvideo" {
            // The NAO's UVC bridge: the extension unit, set either way (the sensor keeps the
            // last value across processes).
            let mut data = (value as u16).to_le_bytes();
            let mut query = ExtensionUnitQuery {
                unit: ioctl::NAO_EXTENSION_UNIT,
                selector,
                query: ioctl::UVC_SET_CURRENT,
                size: data.len() as u16,
                data: data.as_mut_ptr(),
            };
            // SAFETY: UVCIOC_CTRL_QUERY reads a `struct uvc_xu_control_query` whose `data`
            // points to `size` bytes that live across the call.
            unsafe { ioctl::ioctl(file.as_fd(), ioctl::UVC_EXTENSION_QUERY, &mut query) }
                .map_err(|error| (key, value, error))?;
        } else if flipped {
            let mut control = Control {
                id: control_id,
                value,
            };
            // SAFETY: S_CTRL reads and writes a `struct v4l2_control`.
            unsafe { ioctl::ioctl(file.as_fd(), ioctl::SET_CONTROL, &mut control) }
                .map_err(|error| (key, value, error))?;
        }
    }
    Ok(())
}
