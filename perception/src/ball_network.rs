//! `BallNetwork`: a small multilayer perceptron that looks at a candidate's [`BallPatch`] and
//! says whether it is a ball and where the ball's centre and radius are, relative to the
//! candidate circle.
//!
//! ```text
//!   patch (16 × 16 cells × 4) ─► 1024 → 64 ReLU → 64 ReLU → 4
//!                                                           ├─ logit of "ball"
//!                                                           ├─ (centre x − candidate x) / r
//!                                                           ├─ (centre y − candidate y) / r
//!                                                           └─ ln(radius / r)
//! ```
//!
//! The shipped file is two networks of 32 + 32 hidden units trained from two seeds, written
//! as their average: hidden layers side by side, the second one block-diagonal, the output
//! layer both halves halved. Its ball logit is shifted so that the perceptor's veto at 0.15
//! rejects what the average gives less than 0.5. The runtime reads any layer sizes.
//!
//! The weights are the project's own: `perception/training/train_ball_network.rs` renders
//! ball and non-ball scenes from a seed (random pose, lighting, colour cast, motion blur, lines,
//! shadows, feet, robot parts, the image border), trains this network on them and writes
//! `perception/training/ball_network.bin`, which is compiled in. The file format:
//!
//! ```text
//!   b"CBN1", u32 layer count, per layer: u32 inputs, u32 outputs,
//!   outputs × inputs f32 weights (row per output), outputs f32 biases — all little-endian
//! ```

use crate::ball_patch::{BallPatch, PATCH_LEN};
use std::sync::OnceLock;

/// Outputs of the last layer.
pub const OUTPUTS: usize = 4;
const MAGIC: &[u8; 4] = b"CBN1";

/// The shipped weights.
static EMBEDDED: &[u8] = include_bytes!("../training/ball_network.bin");

/// One fully connected layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub inputs: usize,
    pub outputs: usize,
    /// Row-major: `outputs` rows of `inputs` weights.
    pub weights: Vec<f32>,
    pub biases: Vec<f32>,
}

/// The network: ReLU after every layer but the last.
#[derive(Debug, Clone, PartialEq)]
pub struct BallNetwork {
    pub layers: Vec<Layer>,
}

/// Why a weights file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LoadError {
    #[error("ball network: the file does not start with {MAGIC:?}")]
    Magic,
    #[error("ball network: the file ends at byte {offset} inside {what}")]
    Truncated { offset: usize, what: &'static str },
    #[error("ball network: layer {layer} has {found} inputs, expected {expected}")]
    Shape {
        layer: usize,
        expected: usize,
        found: usize,
    },
    #[error("ball network: {count} bytes after the last layer")]
    TrailingBytes { count: usize },
    #[error("ball network: a weight at byte {offset} is not finite")]
    NotFinite { offset: usize },
}

/// What the network says about one candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallEstimate {
    /// Probability that the candidate is a ball.
    pub probability: f32,
    /// The ball's circle (x, y, radius) in pixels.
    pub circle: (f32, f32, f32),
}

