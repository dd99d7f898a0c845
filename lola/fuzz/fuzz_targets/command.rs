//! Any bytes given to the command decoder (as the simulator reads them from a client stream) give
//! a command or an error, never a panic; a command that decodes encodes again to the same values.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lola::codec::{decode_command, decode_command_prefix, encode_command};

fuzz_target!(|bytes: &[u8]| {
    let _ = decode_command(bytes);
    let mut rest = bytes;
    while let Ok((command, used)) = decode_command_prefix(rest) {
        assert!(used > 0 && used <= rest.len());
        let encoded =
            encode_command(&command).expect("a decoded command holds only finite numbers");
        assert_eq!(
            decode_command(&encoded).expect("an encoded command decodes"),
            command
        );
        rest = &rest[used..];
    }
});
