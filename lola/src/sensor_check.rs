//! The bridge's check of every number LoLA measured before anyone else sees it: a value that is
//! not finite or cannot be physical is replaced by its last good value, so that one glitching
//! sensor does not cost the whole frame; a frame with more bad values than the configured limit,
//! or one before any good frame, is rejected whole.

use types::sensing::{SensorData, SensorValue, SENSOR_VALUE_COUNT};

/// Largest plausible joint angle, rad (NAO joints stay within ±2.1 rad; hands 0..1).
const MAX_JOINT_ANGLE_RAD: f32 = 2.0 * std::f32::consts::PI;
/// Largest plausible magnitude of any other value (currents, temperatures, IMU, FSR…).
const MAX_OTHER_MAGNITUDE: f32 = 1.0e6;

/// Why a frame's numbers were not accepted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SensorCheckError {
    /// Too many bad values to replace.
    #[error("{count} values are not finite or not plausible (first: {first}; at most {limit} are replaced)")]
    TooManyBadValues {
        count: usize,
        first: SensorValue,
        limit: u32,
    },
    /// A bad value in the first frame: there is nothing to replace it with.
    #[error("{value} is not finite or not plausible in a frame before any good one")]
    NoGoodFrameYet { value: SensorValue },
}

/// Remembers the last good value of every number.
#[derive(Debug, Default)]
pub struct SensorCheck {
    last_good: Option<SensorData>,
}

fn plausible(name: &SensorValue, value: f32) -> bool {
    if !value.is_finite() {
        return false;
    }
    match name.field {
        "joint_positions_rad" => value.abs() <= MAX_JOINT_ANGLE_RAD,
        "joint_stiffnesses" => (-0.1..=1.1).contains(&value),
        _ => value.abs() <= MAX_OTHER_MAGNITUDE,
    }
}

impl SensorCheck {
    /// The last frame that passed (after replacements).
    pub fn last_good(&self) -> Option<&SensorData> {
        self.last_good.as_ref()
    }

    /// Replaces the bad values of `sensors` with their last good ones and returns which were
    /// replaced; or refuses the frame (then `sensors` is unchanged in meaning and not kept).
    pub fn check(
        &mut self,
        sensors: &mut SensorData,
        max_replaced: u32,
    ) -> Result<Vec<SensorValue>, SensorCheckError> {
        let mut last = self.last_good.clone();
        let last_values: Option<Vec<f32>> = last
            .as_mut()
            .map(|last| last.values_mut().into_iter().map(|(_, v)| *v).collect());
        let mut bad = Vec::new();
        let mut values = sensors.values_mut();
        debug_assert_eq!(values.len(), SENSOR_VALUE_COUNT);
        for (name, value) in &values {
            if !plausible(name, **value) {
                bad.push(*name);
            }
        }
        if let Some(&first) = bad.first() {
            let Some(last_values) = last_values else {
                return Err(SensorCheckError::NoGoodFrameYet { value: first });
            };
            if bad.len() > max_replaced as usize {
                return Err(SensorCheckError::TooManyBadValues {
                    count: bad.len(),
                    first,
                    limit: max_replaced,
                });
            }
            for ((name, value), last) in values.iter_mut().zip(last_values) {
                if !plausible(name, **value) {
                    **value = last;
                }
            }
        }
        drop(values);
        self.last_good = Some(sensors.clone());
        Ok(bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::JointId;

    #[test]
    fn isolated_bad_values_take_their_last_good_value() {
        let mut check = SensorCheck::default();
        let mut good = SensorData::default();
        good.joint_positions_rad[JointId::LeftKneePitch] = 0.9;
        good.battery.charge_fraction = 0.8;
        assert_eq!(check.check(&mut good.clone(), 8).unwrap(), []);
        let mut glitch = good.clone();
        glitch.joint_positions_rad[JointId::LeftKneePitch] = f32::NAN;
        glitch.joint_positions_rad[JointId::RightKneePitch] = 40.0;
        glitch.battery.charge_fraction = f32::INFINITY;
        glitch.inertial_measurement.gyroscope_rad_per_s.x = 0.25;
        let replaced = check.check(&mut glitch, 8).unwrap();
        let names: Vec<String> = replaced.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            [
                "joint_positions_rad[10]",
                "joint_positions_rad[15]",
                "battery[0]"
            ]
        );
        assert_eq!(glitch.joint_positions_rad[JointId::LeftKneePitch], 0.9);
        assert_eq!(glitch.joint_positions_rad[JointId::RightKneePitch], 0.0);
        assert_eq!(glitch.battery.charge_fraction, 0.8);
        assert_eq!(glitch.inertial_measurement.gyroscope_rad_per_s.x, 0.25);
    }

    #[test]
    fn too_many_bad_values_or_none_to_replace_them_with_reject_the_frame() {
        let mut check = SensorCheck::default();
        let mut first = SensorData::default();
        first.sonar.left_m = f32::NAN;
        let error = check.check(&mut first, 8).unwrap_err();
        assert!(error.to_string().contains("sonar[0]"), "{error}");
        assert!(check.last_good().is_none());
        check.check(&mut SensorData::default(), 8).unwrap();
        let mut broken = SensorData {
            joint_stiffnesses: types::Joints::filled(f32::NAN),
            ..SensorData::default()
        };
        let error = check.check(&mut broken, 8).unwrap_err();
        assert_eq!(
            error.to_string(),
            "25 values are not finite or not plausible (first: joint_stiffnesses[0]; at most 8 are replaced)"
        );
        assert_eq!(
            check.last_good().unwrap().joint_stiffnesses[JointId::HeadYaw],
            0.0,
            "a rejected frame is not remembered"
        );
    }
}
