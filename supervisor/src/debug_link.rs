//! The debug link's two ends in the `cortex` binary: the supervisor binds its TCP port (so that
//! the address is known before the `debug` process starts, logged at start-up and in
//! `cortex status --json` as `debug_url`, and stays the same across the process's restarts),
//! and the `debug` process serves it (`debug::Server`) from the channels the supervisor hands
//! out over the control socket, as `cortex get` gets them.
//!
//! ```text
//! cortex run: bind 0.0.0.0:8080 (--sim: 127.0.0.1, a port the kernel picks) ─fd─▶ cortex proc debug
//!   cortex proc debug: control socket `segments` ─▶ channels + health board ─▶ debug::Server
//!                      control socket `status`, `params`, `set` ◀─ debug::Control
//! ```

use crate::control::{self, Request};
use crate::program;
use anyhow::{Context, Result};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The inherited listening socket's descriptor (the `debug` process only).
pub const LISTENER_VARIABLE: &str = "CORTEX_DEBUG_LISTENER";
/// The run directory, whose control socket the `debug` process asks.
pub const RUN_DIR_VARIABLE: &str = "CORTEX_RUN_DIR";
/// The robot's port.
pub const ROBOT_PORT: u16 = 8080;

/// The supervisor's end: the bound port, handed to every `debug` process it starts.
#[derive(Debug)]
pub struct LinkSocket {
    /// The listening socket (the supervisor never accepts on it).
    pub listener: TcpListener,
    /// The run directory (its control socket).
    pub run_dir: PathBuf,
    /// The web view's address, `http://HOST:PORT/`.
    pub url: String,
}

impl LinkSocket {
    /// Hands the socket and the run directory to the `debug` process being started.
    pub fn pass_to<'a>(
        &'a self,
        command: &mut std::process::Command,
        fds: &mut Vec<BorrowedFd<'a>>,
    ) {
        fds.push(self.listener.as_fd());
        command.env(LISTENER_VARIABLE, self.listener.as_raw_fd().to_string());
        command.env(RUN_DIR_VARIABLE, &self.run_dir);
    }
}

/// Binds the debug link's port: `address` and `port` as given, else all interfaces and
/// [`ROBOT_PORT`] on the robot, loopback and a port the kernel picks with `--sim` (so that
/// instances side by side never collide).
pub fn bind(
    run_dir: &Path,
    sim: bool,
    address: Option<IpAddr>,
    port: Option<u16>,
) -> Result<LinkSocket> {
    let ip = address.unwrap_or(if sim {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else {
        IpAddr::V4(Ipv4Addr::UNSPECIFIED)
    });
    let port = port.unwrap_or(if sim { 0 } else { ROBOT_PORT });
    let listener = TcpListener::bind(SocketAddr::new(ip, port))
        .with_context(|| format!("binding the debug link's port {ip}:{port}"))?;
    let bound = listener.local_addr().context("the debug link's address")?;
    let host = if bound.ip().is_unspecified() {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|name| name.trim().to_owned())
            .ok()
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| "localhost".to_owned())
    } else if bound.ip().is_ipv6() {
        format!("[{}]", bound.ip())
    } else {
        bound.ip().to_string()
    };
    Ok(LinkSocket {
        listener,
        run_dir: run_dir.to_owned(),
        url: format!("http://{host}:{}/", bound.port()),
    })
}

/// The supervisor, reached over its control socket.
struct ControlSocket {
    run_dir: PathBuf,
}

impl debug::Control for ControlSocket {
    fn status(&self) -> Result<serde_json::Value, String> {
        control::request(&self.run_dir, &Request::Status).map_err(|error| format!("{error:#}"))
    }

    fn params(&self, module: &str) -> Result<serde_json::Value, String> {
        control::request(
            &self.run_dir,
            &Request::Params {
                module: module.to_owned(),
            },
        )
        .map_err(|error| format!("{error:#}"))
    }

    fn set(&self, assignment: &str) -> Result<serde_json::Value, String> {
        control::request(
            &self.run_dir,
            &Request::Set {
                assignment: assignment.to_owned(),
            },
        )
        .map_err(|error| format!("{error:#}"))
    }
}

/// A camera's plain-data image channel, held open by the link.
#[derive(Debug)]
struct ImageChannel(ipc::PodChannel<perception::image_channel::ImageHeader>);

