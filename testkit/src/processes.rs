//! Processes seen from a test: signals, liveness, who mentions a run directory, `/dev/shm`.

use std::process::Command;

/// `kill(pid, signal)`.
pub fn send_signal(pid: i32, signal: i32) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{signal} {pid}");
}

/// Whether a process exists (and is not a zombie).
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().next())
                .unwrap_or("X");
            state != "Z" && state != "X"
        })
        .unwrap_or(false)
}

/// Every pid whose command line mentions `text`.
pub fn pids_mentioning(text: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmdline).contains(text) && alive(pid) {
                pids.push(pid);
            }
        }
    }
    pids
}

/// Files in `/dev/shm`.
pub fn dev_shm() -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// CPU time (user + system) `pid` has used so far, in seconds; 0 when it cannot be read (the
/// process is gone). From `/proc/PID/stat`, whose fields after the name (which may hold spaces
/// and parentheses, hence the last `)`) are counted from the state: utime and stime are the
/// line's 14th and 15th fields. The kernel counts them in clock ticks of 1/100 s on Linux.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |index: usize| {
        fields
            .get(index)
            .and_then(|value| value.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}
