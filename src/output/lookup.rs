//! Where a row's raw-output file was looked for, in the words the `human` table and the HTML
//! page show under a warning about it: the one sentence of a verdict's output that names a
//! file of this machine, so it lives with the binary, not in the core's words.

use std::path::Path;

use groundcheck_core::Warning;

/// Where a row's raw-output lookup went, for a warning about it: `not found at PATH` and the
/// like, so that a wrong template shows itself on the first row. `None` for other warnings,
/// or when no path was made (an unsafe value).
pub fn lookup(w: Warning, tried: Option<&Path>) -> Option<String> {
    let tried = tried?.display();
    match w {
        Warning::RawOutputMissing => Some(format!("not found at {tried}")),
        Warning::RawOutputUnreadable => Some(format!("{tried} is no regular file that can be read")),
        Warning::RawOutputPathUnsafe => {
            Some(format!("{tried} leads outside the template's folder (a link, or a hard link)"))
        }
        _ => None,
    }
}
