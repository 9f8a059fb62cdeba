//! m2cu analysis: a verdict for every loop, and the kernel plan.
//!
//! Phases, each a module: [`loops`] (the loop tree), [`access`] (affine summaries of array
//! subscripts), [`deps`] (the dependence graph over array accesses, with direction vectors),
//! [`induction`] (induction variables and their closed forms), [`scalars`] (private,
//! read-only, live-out and loop-carried scalars), [`reduction`] (reduction recognition),
//! [`scatter`] (histogram updates that may run atomically), [`scan`] (running sums read in every
//! iteration), [`scratch`] (arrays each iteration creates for itself), [`bounds`] (subscripts proven in range), [`guards`] (index checks hoisted out of loops), [`verdict`] (combining the above into `parallel` / `reduction` / `scan` /
//! `sequential` with a [`reason`] and a witness),
//! [`plan`] (which loops become which kernels, collapsing perfect nests), [`fusion`] (adjacent
//! kernels over one iteration space become one), [`per_output`] (a thread, a warp or a block
//! per output of an inner reduction) and [`tiles`] (matrix products computed in tiles), and
//! [`report`] (the stable text form).
//!
//! Analysis only reads the IR; its results are side tables keyed by IR handles.

pub mod access;
pub mod bounds;
pub mod constant;
pub mod deps;
pub mod fusion;
pub mod guards;
pub mod induction;
pub mod liveness;
pub mod loops;
pub mod per_output;
pub mod plan;
pub mod reason;
pub mod reduction;
pub mod report;
pub mod residency;
pub mod scalars;
pub mod scan;
pub mod scatter;
pub mod scratch;
pub mod tiles;
pub mod verdict;

use m2cu_frontend::ir::Function;

pub use loops::{LoopId, LoopInfo, LoopTree, PerLoop};
pub use per_output::PerOutput;
pub use plan::{ArrayUse, Kernel, KernelPlan};
pub use reason::SequentialReason;
pub use reduction::{Form, Reduction, Ties};
pub use scan::Scan;
pub use tiles::Tiles;
pub use verdict::{Verdict, Witness};

/// Everything the code generators need to know about a function's loops.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub loops: LoopTree,
    /// One verdict per loop.
    pub verdicts: PerLoop<Verdict>,
    pub plan: KernelPlan,
    /// Where the inputs of `coder.gpu.constantMemory` directives live.
    pub constants: constant::ConstantPlacement,
    /// The arrays with a device copy and the host statements that touch them.
    pub residency: residency::Residency,
    /// The subscripts whose index checks can never fail.
    pub in_range: bounds::InRange,
    /// The subscripts each loop may check once before it instead (loop versioning).
    pub guards: guards::Guards,
    /// The host's array copies that swap storage instead ([`liveness::host_moves`]).
    pub host_moves: std::collections::BTreeSet<m2cu_frontend::ir::StmtId>,
}

/// Analyzes every loop of `f` and plans its kernels.
pub fn analyze(f: &Function) -> Analysis {
    let loops = LoopTree::build(f);
    let verdicts: PerLoop<Verdict> = loops
        .loops
        .iter()
        .map(|(id, _)| (id, verdict::judge(f, &loops, id)))
        .collect();
    let plan = plan::plan(f, &loops, &verdicts);
    let constants = constant::place(f, &plan);
    let residency = residency::Residency::of(f, &plan, &constants);
    let in_range = bounds::InRange::of(f);
    Analysis {
        loops,
        verdicts,
        constants,
        residency,
        guards: guards::Guards::of(f, &in_range),
        in_range,
        host_moves: liveness::host_moves(f, &plan),
        plan,
    }
}

#[cfg(test)]
mod test_util {
    use m2cu_frontend::ir::Function;
    use m2cu_frontend::lower::{lower, LowerOptions};
    use m2cu_frontend::parser::parse_file;

    /// Lowers `body` as the body of `function y = f(x, n)` with a double row `x` and scalar `n`.
    pub fn function(body: &str) -> Function {
        let src = format!(
            "function y = f(x, n)\narguments\n  x (1,:) double\n  n (1,1) double\nend\n{body}\nend\n"
        );
        let file = parse_file(&src).expect("parses");
        let module = lower(&file, &LowerOptions::default()).expect("lowers");
        module.functions.into_iter().next().expect("one function")
    }

    /// The verdict of the first loop of [`function`]`(body)`.
    pub fn verdict_of_first_loop(body: &str) -> crate::Verdict {
        let f = function(body);
        let a = crate::analyze(&f);
        let (id, _) = a.loops.loops.iter().next().expect("a loop");
        a.verdicts[id].clone()
    }
}
