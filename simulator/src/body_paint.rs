//! How the robot's own links look in the simulated cameras: a real NAO v6's shells are white
//! plastic, and the parts around its joints are dark grey — the knee and ankle covers, the
//! hips, the shoulders and elbows, the sole's rubber rim, the fingers. Each link's box
//! (`kinematics::body_shape`) is painted white with up to two dark bands across it at its joint
//! ends ([`ShellPaint`]); the bands lie across the link's length, which runs along z for the legs
//! and along x for the arms, so the left and the right link share one paint.
//!
//! The bands follow the NAO v6's look roughly (the knee's grey cover about 5 cm, half on the
//! thigh and half on the shin; the sole's rim 1 cm; the fingers half the hand), in whole
//! centimetres or so: what matters to perception is that the legs show the white and dark
//! patches a ball detector must not take for a ball, not the exact pattern.
//!
//! The paint only depends on where a hit point lies in its box, so the renderer draws exactly
//! the box's outline (which perception's body contour projects), and it costs one look-up per
//! pixel the body is seen in.

use kinematics::body_shape::{ArmLink, LegLink};
use nalgebra::Point3;

/// One of a box's own axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoxAxis {
    X,
    Y,
    Z,
}

/// The slice of a box between two planes across one of its axes: `from_m..=to_m` along `axis`,
/// in box coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    pub axis: BoxAxis,
    pub from_m: f32,
    pub to_m: f32,
}

impl Band {
    /// Whether a point (box coordinates) lies in the band.
    pub(crate) fn contains(&self, point: &Point3<f32>) -> bool {
        let along = match self.axis {
            BoxAxis::X => point.x,
            BoxAxis::Y => point.y,
            BoxAxis::Z => point.z,
        };
        (self.from_m..=self.to_m).contains(&along)
    }
}

/// How a box of the robot's own body is painted: the shells' glossy white
/// ([`palette::BODY_SHELL`]) but for up to two bands across the box in dark grey
/// ([`palette::BODY_TRIM`]: a joint cover at a link's end, the sole's rim, the fingers).
///
/// [`palette::BODY_SHELL`]: crate::render::palette::BODY_SHELL
/// [`palette::BODY_TRIM`]: crate::render::palette::BODY_TRIM
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ShellPaint {
    pub dark_bands: [Option<Band>; 2],
}

impl ShellPaint {
    /// All white.
    pub const WHITE: ShellPaint = ShellPaint {
        dark_bands: [None, None],
    };

    /// Whether the paint is dark grey at a point (box coordinates).
    pub(crate) fn is_dark(&self, point: &Point3<f32>) -> bool {
        self.dark_bands
            .iter()
            .flatten()
            .any(|band| band.contains(point))
    }
}

/// A paint with one dark band from `from_m` to `to_m` along `axis` and, if given, a second.
fn banded(axis: BoxAxis, first: (f32, f32), second: Option<(f32, f32)>) -> ShellPaint {
    let band = |(from_m, to_m): (f32, f32)| Band { axis, from_m, to_m };
    ShellPaint {
        dark_bands: [Some(band(first)), second.map(band)],
    }
}

/// A leg link's paint in its box's coordinates (the link's frame, `kinematics::LegFrames`).
pub fn leg_paint(link: LegLink) -> ShellPaint {
    match link {
        // Hip at z = 0, knee 0.1 m below: the hip joint's grey at the top, the upper half of
        // the knee cover at the bottom.
        LegLink::Thigh => banded(BoxAxis::Z, (-0.105, -0.08), Some((-0.012, 0.0))),
        // Knee at z = 0, ankle 0.1029 m below: the lower half of the knee cover and the ankle.
        LegLink::Tibia => banded(BoxAxis::Z, (-0.012, 0.02), Some((-0.11, -0.095))),
        // The sole's rubber rim, its bottom centimetre.
        LegLink::Foot => banded(BoxAxis::Z, (0.0, 0.01), None),
    }
}

/// An arm link's paint in its box's coordinates (the link's frame, `kinematics::ArmFrames`).
pub fn arm_paint(link: ArmLink) -> ShellPaint {
    match link {
        // Shoulder joint at x = 0, elbow 0.105 m along: the shoulder's grey joint and the
        // elbow's cover.
        ArmLink::UpperArm => banded(BoxAxis::X, (-0.04, -0.005), Some((0.095, 0.125))),
        // Elbow at x = 0, wrist 0.05595 m along: the rest of the elbow's cover and the wrist.
        ArmLink::LowerArm => banded(BoxAxis::X, (-0.025, 0.0), Some((0.05, 0.065))),
        // The back of the hand is white, the fingers are grey.
        ArmLink::Hand => banded(BoxAxis::X, (0.045, 0.1), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kinematics::body_shape::{arm_boxes, leg_boxes, LinkBox};
    use kinematics::Side;

    /// How much of the box's extent along the band's axis the band covers (0..1).
    fn share(band: &Band, link_box: &LinkBox) -> f64 {
        let index = match band.axis {
            BoxAxis::X => 0,
            BoxAxis::Y => 1,
            BoxAxis::Z => 2,
        };
        let (low, high) = (link_box.min[index], link_box.max[index]);
        let from = f64::from(band.from_m).max(low);
        let to = f64::from(band.to_m).min(high);
        (to - from).max(0.0) / (high - low)
    }

    #[test]
    fn every_link_is_mostly_white_with_its_dark_bands_inside_its_box() {
        let legs = leg_boxes(Side::Left).map(|(link, link_box)| (leg_paint(link), link_box));
        let arms = arm_boxes(Side::Left).map(|(link, link_box)| (arm_paint(link), link_box));
        for (paint, link_box) in legs.into_iter().chain(arms) {
            let bands: Vec<&Band> = paint.dark_bands.iter().flatten().collect();
            assert!(!bands.is_empty(), "{link_box:?}: no dark part");
            let mut dark = 0.0;
            for band in bands {
                let covered = share(band, &link_box);
                assert!(covered > 0.05, "{band:?} misses {link_box:?}");
                dark += covered;
            }
            // The hand is half grey; every other link mostly white.
            assert!(dark <= 0.5 + 1e-6, "{link_box:?}: {dark} dark");
        }
    }
}
