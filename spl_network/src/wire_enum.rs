//! `wire_enum!`: a `u8` enum of a wire format with its byte values, its names on the command
//! line and the text that an error prints when a byte is none of them.

/// Declares a `#[repr(u8)]` enum whose variants carry their wire byte and a kebab-case name.
///
/// ```ignore
/// wire_enum! {
///     /// What the enum is.
///     pub enum State ("a state (0 initial … 5 standby)") {
///         Initial = 0 => "initial",
///     }
/// }
/// ```
///
/// Generates `from_byte` (`None` for bytes that are no variant), `to_byte`, `name`, `ALL`,
/// `EXPECTED` (the text for errors) and `FromStr` (by name, an error listing the names).
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($expected:literal) {
            $($(#[$variant_meta:meta])* $variant:ident = $value:literal => $text:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "kebab-case")]
        #[repr(u8)]
        pub enum $name {
            $($(#[$variant_meta])* $variant = $value),+
        }

        impl $name {
            /// Every variant, in wire order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// What a valid byte is, for error messages.
            pub const EXPECTED: &'static str = $expected;

            /// The variant with this wire byte, or `None`.
            pub fn from_byte(byte: u8) -> Option<Self> {
                match byte {
                    $($value => Some(Self::$variant),)+
                    _ => None,
                }
            }

            /// The wire byte.
            pub fn to_byte(self) -> u8 {
                self as u8
            }

            /// The kebab-case name (as on the command line).
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str(self.name())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                match text {
                    $($text => Ok(Self::$variant),)+
                    _ => Err(format!(
                        "unknown {} {text:?}: expected one of {}",
                        stringify!($name),
                        [$($text),+].join(", ")
                    )),
                }
            }
        }
    };
}

pub(crate) use wire_enum;
