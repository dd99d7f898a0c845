//! Mapping of the logical LED layout of [`LedRequest`](types::LedRequest) to
//! LoLA's index orders (protocols.md §1, "Keys LoLA accepts") and back.
//!
//! | key | wire order |
//! |---|---|
//! | `LEar` | 0°, 36°, …, 324° (same as logical) |
//! | `REar` | 324°, 288°, …, 0° (reversed) |
//! | `LEye` | 8 reds, 8 greens, 8 blues; each in the LED order 45°, 0°, 315°, 270°, 225°, 180°, 135°, 90° |
//! | `REye` | 8 reds, 8 greens, 8 blues; each in the LED order 0°, 45°, …, 315° |
//! | `Skull` | FrontLeft1, FrontLeft0, MiddleLeft0, RearLeft0, RearLeft1, RearLeft2, RearRight2, RearRight1, RearRight0, MiddleRight0, FrontRight0, FrontRight1 |

use types::{EarLeds, EyeLeds, Rgb, SkullLeds};

/// For each wire position of `LEye`, the logical segment (angle / 45°) it drives.
const LEFT_EYE_WIRE_TO_SEGMENT: [usize; 8] = [1, 0, 7, 6, 5, 4, 3, 2];
/// For each wire position of `REye`, the logical segment (angle / 45°) it drives.
const RIGHT_EYE_WIRE_TO_SEGMENT: [usize; 8] = [0, 1, 2, 3, 4, 5, 6, 7];

pub(crate) fn left_ear_to_wire(ear: &EarLeds) -> [f32; 10] {
    ear.intensities
}

pub(crate) fn left_ear_from_wire(wire: [f32; 10]) -> EarLeds {
    EarLeds { intensities: wire }
}

pub(crate) fn right_ear_to_wire(ear: &EarLeds) -> [f32; 10] {
    std::array::from_fn(|position| ear.intensities[9 - position])
}

pub(crate) fn right_ear_from_wire(wire: [f32; 10]) -> EarLeds {
    EarLeds {
        intensities: std::array::from_fn(|segment| wire[9 - segment]),
    }
}

fn eye_to_wire(eye: &EyeLeds, wire_to_segment: &[usize; 8]) -> [f32; 24] {
    let mut wire = [0.0; 24];
    for (position, segment) in wire_to_segment.iter().enumerate() {
        let colour = eye.segments[*segment];
        wire[position] = colour.red;
        wire[8 + position] = colour.green;
        wire[16 + position] = colour.blue;
    }
    wire
}

fn eye_from_wire(wire: [f32; 24], wire_to_segment: &[usize; 8]) -> EyeLeds {
    let mut eye = EyeLeds::default();
    for (position, segment) in wire_to_segment.iter().enumerate() {
        eye.segments[*segment] = Rgb::new(wire[position], wire[8 + position], wire[16 + position]);
    }
    eye
}

pub(crate) fn left_eye_to_wire(eye: &EyeLeds) -> [f32; 24] {
    eye_to_wire(eye, &LEFT_EYE_WIRE_TO_SEGMENT)
}

pub(crate) fn left_eye_from_wire(wire: [f32; 24]) -> EyeLeds {
    eye_from_wire(wire, &LEFT_EYE_WIRE_TO_SEGMENT)
}

pub(crate) fn right_eye_to_wire(eye: &EyeLeds) -> [f32; 24] {
    eye_to_wire(eye, &RIGHT_EYE_WIRE_TO_SEGMENT)
}

pub(crate) fn right_eye_from_wire(wire: [f32; 24]) -> EyeLeds {
    eye_from_wire(wire, &RIGHT_EYE_WIRE_TO_SEGMENT)
}

pub(crate) fn skull_to_wire(skull: &SkullLeds) -> [f32; 12] {
    [
        skull.front_left_1,
        skull.front_left_0,
        skull.middle_left_0,
        skull.rear_left_0,
        skull.rear_left_1,
        skull.rear_left_2,
        skull.rear_right_2,
        skull.rear_right_1,
        skull.rear_right_0,
        skull.middle_right_0,
        skull.front_right_0,
        skull.front_right_1,
    ]
}

pub(crate) fn skull_from_wire(wire: [f32; 12]) -> SkullLeds {
    SkullLeds {
        front_left_1: wire[0],
        front_left_0: wire[1],
        middle_left_0: wire[2],
        rear_left_0: wire[3],
        rear_left_1: wire[4],
        rear_left_2: wire[5],
        rear_right_2: wire[6],
        rear_right_1: wire[7],
        rear_right_0: wire[8],
        middle_right_0: wire[9],
        front_right_0: wire[10],
        front_right_1: wire[11],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn right_ear_is_reversed() {
        let mut ear = EarLeds::default();
        ear.intensities[0] = 0.5; // 0°
        ear.intensities[1] = 0.25; // 36°
        let wire = right_ear_to_wire(&ear);
        assert_eq!(wire[9], 0.5, "0° is the last LoLA index");
        assert_eq!(wire[8], 0.25, "36° is the second to last");
        assert_eq!(right_ear_from_wire(wire), ear);
        assert_eq!(left_ear_to_wire(&ear)[0], 0.5);
    }

    #[test]
    fn left_eye_order_starts_at_45_degrees() {
        let mut eye = EyeLeds::default();
        eye.segments[1] = Rgb::new(0.1, 0.2, 0.3); // 45°
        eye.segments[7] = Rgb::new(0.7, 0.0, 0.0); // 315°
        eye.segments[2] = Rgb::new(0.0, 0.0, 0.9); // 90°
        let wire = left_eye_to_wire(&eye);
        assert_eq!((wire[0], wire[8], wire[16]), (0.1, 0.2, 0.3));
        assert_eq!(wire[2], 0.7);
        assert_eq!(wire[16 + 7], 0.9);
        assert_eq!(left_eye_from_wire(wire), eye);
    }

    #[test]
    fn right_eye_is_in_angle_order_with_colour_blocks() {
        let mut eye = EyeLeds::default();
        eye.segments[3] = Rgb::new(0.1, 0.2, 0.3);
        let wire = right_eye_to_wire(&eye);
        assert_eq!((wire[3], wire[11], wire[19]), (0.1, 0.2, 0.3));
        assert_eq!(right_eye_from_wire(wire), eye);
    }

    #[test]
    fn skull_order_matches_lola() {
        let skull = SkullLeds {
            front_left_1: 1.0,
            front_right_1: 0.5,
            rear_right_2: 0.25,
            ..Default::default()
        };
        let wire = skull_to_wire(&skull);
        assert_eq!(wire[0], 1.0);
        assert_eq!(wire[11], 0.5);
        assert_eq!(wire[6], 0.25);
        assert_eq!(skull_from_wire(wire), skull);
    }
}
