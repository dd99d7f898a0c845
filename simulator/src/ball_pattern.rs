//! The black-and-white pattern of the SPL ball: twelve black pentagons centred on the vertices
//! of an icosahedron (the classic truncated-icosahedron football), on white.
//!
//! A pentagon's angular inradius is chosen so that black covers about 28 % of the sphere, as on
//! a football. The ball turns as it rolls: rolled to (x, y) from the origin without slipping, it
//! has turned x/r about the field's y axis and −y/r about its x axis (the two rotations are
//! composed in a fixed order, which is exact for rolling along one axis and close enough
//! otherwise to make a rolling ball look like one).

use nalgebra::{Rotation3, Vector3};

use crate::field::BALL_RADIUS_M;

/// Angular inradius of a black pentagon, rad.
const PENTAGON_INRADIUS_RAD: f32 = 0.286;

/// The pattern turned to a ball position.
#[derive(Debug, Clone)]
pub struct BallPattern {
    /// Field → ball rotation (applied to a surface normal).
    field_to_ball: Rotation3<f32>,
    /// Per pentagon: its centre and two tangent directions (one towards a corner).
    pentagons: [[Vector3<f32>; 3]; 12],
    /// Cosine of the pentagons' circumradius: a normal farther away is white at once.
    cos_circumradius: f32,
}

impl BallPattern {
    /// The pattern of a ball that rolled from the origin to (x, y).
    pub fn rolled_to(x: f32, y: f32) -> Self {
        let turned = Rotation3::from_axis_angle(&Vector3::y_axis(), x / BALL_RADIUS_M)
            * Rotation3::from_axis_angle(&Vector3::x_axis(), -y / BALL_RADIUS_M);
        let golden = (1.0 + 5.0_f32.sqrt()) / 2.0;
        let mut centres = Vec::with_capacity(12);
        for first in [-1.0, 1.0] {
            for second in [-golden, golden] {
                centres.push(Vector3::new(0.0, first, second));
                centres.push(Vector3::new(first, second, 0.0));
                centres.push(Vector3::new(second, 0.0, first));
            }
        }
        let pentagons = std::array::from_fn(|index| {
            let centre: Vector3<f32> = centres[index].normalize();
            // Towards the nearest other vertex: a pentagon's corner points at a hexagon seam.
            let neighbour = centres
                .iter()
                .map(|other| other.normalize())
                .filter(|other| (other - centre).norm() > 1e-3)
                .max_by(|a, b| a.dot(&centre).total_cmp(&b.dot(&centre)))
                .expect("eleven others");
            let first = (neighbour - centre * neighbour.dot(&centre)).normalize();
            let second = centre.cross(&first);
            [centre, first, second]
        });
        let circumradius = PENTAGON_INRADIUS_RAD / (std::f32::consts::PI / 5.0).cos();
        Self {
            field_to_ball: turned.inverse(),
            pentagons,
            cos_circumradius: circumradius.cos(),
        }
    }

    /// Whether the ball is black where its outward surface normal (field frame) is `normal`.
    pub fn is_black(&self, normal: &Vector3<f32>) -> bool {
        let local = self.field_to_ball * normal;
        let Some([centre, first, second]) = self
            .pentagons
            .iter()
            .max_by(|a, b| a[0].dot(&local).total_cmp(&b[0].dot(&local)))
        else {
            return false;
        };
        let cosine = centre.dot(&local);
        if cosine < self.cos_circumradius {
            return false;
        }
        let angle_from_centre = cosine.clamp(-1.0, 1.0).acos();
        let around = local.dot(second).atan2(local.dot(first));
        // A regular pentagon's boundary in polar form: inradius / cos(angle to the nearest edge
        // normal); corners at multiples of 72° from `first`.
        let sector = std::f32::consts::TAU / 5.0;
        let to_edge_normal = (around - sector / 2.0).rem_euclid(sector) - sector / 2.0;
        angle_from_centre * to_edge_normal.cos() <= PENTAGON_INRADIUS_RAD
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_a_quarter_of_the_ball_is_black() {
        let pattern = BallPattern::rolled_to(0.0, 0.0);
        // A Fibonacci lattice: evenly spread normals.
        let count = 20_000;
        let golden_angle = std::f32::consts::PI * (3.0 - 5.0_f32.sqrt());
        let black = (0..count)
            .filter(|&index| {
                let z = 1.0 - 2.0 * (index as f32 + 0.5) / count as f32;
                let radius = (1.0 - z * z).sqrt();
                let angle = golden_angle * index as f32;
                pattern.is_black(&Vector3::new(radius * angle.cos(), radius * angle.sin(), z))
            })
            .count();
        let share = black as f32 / count as f32;
        assert!((0.22..0.34).contains(&share), "black share {share}");
    }

    #[test]
    fn a_rolling_ball_turns() {
        let resting = BallPattern::rolled_to(0.0, 0.0);
        let rolled = BallPattern::rolled_to(0.07, 0.0);
        let differs = (0..200).any(|index| {
            let angle = index as f32 * 0.1;
            let normal = Vector3::new(angle.cos() * 0.6, angle.sin() * 0.6, 0.8).normalize();
            resting.is_black(&normal) != rolled.is_black(&normal)
        });
        assert!(differs);
    }
}
