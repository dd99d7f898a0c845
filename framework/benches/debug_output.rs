//! What debug outputs cost a process's tick (issue 15, item 1): with nobody subscribed (the
//! runtime's look at the request channel, each module's flag check, the end of the tick), and
//! with a drawing and a plot subscribed (recording the shapes, encoding and publishing the
//! frame), beside an empty tick (the floor). Three outputs are declared, as in a process with
//! three instrumented modules.
//!
//! Prints, in one run, the median over repetitions of the nanoseconds per tick.
//!
//! `cargo bench -p framework --bench debug_output`

use framework::debug_output::{
    encode_request, Color, DebugOutputs, OutputChannels, OutputKind, Space, Ticker,
};
use std::hint::black_box;
use std::time::Instant;

const TICKS: u32 = 20_000;
const REPETITIONS: usize = 21;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}

/// Median over repetitions of `tick` run `TICKS` times, ns per tick.
fn measure(mut tick: impl FnMut(u64)) -> f64 {
    let mut now = 1u64;
    median(
        (0..REPETITIONS)
            .map(|_| {
                let started = Instant::now();
                for _ in 0..TICKS {
                    now += 1;
                    tick(now);
                }
                started.elapsed().as_nanos() as f64 / f64::from(TICKS)
            })
            .collect(),
    )
}

fn main() {
    let outputs: &'static DebugOutputs = Box::leak(Box::default());
    let ball = outputs.declare("Ball.field", OutputKind::FieldDrawing);
    let spots = outputs.declare("Spots.image", OutputKind::ImageDrawing);
    let balance = outputs.declare("Walk.balance", OutputKind::Plot);
    let channels = OutputChannels::create("bench.debug").expect("channels");
    let mut ticker = Ticker::new(&channels, outputs).expect("the frame writer");
    let mut requests = channels.requests.writer().expect("the request writer");
    let mut state = 0u64;
    let modules = |state: &mut u64| {
        *state = black_box(*state).wrapping_add(1);
        let value = *state as f32;
        ball.draw(Space::Robot, |drawing| {
            drawing
                .circle([value, 0.5], 0.05, Color::ORANGE)
                .line([value, 0.5], [value + 0.2, 0.5], 0.01, Color::RED)
                .text([value, 0.6], "0.0 s", Color::ORANGE);
        });
        spots.draw(Space::Image(types::CameraName::Upper), |drawing| {
            for index in 0..20 {
                drawing.circle([index as f32 * 30.0, value], 8.0, Color::YELLOW);
            }
        });
        balance.plot_values(&[
            ("torso_roll_rad", 0.01),
            ("torso_pitch_rad", f64::from(value)),
            ("gyro_x_rad_per_s", 0.1),
            ("gyro_y_rad_per_s", -0.1),
        ]);
    };

    let floor = measure(|now| {
        modules(&mut state);
        black_box(now);
    });
    let idle = measure(|now| {
        ticker.begin_tick(now);
        modules(&mut state);
        ticker.end_tick(now);
    });
    let mut subscribe = |subscribed: &[usize]| {
        requests
            .publish(&encode_request(u64::MAX, subscribed, &[]))
            .expect("a request");
    };
    subscribe(&[0, 2]);
    let field_and_plot = measure(|now| {
        ticker.begin_tick(now);
        modules(&mut state);
        ticker.end_tick(now);
    });
    subscribe(&[0, 1, 2]);
    let everything = measure(|now| {
        ticker.begin_tick(now);
        modules(&mut state);
        ticker.end_tick(now);
    });
    println!("debug outputs, per tick ({TICKS} ticks, median of {REPETITIONS} runs)");
    println!("| case | ns per tick | over the floor |");
    println!("|---|---:|---:|");
    for (case, ns) in [
        ("three outputs, no debug-output runtime (floor)", floor),
        ("nobody subscribed", idle),
        (
            "field drawing (3 shapes) and plot (4 values) subscribed",
            field_and_plot,
        ),
        ("and an image drawing of 20 circles", everything),
    ] {
        println!("| {case} | {ns:.0} | {:.0} |", ns - floor);
    }
    println!("frames published: {}", channels.frames.published());
}
