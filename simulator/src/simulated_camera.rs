//! [`SimulatedCamera`]: a NAO head camera in the simulated world, as a
//! [`cortex_image::Camera`] — so that perception cannot tell it from the robot's.
//!
//! ```
//! use cortex_image::{Camera, Resolution};
//! use simulator::scene::{CameraPosition, SimulatedScene};
//! use simulator::simulated_camera::SimulatedCamera;
//!
//! let mut camera = SimulatedCamera::new(CameraPosition::Upper, Resolution::Vga, 7);
//! let mut truth = types::GroundTruth::default();
//! truth.robot.x = -1.5; // the ball (at the centre spot) 1.5 m ahead
//! camera.set_scene(SimulatedScene::standing(truth));
//! let frame = camera.next_frame().unwrap().expect("a camera never ends");
//! assert_eq!((frame.image.width(), frame.image.height()), (640, 480));
//! ```
//!
//! Each frame ray-casts the scene ([`crate::render`]) from the camera's pose (robot pose, torso,
//! head joints, the NAO v6 camera mounting and intrinsics), the robot's own legs included (seen
//! at the bottom of the lower camera's image when the head looks down), then adds what a real sensor adds:
//! a brightness and colour cast that change from frame to frame, noise on every pixel, and a
//! rolling ball smeared along its path over the exposure time (15 ms by default). The light and
//! noise come from a seeded generator, so a camera made with the same seed and given the same
//! scenes delivers the same bytes. [`SimulatedCamera::next_frame`] paces frames at 30 Hz like the
//! robot's cameras; [`SimulatedCamera::render`] renders at once (tests, benches).

use std::convert::Infallible;
use std::time::{Duration, Instant};

use cortex_image::{Camera, Frame, Resolution, YuyvImage};

use crate::render::{ChromaSampling, FrameGeometry, Intrinsics, Lighting, NoNoise, PixelNoise};
use crate::scene::{CameraPosition, SimulatedScene};

/// The NAO cameras' frame period (30 Hz).
pub const FRAME_PERIOD: Duration = Duration::from_nanos(1_000_000_000 / 30);

/// What a simulated frame gets on top of the scene, and how it is computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SensorModel {
    /// Standard deviation of the luma noise (chroma gets half), in 8-bit steps; 0: none.
    pub noise_sigma: f32,
    /// How the noise is made.
    pub noise: NoiseSource,
    /// Brightness varies per frame within ±this (0.1: 0.9..1.1).
    pub brightness_variation: f32,
    /// The white balance's error varies per frame within ±this, in chroma steps.
    pub colour_cast: f32,
    pub chroma: ChromaSampling,
    /// How long each frame is exposed, s: a rolling ball moves this long during the frame and is
    /// smeared along its path (0: every frame sharp).
    pub exposure_s: f32,
}

impl Default for SensorModel {
    fn default() -> Self {
        Self {
            noise_sigma: 3.0,
            noise: NoiseSource::Table,
            brightness_variation: 0.12,
            colour_cast: 6.0,
            chroma: ChromaSampling::PairMean,
            exposure_s: 0.015,
        }
    }
}

impl SensorModel {
    /// A perfect sensor: the scene under neutral light, no noise, no motion blur.
    pub fn ideal() -> Self {
        Self {
            noise_sigma: 0.0,
            brightness_variation: 0.0,
            colour_cast: 0.0,
            exposure_s: 0.0,
            ..Self::default()
        }
    }
}

/// Where per-pixel noise comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoiseSource {
    /// A table of 65 536 Gaussian values made once per camera, read from a random place per
    /// frame.
    Table,
    /// A fresh pseudo-random number per value (xorshift; a sum of four uniforms).
    Generator,
}

/// A simulated NAO camera.
#[derive(Debug)]
pub struct SimulatedCamera {
    camera: CameraPosition,
    intrinsics: Intrinsics,
    resolution: Resolution,
    model: SensorModel,
    scene: SimulatedScene,
    random: SplitMix64,
    noise_table: Vec<f32>,
    sequence: u64,
    next_due: Option<Instant>,
}

