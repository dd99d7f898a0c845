//! Trains the ball network (`perception::ball_network`) on scenes rendered by
//! `synthesis.rs` and writes its weights:
//!
//! ```sh
//! cargo run --release -p perception --example train_ball_network -- perception/training/ball_network.bin --ensemble 2
//! ```
//!
//! `--ensemble N` trains N networks from consecutive training seeds on the same data and writes
//! their average as one network N times as wide (see `side_by_side`): a single network's veto
//! moves with its training seed about as much as with its data, the average less.
//! The perceptor vetoes below `NETWORK_VETO_PROBABILITY` (0.5 for the average of two, which is
//! less sure of itself than one network was at its 0.15). `--seed-offset K` starts the
//! members' training seeds K after [`TRAINING_SEED`] (to measure how much the result depends
//! on them; the shipped file uses 0).
//!
//! Everything is deterministic: the data is a function of [`SEED`], the initial weights and the
//! batch order of [`TRAINING_SEED`], and the arithmetic is single-threaded, so the same
//! toolchain on the same kind of machine writes the same file. Prints the loss per epoch and,
//! on held-out samples, the share classified right and the centre error of the balls.

#[path = "synthesis.rs"]
mod synthesis;

use perception::ball_network::{BallNetwork, Layer, OUTPUTS};
use perception::ball_patch::PATCH_LEN;
use synthesis::{sample, Random, Sample};

/// The data's seed.
pub const SEED: u64 = 0x0ba1_1da7_a5ee_d001;
const TRAINING_SEED: u64 = 0x7a1e_5eed;
const TRAINING_SAMPLES: u64 = 48_000;
/// Held-out samples come after the training ones.
const VALIDATION_SAMPLES: u64 = 4_000;
const HIDDEN: [usize; 2] = [32, 32];
const EPOCHS: usize = 30;
const BATCH: usize = 32;
const LEARNING_RATE: f32 = 1e-3;
/// Weight of the position and size error against the classification loss.
const REGRESSION_WEIGHT: f32 = 4.0;
/// Huber loss switches from squared to linear at this error (radii).
const HUBER_DELTA: f32 = 0.1;

