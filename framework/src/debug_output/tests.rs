//! The flags, the budget, the catalogue and the channels of the debug outputs.
use super::*;
use types::CameraName;

fn fresh() -> &'static DebugOutputs {
    Box::leak(Box::default())
}

fn publish_request(channels: &OutputChannels, until: u64, subscribed: &[usize]) {
    let mut writer = channels.requests.writer().unwrap();
    writer
        .publish(&encode_request(until, subscribed, &[]))
        .unwrap();
}

fn latest_frame(channels: &OutputChannels) -> Option<(u64, DebugFrame)> {
    let mut bytes = Vec::new();
    let count = channels.frames.reader().read_latest(&mut bytes).unwrap()?;
    Some((count, decode_frame(&bytes).unwrap()))
}

#[test]
fn nothing_is_computed_until_subscribed_and_the_flag_clears_when_the_request_goes() {
    let outputs = fresh();
    let ball = outputs.declare("BallModel.ball", OutputKind::FieldDrawing);
    let plot = outputs.declare("Walk.torso", OutputKind::Plot);
    assert_eq!(
        outputs
            .declare("BallModel.ball", OutputKind::FieldDrawing)
            .index,
        ball.index,
        "declared again: the same output"
    );
    let channels = OutputChannels::create("test.outputs").unwrap();
    let mut ticker = Ticker::new(&channels, outputs).unwrap();
    let mut computed = 0;
    let tick = |ticker: &mut Ticker, now: u64, computed: &mut u32| {
        ticker.begin_tick(now);
        ball.draw(Space::Field, |drawing| {
            *computed += 1;
            drawing.circle([1.0, 2.0], 0.05, Color::ORANGE);
        });
        plot.plot_values(&[("pitch_rad", 0.5)]);
        ticker.end_tick(now);
    };

    tick(&mut ticker, 10, &mut computed);
    assert_eq!(
        computed, 0,
        "nobody subscribed: the drawing is not computed"
    );
    let (count, frame) = latest_frame(&channels).expect("the catalogue is published");
    assert_eq!(frame.catalog.len(), 2);
    assert_eq!(frame.catalog[0].name, "BallModel.ball");
    assert!(frame.records.is_empty());
    tick(&mut ticker, 11, &mut computed);
    assert_eq!(channels.frames.published(), count, "nothing to publish");

    publish_request(&channels, 1_000, &[0]);
    tick(&mut ticker, 12, &mut computed);
    assert_eq!(computed, 1);
    assert!(ball.is_subscribed() && !plot.is_subscribed());
    let (_, frame) = latest_frame(&channels).unwrap();
    assert_eq!(frame.tick, 12);
    assert_eq!(frame.records.len(), 1, "only the subscribed output");
    assert_eq!(frame.records[0].space, Space::Field);
    assert!(matches!(
        frame.records[0].shapes[0],
        Shape::Circle { radius, .. } if radius == 0.05
    ));

    // The last subscriber leaves: the link clears the bits.
    publish_request(&channels, 1_000, &[]);
    tick(&mut ticker, 13, &mut computed);
    assert!(!ball.is_subscribed());
    assert_eq!(computed, 1);

    // A link that stops renewing: the flags lapse on their own.
    publish_request(&channels, 1_000, &[0, 1]);
    tick(&mut ticker, 14, &mut computed);
    assert!(ball.is_subscribed() && plot.is_subscribed());
    let (_, frame) = latest_frame(&channels).unwrap();
    assert_eq!(frame.records.len(), 2);
    tick(&mut ticker, 1_000, &mut computed);
    assert!(!ball.is_subscribed() && !plot.is_subscribed());
    assert_eq!(computed, 2);
}

#[test]
fn a_tick_over_its_budget_drops_records_and_counts_them_without_waiting() {
    let outputs = fresh();
    let drawing = outputs.declare("Perceptor.many", OutputKind::ImageDrawing);
    let channels = OutputChannels::create("test.overflow").unwrap();
    let mut ticker = Ticker::new(&channels, outputs).unwrap();
    publish_request(&channels, u64::MAX, &[0]);
    ticker.begin_tick(1);
    for index in 0..2_000 {
        drawing.draw(Space::Image(CameraName::Upper), |d| {
            d.text([index as f32, 0.0], "candidate", Color::RED);
        });
    }
    ticker.end_tick(1);
    let (_, frame) = latest_frame(&channels).unwrap();
    assert!(frame.dropped > 0, "the overflow is counted");
    assert_eq!(frame.records.len() as u64 + frame.dropped, 2_000);
    assert!(channels.frames.slot_capacity() >= FRAME_BYTES);
    // The next tick starts with an empty budget.
    ticker.begin_tick(2);
    drawing.draw(Space::Image(CameraName::Upper), |d| {
        d.circle([1.0, 1.0], 3.0, Color::RED);
    });
    ticker.end_tick(2);
    let (_, frame) = latest_frame(&channels).unwrap();
    assert_eq!(frame.records.len(), 1);
}

#[test]
fn declarations_beyond_the_limit_are_never_subscribed() {
    let outputs = fresh();
    for index in 0..MAX_OUTPUTS {
        outputs.declare(&format!("output{index}"), OutputKind::Plot);
    }
    let extra = outputs.declare("one too many", OutputKind::Plot);
    outputs.set_subscribed(&[0xff; MAX_OUTPUTS / 8]);
    assert!(!extra.is_subscribed());
    assert!(outputs.declare("output0", OutputKind::Plot).is_subscribed());
}

#[test]
fn the_channels_are_found_through_proc() {
    let channels = OutputChannels::create("test.proc").unwrap();
    let opened = OutputChannels::open_of_process(std::process::id(), "test.proc").unwrap();
    publish_request(&opened, 5, &[3]);
    assert_eq!(channels.requests.published(), 1);
    let error = OutputChannels::open_of_process(std::process::id(), "test.none")
        .unwrap_err()
        .to_string();
    assert!(error.contains("test.none.DebugOutputs"), "{error}");
}
