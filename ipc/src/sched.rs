//! Scheduling of the calling thread: real-time priority, CPU affinity, and sleeping until an
//! absolute `CLOCK_MONOTONIC` deadline (pacing without drift).

use std::io;

/// Gives the calling thread `SCHED_FIFO` at `priority` (1..=99). Fails with the system's error
/// (usually `EPERM` without `CAP_SYS_NICE` or an `rtprio` limit); the caller decides whether that
/// is fatal.
pub fn set_realtime_priority(priority: u8) -> io::Result<()> {
    if !(1..=99).contains(&priority) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("priority {priority} is outside 1..=99"),
        ));
    }
    let parameters = libc::sched_param {
        sched_priority: i32::from(priority),
    };
    // SAFETY: `pthread_setschedparam` on the calling thread's own handle with a valid, initialised
    // `sched_param`; it reads the struct and touches no Rust memory.
    let result =
        unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &parameters) };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(result))
    }
}

/// Restricts the calling thread to `cpus`.
pub fn set_affinity(cpus: &[usize]) -> io::Result<()> {
    let mut set = rustix::thread::CpuSet::new();
    for &cpu in cpus {
        if cpu >= rustix::thread::CpuSet::MAX_CPU {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("CPU {cpu} is out of range"),
            ));
        }
        set.set(cpu);
    }
    rustix::thread::sched_setaffinity(None, &set).map_err(io::Error::from)
}

/// Restores the default action (end the process, core dump) of `SIGSEGV` and `SIGBUS`.
///
/// Rust's runtime catches both to report stack overflows; for any other origin its handler
/// returns, so a `SIGSEGV` sent with `kill` is swallowed once and the process goes on. A
/// supervised child must die of it, so that the supervisor sees the signal and restarts it.
pub fn restore_default_fault_signals() -> io::Result<()> {
    for signal in [libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: installing `SIG_DFL` runs no code of ours in signal context and is valid for
        // these signals at any time.
        let previous = unsafe { libc::signal(signal, libc::SIG_DFL) };
        if previous == libc::SIG_ERR {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Restores the default action of `SIGPIPE` (end the process quietly), which Rust's runtime
/// ignores. For command-line tools whose output may go to `head` or a closed pager: without it
/// the next `println!` after the reader left panics with "Broken pipe". Never call it in a
/// process that must outlive its readers (the supervisor, its children).
pub fn restore_default_pipe_signal() -> io::Result<()> {
    // SAFETY: installing `SIG_DFL` runs no code of ours in signal context and is valid for
    // SIGPIPE at any time.
    let previous = unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    if previous == libc::SIG_ERR {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sleeps until `CLOCK_MONOTONIC` reaches `deadline_ns` (see [`crate::health::monotonic_ns`]).
/// Returns early only if a signal interrupts the sleep.
pub fn sleep_until(deadline_ns: u64) {
    let request = rustix::time::Timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as i64,
        tv_nsec: (deadline_ns % 1_000_000_000) as i64,
    };
    let _ = rustix::thread::clock_nanosleep_absolute(rustix::thread::ClockId::Monotonic, &request);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::health::monotonic_ns;

    #[test]
    fn sleeps_until_the_deadline() {
        let deadline = monotonic_ns() + 5_000_000;
        sleep_until(deadline);
        assert!(monotonic_ns() >= deadline);
    }

    #[test]
    fn priority_out_of_range_is_refused_and_affinity_to_cpu_zero_works() {
        assert!(set_realtime_priority(0).is_err());
        assert!(set_realtime_priority(100).is_err());
        set_affinity(&[0]).unwrap();
        assert!(set_affinity(&[usize::MAX]).is_err());
    }
}
