//! What a dynamically linked x86-64 program needs from the machine it runs on, read from its ELF
//! file: the program interpreter (the dynamic loader), the shared libraries (`DT_NEEDED`) and
//! the newest glibc symbol version it asks for (`GLIBC_2.xx` in `.gnu.version_r`). `cortex
//! deploy` compares these with what the robot has before it uploads anything; `objdump -p` and
//! `objdump -T` print the same facts.
//!
//! Only 64-bit little-endian files are read (the NAO v6's x86-64); every offset is checked
//! against the file, so a truncated or hostile file is an error naming the byte offset, never a
//! panic.

use std::path::Path;

/// What the program needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Needs {
    /// `e_machine`: 62 is x86-64.
    pub machine: u16,
    /// The dynamic loader (`/lib64/ld-linux-x86-64.so.2`), `None` for a static program.
    pub interpreter: Option<String>,
    /// The shared libraries, in the order the file lists them (`libpython3.11.so.1.0`, `libc.so.6`).
    pub libraries: Vec<String>,
    /// The newest `GLIBC_x.y[.z]` version any library is asked for, as numbers.
    pub glibc: Option<Vec<u32>>,
}

impl Needs {
    /// The shared library whose name starts with `libpython`, if any.
    pub fn libpython(&self) -> Option<&str> {
        self.libraries
            .iter()
            .map(String::as_str)
            .find(|name| name.starts_with("libpython"))
    }

    /// `major.minor` of the Python the program was linked with (`libpython3.11.so.1.0` → 3.11).
    pub fn python_version(&self) -> Option<String> {
        let rest = self.libpython()?.strip_prefix("libpython")?;
        let version = rest.split(".so").next()?.trim_end_matches(['d', 'm', 'u']);
        (!version.is_empty()).then(|| version.to_owned())
    }
}

/// `[2, 23]` → `2.23`.
pub fn version_text(version: &[u32]) -> String {
    version
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// `2.23` → `[2, 23]`; `None` for anything that is not dot-separated numbers.
pub fn parse_version(text: &str) -> Option<Vec<u32>> {
    let parts: Option<Vec<u32>> = text.trim().split('.').map(|p| p.parse().ok()).collect();
    parts.filter(|parts| !parts.is_empty())
}

/// Why a file could not be read as a program.
#[derive(Debug)]
pub enum ElfError {
    /// The file could not be read.
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Not a 64-bit little-endian ELF file.
    NotElf64 {
        /// The file.
        path: String,
    },
    /// A header or table points outside the file.
    OutOfBounds {
        /// The file.
        path: String,
        /// Which structure.
        what: &'static str,
        /// Where it was looked for.
        offset: u64,
        /// The file's size.
        size: usize,
    },
}

impl std::fmt::Display for ElfError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ElfError::Read { path, source } => write!(formatter, "cannot read {path}: {source}"),
            ElfError::NotElf64 { path } => {
                write!(
                    formatter,
                    "{path} is not a 64-bit little-endian ELF program"
                )
            }
            ElfError::OutOfBounds {
                path,
                what,
                offset,
                size,
            } => write!(
                formatter,
                "{path}: {what} at byte offset {offset} lies outside the file ({size} bytes)"
            ),
        }
    }
}

impl std::error::Error for ElfError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ElfError::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

const SHT_DYNAMIC: u32 = 6;
const SHT_GNU_VERNEED: u32 = 0x6fff_fffe;
const PT_INTERP: u32 = 3;
const DT_NEEDED: i64 = 1;

struct Reader<'a> {
    bytes: &'a [u8],
    path: String,
}