fn generate(first: u64, count: u64) -> Vec<Sample> {
    let threads = 2u64;
    let mut parts: Vec<Vec<Sample>> = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|thread| {
                scope.spawn(move || {
                    (first..first + count)
                        .filter(|index| index % threads == thread)
                        .map(|index| (index, sample(SEED, index)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(u64, Sample)> = handles
            .into_iter()
            .flat_map(|handle| handle.join().expect("a generator thread panicked"))
            .collect();
        all.sort_by_key(|(index, _)| *index);
        parts.push(all.into_iter().map(|(_, sample)| sample).collect());
    });
    parts.pop().unwrap_or_default()
}

struct Adam {
    first: Vec<f32>,
    second: Vec<f32>,
}

impl Adam {
    fn new(length: usize) -> Self {
        Self {
            first: vec![0.0; length],
            second: vec![0.0; length],
        }
    }

    fn step(&mut self, parameters: &mut [f32], gradients: &[f32], rate: f32, time: i32) {
        let (beta1, beta2) = (0.9f32, 0.999f32);
        let correction1 = 1.0 - beta1.powi(time);
        let correction2 = 1.0 - beta2.powi(time);
        for index in 0..parameters.len() {
            let gradient = gradients[index];
            self.first[index] = beta1 * self.first[index] + (1.0 - beta1) * gradient;
            self.second[index] = beta2 * self.second[index] + (1.0 - beta2) * gradient * gradient;
            let first = self.first[index] / correction1;
            let second = self.second[index] / correction2;
            parameters[index] -= rate * first / (second.sqrt() + 1e-8);
        }
    }
}

fn huber_gradient(error: f32) -> (f32, f32) {
    if error.abs() <= HUBER_DELTA {
        (0.5 * error * error, error)
    } else {
        (
            HUBER_DELTA * (error.abs() - 0.5 * HUBER_DELTA),
            HUBER_DELTA * error.signum(),
        )
    }
}

/// Forward pass keeping every layer's output (after ReLU for hidden layers).
fn forward_all(network: &BallNetwork, input: &[f32]) -> Vec<Vec<f32>> {
    let mut outputs: Vec<Vec<f32>> = vec![input.to_vec()];
    let last = network.layers.len() - 1;
    for (index, layer) in network.layers.iter().enumerate() {
        let previous = &outputs[index];
        let next: Vec<f32> = layer
            .weights
            .chunks_exact(layer.inputs)
            .zip(&layer.biases)
            .map(|(row, bias)| {
                let sum = bias + row.iter().zip(previous).map(|(w, a)| w * a).sum::<f32>();
                if index < last {
                    sum.max(0.0)
                } else {
                    sum
                }
            })
            .collect();
        outputs.push(next);
    }
    outputs
}

/// Loss and gradient of the last layer's outputs for one sample.
fn output_gradient(output: &[f32], sample: &Sample) -> (f32, [f32; OUTPUTS]) {
    let label = if sample.ball { 1.0 } else { 0.0 };
    let probability = 1.0 / (1.0 + (-output[0]).exp());
    let mut loss =
        -(label * probability.max(1e-7).ln() + (1.0 - label) * (1.0 - probability).max(1e-7).ln());
    let mut gradient = [0.0; OUTPUTS];
    gradient[0] = probability - label;
    if sample.ball {
        for axis in 0..3 {
            let (axis_loss, axis_gradient) = huber_gradient(output[axis + 1] - sample.target[axis]);
            loss += REGRESSION_WEIGHT * axis_loss;
            gradient[axis + 1] = REGRESSION_WEIGHT * axis_gradient;
        }
    }
    (loss, gradient)
}

fn evaluate(network: &BallNetwork, samples: &[Sample]) -> (f32, f32, f32, f32) {
    let (mut right, mut balls, mut centre_error, mut start_error) = (0, 0, 0.0f32, 0.0f32);
    let mut false_balls = 0;
    for sample in samples {
        let output = network.forward(&sample.values);
        let said_ball = output[0] > 0.0;
        right += usize::from(said_ball == sample.ball);
        false_balls += usize::from(said_ball && !sample.ball);
        if sample.ball {
            balls += 1;
            centre_error += (output[1] - sample.target[0]).hypot(output[2] - sample.target[1]);
            start_error += sample.target[0].hypot(sample.target[1]);
        }
    }
    let negatives = samples.len() - balls;
    (
        right as f32 / samples.len() as f32,
        false_balls as f32 / negatives.max(1) as f32,
        centre_error / balls.max(1) as f32,
        start_error / balls.max(1) as f32,
    )
}

/// Trains one network from `training_seed` (initial weights and batch order).
fn train(
    training_seed: u64,
    member: usize,
    training: &[Sample],
    validation: &[Sample],
    started: std::time::Instant,
) -> BallNetwork {
    let mut random = Random::new(training_seed);
    let mut sizes = vec![PATCH_LEN];
    sizes.extend_from_slice(&HIDDEN);
    sizes.push(OUTPUTS);
    let mut network = BallNetwork {
        layers: sizes
            .windows(2)
            .map(|pair| {
                let scale = (2.0 / pair[0] as f32).sqrt();
                Layer {
                    inputs: pair[0],
                    outputs: pair[1],
                    weights: (0..pair[0] * pair[1])
                        .map(|_| scale * random.normal())
                        .collect(),
                    biases: vec![0.0; pair[1]],
                }
            })
            .collect(),
    };
    let mut optimisers: Vec<(Adam, Adam)> = network
        .layers
        .iter()
        .map(|layer| {
            (
                Adam::new(layer.weights.len()),
                Adam::new(layer.biases.len()),
            )
        })
        .collect();
    let mut order: Vec<usize> = (0..training.len()).collect();
    let mut time = 0;
    for epoch in 0..EPOCHS {
        // Fisher–Yates with the training seed.
        for index in (1..order.len()).rev() {
            order.swap(index, random.index(index + 1));
        }
        let rate = LEARNING_RATE
            * 0.5
            * (1.0 + (std::f32::consts::PI * epoch as f32 / EPOCHS as f32).cos());
        let mut epoch_loss = 0.0;
        for batch in order.chunks(BATCH) {
            let mut weight_gradients: Vec<Vec<f32>> = network
                .layers
                .iter()
                .map(|layer| vec![0.0; layer.weights.len()])
                .collect();
            let mut bias_gradients: Vec<Vec<f32>> = network
                .layers
                .iter()
                .map(|layer| vec![0.0; layer.biases.len()])
                .collect();
            for &index in batch {
                let sample = &training[index];
                let activations = forward_all(&network, &sample.values);
                let (loss, last_gradient) =
                    output_gradient(activations.last().expect("outputs"), sample);
                epoch_loss += loss;
                let mut gradient: Vec<f32> = last_gradient.to_vec();
                for layer_index in (0..network.layers.len()).rev() {
                    let layer = &network.layers[layer_index];
                    let input = &activations[layer_index];
                    let mut input_gradient = vec![0.0; layer.inputs];
                    for (output, &output_gradient) in gradient.iter().enumerate() {
                        if output_gradient == 0.0 {
                            continue;
                        }
                        bias_gradients[layer_index][output] += output_gradient;
                        let row = output * layer.inputs;
                        let weights = &layer.weights[row..row + layer.inputs];
                        let row_gradients =
                            &mut weight_gradients[layer_index][row..row + layer.inputs];
                        for column in 0..layer.inputs {
                            row_gradients[column] += output_gradient * input[column];
                            input_gradient[column] += output_gradient * weights[column];
                        }
                    }
                    if layer_index > 0 {
                        // Through the ReLU of the layer below.
                        for (value, activation) in input_gradient.iter_mut().zip(input) {
                            if *activation <= 0.0 {
                                *value = 0.0;
                            }
                        }
                    }
                    gradient = input_gradient;
                }
            }
            time += 1;
            let scale = 1.0 / batch.len() as f32;
            for (layer_index, layer) in network.layers.iter_mut().enumerate() {
                let weights: Vec<f32> = weight_gradients[layer_index]
                    .iter()
                    .map(|value| value * scale)
                    .collect();
                let biases: Vec<f32> = bias_gradients[layer_index]
                    .iter()
                    .map(|value| value * scale)
                    .collect();
                optimisers[layer_index]
                    .0
                    .step(&mut layer.weights, &weights, rate, time);
                optimisers[layer_index]
                    .1
                    .step(&mut layer.biases, &biases, rate, time);
            }
        }
        let (accuracy, false_rate, centre_error, start_error) = evaluate(&network, validation);
        eprintln!(
            "network {member}, epoch {epoch:>2}: loss {:.4}, held out: {:.1} % right, {:.1} % of non-balls called balls, centre error {:.3} r (from {:.3} r), {:.0} s",
            epoch_loss / training.len() as f32,
            100.0 * accuracy,
            100.0 * false_rate,
            centre_error,
            start_error,
            started.elapsed().as_secs_f32()
        );
    }
    network
}

/// The average of `members` (all of one shape) as one network: their hidden layers side by
/// side, each later hidden layer block-diagonal (a member's units read only that member's units
/// below), and the output layer reading every member's last hidden layer with its weights
/// divided by the member count, its biases the members' mean. Its outputs are exactly the mean
/// of the members' outputs, in the weights format and runtime of one network.
fn side_by_side(members: &[BallNetwork]) -> BallNetwork {
    let count = members.len();
    let first = &members[0];
    let last = first.layers.len() - 1;
    let layers = (0..=last)
        .map(|index| {
            let (inputs, outputs) = (first.layers[index].inputs, first.layers[index].outputs);
            // The first layer reads the one shared patch; the later ones their member's units.
            let wide_inputs = if index == 0 { inputs } else { inputs * count };
            let wide_outputs = if index == last {
                outputs
            } else {
                outputs * count
            };
            let mut weights = vec![0.0; wide_inputs * wide_outputs];
            let mut biases = vec![0.0; wide_outputs];
            for (member_index, member) in members.iter().enumerate() {
                let layer = &member.layers[index];
                let column_offset = if index == 0 { 0 } else { member_index * inputs };
                let (row_offset, scale) = if index == last {
                    (0, 1.0 / count as f32)
                } else {
                    (member_index * outputs, 1.0)
                };
                for row in 0..outputs {
                    let wide_row = (row_offset + row) * wide_inputs + column_offset;
                    for column in 0..inputs {
                        weights[wide_row + column] += scale * layer.weights[row * inputs + column];
                    }
                    biases[row_offset + row] += scale * layer.biases[row];
                }
            }
            Layer {
                inputs: wide_inputs,
                outputs: wide_outputs,
                weights,
                biases,
            }
        })
        .collect();
    BallNetwork { layers }
}

/// The command line.
struct Arguments {
    out: String,
    ensemble: usize,
    seed_offset: u64,
}

/// Reads `OUT.bin [--ensemble N] [--seed-offset K]`.
fn arguments() -> Result<Arguments, String> {
    let mut args = std::env::args().skip(1);
    let (mut out, mut ensemble, mut offset) = (None, 1, 0);
    while let Some(arg) = args.next() {
        if arg == "--seed-offset" {
            let value = args.next().ok_or("--seed-offset needs a number")?;
            offset = value
                .parse()
                .map_err(|_| format!("--seed-offset {value}: not a number"))?;
        } else if arg == "--ensemble" {
            let value = args.next().ok_or("--ensemble needs a count")?;
            ensemble = value
                .parse()
                .ok()
                .filter(|&count| count >= 1)
                .ok_or(format!("--ensemble {value}: not a count of at least 1"))?;
        } else if out.is_none() {
            out = Some(arg);
        } else {
            return Err(format!("unexpected argument {arg:?}"));
        }
    }
    Ok(Arguments {
        out: out.ok_or("no output file")?,
        ensemble,
        seed_offset: offset,
    })
}

fn main() {
    let Arguments {
        out,
        ensemble,
        seed_offset: offset,
    } = match arguments() {
        Ok(arguments) => arguments,
        Err(error) => {
            eprintln!(
                "{error}\nusage: train_ball_network OUT.bin [--ensemble N] [--seed-offset K]"
            );
            std::process::exit(64);
        }
    };
    let started = std::time::Instant::now();
    let training = generate(0, TRAINING_SAMPLES);
    let validation = generate(TRAINING_SAMPLES, VALIDATION_SAMPLES);
    eprintln!(
        "generated {} + {} samples in {:.1} s",
        training.len(),
        validation.len(),
        started.elapsed().as_secs_f32()
    );
    let members: Vec<BallNetwork> = (0..ensemble)
        .map(|member| {
            train(
                TRAINING_SEED.wrapping_add(offset + member as u64),
                member,
                &training,
                &validation,
                started,
            )
        })
        .collect();
    let network = side_by_side(&members);
    if ensemble > 1 {
        let difference = validation
            .iter()
            .take(200)
            .flat_map(|sample| {
                let wide = network.forward(&sample.values);
                let outputs: Vec<[f32; OUTPUTS]> = members
                    .iter()
                    .map(|member| member.forward(&sample.values))
                    .collect();
                (0..OUTPUTS).map(move |output| {
                    let mean = outputs.iter().map(|values| values[output]).sum::<f32>()
                        / outputs.len() as f32;
                    (wide[output] - mean).abs()
                })
            })
            .fold(0.0f32, f32::max);
        eprintln!(
            "the wide network against the members' mean output: at most {difference:.2e} apart"
        );
        let (accuracy, false_rate, centre_error, start_error) = evaluate(&network, &validation);
        eprintln!(
            "average of {ensemble}: held out: {:.1} % right, {:.1} % of non-balls called balls, centre error {:.3} r (from {:.3} r)",
            100.0 * accuracy,
            100.0 * false_rate,
            centre_error,
            start_error,
        );
    }
    if let Err(error) = std::fs::write(&out, network.to_bytes()) {
        eprintln!("writing {out}: {error}");
        std::process::exit(73);
    }
    eprintln!("wrote {out}");
}
