//! The progress bar `reverify` draws on a terminal (stderr): runs done of the job's, rows,
//! rows per second and the estimated time left. Off a terminal nothing is drawn.

use std::cell::Cell;
use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The bar and the counts behind its message.
pub struct Progress {
    bar: ProgressBar,
    rows: Cell<u64>,
    started: Instant,
}

impl Progress {
    /// A bar for `runs` runs on stderr when it is a terminal, else a hidden one.
    pub fn new(runs: u64) -> Progress {
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        Progress::with_target(runs, target)
    }

    /// A bar for `runs` runs drawn on `target`.
    pub fn with_target(runs: u64, target: ProgressDrawTarget) -> Progress {
        let style = ProgressStyle::with_template("{bar:30} {pos}/{len} runs, {msg}, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        // The message is set before the bar is first drawn: an empty one drew `runs, , eta`.
        let bar = ProgressBar::with_draw_target(Some(runs), target).with_style(style).with_message("0 rows");
        Progress { bar, rows: Cell::new(0), started: Instant::now() }
    }

    /// One batch done: `runs` more runs, `rows` more rows.
    pub fn batch(&self, runs: u64, rows: u64) {
        self.rows.set(self.rows.get() + rows);
        let rate = self.rows.get() as f64 / self.started.elapsed().as_secs_f64().max(1e-3);
        // Message first, then the position: each redraw shows both up to date.
        self.bar.set_message(format!("{} rows, {rate:.0} rows/s", self.rows.get()));
        self.bar.inc(runs);
    }

    /// Removes the bar, before the summary or a message is printed.
    /// The bar itself, to clear from another thread (a second Ctrl-C).
    pub fn bar(&self) -> ProgressBar {
        self.bar.clone()
    }

    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use indicatif::TermLike;

    use super::*;

    /// A terminal that keeps every line drawn on it.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<Vec<String>>>);

    impl TermLike for Screen {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            if !s.trim().is_empty() {
                self.0.lock().unwrap_or_else(|e| e.into_inner()).push(s.to_string());
            }
            Ok(())
        }
        fn clear_line(&self) -> io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    // Guards: a first frame reading `0/4 runs, , eta 0s` (the position moved before the
    // message was set).
    #[test]
    fn every_frame_has_its_rows() {
        let screen = Screen::default();
        let progress = Progress::with_target(4, ProgressDrawTarget::term_like(Box::new(screen.clone())));
        progress.bar.tick();
        progress.batch(1, 20);
        progress.batch(3, 60);
        let frames = screen.0.lock().unwrap().clone();
        assert!(frames.len() >= 3, "{frames:?}");
        assert!(frames[0].contains("0/4 runs, 0 rows, eta"), "{}", frames[0]);
        for frame in &frames {
            assert!(!frame.contains(", ,"), "{frame}");
        }
        let last = frames.last().unwrap();
        assert!(last.contains("4/4 runs, 80 rows, ") && last.contains(" rows/s, eta"), "{last}");
    }
}
