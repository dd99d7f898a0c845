//! Any bytes given to the sensor-frame decoder give a frame or an error, never a panic; a frame
//! that decodes encodes again and decodes to the same values.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lola::codec::{decode_sensor_frame, encode_sensor_frame};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(frame) = decode_sensor_frame(bytes) {
        let encoded = encode_sensor_frame(&frame.sensor_data, &frame.robot_identity)
            .expect("a decoded frame holds only finite numbers");
        let again = decode_sensor_frame(&encoded).expect("an encoded frame decodes");
        assert_eq!(again, frame);
    }
});
