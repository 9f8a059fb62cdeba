//! Why a loop stays sequential ([`SequentialReason`]): data with a stable code for tools (the
//! JSON report's `reason_code`), rendered to the report's text in one place ([`fmt::Display`]).
//!
//! Invariant: a code, once given, keeps its meaning; a new reason gets a new code, and a reason
//! that goes away leaves its code unused.

use std::fmt;

/// Why a loop stays sequential.
#[derive(Clone, Debug, PartialEq)]
pub enum SequentialReason {
    /// S01: `while` loops run in order.
    WhileLoop,
    /// S02: `coder.gpu.nokernel()` before the loop.
    NoKernelPragma,
    /// S03: `fprintf`, `disp` or `warning` in the body prints in iteration order.
    HostPrint { function: &'static str },
    /// S04: an `error` whose message formats a char array (`%s` of text).
    ErrorFormatsText { function: &'static str },
    /// S05: `break` or `return` leaves the loop early.
    EarlyExit { word: &'static str },
    /// S06: `rand`/`randn` draw from the stream in program order.
    RandomDraw { function: &'static str },
    /// S07: an array allocated, copied or resized inside the body that is no scratch array
    /// (see `crate::scratch`), and why.
    ArrayCreated {
        array: String,
        why: crate::scratch::NotScratch,
    },
    /// S08: an array element written in one iteration and read (or written) in another.
    CarriedArray {
        array: String,
        written_again: bool,
        /// Iterations apart; `None` when unknown.
        distance: Option<i64>,
    },
    /// S09: a carried dependence whose accesses could not be named.
    UnknownDependence,
    /// S10: a scalar assigned only in some iterations whose value is read after the loop.
    PartlyAssignedLiveOut { var: String },
    /// S11: a scalar carried from one iteration to the next that is not a reduction.
    NotAReduction { var: String, why: String },
    /// S12: a location variable of a min/max-with-location that is also used otherwise.
    LocationMisused { var: String },
    /// S13: `coder.gpu.kernel()` on a loop that no pragma can make parallel (the inner reason).
    Unforceable(Box<SequentialReason>),
    /// S14: `tic`/`toc` read the host's clock in order.
    HostClock,
}

impl SequentialReason {
    /// The stable code of the reason.
    pub fn code(&self) -> &'static str {
        match self {
            SequentialReason::WhileLoop => "S01",
            SequentialReason::NoKernelPragma => "S02",
            SequentialReason::HostPrint { .. } => "S03",
            SequentialReason::ErrorFormatsText { .. } => "S04",
            SequentialReason::EarlyExit { .. } => "S05",
            SequentialReason::RandomDraw { .. } => "S06",
            SequentialReason::ArrayCreated { .. } => "S07",
            SequentialReason::CarriedArray { .. } => "S08",
            SequentialReason::UnknownDependence => "S09",
            SequentialReason::PartlyAssignedLiveOut { .. } => "S10",
            SequentialReason::NotAReduction { .. } => "S11",
            SequentialReason::LocationMisused { .. } => "S12",
            SequentialReason::Unforceable(_) => "S13",
            SequentialReason::HostClock => "S14",
        }
    }
}

impl fmt::Display for SequentialReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SequentialReason::WhileLoop => {
                write!(f, "a `while` loop runs its iterations one after another")
            }
            SequentialReason::NoKernelPragma => {
                write!(f, "`coder.gpu.nokernel()` keeps this loop on the CPU")
            }
            SequentialReason::HostPrint { function } => {
                let what = match *function {
                    "sprintf" => "formats its text",
                    _ => "prints",
                };
                write!(
                    f,
                    "it calls `{function}`, which {what} on the host in iteration order and cannot run in a kernel"
                )
            }
            SequentialReason::ErrorFormatsText { function } => write!(
                f,
                "it calls `{function}`, which formats a char array into its message, which a kernel's failure record cannot hold"
            ),
            SequentialReason::EarlyExit { word } => write!(
                f,
                "`{word}` leaves the loop early, so later iterations depend on earlier ones"
            ),
            SequentialReason::RandomDraw { function } => write!(
                f,
                "the loop calls `{function}`, whose random stream is drawn in order"
            ),
            SequentialReason::ArrayCreated { array, why } => {
                write!(f, "array `{array}` is created inside the loop and {why}")
            }
            SequentialReason::CarriedArray {
                array,
                written_again,
                distance,
            } => {
                let what = if *written_again {
                    "written again"
                } else {
                    "read"
                };
                write!(f, "`{array}` is written in one iteration and {what} in another, ")?;
                match distance {
                    Some(d) => write!(f, "{d} iteration(s) apart"),
                    None => write!(f, "at an unknown distance"),
                }
            }
            SequentialReason::UnknownDependence => write!(f, "a dependence between iterations"),
            SequentialReason::HostClock => write!(
                f,
                "the loop reads the clock with `tic`/`toc`, which only the host has, in order"
            ),
            SequentialReason::PartlyAssignedLiveOut { var } => write!(
                f,
                "`{var}` is assigned only in some iterations and its value is used after the loop"
            ),
            SequentialReason::NotAReduction { var, why } => write!(
                f,
                "`{var}` carries a value from one iteration to the next and is not a reduction: {why}"
            ),
            SequentialReason::LocationMisused { var } => write!(
                f,
                "`{var}` records a location but is also used in other ways inside the loop"
            ),
            SequentialReason::Unforceable(inner) => write!(
                f,
                "{inner}; `coder.gpu.kernel()` cannot make such a loop parallel"
            ),
        }
    }
}