impl Reader<'_> {
    fn slice(&self, offset: u64, length: u64, what: &'static str) -> Result<&[u8], ElfError> {
        let out_of_bounds = || ElfError::OutOfBounds {
            path: self.path.clone(),
            what,
            offset,
            size: self.bytes.len(),
        };
        let start = usize::try_from(offset).map_err(|_| out_of_bounds())?;
        let end = usize::try_from(length)
            .ok()
            .and_then(|length| start.checked_add(length))
            .ok_or_else(out_of_bounds)?;
        self.bytes.get(start..end).ok_or_else(out_of_bounds)
    }

    fn u16(&self, offset: u64, what: &'static str) -> Result<u16, ElfError> {
        let bytes = self.slice(offset, 2, what)?;
        Ok(u16::from_le_bytes([bytes[0], bytes[1]]))
    }

    fn u32(&self, offset: u64, what: &'static str) -> Result<u32, ElfError> {
        let bytes = self.slice(offset, 4, what)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn u64(&self, offset: u64, what: &'static str) -> Result<u64, ElfError> {
        let bytes = self.slice(offset, 8, what)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(word))
    }

    /// A NUL-terminated string at `offset` of the string table `table` (offset, size).
    fn string(&self, table: (u64, u64), offset: u64) -> Result<String, ElfError> {
        let bytes = self.slice(table.0, table.1, "a string table")?;
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let tail = bytes.get(start..).ok_or(ElfError::OutOfBounds {
            path: self.path.clone(),
            what: "a string",
            offset: table.0.saturating_add(offset),
            size: self.bytes.len(),
        })?;
        let end = tail.iter().position(|b| *b == 0).unwrap_or(tail.len());
        Ok(String::from_utf8_lossy(&tail[..end]).into_owned())
    }
}

/// Section header fields we use: type, offset, size, link, info.
struct Section {
    kind: u32,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
}

/// Reads what the program at `path` needs.
pub fn needs(path: &Path) -> Result<Needs, ElfError> {
    let bytes = std::fs::read(path).map_err(|source| ElfError::Read {
        path: path.display().to_string(),
        source,
    })?;
    needs_of(&bytes, &path.display().to_string())
}

