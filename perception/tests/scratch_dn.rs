mod support;
use support::variants::{camera_sets, over_exposed_sets};
use support::{labelled_frames, to_yuyv, vision_dir};
#[test]
fn dn() {
    let vision = vision_dir("scratch").unwrap();
    let frames = labelled_frames(&vision);
    let mut sets = camera_sets(&frames); sets.extend(over_exposed_sets(&frames));
    for (name, set) in sets {
        if !name.starts_with(std::env::var("SET").unwrap_or("dark".into()).as_str()) { continue; }
        for frame in &set {
            let p = perception::perceive(&to_yuyv(&frame.image), None);
            for l in &frame.balls {
                if p.balls.iter().any(|b| (b.x - l.x).hypot(b.y - l.y) <= 5.0) { continue; }
                eprintln!("{} miss ({},{},r{})", frame.name, l.x, l.y, l.radius);
                for c in &p.ball_candidates {
                    if (c.x - l.x).hypot(c.y - l.y) <= 8.0 {
                        let s = c.features.scores();
                        eprintln!("   ({:.1},{:.1},r{:.1}) conf {:.2} net {:?} scores [{}]", c.x, c.y, c.radius, c.confidence, c.network_probability, s.iter().map(|v| format!("{v:.2}")).collect::<Vec<_>>().join(" "));
                    }
                }
            }
        }
    }
}
