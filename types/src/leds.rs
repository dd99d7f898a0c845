//! What every LED of the body should show: [`LedRequest`].
//!
//! The layout here is *logical* — ears and eyes indexed by angle, the skull by name — so that
//! code writing LEDs never deals with LoLA's index orders (left and right eyes and ears are
//! mirrored on the wire). The LoLA codec maps this layout to the wire (protocols.md §1).
//!
//! Angles follow Aldebaran's LED names (`Ears/Led/Left/36Deg`, `Face/Led/Red/Left/45Deg`).
//! All intensities are 0 (off) .. 1 (full).

use serde::{Deserialize, Serialize};

/// A colour, each channel 0..1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rgb {
    pub red: f32,
    pub green: f32,
    pub blue: f32,
}

impl Rgb {
    pub const OFF: Rgb = Rgb::new(0.0, 0.0, 0.0);
    pub const WHITE: Rgb = Rgb::new(1.0, 1.0, 1.0);
    pub const RED: Rgb = Rgb::new(1.0, 0.0, 0.0);
    pub const GREEN: Rgb = Rgb::new(0.0, 1.0, 0.0);
    pub const BLUE: Rgb = Rgb::new(0.0, 0.0, 1.0);

    pub const fn new(red: f32, green: f32, blue: f32) -> Self {
        Self { red, green, blue }
    }

    /// Each channel multiplied by `intensity` (clamped to 0..1).
    pub fn scaled(self, intensity: f32) -> Self {
        let intensity = if intensity.is_finite() {
            intensity.clamp(0.0, 1.0)
        } else {
            0.0
        };
        Self::new(
            self.red * intensity,
            self.green * intensity,
            self.blue * intensity,
        )
    }
}

/// The 10 blue LEDs of one ear. `intensities[i]` is the LED at `36 · i` degrees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EarLeds {
    pub intensities: [f32; 10],
}

impl EarLeds {
    /// All ten LEDs at `intensity`.
    pub const fn uniform(intensity: f32) -> Self {
        Self {
            intensities: [intensity; 10],
        }
    }
}

/// The 8 RGB LEDs of one eye. `segments[i]` is the LED at `45 · i` degrees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EyeLeds {
    pub segments: [Rgb; 8],
}

impl EyeLeds {
    /// All eight LEDs in `colour`.
    pub const fn uniform(colour: Rgb) -> Self {
        Self {
            segments: [colour; 8],
        }
    }
}

/// The 12 white LEDs on top of the head, named as Aldebaran names them
/// (`Head/Led/Front/Left/0` …): 0 is the LED nearest the middle line of the head.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SkullLeds {
    pub front_left_0: f32,
    pub front_left_1: f32,
    pub middle_left_0: f32,
    pub rear_left_0: f32,
    pub rear_left_1: f32,
    pub rear_left_2: f32,
    pub front_right_0: f32,
    pub front_right_1: f32,
    pub middle_right_0: f32,
    pub rear_right_0: f32,
    pub rear_right_1: f32,
    pub rear_right_2: f32,
}

impl SkullLeds {
    /// All twelve LEDs at `intensity`.
    pub const fn uniform(intensity: f32) -> Self {
        Self {
            front_left_0: intensity,
            front_left_1: intensity,
            middle_left_0: intensity,
            rear_left_0: intensity,
            rear_left_1: intensity,
            rear_left_2: intensity,
            front_right_0: intensity,
            front_right_1: intensity,
            middle_right_0: intensity,
            rear_right_0: intensity,
            rear_right_1: intensity,
            rear_right_2: intensity,
        }
    }
}

/// Every LED LoLA drives. The default is everything off.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LedRequest {
    pub left_ear: EarLeds,
    pub right_ear: EarLeds,
    pub left_eye: EyeLeds,
    pub right_eye: EyeLeds,
    pub chest: Rgb,
    pub left_foot: Rgb,
    pub right_foot: Rgb,
    pub skull: SkullLeds,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn led_request_round_trips_and_defaults_off() {
        assert_eq!(LedRequest::default().chest, Rgb::OFF);
        assert_eq!(LedRequest::default().left_ear.intensities, [0.0; 10]);
        let mut request = LedRequest::default();
        request.left_eye.segments[1] = Rgb::new(0.1, 0.2, 0.3);
        request.right_ear.intensities[9] = 0.5;
        request.skull.rear_right_2 = 1.0;
        request.chest = Rgb::GREEN;
        let bytes = rmp_serde::to_vec_named(&request).unwrap();
        assert_eq!(
            rmp_serde::from_slice::<LedRequest>(&bytes).unwrap(),
            request
        );
    }

    #[test]
    fn scaled_clamps_intensity() {
        assert_eq!(Rgb::WHITE.scaled(0.5), Rgb::new(0.5, 0.5, 0.5));
        assert_eq!(Rgb::RED.scaled(3.0), Rgb::RED);
        assert_eq!(Rgb::RED.scaled(f32::NAN), Rgb::OFF);
    }
}