impl SimulatedCamera {
    /// A camera at `camera` delivering `resolution` frames; `seed` decides the lighting and
    /// noise of every frame.
    pub fn new(camera: CameraPosition, resolution: Resolution, seed: u64) -> Self {
        Self::with_sensor_model(camera, resolution, seed, SensorModel::default())
    }

    /// The same with another sensor model (no noise for exact tests, alternatives for benches).
    pub fn with_sensor_model(
        camera: CameraPosition,
        resolution: Resolution,
        seed: u64,
        model: SensorModel,
    ) -> Self {
        let (width, height) = resolution.size();
        let mut random = SplitMix64(seed);
        let noise_table = (0..1 << 16).map(|_| random.gaussian()).collect();
        Self {
            camera,
            intrinsics: Intrinsics::nao_v6(width, height),
            resolution,
            model,
            scene: SimulatedScene::default(),
            random,
            noise_table,
            sequence: 0,
            next_due: None,
        }
    }

    /// The scene the next frames show.
    pub fn set_scene(&mut self, scene: SimulatedScene) {
        self.scene = scene;
    }

    pub fn scene(&self) -> &SimulatedScene {
        &self.scene
    }

    pub fn camera_position(&self) -> CameraPosition {
        self.camera
    }

    pub fn intrinsics(&self) -> Intrinsics {
        self.intrinsics
    }

    /// Renders `scene` now (no pacing); each call is a new frame with its own light and noise.
    pub fn render(&mut self, scene: &SimulatedScene) -> YuyvImage {
        let lighting = self.next_lighting();
        let geometry = FrameGeometry::new(
            &scene.camera_to_field(self.camera),
            &scene.ground_truth,
            &scene.own_body_boxes(),
            self.intrinsics,
            lighting,
            self.model.exposure_s,
        );
        let mut bytes = vec![0; self.resolution.yuyv_bytes()];
        let chroma = self.model.chroma;
        let sigma = self.model.noise_sigma;
        if sigma <= 0.0 {
            geometry.render(&mut NoNoise, chroma, &mut bytes);
        } else {
            match self.model.noise {
                NoiseSource::Table => {
                    let start = self.random.next() as usize;
                    let mut noise = TableNoise {
                        table: &self.noise_table,
                        index: start,
                        stride: 1 + 2 * ((start >> 20) & 0xff),
                        sigma,
                    };
                    geometry.render(&mut noise, chroma, &mut bytes);
                }
                NoiseSource::Generator => {
                    let mut noise = GeneratorNoise {
                        state: (self.random.next() as u32) | 1,
                        sigma,
                    };
                    geometry.render(&mut noise, chroma, &mut bytes);
                }
            }
        }
        YuyvImage::new(self.intrinsics.width, self.intrinsics.height, bytes)
            .expect("the buffer has the resolution's size")
    }

    /// This frame's brightness and colour cast.
    fn next_lighting(&mut self) -> Lighting {
        let mut symmetric = |range: f32| (self.random.unit() * 2.0 - 1.0) * range;
        Lighting {
            brightness: 1.0 + symmetric(self.model.brightness_variation),
            cast_cb: symmetric(self.model.colour_cast),
            cast_cr: symmetric(self.model.colour_cast),
        }
    }
}

impl Camera for SimulatedCamera {
    type Error = Infallible;

    /// Waits until the next 30 Hz frame is due (the first one is due at once), then renders the
    /// last scene set. A caller that fell more than a period behind starts a new schedule from
    /// now instead of getting a burst of frames.
    fn next_frame(&mut self) -> Result<Option<Frame>, Infallible> {
        let now = Instant::now();
        let due = match self.next_due {
            Some(due) if due + FRAME_PERIOD >= now => due,
            _ => now,
        };
        if due > now {
            std::thread::sleep(due - now);
        }
        self.next_due = Some(due + FRAME_PERIOD);
        let captured_at = Instant::now();
        let scene = self.scene.clone();
        let image = self.render(&scene);
        let sequence = self.sequence;
        self.sequence += 1;
        Ok(Some(Frame {
            image,
            sequence,
            captured_at,
            source: format!("simulated {} camera", self.camera.name()),
        }))
    }
}

