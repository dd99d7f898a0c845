//! Any bytes given to the return-message decoder (as the GameController reads UDP 3939) give a
//! message or an error, never a panic; a message that decodes encodes and decodes to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spl_network::GameControllerReturnMessage;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(message) = GameControllerReturnMessage::decode(bytes) {
        let encoded = message
            .encode()
            .expect("a decoded message holds only what the GameController accepts");
        assert_eq!(GameControllerReturnMessage::decode(&encoded), Ok(message));
    }
});