impl debug::ChannelBuffer for ImageChannel {
    fn buffer(&self) -> &ipc::TripleBuffer {
        self.0.buffer()
    }
}

/// Width, height and the YUYV pixels of a camera channel's slot (`ImageHeader`: width and
/// height as the first two little-endian `u32`, the pixels after the header).
fn camera_yuyv(bytes: &[u8]) -> Result<debug::YuyvView<'_>, String> {
    let header = std::mem::size_of::<perception::image_channel::ImageHeader>();
    if bytes.len() < header {
        return Err(format!(
            "a slot of {} bytes is shorter than the image header ({header} bytes)",
            bytes.len()
        ));
    }
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Ok(debug::YuyvView {
        width: word(0) as usize,
        height: word(4) as usize,
        pixels: &bytes[header..],
    })
}

/// How long the `debug` process keeps asking for the segments while the supervisor starts.
const SEGMENTS_WAIT: Duration = Duration::from_secs(60);

/// In the `debug` process: serves the link on the inherited listener from a thread of its own
/// (the process's tick loop goes on beside it). Without the listener (a table that runs a debug
/// process by hand) it does nothing.
pub fn start_in_debug_process(graph: &framework::Graph) -> Result<()> {
    let Ok(fd) = std::env::var(LISTENER_VARIABLE) else {
        tracing::debug!("no {LISTENER_VARIABLE}: the debug link is off");
        return Ok(());
    };
    let fd: i32 = fd
        .parse()
        .with_context(|| format!("{LISTENER_VARIABLE}={fd}: not a descriptor"))?;
    let run_dir = PathBuf::from(
        std::env::var_os(RUN_DIR_VARIABLE)
            .with_context(|| format!("{RUN_DIR_VARIABLE} is not set"))?,
    );
    // SAFETY: the supervisor passed this descriptor (its listening socket) to this process
    // alone under this variable, and nothing else here owns or closes it.
    let listener = TcpListener::from(unsafe { OwnedFd::from_raw_fd(fd) });
    let processes: Vec<String> = graph
        .processes
        .iter()
        .map(|process| process.name.clone())
        .collect();
    let producers: Vec<(String, String)> = graph
        .channels
        .iter()
        .map(|channel| (channel.name.clone(), channel.producer.clone()))
        .collect();
    let modules: Vec<debug::ModuleEntry> = graph
        .processes
        .iter()
        .flat_map(|process| {
            process.order.iter().map(|step| debug::ModuleEntry {
                name: step.module.clone(),
                process: process.name.clone(),
                provides: step.representations.clone(),
            })
        })
        .collect();
    std::thread::Builder::new()
        .name("debug-link".into())
        .spawn(
            move || match serve(&run_dir, listener, &producers, &processes, modules) {
                Ok(server) => {
                    tracing::info!("debug link serving on {}", server.address());
                    // Serves until the process exits.
                    std::mem::forget(server);
                }
                Err(error) => tracing::error!("the debug link could not start: {error:#}"),
            },
        )
        .context("starting the debug link's thread")?;
    Ok(())
}

fn serve(
    run_dir: &Path,
    listener: TcpListener,
    producers: &[(String, String)],
    processes: &[String],
    modules: Vec<debug::ModuleEntry>,
) -> Result<debug::Server> {
    let (channels, health) = open_channels(run_dir, producers, processes, SEGMENTS_WAIT)?;
    let sources = debug::Sources {
        channels,
        modules,
        health,
        control: Box::new(ControlSocket {
            run_dir: run_dir.to_owned(),
        }),
    };
    Ok(debug::Server::start(
        listener,
        sources,
        debug::Limits::default(),
    )?)
}

