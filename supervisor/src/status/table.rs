//! The text tables of `cortex status` and `cortex status --modules`: left-aligned columns, `-`
//! for a value not known, times to two places (to the microsecond for modules).

use super::{ModuleTable, Status};

impl Status {
    /// The table `cortex status` prints: the safe state and refused control requests if any,
    /// one row per process, then each process's current fault in full.
    pub fn table(&self) -> String {
        let mut rows: Vec<Vec<String>> = vec![[
            "NAME",
            "PID",
            "STATE",
            "RESTARTS",
            "LAST EXIT",
            "RATE Hz",
            "MEAN ms",
            "MAX ms",
            "OVERRUNS",
            "REJECTED",
            "UPTIME s",
            "STANDBY",
            "FAILOVER ms",
        ]
        .map(str::to_owned)
        .to_vec()];
        let two_places = |value: Option<f64>| cell(value.map(|value| format!("{value:.2}")));
        for process in &self.processes {
            rows.push(vec![
                process.name.clone(),
                cell(process.pid),
                process.state.to_string(),
                process.restarts.to_string(),
                cell(process.last_exit.as_ref()),
                two_places(process.rate_hz),
                two_places(process.tick_mean_ms),
                two_places(process.tick_max_ms),
                process.overruns.to_string(),
                process.rejected_inputs.to_string(),
                two_places(process.uptime_s),
                cell(process.standby),
                two_places(process.last_failover_ms),
            ]);
        }
        let mut out = String::new();
        if let Some(reason) = &self.safe_state {
            out.push_str(&format!("SAFE STATE: {reason}\n"));
        }
        let control = &self.control;
        let refused = [
            control.refused_busy,
            control.refused_oversized,
            control.timed_out,
            control.malformed,
            control.expired,
        ];
        if refused.iter().any(|&count| count > 0) {
            out.push_str(&format!(
                "control socket: {} requests; refused {} (busy), {} (too long), {} (timed out), \
                 {} (malformed), {} (deadline passed)\n",
                control.requests,
                control.refused_busy,
                control.refused_oversized,
                control.timed_out,
                control.malformed,
                control.expired,
            ));
        }
        out.push_str(&aligned(&rows));
        // Faults a process survived (a Python error in the behaviour): under the table, in full.
        for process in &self.processes {
            if let Some(fault) = &process.fault {
                out.push_str(&format!(
                    "{}: FAULT ({} so far): {fault}\n",
                    process.name, process.faults
                ));
            }
        }
        out
    }
}

impl ModuleTable {
    /// The table `cortex status --modules` prints (times in ms to the microsecond).
    pub fn table(&self) -> String {
        let time = |value: Option<f64>| cell(value.map(|ms| format!("{ms:.3}")));
        let mut rows: Vec<Vec<String>> =
            vec![["PROCESS", "MODULE", "LAST ms", "MEAN ms", "MAX ms"]
                .map(str::to_owned)
                .to_vec()];
        for row in &self.modules {
            rows.push(vec![
                row.process.clone(),
                row.module.clone(),
                time(row.last_ms),
                time(row.mean_ms),
                time(row.max_ms),
            ]);
        }
        aligned(&rows)
    }
}

/// A table cell: the value, or `-` when there is none.
fn cell(value: Option<impl ToString>) -> String {
    value.map_or_else(|| "-".to_owned(), |value| value.to_string())
}

/// Rows as left-aligned columns, two spaces apart.
fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|column| rows.iter().map(|row| row[column].len()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::status;

    #[test]
    fn the_status_table_shows_a_dash_for_what_is_not_known_and_the_faults_below() {
        let table = status().table();
        let audio_row = table
            .lines()
            .find(|line| line.starts_with("audio"))
            .unwrap();
        let cells: Vec<&str> = audio_row.split_whitespace().collect();
        assert_eq!(cells[1], "-", "no pid: {audio_row}");
        assert_eq!(cells[2..5], ["failed:", "safe", "state"]);
        assert!(
            table.starts_with("SAFE STATE: audio ended 6 times\n"),
            "{table}"
        );
        assert!(table.contains("3 (deadline passed)"), "{table}");
        assert!(
            table.ends_with("motion: FAULT (2 so far): behaviour.py:3: ZeroDivisionError\n"),
            "{table}"
        );
    }

    #[test]
    fn the_module_table_has_a_header_and_a_dash_for_an_incomplete_window() {
        let table = status().module_table();
        let text = table.table();
        assert!(text.starts_with("PROCESS"), "{text}");
        assert!(
            text.lines()
                .nth(1)
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>()
                == ["motion", "JointInterpolator", "-", "0.004", "-"],
            "{text}"
        );
    }
}
