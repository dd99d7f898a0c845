//! Which foot carries the robot: the lateral centre of pressure from the foot sole sensors.

use kinematics::{
    Side, HIP_OFFSET_Y_M, LEFT_FOOT_FORCE_SENSITIVE_RESISTORS_M,
    RIGHT_FOOT_FORCE_SENSITIVE_RESISTORS_M,
};

/// The sideways position of the centre of pressure between the feet (m, left positive; the feet
/// assumed at their stand positions), or `None` when less than `min_pressure_kg` rests on both
/// feet together. The eight values are LoLA's `FSR` order (left foot FL, FR, RL, RR, then the
/// right foot), in kg; negative and non-finite readings count as zero.
pub fn lateral_centre_of_pressure(
    force_sensitive_resistors_kg: &[f32; 8],
    min_pressure_kg: f64,
) -> Option<f64> {
    let mut total = 0.0;
    let mut moment = 0.0;
    let sensors = LEFT_FOOT_FORCE_SENSITIVE_RESISTORS_M
        .iter()
        .map(|position| position[1] + HIP_OFFSET_Y_M)
        .chain(
            RIGHT_FOOT_FORCE_SENSITIVE_RESISTORS_M
                .iter()
                .map(|position| position[1] - HIP_OFFSET_Y_M),
        );
    for (reading, y) in force_sensitive_resistors_kg.iter().zip(sensors) {
        let weight = f64::from(*reading);
        if weight.is_finite() && weight > 0.0 {
            total += weight;
            moment += weight * y;
        }
    }
    (total >= min_pressure_kg && total > 0.0).then(|| moment / total)
}

/// Whether the weight has crossed onto the `swing` foot.
pub fn weight_on(swing: Side, centre_of_pressure_y_m: Option<f64>) -> bool {
    centre_of_pressure_y_m.is_some_and(|y| y * swing.sign() > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_centre_of_pressure_follows_the_loaded_foot() {
        let left_loaded = [1.0, 1.0, 1.0, 1.0, 0.1, 0.1, 0.1, 0.1];
        let centre = lateral_centre_of_pressure(&left_loaded, 0.5).unwrap();
        assert!(centre > 0.03, "{centre}");
        assert!(weight_on(Side::Left, Some(centre)));
        assert!(!weight_on(Side::Right, Some(centre)));
        let even = [1.0; 8];
        assert!(lateral_centre_of_pressure(&even, 0.5).unwrap().abs() < 0.005);
        let lifted = [0.05; 8];
        assert_eq!(lateral_centre_of_pressure(&lifted, 0.5), None);
        let broken = [f32::NAN, f32::INFINITY, -5.0, 0.0, 1.0, 1.0, 1.0, 1.0];
        assert!(lateral_centre_of_pressure(&broken, 0.5).unwrap() < -0.03);
        assert!(!weight_on(Side::Left, None));
    }
}