/// The typed channels (and the cameras' image channels of `processes`) and the health board,
/// from the supervisor's `segments` (asked for up to `wait` while it starts): what the link and
/// the recorder (`cortex record`) read.
pub fn open_channels(
    run_dir: &Path,
    producers: &[(String, String)],
    processes: &[String],
    wait: Duration,
) -> Result<(Vec<debug::ChannelSource>, Option<ipc::HealthBoard>)> {
    // The supervisor answers `segments` once it has started every child.
    let deadline = Instant::now() + wait;
    let (list, fds) = loop {
        match control::segments(run_dir) {
            Ok(segments) => break segments,
            Err(error) if Instant::now() < deadline => {
                tracing::debug!("waiting for the segments: {error:#}");
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(error) => return Err(error.context("asking the supervisor for the segments")),
        }
    };
    let mut fds = fds.into_iter();
    let health = fds
        .next()
        .map(ipc::HealthBoard::from_fd)
        .transpose()
        .context("the health board")?;
    let registry = program::representations();
    let mut channels = Vec::new();
    for ((name, representation), fd) in list.channels.into_iter().zip(fds) {
        let Some(info) = registry.get(&representation) else {
            tracing::debug!(
                "channel {name}: {representation} is not a typed representation; left out"
            );
            continue;
        };
        let buffer = ipc::TripleBuffer::from_fd_with_schema(fd, info.schema_hash)
            .with_context(|| format!("channel `{name}`"))?;
        let producer = producers
            .iter()
            .find(|(channel, _)| *channel == name)
            .map_or_else(String::new, |(_, producer)| producer.clone());
        channels.push(debug::ChannelSource {
            name,
            representation,
            producer,
            kind: debug::ChannelKind::Encoded(Box::new(buffer)),
        });
    }
    if let Some(board) = &health {
        channels.extend(camera_channels(processes, board));
    }
    Ok((channels, health))
}

/// How long a camera that could not be found is not looked for again.
const CAMERA_RETRY: Duration = Duration::from_millis(500);

/// A camera's image channel, found in whichever process runs its perception now: the channel
/// is the perception process's own (`perception::image_channel`), so a restarted process or a
/// standby that took over publishes into a new one, found by its pid on the health board.
#[derive(Debug)]
struct CameraSource {
    camera: types::CameraName,
    process: String,
    board: ipc::HealthBoard,
    found: Mutex<Found>,
}

#[derive(Debug, Default)]
struct Found {
    channel: Option<(u32, Arc<ImageChannel>)>,
    failed: Option<(u32, Instant, String)>,
}

impl debug::ImageSource for CameraSource {
    fn current(&self) -> Result<Arc<dyn debug::ChannelBuffer>, String> {
        let pid = (0..self.board.slots())
            .filter_map(|slot| self.board.read(slot).ok().flatten())
            .find(|record| record.name() == self.process)
            .map(|record| record.pid)
            .filter(|pid| *pid != 0)
            .ok_or_else(|| format!("{} is not running", self.process))?;
        let mut found = self
            .found
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((known, channel)) = &found.channel {
            if *known == pid {
                return Ok(channel.clone());
            }
        }
        if let Some((failed_pid, at, message)) = &found.failed {
            if *failed_pid == pid && at.elapsed() < CAMERA_RETRY {
                return Err(message.clone());
            }
        }
        match perception::image_channel::open_of_process(pid, self.camera) {
            Ok(channel) => {
                let channel = Arc::new(ImageChannel(channel));
                found.channel = Some((pid, channel.clone()));
                found.failed = None;
                Ok(channel)
            }
            Err(error) => {
                let message = error.to_string();
                found.failed = Some((pid, Instant::now(), message.clone()));
                Err(message)
            }
        }
    }
}

/// The cameras' image channels of the perception processes in the table.
fn camera_channels(
    graph_processes: &[String],
    board: &ipc::HealthBoard,
) -> Vec<debug::ChannelSource> {
    let mut channels = Vec::new();
    for camera in [types::CameraName::Upper, types::CameraName::Lower] {
        let process = format!("perception.{}", camera.as_str());
        if !graph_processes.contains(&process) {
            continue;
        }
        let board = match board
            .as_fd()
            .try_clone_to_owned()
            .map_err(|error| error.to_string())
            .and_then(|fd| ipc::HealthBoard::from_fd(fd).map_err(|error| error.to_string()))
        {
            Ok(board) => board,
            Err(error) => {
                tracing::warn!("no images of {process}: the health board: {error}");
                continue;
            }
        };
        channels.push(debug::ChannelSource {
            name: perception::image_channel::channel_name(camera),
            representation: "CameraImage.pixels".into(),
            producer: process.clone(),
            kind: debug::ChannelKind::Image(debug::ImageLayout {
                yuyv: camera_yuyv,
                source: Box::new(CameraSource {
                    camera,
                    process,
                    board,
                    found: Mutex::new(Found::default()),
                }),
            }),
        });
    }
    channels
}
