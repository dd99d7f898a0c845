//! One progress line per robot: redrawn in place on a terminal (cursor up, clear line), printed
//! as `robot (address): step` lines otherwise (a log, CI).

use super::Robot;
use std::io::{IsTerminal, Write};
use std::sync::Mutex;

/// One line per robot: redrawn in place on a terminal, one line per change otherwise.
pub(super) struct Progress {
    labels: Vec<String>,
    states: Mutex<Vec<String>>,
    terminal: bool,
}

impl Progress {
    pub(super) fn new(robots: &[Robot]) -> Progress {
        let progress = Progress {
            labels: robots.iter().map(Robot::label).collect(),
            states: Mutex::new(vec!["waiting".to_owned(); robots.len()]),
            terminal: std::io::stdout().is_terminal(),
        };
        if progress.terminal {
            progress.draw(
                &progress.states.lock().unwrap_or_else(|e| e.into_inner()),
                false,
            );
        }
        progress
    }

    pub(super) fn set(&self, index: usize, text: &str) {
        let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(state) = states.get_mut(index) {
            *state = text.to_owned();
        }
        if self.terminal {
            self.draw(&states, true);
        } else {
            println!("{}: {text}", self.labels[index]);
        }
    }

    fn draw(&self, states: &[String], redraw: bool) {
        let mut out = std::io::stdout().lock();
        if redraw && !self.labels.is_empty() {
            let _ = write!(out, "\x1b[{}A", self.labels.len());
        }
        for (label, state) in self.labels.iter().zip(states) {
            let _ = writeln!(out, "\x1b[2K{label}: {state}");
        }
        let _ = out.flush();
    }

    pub(super) fn finish(&self) {
        let _ = std::io::stdout().flush();
    }
}
