//! One camera image over plain HTTP (`GET /image/CHANNEL.jpg`): what the web view's `<img>`
//! elements and `curl` ask for. The channel is watched for the request only.

use crate::http::{self, Head};
use crate::server::Shared;
use crate::sources::{ChannelKind, Sources};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// `GET /image/CHANNEL.jpg[?quality=Q]`: watches the channel, takes its next image (or the
/// newest after a short wait) and answers it as one JPEG.
pub fn serve(stream: &mut TcpStream, shared: &Shared, channel: &str, head: &Head) {
    let sources = &shared.sources;
    let Some((_, source)) = sources.channel(channel) else {
        shared.counters.bad_http.fetch_add(1, Ordering::Relaxed);
        http::respond_error(stream, "404 Not Found", &no_image_channel(sources, channel));
        return;
    };
    let ChannelKind::Image(layout) = &source.kind else {
        shared.counters.bad_http.fetch_add(1, Ordering::Relaxed);
        http::respond_error(
            stream,
            "400 Bad Request",
            &format!(
                "`{channel}` carries {}, not a camera image",
                source.representation
            ),
        );
        return;
    };
    let quality = head
        .query
        .as_deref()
        .and_then(|query| {
            query
                .split('&')
                .find_map(|pair| pair.strip_prefix("quality="))
        })
        .and_then(|value| value.parse::<u8>().ok())
        .unwrap_or(75);
    let current = match layout.source.current() {
        Ok(current) => current,
        Err(message) => {
            http::respond_error(
                stream,
                "503 Service Unavailable",
                &format!("`{channel}`: {message}"),
            );
            return;
        }
    };
    let mut reader = current.buffer().reader();
    let before = reader.published();
    reader.watch(ipc::health::monotonic_ns() + shared.limits.lease.as_nanos() as u64);
    let _ = reader.wait_newer(before, Duration::from_millis(200));
    let mut bytes = Vec::new();
    match reader.read_latest(&mut bytes) {
        Ok(Some(_)) => {}
        Ok(None) => {
            http::respond_error(
                stream,
                "503 Service Unavailable",
                &format!("`{channel}` has no image yet (is its perception process running?)"),
            );
            return;
        }
        Err(error) => {
            http::respond_error(stream, "500 Internal Server Error", &error.to_string());
            return;
        }
    }
    let encoded = (layout.yuyv)(&bytes)
        .map_err(|message| format!("`{channel}`: {message}"))
        .and_then(|view| {
            crate::jpeg::encode_yuyv(&view, quality, &mut Vec::new())
                .map_err(|error| format!("`{channel}`: {error}"))
        });
    match encoded {
        Ok(jpeg) => http::respond(stream, "200 OK", "image/jpeg", &jpeg),
        Err(message) => http::respond_error(stream, "500 Internal Server Error", &message),
    }
}

/// The message for an image request naming no image channel.
pub fn no_image_channel(sources: &Sources, channel: &str) -> String {
    let images: Vec<&str> = sources
        .channels
        .iter()
        .filter(|source| source.is_image())
        .map(|source| source.name.as_str())
        .collect();
    if images.is_empty() {
        format!(
            "no camera images: `{channel}` is not a channel, and this instance has no image \
             channel (no perception process publishes one)"
        )
    } else {
        format!(
            "no image channel `{channel}`; the image channels are: {}",
            images.join(", ")
        )
    }
}
