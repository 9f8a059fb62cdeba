//! The failure record of a parallel iteration that may raise `error` (see `crate::raise`): where
//! an `error` statement stores its site and its message's values. The statement writer fills it
//! ([`Failure::record`]); the printers declare it and report it, with the same field names.

use m2cu_frontend::ir::StmtId;

use crate::code::Code;

/// Where an `error` statement of a parallel iteration records its failure.
#[derive(Clone)]
pub struct Failure {
    /// The record (an lvalue of the kernel's record type).
    pub record: &'static str,
    /// The label at the end of the iteration.
    pub label: String,
}

impl Failure {
    /// `error` statement `s` reached under status `status` with its message's values (C
    /// expressions, in order): unless the iteration already failed, stores the site and the
    /// values and jumps to the end of the iteration.
    pub fn record(&self, code: &mut Code, status: &str, s: StmtId, values: &[String]) {
        let record = self.record;
        code.open(format!("if (!{status}) {{"));
        code.line(format!("{record}.site = {};", site_number(s)));
        for (j, value) in values.iter().enumerate() {
            code.line(format!("{record}.{} = {value};", field(s, j)));
        }
        // A value of the message may fail its own check first: that error is the iteration's.
        code.line(format!("if (!{status}) {status} = M2CU_E_USER;"));
        code.line(format!("goto {};", self.label));
        code.close("}");
    }
}

/// The number of an `error` statement in its record.
pub fn site_number(s: StmtId) -> u32 {
    u32::from(s.into_raw())
}

/// The record field that holds value `j` of the message of statement `s`.
pub fn field(s: StmtId, j: usize) -> String {
    format!("a{}_{j}", site_number(s))
}