impl BallNetwork {
    /// The network compiled into the crate; None (logged once) if its file is broken, which a
    /// unit test rules out.
    pub fn embedded() -> Option<&'static Self> {
        static NETWORK: OnceLock<Option<BallNetwork>> = OnceLock::new();
        NETWORK
            .get_or_init(|| match Self::from_bytes(EMBEDDED) {
                Ok(network) => Some(network),
                Err(error) => {
                    tracing::error!("{error}; balls are judged without it");
                    None
                }
            })
            .as_ref()
    }

    /// Reads the format described in the module documentation.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        if bytes.get(..4) != Some(MAGIC.as_slice()) {
            return Err(LoadError::Magic);
        }
        let mut offset = 4;
        let read_u32 = |offset: &mut usize, what| -> Result<usize, LoadError> {
            let value = bytes
                .get(*offset..*offset + 4)
                .ok_or(LoadError::Truncated {
                    offset: *offset,
                    what,
                })?;
            *offset += 4;
            Ok(u32::from_le_bytes([value[0], value[1], value[2], value[3]]) as usize)
        };
        let layer_count = read_u32(&mut offset, "the layer count")?;
        let mut layers = Vec::new();
        let mut expected_inputs = PATCH_LEN;
        for layer in 0..layer_count.min(16) {
            let inputs = read_u32(&mut offset, "a layer's input count")?;
            let outputs = read_u32(&mut offset, "a layer's output count")?;
            if inputs != expected_inputs {
                return Err(LoadError::Shape {
                    layer,
                    expected: expected_inputs,
                    found: inputs,
                });
            }
            let mut read_floats = |count: usize, what| -> Result<Vec<f32>, LoadError> {
                let end = count
                    .checked_mul(4)
                    .and_then(|length| offset.checked_add(length))
                    .filter(|&end| end <= bytes.len())
                    .ok_or(LoadError::Truncated { offset, what })?;
                let values: Vec<f32> = bytes[offset..end]
                    .chunks_exact(4)
                    .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
                    .collect();
                if let Some(index) = values.iter().position(|value| !value.is_finite()) {
                    return Err(LoadError::NotFinite {
                        offset: offset + 4 * index,
                    });
                }
                offset = end;
                Ok(values)
            };
            let weights = read_floats(inputs.saturating_mul(outputs), "a layer's weights")?;
            let biases = read_floats(outputs, "a layer's biases")?;
            layers.push(Layer {
                inputs,
                outputs,
                weights,
                biases,
            });
            expected_inputs = outputs;
        }
        if layers.len() != layer_count || expected_inputs != OUTPUTS {
            return Err(LoadError::Shape {
                layer: layers.len(),
                expected: OUTPUTS,
                found: expected_inputs,
            });
        }
        if offset != bytes.len() {
            return Err(LoadError::TrailingBytes {
                count: bytes.len() - offset,
            });
        }
        Ok(Self { layers })
    }

    /// The format read by [`from_bytes`](Self::from_bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&(self.layers.len() as u32).to_le_bytes());
        for layer in &self.layers {
            bytes.extend_from_slice(&(layer.inputs as u32).to_le_bytes());
            bytes.extend_from_slice(&(layer.outputs as u32).to_le_bytes());
            for value in layer.weights.iter().chain(&layer.biases) {
                bytes.extend_from_slice(&value.to_le_bytes());
            }
        }
        bytes
    }

    /// The raw outputs for one patch.
    pub fn forward(&self, input: &[f32]) -> [f32; OUTPUTS] {
        let mut activations = input.to_vec();
        let last = self.layers.len().saturating_sub(1);
        for (index, layer) in self.layers.iter().enumerate() {
            let next: Vec<f32> = layer
                .weights
                .chunks_exact(layer.inputs)
                .zip(&layer.biases)
                .map(|(row, bias)| {
                    let sum = bias + dot(row, &activations);
                    if index < last {
                        sum.max(0.0)
                    } else {
                        sum
                    }
                })
                .collect();
            activations = next;
        }
        let mut outputs = [0.0; OUTPUTS];
        for (output, value) in outputs.iter_mut().zip(activations) {
            *output = value;
        }
        outputs
    }

    /// Judges the patch of the candidate circle (x, y, radius).
    pub fn estimate(&self, patch: &BallPatch, (x, y, radius): (f32, f32, f32)) -> BallEstimate {
        let [logit, dx, dy, log_scale] = self.forward(&patch.values);
        // The regression is trained for candidates within about half a radius of the ball;
        // larger answers are clamped to that range.
        let (dx, dy) = (dx.clamp(-0.6, 0.6), dy.clamp(-0.6, 0.6));
        BallEstimate {
            probability: 1.0 / (1.0 + (-logit).exp()),
            circle: (
                x + dx * radius,
                y + dy * radius,
                radius * log_scale.clamp(-0.5, 0.5).exp(),
            ),
        }
    }
}

/// Lanes of [`dot`]: eight independent sums the compiler keeps in vector registers (a single
/// running sum must add in order, one product at a time).
const LANES: usize = 8;

/// The dot product of two equally long slices, summed in [`LANES`] interleaved partial sums.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0.0f32; LANES];
    let (a_chunks, b_chunks) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..LANES {
            sums[lane] += x[lane] * y[lane];
        }
    }
    sums.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_weights_load_and_write_back_to_the_same_bytes() {
        let network = BallNetwork::from_bytes(EMBEDDED).unwrap();
        assert_eq!(network.layers[0].inputs, PATCH_LEN);
        assert_eq!(network.layers.last().unwrap().outputs, OUTPUTS);
        assert_eq!(network.to_bytes(), EMBEDDED);
        assert!(BallNetwork::embedded().is_some());
    }

    #[test]
    fn the_lane_sums_give_the_dot_product_at_every_length() {
        for length in [0, 1, 7, 8, 9, 31, 1024] {
            let a: Vec<f32> = (0..length).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..length).map(|i| (i as f32 * 0.11).cos() - 0.2).collect();
            let in_order: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(x * y)).sum();
            assert!(
                (f64::from(dot(&a, &b)) - in_order).abs() < 1e-4,
                "length {length}"
            );
        }
    }

    #[test]
    fn broken_files_are_refused_with_the_place() {
        let good = BallNetwork::from_bytes(EMBEDDED).unwrap().to_bytes();
        assert_eq!(BallNetwork::from_bytes(b"PNG!"), Err(LoadError::Magic));
        assert!(matches!(
            BallNetwork::from_bytes(&good[..good.len() - 3]),
            Err(LoadError::Truncated { .. })
        ));
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(
            BallNetwork::from_bytes(&longer),
            Err(LoadError::TrailingBytes { count: 1 })
        );
        let mut not_finite = good.clone();
        not_finite[20..24].copy_from_slice(&f32::NAN.to_le_bytes());
        assert_eq!(
            BallNetwork::from_bytes(&not_finite),
            Err(LoadError::NotFinite { offset: 20 })
        );
        let mut wrong_inputs = good;
        wrong_inputs[8..12].copy_from_slice(&7u32.to_le_bytes());
        assert!(matches!(
            BallNetwork::from_bytes(&wrong_inputs),
            Err(LoadError::Shape { found: 7, .. })
        ));
    }
}