/// SplitMix64: small, fast and good enough for lighting and noise.
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Standard normal (Box–Muller).
    fn gaussian(&mut self) -> f32 {
        let first = self.unit().max(1e-7);
        let second = self.unit();
        (-2.0 * first.ln()).sqrt() * (std::f32::consts::TAU * second).cos()
    }
}

/// Noise read from a table of Gaussian values with a per-frame start and stride.
struct TableNoise<'a> {
    table: &'a [f32],
    index: usize,
    stride: usize,
    sigma: f32,
}

impl PixelNoise for TableNoise<'_> {
    fn luma(&mut self) -> f32 {
        self.index = self.index.wrapping_add(self.stride);
        self.table[self.index & 0xffff] * self.sigma
    }

    fn chroma(&mut self) -> f32 {
        0.5 * self.luma()
    }
}

/// Noise from xorshift32: the sum of four uniform bytes, centred (nearly Gaussian, σ ≈ 147.8).
struct GeneratorNoise {
    state: u32,
    sigma: f32,
}

impl PixelNoise for GeneratorNoise {
    fn luma(&mut self) -> f32 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.state = x;
        let sum = (x & 0xff) + ((x >> 8) & 0xff) + ((x >> 16) & 0xff) + (x >> 24);
        (sum as f32 - 510.0) * (self.sigma / 147.8)
    }

    fn chroma(&mut self) -> f32 {
        0.5 * self.luma()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::GroundTruth;

    fn scene() -> SimulatedScene {
        let mut truth = GroundTruth::default();
        truth.robot.x = -1.5;
        SimulatedScene::standing(truth)
    }

    #[test]
    fn the_same_seed_gives_the_same_frames_and_another_seed_others() {
        let render = |seed| {
            let mut camera = SimulatedCamera::new(CameraPosition::Upper, Resolution::Qvga, seed);
            [camera.render(&scene()), camera.render(&scene())]
        };
        let first = render(1);
        assert_eq!(first, render(1));
        assert_ne!(
            first[0], first[1],
            "every frame has its own light and noise"
        );
        assert_ne!(first, render(2));
    }

    #[test]
    fn frames_are_paced_at_30_hz_and_counted() {
        let mut camera = SimulatedCamera::new(CameraPosition::Lower, Resolution::Qvga, 3);
        camera.set_scene(scene());
        let start = Instant::now();
        let mut last = None;
        for expected in 0..4 {
            let frame = camera.next_frame().unwrap().unwrap();
            assert_eq!(frame.sequence, expected);
            assert_eq!(frame.source, "simulated lower camera");
            last = Some(frame.captured_at);
        }
        // Three periods after the first frame, at the earliest (a loaded machine: later).
        assert!(last.unwrap() - start >= FRAME_PERIOD * 3 - Duration::from_millis(1));
    }

    #[test]
    fn noise_sources_have_the_configured_spread() {
        let mut random = SplitMix64(5);
        let table: Vec<f32> = (0..1 << 16).map(|_| random.gaussian()).collect();
        let mut sources: [Box<dyn PixelNoise>; 2] = [
            Box::new(TableNoise {
                table: &table,
                index: 0,
                stride: 7,
                sigma: 3.0,
            }),
            Box::new(GeneratorNoise {
                state: 99,
                sigma: 3.0,
            }),
        ];
        for source in &mut sources {
            let values: Vec<f32> = (0..50_000).map(|_| source.luma()).collect();
            let mean = values.iter().sum::<f32>() / values.len() as f32;
            let variance =
                values.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / values.len() as f32;
            assert!(mean.abs() < 0.1, "mean {mean}");
            assert!(
                (variance.sqrt() - 3.0).abs() < 0.2,
                "sigma {}",
                variance.sqrt()
            );
        }
    }
}