/// Reads what the program in `bytes` needs; `path` names it in errors.
pub fn needs_of(bytes: &[u8], path: &str) -> Result<Needs, ElfError> {
    if bytes.len() < 64 || &bytes[..4] != b"\x7fELF" || bytes[4] != 2 || bytes[5] != 1 {
        return Err(ElfError::NotElf64 {
            path: path.to_owned(),
        });
    }
    let reader = Reader {
        bytes,
        path: path.to_owned(),
    };
    let machine = reader.u16(0x12, "the ELF header")?;
    let program_headers = reader.u64(0x20, "the ELF header")?;
    let section_headers = reader.u64(0x28, "the ELF header")?;
    let program_header_size = u64::from(reader.u16(0x36, "the ELF header")?);
    let program_header_count = u64::from(reader.u16(0x38, "the ELF header")?);
    let section_header_size = u64::from(reader.u16(0x3a, "the ELF header")?);
    let section_header_count = u64::from(reader.u16(0x3c, "the ELF header")?);

    let mut interpreter = None;
    for index in 0..program_header_count {
        let at = program_headers.saturating_add(index * program_header_size);
        if reader.u32(at, "a program header")? == PT_INTERP {
            let offset = reader.u64(at + 8, "a program header")?;
            let size = reader.u64(at + 32, "a program header")?;
            let text = reader.slice(offset, size, "the interpreter path")?;
            let end = text.iter().position(|b| *b == 0).unwrap_or(text.len());
            interpreter = Some(String::from_utf8_lossy(&text[..end]).into_owned());
        }
    }

    let mut sections = Vec::new();
    for index in 0..section_header_count {
        let at = section_headers.saturating_add(index * section_header_size);
        sections.push(Section {
            kind: reader.u32(at + 4, "a section header")?,
            offset: reader.u64(at + 24, "a section header")?,
            size: reader.u64(at + 32, "a section header")?,
            link: reader.u32(at + 40, "a section header")?,
            info: reader.u32(at + 44, "a section header")?,
        });
    }
    let string_table = |link: u32| -> Result<(u64, u64), ElfError> {
        let section = sections.get(link as usize).ok_or(ElfError::OutOfBounds {
            path: path.to_owned(),
            what: "a linked string table",
            offset: section_headers,
            size: bytes.len(),
        })?;
        Ok((section.offset, section.size))
    };

    let mut libraries = Vec::new();
    let mut glibc: Option<Vec<u32>> = None;
    for section in &sections {
        match section.kind {
            SHT_DYNAMIC => {
                let strings = string_table(section.link)?;
                for entry in 0..section.size / 16 {
                    let at = section.offset.saturating_add(entry * 16);
                    let tag = reader.u64(at, "a dynamic entry")? as i64;
                    if tag == DT_NEEDED {
                        let name = reader.u64(at + 8, "a dynamic entry")?;
                        libraries.push(reader.string(strings, name)?);
                    }
                }
            }
            SHT_GNU_VERNEED => {
                let strings = string_table(section.link)?;
                let mut at = section.offset;
                for _ in 0..section.info {
                    let count = reader.u16(at + 2, "a version need")?;
                    let mut auxiliary =
                        at.saturating_add(u64::from(reader.u32(at + 8, "a version need")?));
                    for _ in 0..count {
                        let name = reader.u32(auxiliary + 8, "a version need")?;
                        let name = reader.string(strings, u64::from(name))?;
                        if let Some(version) = name.strip_prefix("GLIBC_").and_then(parse_version) {
                            if glibc.as_ref().is_none_or(|newest| version > *newest) {
                                glibc = Some(version);
                            }
                        }
                        let next = reader.u32(auxiliary + 12, "a version need")?;
                        auxiliary = auxiliary.saturating_add(u64::from(next));
                    }
                    let next = reader.u32(at + 12, "a version need")?;
                    if next == 0 {
                        break;
                    }
                    at = at.saturating_add(u64::from(next));
                }
            }
            _ => {}
        }
    }
    Ok(Needs {
        machine,
        interpreter,
        libraries,
        glibc,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_test_program_needs_a_loader_libc_and_a_glibc_version() {
        let program = std::env::current_exe().unwrap();
        let needs = needs(&program).unwrap();
        assert_eq!(needs.machine, 62);
        assert!(
            needs
                .interpreter
                .as_deref()
                .is_some_and(|i| i.contains("ld-linux")),
            "{needs:?}"
        );
        assert!(
            needs.libraries.iter().any(|l| l == "libc.so.6"),
            "{needs:?}"
        );
        let glibc = needs.glibc.clone().unwrap();
        assert_eq!(glibc[0], 2, "{needs:?}");
    }

    #[test]
    fn broken_files_are_errors_not_panics() {
        let program = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        assert!(matches!(
            needs_of(b"#!/bin/sh\n", "x"),
            Err(ElfError::NotElf64 { .. })
        ));
        // Cut short at many lengths, and with header fields overwritten by large numbers.
        for length in [64, 100, 1000, 4096, program.len() / 2] {
            let _ = needs_of(&program[..length], "cut");
        }
        for field in [0x20, 0x28, 0x36, 0x38, 0x3a, 0x3c] {
            let mut broken = program.clone();
            broken[field..field + 2].copy_from_slice(&[0xff, 0xff]);
            let _ = needs_of(&broken, "broken");
        }
        let mut cut = program.clone();
        cut.truncate(200);
        let error = needs_of(&cut, "cut").unwrap_err().to_string();
        assert!(error.contains("byte offset"), "{error}");
    }

    #[test]
    fn python_versions_come_from_the_library_name() {
        let needs = Needs {
            libraries: vec!["libpython3.11.so.1.0".into(), "libc.so.6".into()],
            ..Needs::default()
        };
        assert_eq!(needs.python_version().as_deref(), Some("3.11"));
        assert_eq!(parse_version("2.23"), Some(vec![2, 23]));
        assert_eq!(parse_version("2.x"), None);
        assert!(parse_version("2.23").unwrap() < parse_version("2.34").unwrap());
    }
}
